/* bell.c - waking a PE's sleeping waiters: a writer rings the futex word in the target's control block only when a
 * waiter there sleeps on what it wrote; after network traffic the progress thread rings when the watched word
 * changed. The waiting itself is comm/wait.c's. */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "state.h"

static void wake(struct shmemi_ctl *c) {
    __atomic_fetch_add(&c->bell, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &c->bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void shmemi_ring_slow(struct shmemi_ctl *c, const void *addr, size_t len) {
    int ws = __atomic_load_n(&c->wait_seg, __ATOMIC_ACQUIRE);
    if (ws == SHMEMI_WAITON_INTERNAL)
        return;
    if (ws != SHMEMI_WAITON_ANY) {
        size_t off;
        struct shmemi_seg *s = shmemi_find_seg(addr, &off);
        if (!s || s - shmemi_rt.segs != ws || off >= __atomic_load_n(&c->wait_hi, __ATOMIC_RELAXED) ||
            off + len <= __atomic_load_n(&c->wait_lo, __ATOMIC_RELAXED))
            return;
    }
    wake(c);
}

void shmemi_ring_force(int pe) {
    struct shmemi_ctl *c = shmemi_rt.ctl[pe];
    if (c && __atomic_load_n(&c->sleepers, __ATOMIC_RELAXED)) /* a peer off this node: its progress thread rings */
        wake(c);
}

void shmemi_ring_all(void) {
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++)
        if (shmemi_rt.ctl[pe])
            shmemi_ring_force(pe);
}

/* ---- waking sleepers after network traffic ----
 * Data from the network lands silently (the progress thread sees bytes on a socket, not which word changed). So a
 * thread going to sleep leaves a snapshot of the word it waits on, and the progress thread rings this PE's bell only
 * when that word changed: serving a peer's get or atomic does not wake a PE that waits for something else. A wait on
 * several words, or several sleeping threads, fall back to ringing after every burst of traffic. */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int n;         /* threads asleep with a watch */
    int any;       /* ring on any traffic */
    const void *p; /* the watched word (n == 1, !any) */
    size_t len;
    uint64_t snap;
} watch;

static uint64_t read_word(const void *p, size_t len) {
    uint64_t v = 0;
    switch (len) {
    case 1: v = __atomic_load_n((const uint8_t *)p, __ATOMIC_ACQUIRE); break;
    case 2: v = __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE); break;
    case 4: v = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE); break;
    default: v = __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE); break;
    }
    return v;
}

void shmemi_watch_set(const void *p, size_t len, int watchable, int first) {
    pthread_mutex_lock(&watch_lock);
    if (first)
        watch.n++;
    if (watch.n > 1 || !watchable) {
        watch.any = 1;
    } else {
        watch.any = 0;
        watch.p = p;
        watch.len = len;
        watch.snap = read_word(p, len);
    }
    pthread_mutex_unlock(&watch_lock);
}

void shmemi_watch_clear(void) {
    pthread_mutex_lock(&watch_lock);
    if (--watch.n == 0)
        watch.any = 0;
    pthread_mutex_unlock(&watch_lock);
}

void shmemi_wake_after_traffic(void) {
    struct shmemi_ctl *me = shmemi_rt.ctl[shmemi_rt.my_pe];
    if (!__atomic_load_n(&me->sleepers, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&watch_lock);
    int ring = watch.n == 0 || watch.any || read_word(watch.p, watch.len) != watch.snap;
    pthread_mutex_unlock(&watch_lock);
    if (ring)
        wake(me);
}
