/* shm_room.c - symmetric memory never exceeds what /dev/shm can back: each PE asks shmem_malloc for MIB MiB and, when
 * it gets them, writes every page (a page /dev/shm cannot back would kill it with SIGBUS). Prints one line per PE:
 * "PE <me>: shmem_malloc(<MIB> MiB) = NULL" or "= ok"; run_shm_room.sh runs it on a small private /dev/shm.
 * Usage: rt_shm_room MIB [FILL_LEAVE_MIB]: with FILL_LEAVE_MIB, PE 0 first fills /dev/shm with a file of its own
 * until that many MiB are left (another job's use of it after shmem_init). */
#include <fcntl.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    size_t want = (size_t)strtoull(argv[1], NULL, 10) * MiB;
    shmem_init();
    int me = shmem_my_pe();
    if (argc > 2 && me == 0) {
        struct statvfs v;
        size_t leave = (size_t)strtoull(argv[2], NULL, 10) * MiB, free_b = 0;
        if (!statvfs("/dev/shm", &v))
            free_b = (size_t)v.f_bavail * v.f_frsize;
        int fd = open("/dev/shm/rt-shm-room-fill", O_CREAT | O_RDWR | O_TRUNC, 0600);
        if (fd < 0 || free_b <= leave || posix_fallocate(fd, 0, (off_t)(free_b - leave))) {
            printf("PE 0: cannot fill /dev/shm (%zu MiB free, leave %zu)\n", free_b / MiB, leave / MiB);
            shmem_global_exit(2);
        }
        close(fd);
    }
    shmem_barrier_all();
    char *p = shmem_malloc(want);
    if (p)
        memset(p, 1, want); /* SIGBUS here if /dev/shm cannot back it */
    shmem_barrier_all();
    printf("PE %d: shmem_malloc(%zu MiB) = %s\n", me, want / MiB, p ? "ok" : "NULL");
    fflush(stdout);
    shmem_free(p);
    /* after a refusal the heap still serves what fits */
    char *q = shmem_malloc(MiB);
    if (q)
        memset(q, 2, MiB);
    printf("PE %d: then shmem_malloc(1 MiB) = %s\n", me, q ? "ok" : "NULL");
    shmem_free(q);
    if (argc > 2 && me == 0)
        unlink("/dev/shm/rt-shm-room-fill");
    shmem_finalize();
    return 0;
}
