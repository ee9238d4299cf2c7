/* shmem-perf - OpenSHMEM point-to-point, AMO, barrier, collective and bandwidth microbenchmarks with a memcpy
 * reference. Uses only the public OpenSHMEM API so the same source builds against any 1.4+ implementation (1.5 parts
 * guarded). Collectives use the 1.5 team forms where the library is 1.5, the active-set forms (pSync, pWrk) otherwise
 * or with --aset. */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PERF_HAVE_15 (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105)

/* GPU memory (--src/--dst device): the HPE memory-space API and the GPU auxiliary spec's SHMEM_DEVICE_HOST_INIT,
 * where the library has them (gshmem); shmem-perf itself links no GPU library. */
#if defined(__has_include)
#if __has_include(<shmemg.h>)
#include <shmemg.h>
#include <shmemx.h>
#define PERF_HAVE_SPACES 1
#endif
#endif
#ifndef PERF_HAVE_SPACES
#define PERF_HAVE_SPACES 0
#endif

#define KIB 1024UL
#define MIB (1024UL * 1024UL)

enum unit { UNIT_US, UNIT_GBS };

/* How one timed point is run: every PE calls run(); only PE 0's elapsed time counts. */
struct test {
    const char *name;
    const char *desc;
    enum unit unit;
    int sized;     /* message size varies (else one point at .size_fixed) */
    int bandwidth; /* default size range is the bandwidth one; iterations are windows */
    size_t size_fixed;
    int (*available)(void);
    double (*run)(size_t size, long iters);
    int all_pes;               /* every PE loops; the time reported is the slowest PE's */
    int coll;                  /* moves data between all PEs: sizes in whole 64-bit words, result checked */
    int (*check)(size_t size); /* one verified call after the timing; 0 when the result is right */
};

static struct {
    long min_iters;    /* at least this many iterations per latency point */
    long bw_min_iters; /* at least this many windows per bandwidth point */
    long max_iters;
    double target_s; /* at least this long per repetition */
    double max_s;    /* ...but stop growing the count past this */
    int reps;
    size_t min_size, max_size;
    int user_max; /* --max given: applies to bandwidth tests too */
    int factor;
    int window;
    const char *json;
    int quick;
    int aset;             /* collectives through the active-set forms (always so below OpenSHMEM 1.5) */
    int per_pe;           /* print every PE's time per call for the all-PE tests */
    int src_dev, dst_dev; /* --src/--dst device: the point-to-point tests' source, destination in GPU memory */
    int cpu_clock;        /* --clock cpu: PE 0's thread CPU time instead of wall time */
    long offset;          /* --offset: buffers start this many bytes past a page boundary; -1: where allocated */
} opt = {
    .min_iters = 1000,
    .bw_min_iters = 20,
    .max_iters = 1L << 23,
    .target_s = 0.05,
    .max_s = 1.0,
    .reps = 3,
    .min_size = 8,
    .max_size = 1 * MIB,
    .factor = 2,
    .window = 64,
    .offset = -1,
};

static int me, npes;
static char impl_name[SHMEM_MAX_NAME_LEN + 1];

/* symmetric objects */
static long ctl_word;   /* PE 0 -> all: broadcast of iteration counts */
static long pp_flag;    /* ping-pong flag */
static long amo_target; /* AMO target on PE 1 */
#if PERF_HAVE_15
static uint64_t sig_word;
#endif
static char *sym_a, *sym_b;                     /* symmetric buffers, max size each */
static char *loc_a, *loc_b;                     /* private buffers, max size each */
static char *sym_a0, *sym_b0, *loc_a0, *loc_b0; /* as allocated: the buffers above start --offset past a page */
/* the point-to-point data tests' buffers: the remote and local sides of puts and gets (host: sym_a, loc_a, loc_b;
 * with --src/--dst device, GPU heap objects instead: a put's target and a get's source are the remote side) */
static char *put_dst, *put_src, *get_src, *get_dst;
static char *dev_remote, *dev_local;
static size_t buf_size;
static long pp_seq; /* last ping-pong value used; identical on PE 0 and PE 1 */

/* Hides the copy from the compiler so the memcpy reference loop is not folded away. */
static void *(*volatile memcpy_fn)(void *, const void *, size_t) = memcpy;

/* --clock cpu counts only the time PE 0's thread ran: on a loaded host the wall clock measures the share of a core
 * the PE got as much as the copy; CPU time stays a measure of the work, where PE 0 never waits for another PE. */
static double now(void) {
    struct timespec ts;
    clock_gettime(opt.cpu_clock ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* PE 0's value becomes every PE's; the second barrier keeps the next call from overwriting an unread value. */
static long bcast_long(long v) {
    if (me == 0) {
        for (int pe = 1; pe < npes; pe++)
            shmem_long_p(&ctl_word, v, pe);
        ctl_word = v;
        shmem_quiet();
    }
    shmem_barrier_all();
    v = ctl_word;
    shmem_barrier_all();
    return v;
}

static int always(void) { return 1; }
static int two_pes(void) { return npes >= 2; }

static size_t window_for(size_t size) {
    /* bounded bytes per window keeps 4 MiB points from taking seconds */
    size_t w = (size_t)opt.window;
    while (w > 1 && w * size > 64 * MIB)
        w /= 2;
    return w;
}

/* ---------------- the tests: PE 0 measures against PE 1 ---------------- */

static double run_put_lat(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            shmem_putmem(put_dst, put_src, size, 1);
            shmem_quiet();
        }
        t = now() - t0;
    }
    return t;
}

