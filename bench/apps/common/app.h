/* app.h - what the workload programs in bench/apps share: the command line (--help, --verify, --json FILE, --reps,
 * --warmup and each program's own sizes), timing of repetitions (medians; set-up excluded), results as one JSON object
 * per run, progress on a terminal, and the few OpenSHMEM 1.5 routines the programs use, with 1.4 fallbacks so the
 * host forms also build with Open MPI's OSHMEM (bench/compare-apps.sh runs both). Header only: C11, C++ and .cu. */
#ifndef GSHMEM_BENCH_APP_H
#define GSHMEM_BENCH_APP_H
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L /* clock_gettime, isatty under -std=c11 (include app.h first) */
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

/* (C++'s [[maybe_unused]] may not follow `static`: the GNU attribute, which g++, clang++ and nvcc take, for both) */
#define APP_UNUSED __attribute__((unused))

/* ---- options: the program's own, then the common ones ---- */
enum app_opt_kind { APP_INT, APP_SIZE, APP_STR, APP_FLAG };
struct app_opt {
    const char *name; /* "--n" */
    enum app_opt_kind kind;
    void *ptr; /* long *, size_t *, const char **, int * */
    const char *help;
};

struct app {
    const char *name, *variant, *json, *impl;
    int verify, reps, warmup, quiet, me, npes;
    int verified; /* -1 not checked, 0 failed, 1 passed */
    char params[1024];
    char metrics[4096];
    double t_start;
};
static struct app app_g;

static APP_UNUSED double app_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* sizes with k/M/G suffixes (powers of 1024) */
static APP_UNUSED int app_parse_size(const char *s, size_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    switch (*end) {
    case 'k':
    case 'K': v <<= 10, end++; break;
    case 'm':
    case 'M': v <<= 20, end++; break;
    case 'g':
    case 'G': v <<= 30, end++; break;
    default: break;
    }
    if (*end)
        return -1;
    *out = (size_t)v;
    return 0;
}

static APP_UNUSED void app_usage(const char *synopsis, const struct app_opt *opts) {
    printf("usage: oshrun -np N %s [options]\n%s\n\noptions:\n", app_g.name, synopsis);
    for (const struct app_opt *o = opts; o && o->name; o++)
        printf("  %-18s %s\n", o->name, o->help);
    printf("  %-18s %s\n", "--verify",
           "check the result against a serial computation or an invariant; exit 1 if wrong");
    printf("  %-18s %s\n", "--json FILE", "write the parameters and results as one JSON object (PE 0)");
    printf("  %-18s %s\n", "--reps N", "timed repetitions (default 5); the median is reported");
    printf("  %-18s %s\n", "--warmup N", "untimed repetitions first (default 1)");
    printf("  %-18s %s\n", "--quiet", "no progress or table on the terminal");
    printf("  %-18s %s\n", "--help", "this text");
}

