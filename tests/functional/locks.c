/* locks.c - distributed locks: set_lock/clear_lock make a get-modify-put of a counter on PE 0 atomic across all
 * PEs (exact total), test_lock returns 0 when it takes the lock and non-zero while another PE holds it. */
#include "ftest.h"

#define ITERS 100

static long lock_bss; /* .bss lock, must start at 0 */
long lock_data = 0;   /* .data lock */
static long counter;
static long holder = -1;

static void counter_under_lock(long *lock, const char *where, int use_test) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (me == 0)
        counter = 0;
    shmem_barrier_all();
    for (int i = 0; i < ITERS; i++) {
        if (use_test) {
            while (shmem_test_lock(lock) != 0) {
            }
        } else {
            shmem_set_lock(lock);
        }
        /* not atomic on its own: another PE inside would lose an update */
        long v = shmem_long_g(&counter, 0);
        long h = shmem_long_atomic_swap(&holder, me, 0);
        CHECK(h == -1, "%s: PE %ld was inside the lock too", where, h);
        shmem_long_p(&counter, v + 1, 0);
        shmem_long_atomic_set(&holder, -1, 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter == (long)ITERS * npes, "%s%s: counter %ld want %ld", where, use_test ? " (test_lock)" : "",
              counter, (long)ITERS * npes);
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *lock_heap = shmem_calloc(1, sizeof(long));
    REQUIRE(lock_heap, "shmem_calloc");
    shmem_barrier_all();
    counter_under_lock(lock_heap, "heap lock", 0);
    counter_under_lock(&lock_bss, "bss lock", 0);
    counter_under_lock(&lock_data, "data lock", 1);
    counter_under_lock(lock_heap, "heap lock", 1);

    /* test_lock return values: PE 0 holds the lock, everyone else must fail to take it */
    static long flag;
    if (me == 0) {
        int r = shmem_test_lock(&lock_bss);
        CHECK(r == 0, "test_lock on a free lock returned %d", r);
    }
    shmem_barrier_all();
    if (me != 0) {
        int r = shmem_test_lock(&lock_bss);
        CHECK(r != 0, "test_lock on a lock held by PE 0 returned 0");
        if (r == 0)
            shmem_clear_lock(&lock_bss);
    }
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(&lock_bss);
    /* after release, exactly one PE wins a round of test_lock */
    shmem_barrier_all();
    static long winners;
    int r = shmem_test_lock(&lock_bss);
    if (r == 0)
        shmem_long_atomic_inc(&winners, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(winners == 1, "%ld PEs took a free lock with test_lock at once", winners);
    if (r == 0)
        shmem_clear_lock(&lock_bss);
    shmem_barrier_all();
    /* set_lock blocks while another PE holds it: PE 0 holds, sets a flag after a while, then releases */
    if (npes > 1) {
        if (me == 0) {
            shmem_set_lock(lock_heap);
            shmem_barrier_all();
            for (volatile int spin = 0; spin < 200000; spin++) {
            }
            for (int pe = 0; pe < npes; pe++)
                shmem_long_p(&flag, 1, pe);
            shmem_quiet();
            shmem_clear_lock(lock_heap);
        } else {
            shmem_barrier_all();
            shmem_set_lock(lock_heap);
            CHECK(flag == 1, "set_lock returned while PE 0 still held the lock");
            shmem_clear_lock(lock_heap);
        }
    }
    shmem_barrier_all();
    shmem_free(lock_heap);
    return ftest_finish("locks");
}
