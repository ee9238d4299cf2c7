/* soak.c - the stress suite's workload: every PE runs verified rounds of puts (blocking, non-blocking, strided,
 * single elements, with signal), gets, atomics and collectives against random peers for a given time, optionally
 * from several threads with a context each, and the job fails on the first wrong value. Every choice comes from a
 * generator seeded by (round, PE, thread), so each PE knows what every other PE wrote to it and checks it.
 *
 *   stress_soak [--seconds S] [--threads T] [--max N] [--corrupt R]
 *   (S default 30; T default 0: the main thread only; --corrupt R: PE 0 puts one wrong value in round R)
 *
 * Prints one line at the end (PE 0): rounds, verified operations, seconds. */
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 512 /* longs per (source PE, thread) row */
#define MAXPES 64 /* rows at each PE */
#define MAXTHR 8  /* threads per PE */
#define COLL 64   /* elements in each collective */
#define EVERY_COLL 8

static long rows[MAXPES * (MAXTHR + 1)][SLOTS]; /* rows[src * (MAXTHR + 1) + thread]: what src's thread put here */
static uint64_t counters[MAXTHR + 1];           /* fetch-added by everyone */
static uint64_t sig[MAXPES * (MAXTHR + 1)];     /* signals of put_signal, one per source row */
static long coll_src[COLL * MAXPES], coll_dst[COLL * MAXPES];
static long red_src[COLL], red_dst[COLL];
static int stop_flag;

static int npes, me, nthreads;
static unsigned long long verified_ops[MAXTHR + 1];
static int failed;
static long corrupt_round = -1; /* --corrupt R: PE 0 puts one wrong value in round R (the check must see it) */

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* what a (round, source, thread) does: its target, how many elements, and how it puts them */
struct plan {
    int target, n, how;
    uint64_t seed, add;
};
enum { PUT, PUT_NBI, IPUT, P_EACH, PUT_SIGNAL, HOWS };

static struct plan plan_of(long round, int src, int thr) {
    uint64_t r = mix(((uint64_t)round << 24) ^ ((uint64_t)src << 8) ^ (uint64_t)thr ^ 0x5eed);
    struct plan p;
    p.target = (int)(r % (uint64_t)npes);
    p.n = 1 + (int)((r >> 16) % SLOTS);
    p.how = (int)((r >> 32) % HOWS);
    if (thr > 0 && p.how == PUT_SIGNAL) /* the signal words are checked by the main thread's plan only */
        p.how = PUT;
    if (p.how == IPUT && p.n > SLOTS / 2)
        p.n = SLOTS / 2;
    p.seed = mix(r);
    p.add = 1 + (r >> 48) % 1000;
    return p;
}

static long value(const struct plan *p, int i) { return (long)(p->seed + (uint64_t)i * 0x9e3779b97f4a7c15ull); }

#define BAD(...)                                                                                                       \
    do {                                                                                                               \
        fprintf(stderr, "stress_soak: PE %d: ", me);                                                                   \
        fprintf(stderr, __VA_ARGS__);                                                                                  \
        fputc('\n', stderr);                                                                                           \
        __atomic_store_n(&failed, 1, __ATOMIC_SEQ_CST);                                                                \
    } while (0)

/* one thread's puts and atomics of a round (thr 0: the main thread on the default context) */
static void issue(long round, int thr, shmem_ctx_t ctx) {
    struct plan p = plan_of(round, me, thr);
    long buf[SLOTS];
    int row = me * (MAXTHR + 1) + thr;
    for (int i = 0; i < p.n; i++)
        buf[i] = value(&p, i);
    if (round == corrupt_round && me == 0 && thr == 0)
        buf[p.n - 1] ^= 1;
    switch (p.how) {
    case PUT: shmem_ctx_long_put(ctx, rows[row], buf, (size_t)p.n, p.target); break;
    case PUT_NBI: shmem_ctx_long_put_nbi(ctx, rows[row], buf, (size_t)p.n, p.target); break;
    case IPUT: /* every other slot */ shmem_ctx_long_iput(ctx, rows[row], buf, 2, 1, (size_t)p.n, p.target); break;
    case P_EACH:
        for (int i = 0; i < p.n; i++)
            shmem_ctx_long_p(ctx, &rows[row][i], buf[i], p.target);
        break;
    case PUT_SIGNAL:
        shmem_ctx_long_put_signal(ctx, rows[row], buf, (size_t)p.n, &sig[row], (uint64_t)round, SHMEM_SIGNAL_SET,
                                  p.target);
        break;
    }
    shmem_ctx_uint64_atomic_add(ctx, &counters[thr], p.add, (me + thr + (int)round) % npes);
    shmem_ctx_quiet(ctx);
    verified_ops[thr] += (uint64_t)(p.how == P_EACH ? p.n : 1) + 1;
}