static double run_get_lat(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        double t0 = now();
        for (long i = 0; i < iters; i++)
            shmem_getmem(get_dst, get_src, size, 1);
        t = now() - t0;
    }
    return t;
}

/* One-way latency: half of a p/wait_until round trip. Values only grow, so flags are never reset. */
static double run_pingpong(size_t size, long iters) {
    double t = 0;
    long base = pp_seq;
    pp_seq += iters;
    if (me == 0) {
        double t0 = now();
        for (long i = 1; i <= iters; i++) {
            shmem_long_p(&pp_flag, base + i, 1);
            shmem_long_wait_until(&pp_flag, SHMEM_CMP_GE, base + i);
        }
        t = (now() - t0) / 2.0;
    } else if (me == 1) {
        for (long i = 1; i <= iters; i++) {
            shmem_long_wait_until(&pp_flag, SHMEM_CMP_GE, base + i);
            shmem_long_p(&pp_flag, base + i, 0);
        }
    }
    return t;
}

static double run_amo_fadd(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        long sink = 0;
        double t0 = now();
        for (long i = 0; i < iters; i++)
            sink += shmem_long_atomic_fetch_add(&amo_target, 1, 1);
        t = now() - t0;
        if (sink == -1)
            puts("");
    }
    return t;
}

static double run_amo_fetch(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        long sink = 0;
        double t0 = now();
        for (long i = 0; i < iters; i++)
            sink += shmem_long_atomic_fetch(&amo_target, 1);
        t = now() - t0;
        if (sink == -1)
            puts("");
    }
    return t;
}

static double run_amo_cswap(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        long cur = shmem_long_atomic_fetch(&amo_target, 1);
        double t0 = now();
        /* every swap succeeds: the returned old value is the next compare value */
        for (long i = 0; i < iters; i++)
            cur = shmem_long_atomic_compare_swap(&amo_target, cur, cur + 1, 1) + 1;
        t = now() - t0;
    }
    return t;
}

static double run_amo_add(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            shmem_long_atomic_add(&amo_target, 1, 1);
            shmem_quiet();
        }
        t = now() - t0;
    }
    return t;
}

static double run_barrier(size_t size, long iters) {
    double t0 = now();
    for (long i = 0; i < iters; i++)
        shmem_barrier_all();
    return now() - t0;
}

static double run_put_bw(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        size_t w = window_for(size);
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            for (size_t j = 0; j < w; j++)
                shmem_putmem_nbi(put_dst, put_src, size, 1);
            shmem_quiet();
        }
        t = now() - t0;
    }
    return t;
}

static double run_get_bw(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        size_t w = window_for(size);
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            for (size_t j = 0; j < w; j++)
                shmem_getmem_nbi(get_dst, get_src, size, 1);
            shmem_quiet();
        }
        t = now() - t0;
    }
    return t;
}

static double run_memcpy_lat(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        double t0 = now();
        for (long i = 0; i < iters; i++)
            memcpy_fn(loc_b, loc_a, size);
        t = now() - t0;
    }
    return t;
}

static double run_memcpy_bw(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        size_t w = window_for(size);
        double t0 = now();
        for (long i = 0; i < iters; i++)
            for (size_t j = 0; j < w; j++)
                memcpy_fn(loc_b, loc_a, size);
        t = now() - t0;
    }
    return t;
}

/* memcpy into this PE's own symmetric heap: tells the cost of the library's mapping (page size, sharing) from
 * the cost of its code when put_bw falls short of memcpy_bw. */
static double run_memcpy_sym_bw(size_t size, long iters) {
    double t = 0;
    if (me == 0) {
        size_t w = window_for(size);
        double t0 = now();
        for (long i = 0; i < iters; i++)
            for (size_t j = 0; j < w; j++)
                memcpy_fn(sym_b, loc_a, size);
        t = now() - t0;
    }
    return t;
}

#if PERF_HAVE_15
/* Round trip of put-with-signal answered by a signal: the 1.5 way to hand a message over. */
static double run_put_signal(size_t size, long iters) {
    double t = 0;
    uint64_t base = (uint64_t)pp_seq;
    pp_seq += iters;
    if (me == 0) {
        double t0 = now();
        for (long i = 1; i <= iters; i++) {
            shmem_putmem_signal(sym_b, loc_a, size, &sig_word, base + (uint64_t)i, SHMEM_SIGNAL_SET, 1);
            shmem_signal_wait_until(&sig_word, SHMEM_CMP_GE, base + (uint64_t)i);
        }
        t = (now() - t0) / 2.0;
    } else if (me == 1) {
        for (long i = 1; i <= iters; i++) {
            shmem_signal_wait_until(&sig_word, SHMEM_CMP_GE, base + (uint64_t)i);
            shmem_putmem_signal(sym_b, loc_a, size, &sig_word, base + (uint64_t)i, SHMEM_SIGNAL_SET, 0);
        }
    }
    return t;
}
#endif

/* ---------------- collectives: every PE calls them ---------------- */

#if PERF_HAVE_15
#define TEAM_FORMS (!opt.aset)
#else
#define TEAM_FORMS 0
#endif

#define PERF_MAX(a, b) ((a) > (b) ? (a) : (b))
#define PSYNC_LEN                                                                                                      \
    PERF_MAX(PERF_MAX(PERF_MAX(SHMEM_BCAST_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE),                                        \
                      PERF_MAX(SHMEM_REDUCE_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE)),                                     \
             SHMEM_BARRIER_SYNC_SIZE)

