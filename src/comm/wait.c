/* wait.c - back-off waiting (spin, yield, then sleep on a futex until a peer's write rings this PE: core/bell.c) and
 * the point-to-point synchronization routines built on it. PEs are oversubscribed in practice: never spin forever. */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "comm/comm.h"
#include "gpu/gtl.h"
#include "transport/ofi/ofi.h"

/* a word the CPU may read: not GPU memory (a waiter on that is rung on any traffic) */
static int watchable(const void *p, size_t len) {
    return p && (len == 1 || len == 2 || len == 4 || len == 8) && !((uintptr_t)p & (len - 1)) &&
           !(SHMEMI_UNLIKELY(shmemi_rt.gpu) && shmemi_dev_local(p));
}

static void futex_wait(uint32_t *addr, uint32_t val, long ns) {
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, NULL, 0);
}

void shmemi_waiter_pause(struct shmemi_waiter *w) {
    unsigned long spin = shmemi_rt.wait_spin, yld = (unsigned long)shmemi_env.wait_yield;
    /* Past its spin and yields: blocked, as far as the job can tell. Counted in turns since the wait began, not in
     * `iter`, which serving a peer's request resets: a waiter that serves the other waiters' looks at the job (each
     * a read of every PE's life word, every SCAN_NS) would otherwise never count as blocked nor look itself, and a
     * job whose PE left ended only when the traffic happened to pause (4 PEs over tcp: 4-40 s instead of 3-5) */
    if (SHMEMI_UNLIKELY(++w->turns > spin + yld))
        shmemi_life_tick(w);
    if (shmemi_ofi_up) {
        /* Drive the network ourselves while spinning: data lands without a switch to the progress thread. A
         * network round trip is tens of microseconds, so stay awake (yielding) longer before sleeping: a peer's
         * get or atomic on this PE is then served at once instead of after the progress thread wakes up. */
        if (!w->driving) { /* the progress thread stands down while we drive */
            w->driving = 1;
            shmemi_ofi_driving(SHMEMI_DRIVE_START);
        }
        /* Every turn: a progress call (a system call with sockets) is pause enough, and a peer's get or atomic
         * waits for the next one. Serving peers' atomic messages is work: a waiter that just did some starts its
         * spin again instead of going to sleep and leaving the next one to the progress thread (a thread switch per
         * request). */
        if (shmemi_ofi_progress() > 0) {
            w->iter = 0;
            if (w->sleeping) { /* awake again: no longer counted among the sleepers */
                shmemi_watch_clear();
                __atomic_fetch_sub(&shmemi_rt.ctl[shmemi_rt.my_pe]->sleepers, 1, __ATOMIC_SEQ_CST);
                w->sleeping = 0;
                w->sleeps = 0;
            }
        }
        if (!shmemi_env.ofi_progress && w->iter >= spin) { /* no progress thread to ring us: never sleep */
            sched_yield();
            w->iter++;
            return;
        }
    }
    if (w->iter < spin) {
        shmemi_cpu_relax();
        w->iter++;
        return;
    }
    if (w->iter < spin + yld) {
        sched_yield();
        w->iter++;
        return;
    }
    struct shmemi_ctl *me = shmemi_rt.ctl[shmemi_rt.my_pe];
    if (!w->sleeping) {
        int32_t seg = SHMEMI_WAITON_INTERNAL;
        size_t off = 0;
        if (w->addr) {
            struct shmemi_seg *s = shmemi_find_seg(w->addr, &off);
            seg = s ? (int32_t)(s - shmemi_rt.segs) : SHMEMI_WAITON_ANY;
        }
        /* publish the target before raising sleepers, so a writer that sees us asleep sees what we wait on */
        if (__atomic_load_n(&me->sleepers, __ATOMIC_ACQUIRE) == 0) {
            __atomic_store_n(&me->wait_lo, (uint64_t)off, __ATOMIC_RELAXED);
            __atomic_store_n(&me->wait_hi, (uint64_t)(off + w->len), __ATOMIC_RELAXED);
            __atomic_store_n(&me->wait_seg, seg, __ATOMIC_RELEASE);
        } else if (__atomic_load_n(&me->wait_seg, __ATOMIC_RELAXED) != seg || seg >= 0) {
            __atomic_store_n(&me->wait_seg, (int32_t)SHMEMI_WAITON_ANY, __ATOMIC_RELEASE);
        }
        if (shmemi_ofi_up)
            shmemi_watch_set(w->addr, w->len, watchable(w->addr, w->len), 1);
        __atomic_fetch_add(&me->sleepers, 1, __ATOMIC_SEQ_CST);
        w->sleeping = 1;
    } else if (shmemi_ofi_up) {
        shmemi_watch_set(w->addr, w->len, watchable(w->addr, w->len),
                         0); /* the word may have changed without satisfying the wait: snapshot it again */
    }
    w->seq = __atomic_load_n(&me->bell, __ATOMIC_SEQ_CST);
}

