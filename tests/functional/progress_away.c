/* progress_away.c - one-sided operations on PEs that compute outside the library. PE 0 keeps the others waiting in a
 * barrier for a while (over the network their progress threads leave during such a long wait and must be back when
 * the wait ends), then reads, adds to and writes every other PE while they spin on a local word without calling
 * OpenSHMEM. Each stops when PE 0's put reaches that word, or fails after a deadline: nothing may depend on the
 * target calling into the library. Run with SHMEM_WAIT_SPIN set high so the barrier wait never sleeps. */
#include "ftest.h"
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int ops = argc > 1 ? atoi(argv[1]) : 200;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *ctr = shmem_calloc(1, sizeof(long));
    long *data = shmem_calloc(1, sizeof(long));
    long *stop = shmem_calloc(1, sizeof(long));
    *data = 1000 + me;
    for (int round = 0; round < 2; round++) {
        if (me == 0)
            usleep(200000); /* the others wait in the barrier meanwhile */
        shmem_barrier_all();
        if (me != 0) {
            double deadline = now() + 30.0;
            while (__atomic_load_n(stop, __ATOMIC_ACQUIRE) != round + 1 && now() < deadline)
                ; /* computing: no OpenSHMEM call */
            CHECK(*stop == round + 1,
                  "round %d: PE 0's operations were not served in 30 s while this PE computed "
                  "outside the library (stop word %ld)",
                  round, *stop);
        } else {
            for (int pe = 1; pe < npes; pe++) {
                for (int i = 0; i < ops; i++) {
                    long old = shmem_long_atomic_fetch_add(ctr, 1, pe);
                    CHECK(old == (long)round * ops + i, "round %d: fetch-add on PE %d returned %ld, want %ld", round,
                          pe, old, (long)round * ops + i);
                    long v = shmem_long_g(data, pe);
                    CHECK(v == 1000 + pe, "round %d: get from PE %d returned %ld", round, pe, v);
                }
                shmem_long_atomic_set(stop, round + 1, pe);
            }
            shmem_quiet();
        }
        shmem_barrier_all();
        CHECK(me == 0 || *ctr == (long)(round + 1) * ops, "round %d: counter %ld, want %ld", round, *ctr,
              (long)(round + 1) * ops);
    }
    shmem_barrier_all();
    return ftest_finish("progress_away");
}
