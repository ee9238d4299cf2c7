/* coll_scan.c - OpenSHMEM 1.6 prefix sums: shmem_TYPENAME_sum_inscan / sum_exscan over every type the sum
 * reduction supports (integers, reals, complex), nelems 0, 1, odd, larger, in place and out of place, on the world
 * team and two strided subteams. dest_i,j = sum of source_k,j over team PEs k <= i (inscan) or k < i (exscan; 0 on
 * team PE 0). Skips when <shmem.h> does not declare the scans (CMake builds skip.c then). */
#include "fc.h"

#include <complex.h>

#define MAXN 5000
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

#define SCAN_TYPES(X)                                                                                                  \
    X(char, char, 0, 0, R)                                                                                             \
    X(schar, signed char, 1, 0, R)                                                                                     \
    X(short, short, 1, 0, R)                                                                                           \
    X(int, int, 1, 0, R)                                                                                               \
    X(long, long, 1, 0, R)                                                                                             \
    X(longlong, long long, 1, 0, R)                                                                                    \
    X(ptrdiff, ptrdiff_t, 1, 0, R)                                                                                     \
    X(uchar, unsigned char, 0, 0, R)                                                                                   \
    X(ushort, unsigned short, 0, 0, R)                                                                                 \
    X(uint, unsigned int, 0, 0, R)                                                                                     \
    X(ulong, unsigned long, 0, 0, R)                                                                                   \
    X(ulonglong, unsigned long long, 0, 0, R)                                                                          \
    X(int8, int8_t, 1, 0, R)                                                                                           \
    X(int16, int16_t, 1, 0, R)                                                                                         \
    X(int32, int32_t, 1, 0, R)                                                                                         \
    X(int64, int64_t, 1, 0, R)                                                                                         \
    X(uint8, uint8_t, 0, 0, R)                                                                                         \
    X(uint16, uint16_t, 0, 0, R)                                                                                       \
    X(uint32, uint32_t, 0, 0, R)                                                                                       \
    X(uint64, uint64_t, 0, 0, R)                                                                                       \
    X(size, size_t, 0, 0, R)                                                                                           \
    X(float, float, 1, 1, R)                                                                                           \
    X(double, double, 1, 1, R)                                                                                         \
    X(longdouble, long double, 1, 1, R)                                                                                \
    X(complexd, double _Complex, 1, 1, C)                                                                              \
    X(complexf, float _Complex, 1, 1, C)
SCAN_TYPES(DEF_SCAN)

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    REQUIRE(npes <= FC_MAXPE, "too many PEs");
    bsrc = shmem_malloc((MAXN + 2) * 16);
    bdst = shmem_malloc((MAXN + 2) * 16);
    REQUIRE(bsrc && bdst, "shmem_malloc");
    fc_make_teams(teams);
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
    fc_destroy_teams(teams);
    shmem_free(bdst);
    shmem_free(bsrc);
    return ftest_finish("coll_scan");
}