/* Active-set forms: two pSync arrays (and pWrk arrays) used alternately, since a collective other than a barrier may
 * not reuse the pSync of the call just before it without a barrier in between. coll_seq counts collective calls; it
 * is the same on every PE, so every PE picks the same array. */
static long psync[2][PSYNC_LEN];
static long *pwrk[2];
static unsigned long coll_seq;
static long *coll_src, *coll_dst; /* symmetric, npes x the largest size each */
static double *pe_times;          /* symmetric, npes: each PE's loop time, gathered on PE 0 */
static long check_seq;            /* verified calls so far: makes every check's data different */
static long fail_count;           /* on PE 0: PEs whose check failed */

#if defined(__GNUC__)
#pragma GCC diagnostic push /* the active-set forms are deprecated in 1.5 libraries: measured on purpose */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
static int op_bcast(size_t size) {
#if PERF_HAVE_15
    if (TEAM_FORMS)
        return shmem_broadcastmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, size, 0);
#endif
    shmem_broadcast64(coll_dst, coll_src, size / 8, 0, 0, 0, npes, psync[coll_seq++ & 1]);
    return 0;
}

static int op_collect(size_t size) {
#if PERF_HAVE_15
    if (TEAM_FORMS)
        return shmem_collectmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, size);
#endif
    shmem_collect64(coll_dst, coll_src, size / 8, 0, 0, npes, psync[coll_seq++ & 1]);
    return 0;
}

static int op_fcollect(size_t size) {
#if PERF_HAVE_15
    if (TEAM_FORMS)
        return shmem_fcollectmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, size);
#endif
    shmem_fcollect64(coll_dst, coll_src, size / 8, 0, 0, npes, psync[coll_seq++ & 1]);
    return 0;
}

static int op_reduce(size_t size) {
#if PERF_HAVE_15
    if (TEAM_FORMS)
        return shmem_long_sum_reduce(SHMEM_TEAM_WORLD, coll_dst, coll_src, size / 8);
#endif
    unsigned long k = coll_seq++ & 1;
    shmem_long_sum_to_all(coll_dst, coll_src, (int)(size / 8), 0, 0, npes, pwrk[k], psync[k]);
    return 0;
}

/* size is the block each PE sends to each PE: every PE sends and receives npes x size bytes */
static int op_alltoall(size_t size) {
#if PERF_HAVE_15
    if (TEAM_FORMS)
        return shmem_alltoallmem(SHMEM_TEAM_WORLD, coll_dst, coll_src, size);
#endif
    shmem_alltoall64(coll_dst, coll_src, size / 8, 0, 0, npes, psync[coll_seq++ & 1]);
    return 0;
}

