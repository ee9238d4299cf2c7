/* boot_rounds.c - a job that starts, writes to its neighbour's static and heap memory, and ends: what
 * run_boot_rounds.sh runs to count the bootstrap exchanges of shmem_init (issue 41) and to check that what they
 * carried (segments, the network's addresses and keys) reaches every peer. */
#include <shmem.h>
#include <stdio.h>

static long mark;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
    long *slot = shmem_malloc(sizeof *slot);
    *slot = -1;
    shmem_barrier_all();
    shmem_long_p(&mark, me + 1, next);
    shmem_long_p(slot, me + 100, next);
    shmem_barrier_all();
    int prev = (me + n - 1) % n, bad = mark != prev + 1 || *slot != prev + 100;
    if (bad)
        fprintf(stderr, "PE %d: got %ld and %ld from PE %d, expected %d and %d\n", me, mark, *slot, prev, prev + 1,
                prev + 100);
    shmem_free(slot);
    shmem_finalize();
    return bad;
}
