/* sync.c - barrier_all/sync_all (a dissemination barrier over the mapped control blocks) and distributed locks.
 * Every wait backs off so oversubscribed PEs do not starve the one they wait for. */
#include "state.h"

void shmemi_barrier_internal(void) {
    int n = shmemi_rt.n_pes, me = shmemi_rt.my_pe;
    if (n == 1)
        return;
    uint64_t epoch = ++shmemi_rt.barrier_epoch;
    struct shmemi_ctl *mine = shmemi_rt.ctl[me];
    /* A partner can be at most one barrier ahead, so it writes epoch or epoch+1: ">=" is enough. */
    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        int to = (me + dist) % n;
        __atomic_store_n(&shmemi_rt.ctl[to]->barrier[r], epoch, __ATOMIC_RELEASE);
        shmemi_ring_force(to);
        SHMEMI_WAIT_FOR(__atomic_load_n(&mine->barrier[r], __ATOMIC_ACQUIRE) >= epoch);
    }
}

void shmem_barrier_all(void) {
    shmemi_check_init("shmem_barrier_all");
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* quiet: our puts are visible before anyone leaves */
    shmemi_barrier_internal();
}

void shmem_sync_all(void) {
    shmemi_check_init("shmem_sync_all");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    shmemi_barrier_internal();
}

/* Locks: the lock word on PE 0 holds 0 when free, owner+1 when held. */
static long *lock_word(long *lock, const char *fn) {
    shmemi_check_init(fn);
    if (!lock)
        shmemi_err_null(fn, "lock");
    return (long *)(void *)shmemi_xlate(lock, sizeof *lock, 0, fn);
}

static int try_acquire(long *w) {
    long expected = 0;
    return __atomic_load_n(w, __ATOMIC_RELAXED) == 0 &&
           __atomic_compare_exchange_n(w, &expected, (long)shmemi_rt.my_pe + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void shmem_set_lock(long *lock) {
    long *w = lock_word(lock, "shmem_set_lock");
    SHMEMI_WAIT_FOR(try_acquire(w));
}

int shmem_test_lock(long *lock) {
    long *w = lock_word(lock, "shmem_test_lock");
    return try_acquire(w) ? 0 : 1;
}

void shmem_clear_lock(long *lock) {
    const char *fn = "shmem_clear_lock";
    long *w = lock_word(lock, fn);
    long held = __atomic_load_n(w, __ATOMIC_RELAXED);
    if (held != (long)shmemi_rt.my_pe + 1)
        shmemi_fatal(fn, "this PE does not hold the lock at %p (%s); call shmem_set_lock first", (void *)lock,
                     held ? "another PE holds it" : "it is free");
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* quiet: the protected updates complete before release */
    __atomic_store_n(w, 0L, __ATOMIC_RELEASE);
    shmemi_ring_all(); /* waiters sleep on their own PE's bell */
}