static int op_team_sync(size_t size) {
#if PERF_HAVE_15
    if (TEAM_FORMS)
        return shmem_team_sync(SHMEM_TEAM_WORLD);
#endif
    shmem_sync(0, 0, npes, psync[coll_seq++ & 1]);
    return 0;
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static double run_sync_all(size_t size, long iters) {
    double t0 = now();
    for (long i = 0; i < iters; i++)
        shmem_sync_all();
    return now() - t0;
}

#define COLL_RUNNER(fn, op)                                                                                            \
    static double fn(size_t size, long iters) {                                                                        \
        double t0 = now();                                                                                             \
        for (long i = 0; i < iters; i++)                                                                               \
            op(size);                                                                                                  \
        return now() - t0;                                                                                             \
    }
COLL_RUNNER(run_bcast, op_bcast)
COLL_RUNNER(run_collect, op_collect)
COLL_RUNNER(run_fcollect, op_fcollect)
COLL_RUNNER(run_reduce, op_reduce)
COLL_RUNNER(run_alltoall, op_alltoall)
COLL_RUNNER(run_team_sync, op_team_sync)

/* Word i of what PE `from` contributes for PE `to` in check number `seq`: differs between PEs, blocks, checks and
 * words, and stays below 2^52 so that a sum over up to 2048 PEs cannot overflow. */
static long pat(int from, int to, long seq, size_t i) {
    return (long)(((uint64_t)(from & 1023) << 42) | ((uint64_t)(to & 1023) << 32) | ((uint64_t)(seq & 255) << 24) |
                  (uint64_t)(i & 0xffffff));
}

#define POISON ((long)0x5a5a5a5a5a5a5a5aL)

/* Fill the sources (src(from, to, i) gives word i of the block for PE `to`; nblk blocks of n words), poison the
 * destination (dwords words), and make sure every PE is ready before the checked call. */
static long check_prepare(size_t n, int nblk, size_t dwords) {
    long seq = ++check_seq;
    for (int b = 0; b < nblk; b++)
        for (size_t i = 0; i < n; i++)
            coll_src[(size_t)b * n + i] = pat(me, b, seq, i);
    for (size_t i = 0; i < dwords; i++)
        coll_dst[i] = POISON;
    shmem_barrier_all();
    return seq;
}

static int check_word(const char *test, size_t size, size_t idx, long got, long want) {
    if (got == want)
        return 0;
    fprintf(stderr, "shmem-perf: PE %d: %s %zu B: word %zu is 0x%lx, expected 0x%lx\n", me, test, size, idx,
            (unsigned long)got, (unsigned long)want);
    return 1;
}

static int check_rc(const char *test, size_t size, int rc) {
    if (rc)
        fprintf(stderr, "shmem-perf: PE %d: %s %zu B returned %d\n", me, test, size, rc);
    return rc != 0;
}

static int check_bcast(size_t size) {
    size_t n = size / 8;
    long seq = check_prepare(n, 1, n);
    if (check_rc("bcast", size, op_bcast(size)))
        return 1;
    if (me == 0 && !TEAM_FORMS) /* active-set broadcast leaves the root's dest alone; team broadcast updates it */
        return 0;
    for (size_t i = 0; i < n; i++)
        if (check_word("bcast", size, i, coll_dst[i], pat(0, 0, seq, i)))
            return 1;
    return 0;
}

static int check_gather(const char *test, size_t size, int (*op)(size_t)) {
    size_t n = size / 8;
    long seq = check_prepare(n, 1, n * (size_t)npes);
    if (check_rc(test, size, op(size)))
        return 1;
    for (int pe = 0; pe < npes; pe++)
        for (size_t i = 0; i < n; i++)
            if (check_word(test, size, (size_t)pe * n + i, coll_dst[(size_t)pe * n + i], pat(pe, 0, seq, i)))
                return 1;
    return 0;
}

static int check_collect(size_t size) { return check_gather("collect", size, op_collect); }
static int check_fcollect(size_t size) { return check_gather("fcollect", size, op_fcollect); }

static int check_reduce(size_t size) {
    size_t n = size / 8;
    long seq = check_prepare(n, 1, n);
    if (check_rc("reduce", size, op_reduce(size)))
        return 1;
    for (size_t i = 0; i < n; i++) {
        long want = 0;
        for (int pe = 0; pe < npes; pe++)
            want += pat(pe, 0, seq, i);
        if (check_word("reduce", size, i, coll_dst[i], want))
            return 1;
    }
    return 0;
}

static int check_alltoall(size_t size) {
    size_t n = size / 8;
    long seq = check_prepare(n, npes, n * (size_t)npes);
    if (check_rc("alltoall", size, op_alltoall(size)))
        return 1;
    for (int pe = 0; pe < npes; pe++)
        for (size_t i = 0; i < n; i++)
            if (check_word("alltoall", size, (size_t)pe * n + i, coll_dst[(size_t)pe * n + i], pat(pe, me, seq, i)))
                return 1;
    return 0;
}

/* PE 0 gets the slowest PE's time (every PE's is in pe_times); the others get 0. */
static double slowest(double secs) {
    if (me == 0) {
        pe_times[0] = secs;
    } else {
        shmem_double_p(&pe_times[me], secs, 0);
        shmem_quiet();
    }
    shmem_barrier_all();
    double m = 0;
    if (me == 0)
        for (int i = 0; i < npes; i++)
            if (pe_times[i] > m)
                m = pe_times[i];
    return m;
}

static const struct test tests[] = {
    {"put_lat", "shmem_putmem + shmem_quiet per iteration", UNIT_US, 1, 0, 0, two_pes, run_put_lat, 0, 0, NULL},
    {"get_lat", "blocking shmem_getmem", UNIT_US, 1, 0, 0, two_pes, run_get_lat, 0, 0, NULL},
    {"memcpy_lat", "local memcpy, same sizes (reference)", UNIT_US, 1, 0, 0, always, run_memcpy_lat, 0, 0, NULL},
    {"pingpong", "one-way latency: half a shmem_long_p + shmem_long_wait_until round trip", UNIT_US, 0, 0, 8, two_pes,
     run_pingpong, 0, 0, NULL},
    {"amo_fadd", "shmem_long_atomic_fetch_add", UNIT_US, 0, 0, 8, two_pes, run_amo_fadd, 0, 0, NULL},
    {"amo_fetch", "shmem_long_atomic_fetch", UNIT_US, 0, 0, 8, two_pes, run_amo_fetch, 0, 0, NULL},
    {"amo_cswap", "shmem_long_atomic_compare_swap", UNIT_US, 0, 0, 8, two_pes, run_amo_cswap, 0, 0, NULL},
    {"amo_add", "shmem_long_atomic_add + shmem_quiet", UNIT_US, 0, 0, 8, two_pes, run_amo_add, 0, 0, NULL},
#if PERF_HAVE_15
    {"put_signal", "one-way latency: half a shmem_putmem_signal + shmem_signal_wait_until round trip", UNIT_US, 1, 0, 0,
     two_pes, run_put_signal, 0, 0, NULL},
#endif
    {"barrier", "shmem_barrier_all, all PEs", UNIT_US, 0, 0, 0, always, run_barrier, 1, 0, NULL},
    {"sync_all", "shmem_sync_all, all PEs", UNIT_US, 0, 0, 0, always, run_sync_all, 1, 0, NULL},
    {"team_sync", "shmem_team_sync(SHMEM_TEAM_WORLD); active-set shmem_sync with --aset or before 1.5", UNIT_US, 0, 0,
     0, always, run_team_sync, 1, 0, NULL},
    {"bcast", "broadcast of size bytes from PE 0 to all PEs", UNIT_US, 1, 0, 0, always, run_bcast, 1, 1, check_bcast},
    {"collect", "collect, size bytes from every PE (npes x size result)", UNIT_US, 1, 0, 0, always, run_collect, 1, 1,
     check_collect},
    {"fcollect", "fcollect, size bytes from every PE (npes x size result)", UNIT_US, 1, 0, 0, always, run_fcollect, 1,
     1, check_fcollect},
    {"reduce", "long sum reduction of size/8 elements to all PEs", UNIT_US, 1, 0, 0, always, run_reduce, 1, 1,
     check_reduce},
    {"alltoall", "alltoall, a size-byte block from every PE to every PE", UNIT_US, 1, 0, 0, always, run_alltoall, 1, 1,
     check_alltoall},
    {"put_bw", "window of shmem_putmem_nbi, then one shmem_quiet", UNIT_GBS, 1, 1, 0, two_pes, run_put_bw, 0, 0, NULL},
    {"get_bw", "window of shmem_getmem_nbi, then one shmem_quiet", UNIT_GBS, 1, 1, 0, two_pes, run_get_bw, 0, 0, NULL},
    {"memcpy_bw", "window of local memcpy (reference)", UNIT_GBS, 1, 1, 0, always, run_memcpy_bw, 0, 0, NULL},
    {"memcpy_sym_bw", "window of local memcpy into this PE's own symmetric heap (reference)", UNIT_GBS, 1, 1, 0, always,
     run_memcpy_sym_bw, 0, 0, NULL},
};
#define NTESTS (sizeof(tests) / sizeof(tests[0]))

/* ---------------- measurement ---------------- */

struct result {
    const struct test *t;
    size_t size;
    double median, min, max;
    long iters;
};

static struct result *results;
static size_t nresults, cap_results;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double value_of(const struct test *t, size_t size, long iters, double secs) {
    if (t->unit == UNIT_GBS)
        return (double)size * (double)window_for(size) * (double)iters / secs / 1e9;
    return secs / (double)iters * 1e6;
}

/* One timed run: PE 0's time, or for the all-PE tests the slowest PE's (on PE 0). */
static double timed_run(const struct test *t, size_t size, long iters) {
    double secs = t->run(size, iters);
    return t->all_pes ? slowest(secs) : secs;
}

/* Warm up, grow the count until a run takes long enough to time, then time R repetitions; then, for collectives,
 * one checked call. Returns 0, or 1 when a PE got a wrong result (every PE returns the same). */
static int measure(const struct test *t, size_t size) {
    long floor_iters = t->bandwidth ? opt.bw_min_iters : opt.min_iters;
    long n = opt.quick ? 2 : (floor_iters < 16 ? floor_iters : 16);

    shmem_barrier_all();
    t->run(size, n); /* warm-up: first touch, connection set-up, caches */

    double calib_s = opt.target_s / 8;
    for (;;) {
        shmem_barrier_all();
        double secs = timed_run(t, size, n);
        long next = 0;
        if (me == 0 && secs < calib_s && n < opt.max_iters && secs * 4 < opt.max_s)
            next = n * 4;
        next = bcast_long(next);
        if (!next)
            break;
        n = next;
    }

    shmem_barrier_all();
    double per = timed_run(t, size, n) / (double)n;
    long iters = 0;
    if (me == 0) {
        double want = opt.target_s / (per > 0 ? per : 1e-9);
        double most = opt.max_s / (per > 0 ? per : 1e-9);
        if (want < (double)floor_iters)
            want = (double)floor_iters;
        if (want > most)
            want = most;
        if (want > (double)opt.max_iters)
            want = (double)opt.max_iters;
        iters = want < 1 ? 1 : (long)want;
    }
    iters = bcast_long(iters);

    double *vals = malloc(sizeof(double) * (size_t)opt.reps);
    if (!vals)
        shmem_global_exit(1);
    for (int r = 0; r < opt.reps; r++) {
        shmem_barrier_all();
        double secs = timed_run(t, size, iters);
        vals[r] = me == 0 ? value_of(t, size, iters, secs) : 0;
    }
    if (me == 0) {
        qsort(vals, (size_t)opt.reps, sizeof(double), cmp_double);
        struct result res = {t, size, 0, vals[0], vals[opt.reps - 1], iters};
        res.median = opt.reps % 2 ? vals[opt.reps / 2] : (vals[opt.reps / 2 - 1] + vals[opt.reps / 2]) / 2;
        if (nresults == cap_results) {
            cap_results = cap_results ? 2 * cap_results : 64;
            results = realloc(results, cap_results * sizeof(*results));
            if (!results)
                shmem_global_exit(1);
        }
        results[nresults++] = res;
        printf("%-13s %9zu %12.3f %12.3f %12.3f  %-4s %9ld\n", t->name, size, res.median, res.min, res.max,
               t->unit == UNIT_US ? "us" : "GB/s", iters);
        if (opt.per_pe && t->all_pes) { /* every PE's time in the last repetition */
            printf("#   per PE, last rep, us/call:");
            for (int pe = 0; pe < npes; pe++)
                printf(" %.3f", pe_times[pe] / (double)iters * 1e6);
            printf("\n");
        }
        fflush(stdout);
    }
    free(vals);

    if (!t->check)
        return 0;
    shmem_barrier_all();
    if (t->check(size))
        shmem_long_atomic_inc(&fail_count, 0);
    shmem_barrier_all();
    long failed = bcast_long(me == 0 ? fail_count : 0);
    if (failed && me == 0)
        printf("# FAILED: %s %zu B gave a wrong result on %ld PE(s)\n", t->name, size, failed);
    return failed != 0;
}

static size_t max_size_for(const struct test *t) {
    if (opt.user_max)
        return opt.max_size;
    return t->bandwidth ? 4 * MIB : opt.max_size;
}

/* ---------------- options, output ---------------- */

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: oshrun -np 2 shmem-perf [options]\n"
        "  --test NAME[,NAME...]  tests to run (default: all); 'list' prints them\n"
        "  --iters N              minimum iterations per latency point (default %ld; bandwidth: N/50, >= 5)\n"
        "  --reps R               timed repetitions per point; median and min reported (default %d)\n"
        "  --min BYTES, --max BYTES  message size range (default 8 .. 1M; bandwidth tests to 4M)\n"
        "                         (suffixes K, M accepted)\n"
        "  --factor 2|4           size step (default 2)\n"
        "  --window W             operations per bandwidth window (default %d)\n"
        "  --time SECONDS         minimum time per repetition (default %.3f)\n"
        "  --json FILE            also write results as JSON\n"
        "  --aset                 collectives through the active-set forms (pSync/pWrk), as a 1.4 library has them\n"
        "                         (default: team forms where the library is OpenSHMEM 1.5 or later)\n"
        "  --per-pe               print every PE's time per call for the all-PE tests\n"
        "  --src host|device, --dst host|device\n"
        "                         put_lat/get_lat/put_bw/get_bw with the source, destination in GPU memory (GPU\n"
        "                         heap objects; gshmem: SHMEM_SYMMETRIC_SIZE_DEVICE >= 2 x --max); other tests are\n"
        "                         skipped then (the H-H, D-D, H-D, D-H combinations)\n"
        "  --clock wall|cpu       time PE 0 by the wall clock (default) or by its thread's CPU time: a loaded host\n"
        "                         changes the second less; meaningful only where PE 0 never waits for another PE\n"
        "                         (on-node put_bw, get_bw, put_lat, get_lat and the memcpy references)\n"
        "  --offset BYTES         symmetric (shmem_align) and private buffers start BYTES (0-4095) past a page\n"
        "                         boundary, so every library copies between equally placed buffers (default:\n"
        "                         where shmem_malloc and malloc put them, which differs between libraries)\n"
        "  --quick                tiny iteration counts, 1 repetition: a smoke test, not a measurement\n"
        "test groups: 'coll' = every all-PE test; 'amo', 'lat', 'bw' = amo_*, *_lat, *_bw\n",
        opt.min_iters, opt.reps, opt.window, opt.target_s);
}