/* what the round's sources put here is here */
static void check_round(long round) {
    for (int src = 0; src < npes; src++)
        for (int thr = 0; thr <= nthreads; thr++) {
            struct plan p = plan_of(round, src, thr);
            if (p.target != me)
                continue;
            int row = src * (MAXTHR + 1) + thr;
            for (int i = 0; i < p.n; i++) {
                long got = rows[row][p.how == IPUT ? 2 * i : i];
                if (got != value(&p, i)) {
                    BAD("round %ld: element %d of the %d put by PE %d thread %d (how %d) is %#lx, expected %#lx", round,
                        i, p.n, src, thr, p.how, (unsigned long)got, (unsigned long)value(&p, i));
                    return;
                }
            }
            if (p.how == PUT_SIGNAL && sig[row] != (uint64_t)round)
                BAD("round %ld: the signal of PE %d's put_signal is %llu", round, src, (unsigned long long)sig[row]);
        }
}

/* a get of a random peer's row that this PE wrote in the round, checked against what was put */
static void check_get(long round) {
    struct plan p = plan_of(round, me, 0);
    long buf[SLOTS];
    int row = me * (MAXTHR + 1);
    if (p.how == IPUT) {
        shmem_long_iget(buf, rows[row], 1, 2, (size_t)p.n, p.target);
    } else {
        shmem_long_get(buf, rows[row], (size_t)p.n, p.target);
    }
    for (int i = 0; i < p.n; i++)
        if (buf[i] != value(&p, i)) {
            BAD("round %ld: a get of my row at PE %d: element %d is %#lx, expected %#lx", round, p.target, i,
                (unsigned long)buf[i], (unsigned long)value(&p, i));
            return;
        }
    verified_ops[0]++;
}

static void check_colls(long round) {
    for (int i = 0; i < COLL; i++) {
        red_src[i] = (long)mix((uint64_t)round * 131 + (uint64_t)me * 7 + (uint64_t)i) % 1000000;
        for (int pe = 0; pe < npes; pe++)
            coll_src[pe * COLL + i] = (long)(round * 1000003 + me * 1009 + pe * 17 + i);
    }
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, red_dst, red_src, COLL);
    shmem_long_alltoall(SHMEM_TEAM_WORLD, coll_dst, coll_src, COLL);
    for (int i = 0; i < COLL; i++) {
        long want = 0;
        for (int pe = 0; pe < npes; pe++)
            want += (long)mix((uint64_t)round * 131 + (uint64_t)pe * 7 + (uint64_t)i) % 1000000;
        if (red_dst[i] != want) {
            BAD("round %ld: sum_reduce element %d is %ld, expected %ld", round, i, red_dst[i], want);
            break;
        }
        for (int pe = 0; pe < npes; pe++)
            if (coll_dst[pe * COLL + i] != (long)(round * 1000003 + pe * 1009 + me * 17 + i)) {
                BAD("round %ld: alltoall element %d from PE %d is %ld", round, i, pe, coll_dst[pe * COLL + i]);
                i = COLL;
                break;
            }
    }
    verified_ops[0] += 2;
}

struct thr_arg {
    int thr;
    long round;
    pthread_barrier_t *go, *done;
    int quit;
};

