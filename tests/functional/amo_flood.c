/* amo_flood.c - many non-fetching atomics in flight at once (no quiet between them) from every PE to random PEs,
 * with a fetching one now and then: exact totals after one quiet and a barrier. Over the network this fills the
 * provider's queues and, where atomics travel as messages, the targets' receive buffers: nothing may be lost,
 * applied twice or deadlock. */
#include "ftest.h"

#define MAXPE 64

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 20000;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > MAXPE)
        return ftest_skip("more than 64 PEs");
    long *ctr = shmem_calloc(MAXPE, sizeof(long)); /* ctr[src]: adds received from PE src */
    long *tick = shmem_calloc(1, sizeof(long));
    shmem_barrier_all();
    unsigned seed = 1234u + (unsigned)me;
    long fetched = 0;
    for (long i = 0; i < n; i++) {
        shmem_long_atomic_add(&ctr[me], 1, rand_r(&seed) % npes);
        if ((i & 511) == 0)
            fetched += shmem_long_atomic_fetch_add(tick, 1, (me + 1) % npes) >= 0;
    }
    shmem_quiet();
    shmem_barrier_all();
    long total[MAXPE] = {0}, got[MAXPE];
    for (int pe = 0; pe < npes; pe++) {
        shmem_getmem(got, ctr, (size_t)npes * sizeof(long), pe);
        for (int k = 0; k < npes; k++)
            total[k] += got[k];
    }
    for (int k = 0; k < npes; k++)
        CHECK(total[k] == n, "adds from PE %d: %ld landed, want %ld", k, total[k], n);
    CHECK(*tick == (n + 511) / 512, "fetch-add counter %ld, want %ld", *tick, (n + 511) / 512);
    CHECK(fetched == (n + 511) / 512, "%ld fetch-adds returned, want %ld", fetched, (n + 511) / 512);
    shmem_barrier_all();
    return ftest_finish("amo_flood");
}
