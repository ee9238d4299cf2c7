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
