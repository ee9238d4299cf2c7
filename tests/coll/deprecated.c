/* deprecated.c - the active-set collectives OpenSHMEM 1.5 deprecates but programs still call: shmem_barrier and
 * shmem_sync (the same pSync on consecutive calls; two disjoint active sets at once on one pSync), broadcast32/64
 * (the root's dest is NOT updated), collect32/64, fcollect32/64, alltoall32/64, alltoalls32/64 back to back on two
 * alternating pSync arrays, and every *_to_all reduction with pWrk of exactly max(nreduce/2 + 1,
 * SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements (nothing past it may be touched); active sets with logPE_stride 0, 1, 2 and
 * PE_start > 0; every pSync must hold SHMEM_SYNC_VALUE again when the call returns; active-set and team reductions
 * interleaved on the same PEs. The _SHMEM_* names compile. */
#include "fc_red.h"

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define PS_N                                                                                                           \
    MAX2(MAX2(SHMEM_COLLECT_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE), MAX2(SHMEM_ALLTOALLS_SYNC_SIZE, SHMEM_SYNC_SIZE))

/* the deprecated underscore spellings must still work in declarations */
static long ps_bar[_SHMEM_BARRIER_SYNC_SIZE];
static long ps_sync[SHMEM_SYNC_SIZE];
static long ps_bc[_SHMEM_BCAST_SYNC_SIZE];
static long ps_a[PS_N], ps_b[PS_N];
static long ps_r[2][_SHMEM_REDUCE_SYNC_SIZE];

typedef struct {
    int start, logs, size;
} aset;
static inline int as_idx(aset a, int pe) {
    int s = 1 << a.logs;
    if (pe < a.start || (pe - a.start) % s)
        return -1;
    int i = (pe - a.start) / s;
    return i < a.size ? i : -1;
}
static inline int as_pe(aset a, int i) { return a.start + (i << a.logs); }
#define AS_ARGS(a) (a).start, (a).logs, (a).size

static long *heap;               /* put slots for barrier/sync */
static char *bsrc[2], *bdst[2];  /* reductions: sources and dests, two of each */
static char *pwrk[2];            /* reductions: pWrk, two */
static uint64_t *csrc, *cdst[2]; /* collect, fcollect, alltoall(s) */
static uint64_t *bcsrc, *bcdst;  /* broadcast */
#define NRED_MAX 1000
#define CBUF 4096

static char cur_set[48]; /* the active set under test, for messages */

/* Called right after a collective returns and before this PE enters anything that would let a peer start the next
 * call on the same pSync (a peer may reuse it as soon as every PE has entered a later collective). */
static void check_psync(const long *ps, int n, const char *what, int round) {
    for (int i = 0; i < n; i++)
        if (ps[i] != SHMEM_SYNC_VALUE) {
            FAIL("%s set %s (call %d): pSync[%d] = %ld after return, want SHMEM_SYNC_VALUE", what, cur_set, round, i,
                 ps[i]);
            return;
        }
}

static void init_psync(void) {
    for (int i = 0; i < _SHMEM_BARRIER_SYNC_SIZE; i++)
        ps_bar[i] = _SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        ps_sync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < _SHMEM_BCAST_SYNC_SIZE; i++)
        ps_bc[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < PS_N; i++)
        ps_a[i] = ps_b[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < _SHMEM_REDUCE_SYNC_SIZE; i++)
        ps_r[0][i] = ps_r[1][i] = SHMEM_SYNC_VALUE;
}