static size_t parse_size(const char *s) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    switch (*end) {
    case 'k':
    case 'K':
        v *= KIB;
        end++;
        break;
    case 'm':
    case 'M':
        v *= MIB;
        end++;
        break;
    case 'g':
    case 'G':
        v *= MIB * KIB;
        end++;
        break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    return *end ? 0 : (size_t)v;
}

static int selected(const char *list, const char *name) {
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == n && !strncmp(p, name, n))
            return 1;
        /* "amo" selects every amo_* test, "lat" every *_lat test and so on */
        if (len > 0 && len < n && (!strncmp(name, p, len) ? name[len] == '_' : 0))
            return 1;
        if (len > 0 && len < n && name[n - len - 1] == '_' && !strncmp(name + n - len, p, len))
            return 1;
        p += len + (c ? 1 : 0);
    }
    return 0;
}

/* selected(), plus the group name "coll" for every test in which all PEs take part */
static int test_selected(const char *list, const struct test *t) {
    return selected(list, t->name) || (t->all_pes && list && selected(list, "coll"));
}

static const char *coll_api(void) { return TEAM_FORMS ? "team" : "aset"; }

/* the tests that take --src/--dst device (the others touch their buffers with the CPU or use host ones only) */
static int gpu_capable(const struct test *t) {
    static const char *const names[] = {"put_lat", "get_lat", "put_bw", "get_bw"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(t->name, names[i]))
            return 1;
    return 0;
}

