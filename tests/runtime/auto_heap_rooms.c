/* auto_heap_rooms.c - a job whose PEs' nodes have different room in /dev/shm, so SHMEM_SYMMETRIC_SIZE=auto sizes each
 * PE's heap differently before shmem_init's one exchange: every PE must then use the least (run_auto_heap_rooms.sh).
 * Usage: rt_auto_heap_rooms TOO_MANY_MIB OK_MIB: the first request is more than the least heap, the second fits. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 3)
        return 2;
    size_t too_many = (size_t)atol(argv[1]) << 20, ok = (size_t)atol(argv[2]) << 20;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n, prev = (me + n - 1) % n;
    char *big = shmem_malloc(too_many); /* collective: NULL on every PE, or on none */
    printf("PE %d: shmem_malloc(%s MiB) = %s\n", me, argv[1], big ? "ok" : "NULL");
    char *p = shmem_malloc(ok);
    if (!p) {
        printf("PE %d: shmem_malloc(%s MiB) = NULL\n", me, argv[2]);
        shmem_global_exit(1);
    }
    long *last = (long *)(p + ok) - 1; /* the far end of the block, on the neighbour: through the network */
    *last = -1;
    shmem_barrier_all();
    shmem_long_p(last, 1000 + me, next);
    shmem_barrier_all();
    printf("PE %d: shmem_malloc(%s MiB) = ok, its last word from PE %d: %s\n", me, argv[2], prev,
           *last == 1000 + prev ? "right" : "wrong");
    shmem_free(p);
    if (big)
        shmem_free(big);
    shmem_finalize();
    return 0;
}
