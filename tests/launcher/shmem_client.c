/* shmem_client.c - the launcher scenarios of boot_client through the public API, against the whole library:
 * shmem_init, barriers, a put around the ring, shmem_global_exit, crashes after init.  Usage: shmem_client MODE [PE
 * [CODE]] */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static long env_long(const char *name) {
    size_t n = strlen(name);
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return strtol(*e + n + 1, NULL, 10);
    return -1;
}
static const char *env_str(const char *name) {
    size_t n = strlen(name);
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return "none";
}

static int ring_dest;

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "ok";
    int target = argc > 2 ? atoi(argv[2]) : 1;
    int code = argc > 3 ? atoi(argv[3]) : 7;

    if (!strcmp(mode, "noinit-exit") && env_long("GSHMEM_RANK") == target)
        return 0;

    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    printf("PE %d of %d pid %d job %s backend api\n", me, n, (int)getpid(), env_str("GSHMEM_JOBID"));
    fflush(stdout);

    if (!strcmp(mode, "ok")) {
        int *buf = shmem_malloc(sizeof(int) * 1024);
        for (int it = 0; it < 50; it++) {
            shmem_int_p(&ring_dest, me * 1000 + it, (me + 1) % n);
            shmem_barrier_all();
            int want = ((me + n - 1) % n) * 1000 + it;
            if (ring_dest != want) {
                fprintf(stderr, "shmem_client: PE %d got %d, expected %d\n", me, ring_dest, want);
                return 3;
            }
            shmem_barrier_all();
        }
        shmem_free(buf);
        shmem_finalize();
        printf("PE %d done\n", me);
        return 0;
    }
    shmem_barrier_all();
    if (me == target) {
        if (!strcmp(mode, "abort"))
            shmem_global_exit(code);
        if (!strcmp(mode, "segv")) {
            /* A sanitizer's handler (SA_SIGINFO) would turn the crash into exit(1): the default action instead. The
             * library's own (it removes the libfabric shm provider's regions, then re-raises) stays. */
            struct sigaction now;
            if (!sigaction(SIGSEGV, NULL, &now) && (now.sa_flags & SA_SIGINFO))
                signal(SIGSEGV, SIG_DFL);
            raise(SIGSEGV);
        }
        if (!strcmp(mode, "shmleak"))
            raise(SIGKILL);
        if (!strcmp(mode, "exit0"))
            _exit(0);
        if (!strcmp(mode, "exit5"))
            _exit(5);
        if (!strcmp(mode, "misuse"))
            shmem_int_p(&ring_dest, 1, n + 5); /* PE out of range: the library aborts */
    }
    if (!strcmp(mode, "hang"))
        for (;;)
            pause();
    shmem_barrier_all(); /* the others wait here until oshrun tears them down */
    shmem_finalize();
    return 0;
}