static const char *mem_combo(void) {
    static const char *const c[] = {"H-H", "H-D", "D-H", "D-D"};
    return c[opt.src_dev * 2 + opt.dst_dev];
}

static void write_json(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "shmem-perf: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "[\n");
    for (size_t i = 0; i < nresults; i++) {
        const struct result *r = &results[i];
        fprintf(f,
                "  {\"test\": \"%s\", \"size\": %zu, \"unit\": \"%s\", \"median\": %.6g, \"min\": %.6g, "
                "\"max\": %.6g, \"reps\": %d, \"iters\": %ld, \"npes\": %d, \"api\": \"%s\", \"mem\": \"%s\", "
                "\"quick\": %s, \"clock\": \"%s\", \"offset\": %ld, \"impl\": \"",
                r->t->name, r->size, r->t->unit == UNIT_US ? "us" : "GB/s", r->median, r->min, r->max, opt.reps,
                r->iters, npes, r->t->all_pes ? coll_api() : "p2p", gpu_capable(r->t) ? mem_combo() : "H-H",
                opt.quick ? "true" : "false", opt.cpu_clock ? "cpu" : "wall", opt.offset);
        for (const char *p = impl_name; *p; p++) {
            if (*p == '"' || *p == '\\')
                fputc('\\', f);
            if ((unsigned char)*p >= 0x20)
                fputc(*p, f);
        }
        fprintf(f, "\"}%s\n", i + 1 < nresults ? "," : "");
    }
    fprintf(f, "]\n");
    fclose(f);
}

int main(int argc, char **argv) {
    const char *list = NULL;
    int user_reps = 0, bad = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--quick")) {
            opt.quick = 1;
        } else if (!strcmp(a, "--aset")) {
            opt.aset = 1;
        } else if (!strcmp(a, "--per-pe")) {
            opt.per_pe = 1;
        } else if (!v) {
            bad = 1;
            break;
        } else if (!strcmp(a, "--test")) {
            list = v, i++;
        } else if (!strcmp(a, "--iters")) {
            opt.min_iters = atol(v), i++;
            opt.bw_min_iters = opt.min_iters / 50 > 5 ? opt.min_iters / 50 : 5;
            bad |= opt.min_iters < 1;
        } else if (!strcmp(a, "--reps")) {
            opt.reps = atoi(v), i++, user_reps = 1;
            bad |= opt.reps < 1;
        } else if (!strcmp(a, "--min")) {
            opt.min_size = parse_size(v), i++;
            bad |= opt.min_size < 1;
        } else if (!strcmp(a, "--max")) {
            opt.max_size = parse_size(v), i++, opt.user_max = 1;
            bad |= opt.max_size < 1;
        } else if (!strcmp(a, "--factor")) {
            opt.factor = atoi(v), i++;
            bad |= opt.factor < 2;
        } else if (!strcmp(a, "--window")) {
            opt.window = atoi(v), i++;
            bad |= opt.window < 1;
        } else if (!strcmp(a, "--time")) {
            opt.target_s = atof(v), i++;
            bad |= !(opt.target_s > 0);
        } else if (!strcmp(a, "--json")) {
            opt.json = v, i++;
        } else if (!strcmp(a, "--clock")) {
            opt.cpu_clock = !strcmp(v, "cpu"), i++;
            bad |= !opt.cpu_clock && strcmp(v, "wall");
        } else if (!strcmp(a, "--offset")) {
            opt.offset = atol(v), i++;
            bad |= opt.offset < 0 || opt.offset >= 4096;
        } else if (!strcmp(a, "--src") || !strcmp(a, "--dst")) {
            int d = !strcmp(v, "device");
            bad |= !d && strcmp(v, "host");
            *(a[2] == 's' ? &opt.src_dev : &opt.dst_dev) = d, i++;
        } else {
            bad = 1;
            break;
        }
    }
    if (opt.quick) {
        opt.min_iters = 10;
        opt.bw_min_iters = 2;
        opt.target_s = 0.001;
        opt.max_s = 0.05;
        if (!user_reps)
            opt.reps = 1;
    }

    if (opt.src_dev || opt.dst_dev) {
#if PERF_HAVE_SPACES
        int provided = 0;
        shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT, &provided);
        if (!(provided & SHMEM_DEVICE_HOST_INIT)) {
            if (shmem_my_pe() == 0)
                fprintf(stderr, "shmem-perf: --src/--dst device: the library has no GPU support here "
                                "(SHMEM_DEVICE_HOST_INIT not provided; shmem_info says why)\n");
            shmem_finalize();
            return 77;
        }
