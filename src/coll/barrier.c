/* sync.c - barrier_all/sync_all and distributed locks.
 * Every wait backs off so oversubscribed PEs do not starve the one they wait for. */
#include "coll/coll.h"
#include "state.h"

/* barrier_all/sync_all are the world team's flat epoch barrier (src/coll/coll.c): each PE publishes its epoch and
 * polls the others'. On one node that beats a dissemination barrier, most of all when PEs outnumber cores (4 PEs on
 * 2 cores: 1.7 us against 2.7 us), since a PE needs to be scheduled once to arrive and once to leave. */
void shmemi_barrier_internal(void) { shmemi_team_sync_internal(&gshmem_team_world, "shmem_barrier_all"); }

void shmem_barrier_all(void) {
    shmemi_check_init("shmem_barrier_all");
    shmem_quiet(); /* our puts are visible before anyone leaves */
    shmemi_barrier_internal();
}

void shmem_sync_all(void) {
    shmemi_check_init("shmem_sync_all");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    shmemi_barrier_internal();
}

/* Locks: the lock word on PE 0 holds 0 when free, owner+1 when held. A mapped word takes CPU atomics; otherwise
 * (PE 0 on another node, or atomics going through the fabric) the lock is fabric compare-and-swap on it. */
static long *lock_word(long *lock, const char *fn) {
    shmemi_check_init(fn);
    if (!lock)
        shmemi_err_null(fn, "lock");
    struct shmemi_seg *sg;
    size_t off;
    char *w = shmemi_resolve(lock, sizeof *lock, 0, fn, &sg, &off);
    return shmemi_rt.amo_net ? NULL : (long *)(void *)w;
}

static int try_acquire(long *w, long *lock, const char *fn) {
    long expected = 0, me = (long)shmemi_rt.my_pe + 1;
    if (!w)
        return shmemi_amo(SHMEM_CTX_DEFAULT, SHMEMI_AMO_CSWAP, lock, (uint64_t)me, 0, sizeof(long), 0, fn) == 0;
    return __atomic_load_n(w, __ATOMIC_RELAXED) == 0 &&
           __atomic_compare_exchange_n(w, &expected, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void shmem_set_lock(long *lock) {
    const char *fn = "shmem_set_lock";
    long *w = lock_word(lock, fn);
    SHMEMI_WAIT_FOR(try_acquire(w, lock, fn), fn);
}

int shmem_test_lock(long *lock) {
    const char *fn = "shmem_test_lock";
    long *w = lock_word(lock, fn);
    return try_acquire(w, lock, fn) ? 0 : 1;
}

void shmem_clear_lock(long *lock) {
    const char *fn = "shmem_clear_lock";
    long *w = lock_word(lock, fn);
    long held = w ? __atomic_load_n(w, __ATOMIC_RELAXED)
                  : (long)shmemi_amo(SHMEM_CTX_DEFAULT, SHMEMI_AMO_FETCH, lock, 0, 0, sizeof(long), 0, fn);
    if (held != (long)shmemi_rt.my_pe + 1)
        shmemi_fatal(fn, "this PE does not hold the lock at %p (%s); call shmem_set_lock first", (void *)lock,
                     held ? "another PE holds it" : "it is free");
    shmem_quiet(); /* the protected updates complete before release */
    if (w)
        __atomic_store_n(w, 0L, __ATOMIC_RELEASE);
    else
        shmemi_amo(SHMEM_CTX_DEFAULT, SHMEMI_AMO_SET, lock, 0, 0, sizeof(long), 0, fn);
    shmemi_ring_all(); /* waiters sleep on their own PE's bell */
}