/* ---- barrier and sync ---- */
static void t_barrier_sync(aset a, int base) {
    int i = as_idx(a, me), nxt = as_pe(a, (i + 1) % a.size), prev = as_pe(a, (i + a.size - 1) % a.size);
    for (int r = 0; r < 30; r++) {
        shmem_long_p(&heap[base + r], r * 1000 + me, nxt); /* completed by the barrier */
        shmem_barrier(AS_ARGS(a), ps_bar);
        if (r == 29) /* a peer may already be in the next barrier on ps_bar, counting in this PE's copy */
            check_psync(ps_bar, _SHMEM_BARRIER_SYNC_SIZE, "shmem_barrier", r);
        CHECK(heap[base + r] == r * 1000 + prev, "barrier set (%d,%d,%d) round %d: slot %ld want %d", AS_ARGS(a), r,
              heap[base + r], r * 1000 + prev);
    }
    for (int r = 30; r < 60; r++) {
        shmem_long_p(&heap[base + r], r * 1000 + me, nxt);
        shmem_quiet(); /* shmem_sync does not complete puts */
        shmem_sync(AS_ARGS(a), ps_sync);
        if (r == 59)
            check_psync(ps_sync, SHMEM_SYNC_SIZE, "shmem_sync", r);
        CHECK(heap[base + r] == r * 1000 + prev, "sync set (%d,%d,%d) round %d: slot %ld want %d", AS_ARGS(a), r,
              heap[base + r], r * 1000 + prev);
    }
}

/* ---- broadcast32/64: every member as root ---- */
static uint64_t bc_val(int w, int e, int root, int n) { return (uint64_t)fc_val(w, e, root, n) * 0x100000001ull; }
static void t_broadcast(aset a) {
    int i = as_idx(a, me);
    static const int ns[] = {0, 1, 9, 100};
    int call = 0;
    for (int root = 0; root < a.size; root++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++, call++) {
            int n = ns[k], wide = (root + (int)k) % 2;
            for (int e = 0; e < 2 * n + 2; e++)
                bcsrc[e] = bc_val(me, e, root, n);
            fc_fill(bcdst, (2 * (size_t)n + 2) * 8);
            shmem_barrier(AS_ARGS(a), ps_bar); /* dests ready, ps_bc free */
            if (wide)
                shmem_broadcast64(bcdst, bcsrc, n, root, AS_ARGS(a), ps_bc);
            else
                shmem_broadcast32(bcdst, bcsrc, n, root, AS_ARGS(a), ps_bc);
            check_psync(ps_bc, _SHMEM_BCAST_SYNC_SIZE, wide ? "broadcast64" : "broadcast32", call);
            size_t bytes = (size_t)n * (wide ? 8 : 4);
            if (i == root) {
                CHECK(fc_first_unfilled(bcdst, bytes + 8) == bytes + 8,
                      "broadcast%d set (%d,%d,%d): the root's dest was updated", wide ? 64 : 32, AS_ARGS(a));
            } else {
                const unsigned char *got = (const unsigned char *)bcdst;
                uint64_t rs[2 * 100 + 2]; /* the root's source, recomputed here */
                for (int e = 0; e < 2 * n + 2; e++)
                    rs[e] = bc_val(as_pe(a, root), e, root, n);
                if (memcmp(got, rs, bytes) != 0)
                    FAIL("broadcast%d set (%d,%d,%d) root %d n %d: dest differs from the root's source", wide ? 64 : 32,
                         AS_ARGS(a), root, n);
                CHECK(fc_first_unfilled(got + bytes, 8) == 8, "broadcast%d: wrote past nelems", wide ? 64 : 32);
            }
        }
    shmem_barrier(AS_ARGS(a), ps_bar);
}

/* ---- collect / fcollect / alltoall / alltoalls, back to back on alternating pSync and dest ---- */
static uint64_t cval(int w, int to, int e, int op) {
    return ((uint64_t)(op + 1) << 40) | ((uint64_t)w << 24) | (uint64_t)(to << 12) | (uint64_t)e;
}
static int ccount(int j, int op) { return (j + op) % 4; } /* collect: 0..3 elements, 0 on some PEs */

/* reads one element of a 32- or 64-bit array */
static uint64_t elem(const uint64_t *p, int wide, size_t i) { return wide ? p[i] : ((const uint32_t *)p)[i]; }
static void set_elem(uint64_t *p, int wide, size_t i, uint64_t v) {
    if (wide)
        p[i] = v;
    else
        ((uint32_t *)p)[i] = (uint32_t)v;
}
static int is_fill(const uint64_t *p, int wide, size_t i) {
    return fc_first_unfilled((const char *)p + i * (wide ? 8 : 4), wide ? 8 : 4) == (size_t)(wide ? 8 : 4);
}