#else
        fprintf(stderr, "shmem-perf: --src/--dst device needs a library with GPU memory spaces (<shmemg.h>)\n");
        return 2;
#endif
    } else {
        shmem_init();
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_info_get_name(impl_name);
    impl_name[SHMEM_MAX_NAME_LEN] = '\0';

    if (list && !strcmp(list, "list")) {
        if (me == 0)
            for (size_t i = 0; i < NTESTS; i++)
                printf("%-13s %s\n", tests[i].name, tests[i].desc);
        shmem_finalize();
        return 0;
    }
    if (bad || opt.min_size > opt.max_size) {
        if (me == 0)
            usage(stderr);
        shmem_finalize();
        return 2;
    }
    if (list) {
        for (const char *p = list; *p;) {
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            int hit = 0;
            char name[64];
            snprintf(name, sizeof(name), "%.*s", (int)(len < 63 ? len : 63), p);
            for (size_t i = 0; i < NTESTS; i++)
                hit |= test_selected(name, &tests[i]);
            if (!hit && me == 0)
                fprintf(stderr, "shmem-perf: no test matches '%s' (--test list shows them)\n", name);
            p += len + (c ? 1 : 0);
        }
    }

    buf_size = 0;
    size_t coll_size = 0; /* largest collective size */
    for (size_t i = 0; i < NTESTS; i++) {
        if (!test_selected(list, &tests[i]) || !tests[i].sized)
            continue;
        size_t top = max_size_for(&tests[i]);
        if (tests[i].coll && top > coll_size)
            coll_size = top;
        else if (!tests[i].coll && top > buf_size)
            buf_size = top;
    }
    if (buf_size < 64)
        buf_size = 64;
    if (opt.offset < 0) {
        sym_a0 = shmem_malloc(buf_size);
        sym_b0 = shmem_malloc(buf_size);
        loc_a0 = malloc(buf_size);
        loc_b0 = malloc(buf_size);
    } else {
        sym_a0 = shmem_align(4096, buf_size + 4096);
        sym_b0 = shmem_align(4096, buf_size + 4096);
        loc_a0 = aligned_alloc(4096, buf_size + 4096);
        loc_b0 = aligned_alloc(4096, buf_size + 4096);
    }
    size_t off = opt.offset < 0 ? 0 : (size_t)opt.offset;
    sym_a = sym_a0 ? sym_a0 + off : NULL;
    sym_b = sym_b0 ? sym_b0 + off : NULL;
    loc_a = loc_a0 ? loc_a0 + off : NULL;
    loc_b = loc_b0 ? loc_b0 + off : NULL;
    if (!sym_a || !sym_b || !loc_a || !loc_b) {
        fprintf(stderr, "shmem-perf: PE %d: cannot allocate 2 x %zu bytes symmetric + private\n", me, buf_size);
        shmem_global_exit(1);
    }
    memset(sym_a, me + 1, buf_size);
    memset(sym_b, me + 1, buf_size);
    memset(loc_a, 0x5a, buf_size);
    memset(loc_b, 0xa5, buf_size);
    put_dst = get_src = sym_a;
    put_src = loc_a;
    get_dst = loc_b;
#if PERF_HAVE_SPACES
    if (opt.src_dev || opt.dst_dev) {
        dev_remote = shmem_space_calloc(SHMEM_SPACE_DEVICE, 1, buf_size);
        dev_local = shmem_space_calloc(SHMEM_SPACE_DEVICE, 1, buf_size);
        if (!dev_remote || !dev_local) {
            fprintf(stderr,
                    "shmem-perf: PE %d: cannot allocate 2 x %zu bytes of GPU heap (SHMEM_SYMMETRIC_SIZE_DEVICE)\n", me,
                    buf_size);
            shmem_global_exit(1);
        }
        /* the host side is symmetric heap memory, which gshmem pins for the GPU with SHMEM_GPU_PIN_HOST=1 (a
         * private malloc'd buffer stays pageable: the driver stages its copies) */
        put_src = opt.src_dev ? dev_local : sym_b;
        get_dst = opt.dst_dev ? dev_local : sym_b;
        put_dst = opt.dst_dev ? dev_remote : sym_a;
        get_src = opt.src_dev ? dev_remote : sym_a;
    }
#endif

    /* collectives: npes blocks of the largest size for sources (alltoall) and destinations; pWrk for long sums */
    size_t coll_words = coll_size / 8 > 0 ? coll_size / 8 : 1;
    size_t wrk_words = PERF_MAX(coll_words / 2 + 1, (size_t)SHMEM_REDUCE_MIN_WRKDATA_SIZE);
    coll_src = shmem_malloc(coll_words * 8 * (size_t)npes);
    coll_dst = shmem_malloc(coll_words * 8 * (size_t)npes);
    pwrk[0] = shmem_malloc(wrk_words * sizeof(long));
    pwrk[1] = shmem_malloc(wrk_words * sizeof(long));
    pe_times = shmem_malloc((size_t)npes * sizeof(double));
    if (!coll_src || !coll_dst || !pwrk[0] || !pwrk[1] || !pe_times) {
        fprintf(stderr, "shmem-perf: PE %d: cannot allocate 2 x %d x %zu bytes symmetric for collectives\n", me, npes,
                coll_words * 8);
        shmem_global_exit(1);
    }
    memset(coll_src, 0, coll_words * 8 * (size_t)npes);
    memset(coll_dst, 0, coll_words * 8 * (size_t)npes);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < PSYNC_LEN; i++)
            psync[k][i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    if (me == 0) {
        printf("# shmem-perf: %s, %d PEs (PE 0 <-> PE 1), reps %d, >= %ld iters & %.0f ms per point%s\n", impl_name,
               npes, opt.reps, opt.min_iters, opt.target_s * 1e3, opt.quick ? " (quick)" : "");
        printf("# collectives: %s forms (OpenSHMEM %d.%d header%s); all-PE tests report the slowest PE\n",
               TEAM_FORMS ? "team" : "active-set", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION,
               opt.aset ? ", --aset" : "");
        if (npes < 2)
            printf("# only 1 PE: tests that need PE 1 are skipped\n");
        if (opt.cpu_clock)
            printf("# clock: PE 0's thread CPU time (--clock cpu)\n");
        if (opt.offset >= 0)
            printf("# buffers start %ld bytes past a page boundary (--offset)\n", opt.offset);
        if (opt.src_dev || opt.dst_dev)
            printf("# buffers %s (source-destination; D = GPU heap): put_lat, get_lat, put_bw, get_bw only\n",
                   mem_combo());
        printf("%-13s %9s %12s %12s %12s  %-4s %9s\n", "# test", "size", "median", "min", "max", "unit", "iters");
        fflush(stdout);
    }

    int failed = 0;
    for (size_t i = 0; i < NTESTS && !failed; i++) {
        const struct test *t = &tests[i];
        if (!test_selected(list, t) || !t->available() || ((opt.src_dev || opt.dst_dev) && !gpu_capable(t)))
            continue;
        if (!t->sized) {
            failed = measure(t, t->size_fixed);
            continue;
        }
        size_t top = max_size_for(t);
        for (size_t s = opt.min_size; s <= top && !failed; s *= (size_t)opt.factor)
            if (!t->coll || s % 8 == 0) /* the active-set forms move 64-bit words */
                failed = measure(t, s);
    }

    if (me == 0 && opt.json)
        write_json(opt.json);
    shmem_barrier_all();
    shmem_free(pe_times);
    shmem_free(pwrk[1]);
    shmem_free(pwrk[0]);
    shmem_free(coll_dst);
    shmem_free(coll_src);
    if (dev_local)
        shmem_free(dev_local);
    if (dev_remote)
        shmem_free(dev_remote);
    shmem_free(sym_b0);
    shmem_free(sym_a0);
    free(loc_a0);
    free(loc_b0);
    free(results);
    shmem_finalize();
    return failed ? 3 : 0;
}