static void *worker(void *a) {
    struct thr_arg *t = a;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx)) {
        BAD("thread %d: shmem_ctx_create failed", t->thr);
        ctx = SHMEM_CTX_DEFAULT;
    }
    for (;;) {
        pthread_barrier_wait(t->go);
        if (__atomic_load_n(&t->quit, __ATOMIC_ACQUIRE))
            break;
        issue(__atomic_load_n(&t->round, __ATOMIC_ACQUIRE), t->thr, ctx);
        pthread_barrier_wait(t->done);
    }
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    return NULL;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    double seconds = 30;
    long max_rounds = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seconds"))
            seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            nthreads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--max"))
            max_rounds = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--corrupt"))
            corrupt_round = atol(argv[i + 1]);
        else {
            fprintf(stderr, "usage: stress_soak [--seconds S] [--threads T] [--max ROUNDS] [--corrupt ROUND]\n");
            return 2;
        }
    }
    if (nthreads < 0 || nthreads > MAXTHR) {
        fprintf(stderr, "stress_soak: --threads must be 0..%d\n", MAXTHR);
        return 2;
    }
    int provided = SHMEM_THREAD_SINGLE;
    if (nthreads) {
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
        if (provided != SHMEM_THREAD_MULTIPLE) {
            fprintf(stderr, "stress_soak: SHMEM_THREAD_MULTIPLE not provided\n");
            shmem_global_exit(77);
        }
    } else {
        shmem_init();
    }
    npes = shmem_n_pes();
    me = shmem_my_pe();
    if (npes > MAXPES) {
        if (me == 0)
            fprintf(stderr, "stress_soak: at most %d PEs\n", MAXPES);
        shmem_global_exit(77);
    }

    pthread_t tid[MAXTHR];
    struct thr_arg targ[MAXTHR];
    pthread_barrier_t go, done;
    if (nthreads) {
        pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
        pthread_barrier_init(&done, NULL, (unsigned)nthreads + 1);
        for (int t = 0; t < nthreads; t++) {
            targ[t] = (struct thr_arg){.thr = t + 1, .go = &go, .done = &done};
            pthread_create(&tid[t], NULL, worker, &targ[t]);
        }
    }

    uint64_t adds[MAXTHR + 1] = {0}; /* what all PEs added to my counters, recomputed */
    double t0 = now_s();
    long round = 0;
    shmem_barrier_all();
    for (;; round++) {
        for (int t = 0; t < nthreads; t++)
            __atomic_store_n(&targ[t].round, round, __ATOMIC_RELEASE);
        if (nthreads)
            pthread_barrier_wait(&go);
        issue(round, 0, SHMEM_CTX_DEFAULT);
        if (nthreads)
            pthread_barrier_wait(&done);
        shmem_barrier_all();
        check_round(round);
        for (int src = 0; src < npes; src++)
            for (int thr = 0; thr <= nthreads; thr++)
                if ((src + thr + (int)round) % npes == me)
                    adds[thr] += plan_of(round, src, thr).add;
        check_get(round);
        if (round % EVERY_COLL == 0)
            check_colls(round);
        /* PE 0 decides when to stop; everyone reads it after the next barrier */
        if (me == 0 && ((max_rounds >= 0 && round + 1 >= max_rounds) || now_s() - t0 >= seconds ||
                        __atomic_load_n(&failed, __ATOMIC_SEQ_CST)))
            for (int pe = 0; pe < npes; pe++)
                shmem_int_p(&stop_flag, 1, pe);
        shmem_barrier_all(); /* nobody overwrites a row before its owner checked it */
        if (__atomic_load_n(&failed, __ATOMIC_SEQ_CST))
            shmem_global_exit(1);
        if (shmem_int_atomic_fetch(&stop_flag, me))
            break;
    }
    for (int thr = 0; thr <= nthreads; thr++)
        if (counters[thr] != adds[thr])
            BAD("counter %d is %llu after %ld rounds, expected %llu", thr, (unsigned long long)counters[thr], round + 1,
                (unsigned long long)adds[thr]);
    if (nthreads) {
        for (int t = 0; t < nthreads; t++)
            __atomic_store_n(&targ[t].quit, 1, __ATOMIC_RELEASE);
        pthread_barrier_wait(&go);
        for (int t = 0; t < nthreads; t++)
            pthread_join(tid[t], NULL);
    }
    static unsigned long long total, mine;
    for (int thr = 0; thr <= nthreads; thr++)
        mine += verified_ops[thr];
    shmem_ulonglong_sum_reduce(SHMEM_TEAM_WORLD, &total, &mine, 1);
    int bad = failed;
    static int any_bad, my_bad;
    my_bad = bad;
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, &any_bad, &my_bad, 1);
    if (me == 0)
        printf("stress_soak: %d PEs x %d threads: %ld rounds, %llu verified operations in %.1f s: %s\n", npes,
               nthreads + 1, round + 1, total, now_s() - t0, any_bad ? "FAILED" : "ok");
    shmem_finalize();
    return any_bad ? 1 : 0;
}
