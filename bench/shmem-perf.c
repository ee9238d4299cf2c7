/* shmem-perf - OpenSHMEM point-to-point, AMO, barrier and bandwidth microbenchmarks with a memcpy reference.
 * Uses only the public OpenSHMEM API so the same source builds against any 1.4+ implementation (1.5 parts guarded). */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PERF_HAVE_15 (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105)

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
static char *sym_a, *sym_b; /* symmetric buffers, max size each */
static char *loc_a, *loc_b; /* private buffers, max size each */
static size_t buf_size;
static long pp_seq; /* last ping-pong value used; identical on PE 0 and PE 1 */

/* Hides the copy from the compiler so the memcpy reference loop is not folded away. */
static void *(*volatile memcpy_fn)(void *, const void *, size_t) = memcpy;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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
            shmem_putmem(sym_a, loc_a, size, 1);
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
            shmem_getmem(loc_b, sym_a, size, 1);
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
                shmem_putmem_nbi(sym_a, loc_a, size, 1);
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
                shmem_getmem_nbi(loc_b, sym_a, size, 1);
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

static const struct test tests[] = {
    {"put_lat", "shmem_putmem + shmem_quiet per iteration", UNIT_US, 1, 0, 0, two_pes, run_put_lat},
    {"get_lat", "blocking shmem_getmem", UNIT_US, 1, 0, 0, two_pes, run_get_lat},
    {"memcpy_lat", "local memcpy, same sizes (reference)", UNIT_US, 1, 0, 0, always, run_memcpy_lat},
    {"pingpong", "one-way latency: half a shmem_long_p + shmem_long_wait_until round trip", UNIT_US, 0, 0, 8, two_pes,
     run_pingpong},
    {"amo_fadd", "shmem_long_atomic_fetch_add", UNIT_US, 0, 0, 8, two_pes, run_amo_fadd},
    {"amo_fetch", "shmem_long_atomic_fetch", UNIT_US, 0, 0, 8, two_pes, run_amo_fetch},
    {"amo_cswap", "shmem_long_atomic_compare_swap", UNIT_US, 0, 0, 8, two_pes, run_amo_cswap},
    {"amo_add", "shmem_long_atomic_add + shmem_quiet", UNIT_US, 0, 0, 8, two_pes, run_amo_add},
#if PERF_HAVE_15
    {"put_signal", "one-way latency: half a shmem_putmem_signal + shmem_signal_wait_until round trip", UNIT_US, 1, 0, 0,
     two_pes, run_put_signal},
#endif
    {"barrier", "shmem_barrier_all, all PEs", UNIT_US, 0, 0, 0, always, run_barrier},
    {"put_bw", "window of shmem_putmem_nbi, then one shmem_quiet", UNIT_GBS, 1, 1, 0, two_pes, run_put_bw},
    {"get_bw", "window of shmem_getmem_nbi, then one shmem_quiet", UNIT_GBS, 1, 1, 0, two_pes, run_get_bw},
    {"memcpy_bw", "window of local memcpy (reference)", UNIT_GBS, 1, 1, 0, always, run_memcpy_bw},
    {"memcpy_sym_bw", "window of local memcpy into this PE's own symmetric heap (reference)", UNIT_GBS, 1, 1, 0, always,
     run_memcpy_sym_bw},
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

/* Warm up, grow the count until a run takes long enough to time, then time R repetitions. */
static void measure(const struct test *t, size_t size) {
    long floor_iters = t->bandwidth ? opt.bw_min_iters : opt.min_iters;
    long n = opt.quick ? 2 : (floor_iters < 16 ? floor_iters : 16);

    shmem_barrier_all();
    t->run(size, n); /* warm-up: first touch, connection set-up, caches */

    double calib_s = opt.target_s / 8;
    for (;;) {
        shmem_barrier_all();
        double secs = t->run(size, n);
        long next = 0;
        if (me == 0 && secs < calib_s && n < opt.max_iters && secs * 4 < opt.max_s)
            next = n * 4;
        next = bcast_long(next);
        if (!next)
            break;
        n = next;
    }

    shmem_barrier_all();
    double per = t->run(size, n) / (double)n;
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
        double secs = t->run(size, iters);
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
        fflush(stdout);
    }
    free(vals);
}

static size_t max_size_for(const struct test *t) {
    if (opt.user_max)
        return opt.max_size;
    return t->bandwidth ? 4 * MIB : opt.max_size;
}

/* ---------------- options, output ---------------- */

static void usage(FILE *f) {
    fprintf(f,
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
            "  --quick                tiny iteration counts, 1 repetition: a smoke test, not a measurement\n",
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
                "\"max\": %.6g, \"reps\": %d, \"iters\": %ld, \"npes\": %d, \"impl\": \"",
                r->t->name, r->size, r->t->unit == UNIT_US ? "us" : "GB/s", r->median, r->min, r->max, opt.reps,
                r->iters, npes);
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

    shmem_init();
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
                hit |= selected(name, tests[i].name);
            if (!hit && me == 0)
                fprintf(stderr, "shmem-perf: no test matches '%s' (--test list shows them)\n", name);
            p += len + (c ? 1 : 0);
        }
    }

    buf_size = 0;
    for (size_t i = 0; i < NTESTS; i++)
        if (selected(list, tests[i].name) && tests[i].sized && max_size_for(&tests[i]) > buf_size)
            buf_size = max_size_for(&tests[i]);
    if (buf_size < 64)
        buf_size = 64;
    sym_a = shmem_malloc(buf_size);
    sym_b = shmem_malloc(buf_size);
    loc_a = malloc(buf_size);
    loc_b = malloc(buf_size);
    if (!sym_a || !sym_b || !loc_a || !loc_b) {
        fprintf(stderr, "shmem-perf: PE %d: cannot allocate 2 x %zu bytes symmetric + private\n", me, buf_size);
        shmem_global_exit(1);
    }
    memset(sym_a, me + 1, buf_size);
    memset(sym_b, me + 1, buf_size);
    memset(loc_a, 0x5a, buf_size);
    memset(loc_b, 0xa5, buf_size);
    shmem_barrier_all();

    if (me == 0) {
        printf("# shmem-perf: %s, %d PEs (PE 0 <-> PE 1), reps %d, >= %ld iters & %.0f ms per point%s\n", impl_name,
               npes, opt.reps, opt.min_iters, opt.target_s * 1e3, opt.quick ? " (quick)" : "");
        if (npes < 2)
            printf("# only 1 PE: tests that need PE 1 are skipped\n");
        printf("%-13s %9s %12s %12s %12s  %-4s %9s\n", "# test", "size", "median", "min", "max", "unit", "iters");
        fflush(stdout);
    }

    for (size_t i = 0; i < NTESTS; i++) {
        const struct test *t = &tests[i];
        if (!selected(list, t->name) || !t->available())
            continue;
        if (!t->sized) {
            measure(t, t->size_fixed);
            continue;
        }
        size_t top = max_size_for(t);
        for (size_t s = opt.min_size; s <= top; s *= (size_t)opt.factor)
            measure(t, s);
    }

    if (me == 0 && opt.json)
        write_json(opt.json);
    shmem_barrier_all();
    shmem_free(sym_b);
    shmem_free(sym_a);
    free(loc_a);
    free(loc_b);
    free(results);
    shmem_finalize();
    return 0;
}