void shmemi_waiter_sleep(struct shmemi_waiter *w) {
    /* The timeout covers a wake-up lost to a writer that checked `sleepers` just before we raised it, and writers
     * that do not ring (local threads); it grows so a long wait costs little CPU. */
    long ns = 50000L << (w->sleeps < 5 ? w->sleeps : 5);
    w->sleeps++;
    if (w->driving) { /* asleep, we drive nothing: the progress thread takes over and rings us */
        w->driving = 0;
        shmemi_ofi_driving(SHMEMI_DRIVE_HANDOFF);
    }
    futex_wait(&shmemi_rt.ctl[shmemi_rt.my_pe]->bell, w->seq, ns);
}

void shmemi_waiter_done(struct shmemi_waiter *w) {
    if (w->blocked)
        shmemi_life_unblock(w);
    if (w->driving)
        shmemi_ofi_driving(SHMEMI_DRIVE_STOP);
    if (w->sleeping && shmemi_ofi_up)
        shmemi_watch_clear();
    if (w->sleeping)
        __atomic_fetch_sub(&shmemi_rt.ctl[shmemi_rt.my_pe]->sleepers, 1, __ATOMIC_SEQ_CST);
}

/* ---- comparisons on typed variables ---- */

struct dt_info {
    unsigned char size, is_signed;
    unsigned char dev; /* the variables are GPU memory: read through the GPU layer */
};

static const struct dt_info dt_table[SHMEMI_DT_COUNT] = {
    [SHMEMI_DT_CHAR] = {sizeof(char), (char)-1 < 0},
    [SHMEMI_DT_SCHAR] = {1, 1},
    [SHMEMI_DT_SHORT] = {sizeof(short), 1},
    [SHMEMI_DT_INT] = {sizeof(int), 1},
    [SHMEMI_DT_LONG] = {sizeof(long), 1},
    [SHMEMI_DT_LONGLONG] = {sizeof(long long), 1},
    [SHMEMI_DT_UCHAR] = {1, 0},
    [SHMEMI_DT_USHORT] = {sizeof(unsigned short), 0},
    [SHMEMI_DT_UINT] = {sizeof(unsigned int), 0},
    [SHMEMI_DT_ULONG] = {sizeof(unsigned long), 0},
    [SHMEMI_DT_ULONGLONG] = {sizeof(unsigned long long), 0},
    [SHMEMI_DT_INT8] = {1, 1},
    [SHMEMI_DT_INT16] = {2, 1},
    [SHMEMI_DT_INT32] = {4, 1},
    [SHMEMI_DT_INT64] = {8, 1},
    [SHMEMI_DT_UINT8] = {1, 0},
    [SHMEMI_DT_UINT16] = {2, 0},
    [SHMEMI_DT_UINT32] = {4, 0},
    [SHMEMI_DT_UINT64] = {8, 0},
    [SHMEMI_DT_SIZE] = {sizeof(size_t), 0},
    [SHMEMI_DT_PTRDIFF] = {sizeof(ptrdiff_t), 1},
};

/* Loads one element atomically (a peer may be writing it) as a 64-bit value of the right signedness. */
static inline uint64_t load_elem(const void *p, struct dt_info t, int atomic) {
    uint64_t tmp;
    if (SHMEMI_UNLIKELY(atomic && t.dev)) { /* an aligned GPU copy of one element is not torn */
        shmemi_gtl_copy(&tmp, p, t.size, "shmem_wait_until");
        p = &tmp;
        atomic = 0;
    }
    switch (t.size) {
    case 1: {
        uint8_t v = atomic ? __atomic_load_n((const uint8_t *)p, __ATOMIC_ACQUIRE) : *(const uint8_t *)p;
        return t.is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
    }
    case 2: {
        uint16_t v = atomic ? __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE) : *(const uint16_t *)p;
        return t.is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v = atomic ? __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE) : *(const uint32_t *)p;
        return t.is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: return atomic ? __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE) : *(const uint64_t *)p;
    }
}

static inline int compare(uint64_t a, uint64_t b, int cmp, int is_signed) {
    int r = is_signed ? ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b) : (a > b) - (a < b);
    switch (cmp) {
    case SHMEM_CMP_EQ: return r == 0;
    case SHMEM_CMP_NE: return r != 0;
    case SHMEM_CMP_GT: return r > 0;
    case SHMEM_CMP_GE: return r >= 0;
    case SHMEM_CMP_LT: return r < 0;
    default: return r <= 0;
    }
}

