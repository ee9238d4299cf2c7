/* coll_scan.c - OpenSHMEM 1.6 prefix sums: shmem_TYPENAME_sum_inscan / sum_exscan over every type the sum
 * reduction supports (integers, reals, complex), nelems 0, 1, odd, larger, in place and out of place, on the world
 * team and two strided subteams. dest_i,j = sum of source_k,j over team PEs k <= i (inscan) or k < i (exscan; 0 on
 * team PE 0). Skips when <shmem.h> does not declare the scans (CMake builds skip.c then). */
#include "fc.h"

#include <complex.h>

#define MAXN 40000 /* longs: 320 KB, several pieces of a member's slice over the network */
static char *bsrc, *bdst;
static fc_team teams[FC_NTEAMS];

static inline double gen(int w, size_t i, int sgn, int fp) {
    long v = (long)((w * 5 + (long)i * 3) % 9);
    return (double)(sgn ? v - 4 : v) / (fp ? 4.0 : 1.0);
}
#define GEN_R(T, w, i, SGN, FP) ((T)gen(w, i, SGN, FP))
#define GEN_C(T, w, i, SGN, FP) ((T)(gen(w, i, 1, 1) + gen(w + 1, i + 2, 1, 1) * I))
#define PRINT_R(x) (long double)(x), 0.0L
#define PRINT_C(x) (long double)creal(x), (long double)cimag(x)

#define DEF_SCAN(TN, T, SGN, FP, KIND)                                                                                 \
    static void scan_##TN(const fc_team *t, size_t n, int inplace, int ex) {                                           \
        T *s = (T *)bsrc, *d = inplace ? (T *)bsrc : (T *)bdst;                                                        \
        for (size_t i = 0; i < n; i++)                                                                                 \
            s[i] = GEN_##KIND(T, me, i, SGN, FP);                                                                      \
        fc_fill(s + n, 2 * sizeof(T));                                                                                 \
        if (!inplace)                                                                                                  \
            fc_fill(d, (n + 2) * sizeof(T));                                                                           \
        shmem_barrier_all();                                                                                           \
        if (t->idx < 0)                                                                                                \
            return;                                                                                                    \
        int rc = ex ? shmem_##TN##_sum_exscan(t->team, d, s, n) : shmem_##TN##_sum_inscan(t->team, d, s, n);           \
        CHECK(rc == 0, #TN "_sum_%sscan returned %d", ex ? "ex" : "in", rc);                                           \
        int last = ex ? t->idx - 1 : t->idx;                                                                           \
        for (size_t i = 0; i < n; i++) {                                                                               \
            T want = (T)0;                                                                                             \
            for (int p = 0; p <= last; p++)                                                                            \
                want += GEN_##KIND(T, fc_world_pe(t, p), i, SGN, FP);                                                  \
            if (d[i] != want) {                                                                                        \
                FAIL(#TN "_sum_%sscan team %s (team PE %d) n %zu%s: dest[%zu] = %Lg%+Lgi want %Lg%+Lgi",               \
                     ex ? "ex" : "in", t->name, t->idx, n, inplace ? " in place" : "", i, PRINT_##KIND(d[i]),          \
                     PRINT_##KIND(want));                                                                              \
                break;                                                                                                 \
            }                                                                                                          \
        }                                                                                                              \
        CHECK(fc_first_unfilled(d + n, 2 * sizeof(T)) == 2 * sizeof(T),                                                \
              #TN "_sum_%sscan team %s n %zu: wrote past nelems", ex ? "ex" : "in", t->name, n);                       \
    }

/* X(TYPENAME, TYPE, SIGNED, REAL, KIND) */
#define SCAN_ENTRY_(TN, T, X, KIND, SGN, FP) X(TN, T, SGN, FP, KIND)
#define SCAN_TYPES(X)                                                                                                  \
    GT_NUMERIC_TYPES(SCAN_ENTRY_, X, R) X(complexd, double _Complex, 1, 1, C) X(complexf, float _Complex, 1, 1, C)
SCAN_TYPES(DEF_SCAN)

int main(void) {
    fc_begin(teams);
    bsrc = fc_malloc((MAXN + 2) * 16);
    bdst = fc_malloc((MAXN + 2) * 16);
    for (int ti = 0; ti < FC_NTEAMS; ti++) {
        const fc_team *t = &teams[ti];
        for (int ex = 0; ex < 2; ex++) {
#define RUN_SCAN(TN, T, SGN, FP, KIND)                                                                                 \
    scan_##TN(t, 0, 0, ex);                                                                                            \
    scan_##TN(t, 1, 0, ex);                                                                                            \
    scan_##TN(t, 7, 1, ex);                                                                                            \
    scan_##TN(t, 11, 0, ex);
            SCAN_TYPES(RUN_SCAN)
            scan_long(t, MAXN, 0, ex);
            scan_double(t, MAXN - 1, 1, ex);
            for (int d = -1; d <= 1; d++) { /* around 8 KiB of data */
                scan_long(t, (size_t)(1024 + d), d == 0, ex);
                scan_complexd(t, (size_t)(512 + d), d == 1, ex);
                scan_int16(t, (size_t)(4096 + d), 0, ex);
            }
        }
    }
    return fc_end("coll_scan", teams, bsrc, bdst);
}