#define NOPS 24
static void t_collectives(aset a) {
    int i = as_idx(a, me), n = a.size;
    fc_fill(cdst[0], CBUF * 8);
    fc_fill(cdst[1], CBUF * 8);
    shmem_barrier(AS_ARGS(a), ps_bar);
    for (int op = 0; op < NOPS; op++) {
        int kind = op % 4, wide = (op / 4) % 2, alt = op % 2;
        uint64_t *d = cdst[alt];
        long *ps = alt ? ps_b : ps_a;
        uint64_t mask = wide ? ~0ull : 0xffffffffull;
        const char *what = kind == 0 ? "collect" : kind == 1 ? "fcollect" : kind == 2 ? "alltoall" : "alltoalls";
        int ne = 3;                 /* fcollect / alltoall elements */
        ptrdiff_t dst = 2, sst = 3; /* alltoalls */
        size_t extent = 0;          /* elements of dest the call may write */
        switch (kind) {
        case 0: {
            int c = ccount(i, op);
            for (int e = 0; e < c; e++)
                set_elem(csrc, wide, e, cval(me, 0, e, op));
            for (int j = 0; j < n; j++)
                extent += ccount(j, op);
            if (wide)
                shmem_collect64(d, csrc, c, AS_ARGS(a), ps);
            else
                shmem_collect32(d, csrc, c, AS_ARGS(a), ps);
            size_t off = 0;
            for (int j = 0; j < n; j++)
                for (int e = 0; e < ccount(j, op); e++, off++)
                    if (elem(d, wide, off) != (cval(as_pe(a, j), 0, e, op) & mask)) {
                        FAIL("%s%d set (%d,%d,%d) call %d: dest[%zu] (member %d elem %d) wrong", what, wide ? 64 : 32,
                             AS_ARGS(a), op, off, j, e);
                        j = n;
                        break;
                    }
            break;
        }
        case 1:
            for (int e = 0; e < ne; e++)
                set_elem(csrc, wide, e, cval(me, 0, e, op));
            extent = (size_t)n * ne;
            if (wide)
                shmem_fcollect64(d, csrc, ne, AS_ARGS(a), ps);
            else
                shmem_fcollect32(d, csrc, ne, AS_ARGS(a), ps);
            for (size_t q = 0; q < extent; q++)
                if (elem(d, wide, q) != (cval(as_pe(a, (int)q / ne), 0, (int)q % ne, op) & mask)) {
                    FAIL("%s%d set (%d,%d,%d) call %d: dest[%zu] wrong", what, wide ? 64 : 32, AS_ARGS(a), op, q);
                    break;
                }
            break;
        case 2:
            for (int j = 0; j < n; j++)
                for (int e = 0; e < ne; e++)
                    set_elem(csrc, wide, (size_t)j * ne + e, cval(me, j, e, op));
            extent = (size_t)n * ne;
            if (wide)
                shmem_alltoall64(d, csrc, ne, AS_ARGS(a), ps);
            else
                shmem_alltoall32(d, csrc, ne, AS_ARGS(a), ps);
            for (size_t q = 0; q < extent; q++)
                if (elem(d, wide, q) != (cval(as_pe(a, (int)q / ne), i, (int)q % ne, op) & mask)) {
                    FAIL("%s%d set (%d,%d,%d) call %d: dest[%zu] wrong", what, wide ? 64 : 32, AS_ARGS(a), op, q);
                    break;
                }
            break;
        default:
            for (int j = 0; j < n; j++)
                for (int e = 0; e < ne; e++)
                    set_elem(csrc, wide, (size_t)sst * ((size_t)j * ne + e), cval(me, j, e, op));
            extent = (size_t)dst * ((size_t)n * ne - 1) + 1;
            if (wide)
                shmem_alltoalls64(d, csrc, dst, sst, ne, AS_ARGS(a), ps);
            else
                shmem_alltoalls32(d, csrc, dst, sst, ne, AS_ARGS(a), ps);
            for (size_t q = 0; q < extent; q++) {
                int ok = q % (size_t)dst ? is_fill(d, wide, q)
                                         : elem(d, wide, q) ==
                                               (cval(as_pe(a, (int)(q / dst) / ne), i, (int)(q / dst) % ne, op) & mask);
                if (!ok) {
                    FAIL("%s%d set (%d,%d,%d) call %d: dest[%zu] wrong", what, wide ? 64 : 32, AS_ARGS(a), op, q);
                    break;
                }
            }
            break;
        }
        check_psync(ps, PS_N, what, op);
        for (size_t q = extent; q < extent + 2; q++)
            CHECK(is_fill(d, wide, q), "%s%d set (%d,%d,%d) call %d: wrote past the end (elem %zu)", what,
                  wide ? 64 : 32, AS_ARGS(a), op, q);
        /* ready this dest for the call after next: no peer writes it before this PE enters the next call */
        fc_fill(d, CBUF * 8);
    }
    shmem_barrier(AS_ARGS(a), ps_bar);
}