static struct dt_info check_args(const void *ivar, size_t n, int cmp, int dtype, const char *fn) {
    shmemi_check_init(fn);
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        shmemi_fatal(fn, "comparison operator %d is not one of SHMEM_CMP_EQ/NE/GT/GE/LT/LE", cmp);
    struct dt_info t = dt_table[dtype];
    if (n) {
        size_t off;
        struct shmemi_seg *s = ivar ? shmemi_find_seg(ivar, &off) : NULL;
        if (!ivar)
            shmemi_err_null(fn, "ivars");
        if (!s || n * t.size > s->size - off)
            shmemi_fatal(fn,
                         "the variable at %p is not symmetric; wait on memory from shmem_malloc or a "
                         "global/static variable",
                         ivar);
        t.dev = s->kind == SHMEMI_MEM_DEVICE && !shmemi_rt.gpu_cpu_max; /* coherent: the CPU loads it */
    }
    return t;
}

static inline int satisfied(const void *ivar, int cmp, const void *value, struct dt_info t) {
    return compare(load_elem(ivar, t, 1), load_elem(value, t, 0), cmp, t.is_signed);
}

void shmemi_wait_until(void *ivar, int cmp, const void *value, int dtype, const char *fn) {
    struct dt_info t = check_args(ivar, 1, cmp, dtype, fn);
    SHMEMI_WAIT_FOR_VAR(satisfied(ivar, cmp, value, t), ivar, t.size, fn);
}

int shmemi_test(void *ivar, int cmp, const void *value, int dtype, const char *fn) {
    struct dt_info t = check_args(ivar, 1, cmp, dtype, fn);
    return satisfied(ivar, cmp, value, t);
}

/* One pass over the set: for ALL, whether every unmasked element holds (stopping at the first that does not);
 * for ANY, the first index that holds; for SOME, how many indices were written. */
static size_t scan(int mode, const char *ivars, size_t n, const int *status, size_t *indices, int cmp,
                   const char *values, int vec, struct dt_info t, size_t *start) {
    size_t found = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = (*start + k) % n;
        if (status && status[i])
            continue;
        int ok = satisfied(ivars + i * t.size, cmp, values + (vec ? i * t.size : 0), t);
        if (mode == SHMEMI_WAIT_ALL) {
            if (!ok) {
                *start = i; /* resume at the first unsatisfied element next time */
                return 0;
            }
        } else if (ok) {
            if (mode == SHMEMI_WAIT_ANY) {
                *start = (i + 1) % n; /* rotate so repeated calls do not starve later elements */
                return i + 1;
            }
            indices[found] = i;
            found++;
        }
    }
    return mode == SHMEMI_WAIT_ALL ? 1 : found;
}

size_t shmemi_wait_set(int mode, int block, void *ivars, size_t nelems, const int *status, size_t *indices, int cmp,
                       const void *values, int vec, int dtype, const char *fn) {
    struct dt_info t = check_args(ivars, nelems, cmp, dtype, fn);
    if (nelems && !values)
        shmemi_err_null(fn, vec ? "cmp_values" : "cmp_value");
    if (mode == SHMEMI_WAIT_SOME && nelems && !indices)
        shmemi_err_null(fn, "indices");
    size_t active = 0;
    for (size_t i = 0; i < nelems; i++)
        active += !(status && status[i]);
    if (!active)
        return mode == SHMEMI_WAIT_ALL ? 1 : (mode == SHMEMI_WAIT_ANY ? SIZE_MAX : 0);
    static __thread size_t any_start;
    size_t start = mode == SHMEMI_WAIT_ANY ? any_start % nelems : 0, r;
    if (block)
        SHMEMI_WAIT_FOR_VAR((r = scan(mode, ivars, nelems, status, indices, cmp, values, vec, t, &start)) != 0, ivars,
                            nelems * t.size, fn);
    else
        r = scan(mode, ivars, nelems, status, indices, cmp, values, vec, t, &start);
    if (mode == SHMEMI_WAIT_ANY) {
        any_start = start;
        return r ? r - 1 : SIZE_MAX;
    }
    return r;
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    shmemi_wait_until(sig_addr, cmp, &cmp_value, SHMEMI_DT_UINT64, "shmem_signal_wait_until");
    return shmem_signal_fetch(sig_addr);
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr) {
    shmemi_check_init("shmem_signal_fetch");
    uint64_t v;
    if (SHMEMI_UNLIKELY(shmemi_dev_local(sig_addr))) {
        shmemi_gtl_copy(&v, sig_addr, sizeof v, "shmem_signal_fetch");
        return v;
    }
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