static APP_UNUSED void app_param(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static APP_UNUSED void app_param(const char *key, const char *fmt, ...) {
    char v[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    size_t l = strlen(app_g.params);
    snprintf(app_g.params + l, sizeof app_g.params - l, "%s\"%s\": \"%s\"", l ? ", " : "", key, v);
}

/* parse argv: exits 0 after --help, 2 on a bad option (PE 0 says which). Call after shmem_init. */
static APP_UNUSED void app_init(int argc, char **argv, const char *name, const char *synopsis,
                                const struct app_opt *opts) {
    memset(&app_g, 0, sizeof app_g);
    app_g.name = name;
    app_g.variant = "host";
    app_g.reps = 5;
    app_g.warmup = 1;
    app_g.verified = -1;
    app_g.me = shmem_my_pe();
    app_g.npes = shmem_n_pes();
#if defined(GSHMEM_VERSION_STRING)
    app_g.impl = "gshmem";
#elif defined(OSHMEM_MAJOR_VERSION)
    app_g.impl = "oshmem";
#else
    app_g.impl = SHMEM_VENDOR_STRING;
#endif
    app_g.quiet = !isatty(2);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int used = 0, bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (app_g.me == 0)
                app_usage(synopsis, opts);
            shmem_finalize();
            exit(0);
        } else if (!strcmp(a, "--verify")) {
            app_g.verify = 1;
            continue;
        } else if (!strcmp(a, "--quiet")) {
            app_g.quiet = 1;
            continue;
        } else if (!strcmp(a, "--json") && v) {
            app_g.json = v, i++;
            continue;
        } else if (!strcmp(a, "--reps") && v) {
            app_g.reps = atoi(v), i++, bad = app_g.reps < 1;
            used = 1;
        } else if (!strcmp(a, "--warmup") && v) {
            app_g.warmup = atoi(v), i++, bad = app_g.warmup < 0;
            used = 1;
        }
        for (const struct app_opt *o = opts; !used && o && o->name; o++) {
            if (strcmp(a, o->name))
                continue;
            used = 1;
            if (o->kind == APP_FLAG) {
                *(int *)o->ptr = 1;
                break;
            }
            if (!v) {
                bad = 1;
                break;
            }
            i++;
            if (o->kind == APP_INT) {
                char *end;
                *(long *)o->ptr = strtol(v, &end, 10);
                bad = *end != '\0';
            } else if (o->kind == APP_SIZE) {
                bad = app_parse_size(v, (size_t *)o->ptr) != 0;
            } else {
                *(const char **)o->ptr = v;
            }
        }
        if (!used || bad) {
            if (app_g.me == 0)
                fprintf(stderr, "%s: %s option '%s'%s%s (see --help)\n", name, used ? "bad value for" : "unknown", a,
                        used && v ? " " : "", used && v ? v : "");
            shmem_finalize();
            exit(2);
        }
    }
    app_param("reps", "%d", app_g.reps);
}

/* progress on a terminal (PE 0), overwritten in place */
static APP_UNUSED void app_progress(const char *what, int done, int total) {
    if (app_g.me || app_g.quiet)
        return;
    fprintf(stderr, "\r%s: %s %d/%d   ", app_g.name, what, done, total);
    if (done == total)
        fprintf(stderr, "\r%*s\r", 60, "");
    fflush(stderr);
}

static int app_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the slowest PE's time of each repetition: t is this PE's, the result PE 0's view (every PE gets it) */
#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105
#define APP_REDUCE(T, OP, dst, src) shmem_##T##_##OP##_reduce(SHMEM_TEAM_WORLD, dst, src, 1)
#else /* (1.4: OSHMEM has no _reduce) */
#define APP_REDUCE(T, OP, dst, src) shmem_##T##_##OP##_to_all(dst, src, 1, 0, 0, shmem_n_pes(), pwrk, psync)
#endif
static APP_UNUSED double app_max_over_pes(double t) {
    static double src, dst;
    static long psync[SHMEM_REDUCE_SYNC_SIZE];
    static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE > 1 ? SHMEM_REDUCE_MIN_WRKDATA_SIZE : 1];
    static int init;
    if (!init) {
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
            psync[i] = SHMEM_SYNC_VALUE;
        init = 1;
    }
    src = t;
    shmem_barrier_all();
    APP_REDUCE(double, max, &dst, &src);
    (void)pwrk, (void)psync;
    shmem_barrier_all();
    return dst;
}

/* runs body(arg) warmup + reps times between barriers; returns the median over reps of the slowest PE's time */
typedef void (*app_body_fn)(void *arg);
static APP_UNUSED double app_time(const char *what, app_body_fn body, void *arg, double *tmin, double *tmax) {
    int total = app_g.warmup + app_g.reps;
    double *t = (double *)calloc((size_t)app_g.reps, sizeof(double));
    for (int r = 0; r < total; r++) {
        app_progress(what, r, total);
        shmem_barrier_all();
        double t0 = app_now();
        body(arg);
        double dt = app_now() - t0;
        dt = app_max_over_pes(dt);
        if (r >= app_g.warmup)
            t[r - app_g.warmup] = dt;
    }
    app_progress(what, total, total);
    qsort(t, (size_t)app_g.reps, sizeof(double), app_cmp_double);
    double med = app_g.reps % 2 ? t[app_g.reps / 2] : 0.5 * (t[app_g.reps / 2 - 1] + t[app_g.reps / 2]);
    if (tmin)
        *tmin = t[0];
    if (tmax)
        *tmax = t[app_g.reps - 1];
    free(t);
    return med;
}