/* ---- *_to_all ---- */
typedef void (*red_prep)(aset, int, int);
typedef void (*red_run)(aset, int, int);

#define WRK(n) MAX2((n) / 2 + 1, _SHMEM_REDUCE_MIN_WRKDATA_SIZE)

#define DEF_TOALL(TN, T, OP, CLASS, SGN, FP)                                                                           \
    static void prep_##TN##_##OP(aset a, int n, int alt) {                                                             \
        int p = as_idx(a, me);                                                                                         \
        (void)p;                                                                                                       \
        T *s = (T *)bsrc[alt], *d = (T *)bdst[alt];                                                                    \
        for (int e = 0; e < n; e++)                                                                                    \
            s[e] = GENV_##CLASS(OP, T, p, me, (size_t)e, a.size, SGN, FP);                                             \
        fc_fill(d, ((size_t)n + 2) * sizeof(T));                                                                       \
        fc_fill((T *)pwrk[alt] + WRK(n), 4 * sizeof(T)); /* guard right after the pWrk the call may use */             \
    }                                                                                                                  \
    static void run_##TN##_##OP(aset a, int n, int alt) {                                                              \
        T *s = (T *)bsrc[alt], *d = (T *)bdst[alt], *w = (T *)pwrk[alt];                                               \
        shmem_##TN##_##OP##_to_all(d, s, n, AS_ARGS(a), w, ps_r[alt]);                                                 \
        check_psync(ps_r[alt], _SHMEM_REDUCE_SYNC_SIZE, "shmem_" #TN "_" #OP "_to_all", n);                            \
        CHECK(fc_first_unfilled(w + WRK(n), 4 * sizeof(T)) == 4 * sizeof(T),                                           \
              #TN "_" #OP "_to_all n %d: wrote past pWrk[max(nreduce/2+1, SHMEM_REDUCE_MIN_WRKDATA_SIZE)]", n);        \
        for (int e = 0; e < n; e++) {                                                                                  \
            T want = GENV_##CLASS(OP, T, 0, as_pe(a, 0), (size_t)e, a.size, SGN, FP);                                  \
            for (int p = 1; p < a.size; p++)                                                                           \
                want = (T)OP_##OP(want, GENV_##CLASS(OP, T, p, as_pe(a, p), (size_t)e, a.size, SGN, FP));              \
            if (d[e] != want) {                                                                                        \
                FAIL(#TN "_" #OP "_to_all set (%d,%d,%d) n %d: dest[%d] = %Lg want %Lg", AS_ARGS(a), n, e,             \
                     (long double)d[e], (long double)want);                                                            \
                break;                                                                                                 \
            }                                                                                                          \
        }                                                                                                              \
        CHECK(fc_first_unfilled(d + n, 2 * sizeof(T)) == 2 * sizeof(T), #TN "_" #OP "_to_all: wrote past nreduce");    \
    }

#define DEF_CTOALL(TN, T, OP)                                                                                          \
    static void prep_##TN##_##OP(aset a, int n, int alt) {                                                             \
        int p = as_idx(a, me);                                                                                         \
        (void)p;                                                                                                       \
        T *s = (T *)bsrc[alt], *d = (T *)bdst[alt];                                                                    \
        for (int e = 0; e < n; e++)                                                                                    \
            s[e] = CGEN_##OP(T, p, me, (size_t)e, a.size);                                                             \
        fc_fill(d, ((size_t)n + 2) * sizeof(T));                                                                       \
        fc_fill((T *)pwrk[alt] + WRK(n), 4 * sizeof(T));                                                               \
    }                                                                                                                  \
    static void run_##TN##_##OP(aset a, int n, int alt) {                                                              \
        T *s = (T *)bsrc[alt], *d = (T *)bdst[alt], *w = (T *)pwrk[alt];                                               \
        shmem_##TN##_##OP##_to_all(d, s, n, AS_ARGS(a), w, ps_r[alt]);                                                 \
        check_psync(ps_r[alt], _SHMEM_REDUCE_SYNC_SIZE, "shmem_" #TN "_" #OP "_to_all", n);                            \
        CHECK(fc_first_unfilled(w + WRK(n), 4 * sizeof(T)) == 4 * sizeof(T), #TN "_" #OP "_to_all: wrote past pWrk");  \
        for (int e = 0; e < n; e++) {                                                                                  \
            T want = CGEN_##OP(T, 0, as_pe(a, 0), (size_t)e, a.size);                                                  \
            for (int p = 1; p < a.size; p++)                                                                           \
                want = OP_##OP(want, CGEN_##OP(T, p, as_pe(a, p), (size_t)e, a.size));                                 \
            if (d[e] != want) {                                                                                        \
                FAIL(#TN "_" #OP "_to_all set (%d,%d,%d) n %d: dest[%d] = %g%+gi want %g%+gi", AS_ARGS(a), n, e,       \
                     (double)creal(d[e]), (double)cimag(d[e]), (double)creal(want), (double)cimag(want));              \
                break;                                                                                                 \
            }                                                                                                          \
        }                                                                                                              \
        CHECK(fc_first_unfilled(d + n, 2 * sizeof(T)) == 2 * sizeof(T), #TN "_" #OP "_to_all: wrote past nreduce");    \
    }

#define ASET_BIT(X, OP)                                                                                                \
    X(short, short, OP, bit, 1, 0)                                                                                     \
    X(int, int, OP, bit, 1, 0) X(long, long, OP, bit, 1, 0) X(longlong, long long, OP, bit, 1, 0)
#define ASET_NUM(X, OP, CLASS)                                                                                         \
    X(short, short, OP, CLASS, 1, 0)                                                                                   \
    X(int, int, OP, CLASS, 1, 0)                                                                                       \
    X(long, long, OP, CLASS, 1, 0)                                                                                     \
    X(longlong, long long, OP, CLASS, 1, 0)                                                                            \
    X(float, float, OP, CLASS, 1, 1) X(double, double, OP, CLASS, 1, 1) X(longdouble, long double, OP, CLASS, 1, 1)
FC_RED_ROUTINES(ASET_BIT, ASET_NUM, DEF_TOALL, DEF_CTOALL)

#define PAIR_X(TN, T, OP, CLASS, SGN, FP) {prep_##TN##_##OP, run_##TN##_##OP},
#define CPAIR_X(TN, T, OP) {prep_##TN##_##OP, run_##TN##_##OP},
static const struct {
    red_prep prep;
    red_run run;
} toall_fns[] = {FC_RED_ROUTINES(ASET_BIT, ASET_NUM, PAIR_X, CPAIR_X)};
#define NTOALL (sizeof toall_fns / sizeof toall_fns[0])

/* pairs of reductions back to back: both prepared, one barrier, then two calls on different pSync/pWrk/dest */
static void t_to_all(aset a, int big) {
    static const int ns[] = {1, 7, 2 * SHMEM_REDUCE_MIN_WRKDATA_SIZE + 3, NRED_MAX};
    int nn = big ? 4 : 3;
    for (int k = 0; k < nn; k++)
        for (size_t f = 0; f < NTOALL; f += 2) {
            size_t g = f + 1 < NTOALL ? f + 1 : 0;
            toall_fns[f].prep(a, ns[k], 0);
            toall_fns[g].prep(a, ns[k], 1);
            shmem_barrier(AS_ARGS(a), ps_bar);
            toall_fns[f].run(a, ns[k], 0);
            toall_fns[g].run(a, ns[k], 1);
        }
    shmem_barrier(AS_ARGS(a), ps_bar);
}

/* Active-set and team collectives interleaved on the same PEs, no barrier between rounds (alternating pSync,
 * pWrk and dests; each round ends with an all-to-all-dependent collective), on static (.bss) buffers. */
static void t_mixed(void) {
    aset ev = {0, 1, (npes + 1) / 2};
    fc_team tev;
    fc_split(&tev, "evens", 0, 2, (npes + 1) / 2);
    static long msrc[8], mdst[2][8], tdst[2][8], pw[2][SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
    snprintf(cur_set, sizeof cur_set, "(%d,%d,%d) mixed with a team", AS_ARGS(ev));
    if (tev.idx >= 0) {
        for (int r = 0; r < 40; r++) {
            int k = r % 2;
            for (int i = 0; i < 8; i++)
                msrc[i] = r * 100L + me + i;
            shmem_long_sum_to_all(mdst[k], msrc, 8, AS_ARGS(ev), pw[k], ps_r[k]);
            check_psync(ps_r[k], SHMEM_REDUCE_SYNC_SIZE, "shmem_long_sum_to_all (mixed)", r);
            long wsum = 0, wmax = 0;
            for (int j = 0; j < ev.size; j++) {
                wsum += as_pe(ev, j);
                wmax = as_pe(ev, j) > wmax ? as_pe(ev, j) : wmax;
            }
            for (int i = 0; i < 8; i++)
                CHECK(mdst[k][i] == ev.size * (r * 100L + i) + wsum, "mixed round %d: sum_to_all[%d] = %ld", r, i,
                      mdst[k][i]);
            CHECK(shmem_long_max_reduce(tev.team, tdst[k], msrc, 8) == 0, "max_reduce");
            for (int i = 0; i < 8; i++)
                CHECK(tdst[k][i] == r * 100L + wmax + i, "mixed round %d: max_reduce[%d] = %ld", r, i, tdst[k][i]);
            if (r % 5 == 4) {
                shmem_barrier(AS_ARGS(ev), ps_bar);
                shmem_team_sync(tev.team);
            }
        }
    }
    fc_destroy(&tev);
    shmem_barrier_all();
}

/* the deprecated constant spellings equal the current ones */
static void constants(void) {
    CHECK(_SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE, "_SHMEM_SYNC_VALUE");
    CHECK(_SHMEM_BCAST_SYNC_SIZE == SHMEM_BCAST_SYNC_SIZE, "_SHMEM_BCAST_SYNC_SIZE");
    CHECK(_SHMEM_BARRIER_SYNC_SIZE == SHMEM_BARRIER_SYNC_SIZE, "_SHMEM_BARRIER_SYNC_SIZE");
    CHECK(_SHMEM_REDUCE_SYNC_SIZE == SHMEM_REDUCE_SYNC_SIZE, "_SHMEM_REDUCE_SYNC_SIZE");
    CHECK(_SHMEM_COLLECT_SYNC_SIZE == SHMEM_COLLECT_SYNC_SIZE, "_SHMEM_COLLECT_SYNC_SIZE");
    CHECK(_SHMEM_REDUCE_MIN_WRKDATA_SIZE == SHMEM_REDUCE_MIN_WRKDATA_SIZE, "_SHMEM_REDUCE_MIN_WRKDATA_SIZE");
    CHECK(_SHMEM_MAJOR_VERSION == SHMEM_MAJOR_VERSION && _SHMEM_MINOR_VERSION == SHMEM_MINOR_VERSION, "versions");
    CHECK(_SHMEM_MAX_NAME_LEN == SHMEM_MAX_NAME_LEN, "_SHMEM_MAX_NAME_LEN");
    CHECK(strcmp(_SHMEM_VENDOR_STRING, SHMEM_VENDOR_STRING) == 0, "_SHMEM_VENDOR_STRING");
    CHECK(_SHMEM_CMP_EQ == SHMEM_CMP_EQ && _SHMEM_CMP_NE == SHMEM_CMP_NE && _SHMEM_CMP_GT == SHMEM_CMP_GT &&
              _SHMEM_CMP_GE == SHMEM_CMP_GE && _SHMEM_CMP_LT == SHMEM_CMP_LT && _SHMEM_CMP_LE == SHMEM_CMP_LE,
          "_SHMEM_CMP_*");
    CHECK(SHMEM_REDUCE_MIN_WRKDATA_SIZE >= 1 && SHMEM_BCAST_SYNC_SIZE >= 1 && SHMEM_SYNC_SIZE >= 1, "sizes");
}

int main(void) {
    init_psync(); /* before shmem_init, as old programs do */
    fc_init();
    constants();
    heap = shmem_calloc(256, sizeof(long));
    for (int k = 0; k < 2; k++) {
        bsrc[k] = shmem_malloc((NRED_MAX + 2) * 16);
        bdst[k] = shmem_malloc((NRED_MAX + 2) * 16);
        pwrk[k] = shmem_malloc((WRK(NRED_MAX) + 8) * 16);
        cdst[k] = shmem_malloc(CBUF * 8);
        REQUIRE(bsrc[k] && bdst[k] && pwrk[k] && cdst[k], "shmem_malloc");
    }
    csrc = shmem_malloc(CBUF * 8);
    bcsrc = shmem_malloc(256 * 8);
    bcdst = shmem_malloc(256 * 8);
    REQUIRE(heap && csrc && bcsrc && bcdst, "shmem_malloc");

    /* active sets: (PE_start, logPE_stride, PE_size) */
    const aset cand[] = {{0, 0, npes},     {1, 0, npes - 1},       {0, 1, (npes + 1) / 2}, {1, 1, npes / 2},
                         {npes - 1, 0, 1}, {0, 2, (npes + 3) / 4}, {2, 1, (npes - 1) / 2}};
    for (size_t c = 0; c < sizeof cand / sizeof cand[0]; c++) {
        aset a = cand[c];
        if (a.size < 1 || a.start < 0 || as_pe(a, a.size - 1) >= npes)
            continue;
        snprintf(cur_set, sizeof cur_set, "(%d,%d,%d)", AS_ARGS(a));
        for (int k = 0; k < 256; k++)
            heap[k] = -1;
        shmem_barrier_all();
        if (as_idx(a, me) >= 0) {
            t_barrier_sync(a, 0);
            t_broadcast(a);
            t_collectives(a);
            t_to_all(a, c == 0 || c == 2);
        }
        shmem_barrier_all();
    }

    /* two disjoint active sets (evens, odds) at the same time on the same pSync arrays */
    if (npes >= 2) {
        aset ev = {0, 1, (npes + 1) / 2}, od = {1, 1, npes / 2};
        for (int k = 0; k < 256; k++)
            heap[k] = -1;
        shmem_barrier_all();
        aset mine = as_idx(ev, me) >= 0 ? ev : od;
        snprintf(cur_set, sizeof cur_set, "(%d,%d,%d) beside its complement", AS_ARGS(mine));
        t_barrier_sync(mine, 100);
        t_collectives(mine);
        shmem_barrier_all();
    }
    t_mixed();
    /* pSync reused right after barrier_all: the arrays are back to SHMEM_SYNC_VALUE on every PE */
    check_psync(ps_bar, SHMEM_BARRIER_SYNC_SIZE, "ps_bar at the end", -1);
    check_psync(ps_a, PS_N, "ps_a at the end", -1);
    check_psync(ps_r[1], SHMEM_REDUCE_SYNC_SIZE, "ps_r at the end", -1);

    for (int k = 0; k < 2; k++) {
        shmem_free(cdst[k]);
        shmem_free(pwrk[k]);
        shmem_free(bdst[k]);
        shmem_free(bsrc[k]);
    }
    shmem_free(bcdst);
    shmem_free(bcsrc);
    shmem_free(csrc);
    shmem_free(heap);
    return ftest_finish("deprecated");
}