/* one reported figure: name (e.g. "time"), its median/min/max and unit; printed on PE 0 */
static APP_UNUSED void app_metric(const char *metric, double median, double min, double max, const char *unit) {
    if (app_g.me)
        return;
    if (!app_g.quiet || !app_g.json)
        printf("%-12s %-16s np=%-3d %-22s %12.6g %s (min %.6g, max %.6g)\n", app_g.name, app_g.variant, app_g.npes,
               metric, median, unit, min, max);
    size_t l = strlen(app_g.metrics);
    snprintf(app_g.metrics + l, sizeof app_g.metrics - l,
             "%s\"%s\": {\"median\": %.9g, \"min\": %.9g, \"max\": %.9g, \"unit\": \"%s\"}", l ? ", " : "", metric,
             median, min, max, unit);
}

/* the verification of every PE: ok is this PE's; the job's verdict is the AND over PEs (every PE gets it) */
static APP_UNUSED int app_verdict(int ok) {
    static int src, dst;
    static long psync[SHMEM_REDUCE_SYNC_SIZE];
    static int pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE > 1 ? SHMEM_REDUCE_MIN_WRKDATA_SIZE : 1];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    src = ok ? 1 : 0;
    shmem_barrier_all();
    APP_REDUCE(int, min, &dst, &src);
    (void)pwrk, (void)psync;
    shmem_barrier_all();
    app_g.verified = dst;
    if (app_g.me == 0)
        printf("%s %s np=%d: verification %s\n", app_g.name, app_g.variant, app_g.npes, dst ? "passed" : "FAILED");
    return dst;
}

/* writes the JSON (PE 0), finalizes, and returns the exit status: 1 when a verification failed */
static APP_UNUSED int app_finish(void) {
    if (app_g.me == 0 && app_g.json) {
        FILE *f = fopen(app_g.json, "w");
        if (!f) {
            fprintf(stderr, "%s: cannot write %s: %s\n", app_g.name, app_g.json, strerror(errno));
        } else {
            fprintf(f,
                    "{\"app\": \"%s\", \"variant\": \"%s\", \"impl\": \"%s\", \"npes\": %d, \"verify\": \"%s\", "
                    "\"params\": {%s}, \"metrics\": {%s}}\n",
                    app_g.name, app_g.variant, app_g.impl, app_g.npes,
                    app_g.verified < 0 ? "skipped"
                    : app_g.verified   ? "passed"
                                       : "failed",
                    app_g.params, app_g.metrics);
            fclose(f);
        }
    }
    int rc = app_g.verified == 0;
    shmem_finalize();
    return rc;
}

/* ---- OpenSHMEM 1.5 routines with 1.4 fallbacks (OSHMEM 4.1 is 1.4) ---- */
#if defined(SHMEM_SIGNAL_SET)
#define APP_HAVE_SIGNAL 1
static APP_UNUSED void app_putmem_signal_nbi(void *dst, const void *src, size_t n, uint64_t *sig, uint64_t v, int pe) {
    shmem_putmem_signal_nbi(dst, src, n, sig, v, SHMEM_SIGNAL_SET, pe);
}
static APP_UNUSED uint64_t app_signal_wait_until(uint64_t *sig, int cmp, uint64_t v) {
    return shmem_signal_wait_until(sig, cmp, v);
}
#else
#define APP_HAVE_SIGNAL 0
/* the data, a fence (delivery order to one PE), then the flag: what put-with-signal promises, in two steps */
static APP_UNUSED void app_putmem_signal_nbi(void *dst, const void *src, size_t n, uint64_t *sig, uint64_t v, int pe) {
    shmem_putmem_nbi(dst, src, n, pe);
    shmem_fence();
    shmem_ulong_atomic_set((unsigned long *)sig, (unsigned long)v, pe); /* (1.4 has no uint64 AMOs) */
}
static APP_UNUSED uint64_t app_signal_wait_until(uint64_t *sig, int cmp, uint64_t v) {
    shmem_ulong_wait_until((unsigned long *)sig, cmp, (unsigned long)v);
    return shmem_ulong_atomic_fetch((unsigned long *)sig, shmem_my_pe());
}
#endif

#endif
