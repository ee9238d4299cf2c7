/* coll_reduce.c - team reductions: every operation over every type of the spec's team-reduction table (and/or/xor
 * on the unsigned and fixed-width types, max/min on the integer and real types, sum/prod on those and on float/double
 * _Complex), nreduce 0, 1, odd, 100000, in place and out of place, on the world team and two strided subteams.
 * Expected values are folded locally from the same generator; every value is exact in its type (small integers,
 * quarters, products of units), so results must match bit for bit whatever the order of combination. */
#include "fc_red.h"

#define BIG 100000
static char *bsrc, *bdst; /* symmetric, (BIG + 2) * 16 bytes each */
static fc_team teams[FC_NTEAMS];

#define DEF_RED(TN, T, OP, CLASS, SGN, FP)                                                                             \
    static void red_##TN##_##OP(const fc_team *t, size_t n, int inplace) {                                             \
        T *s = (T *)bsrc, *d = inplace ? (T *)bsrc : (T *)bdst;                                                        \
        for (size_t i = 0; i < n; i++)                                                                                 \
            s[i] = GENV_##CLASS(OP, T, t->idx, me, i, t->size, SGN, FP);                                               \
        fc_fill(s + n, 2 * sizeof(T));                                                                                 \
        if (!inplace)                                                                                                  \
            fc_fill(d, (n + 2) * sizeof(T));                                                                           \
        shmem_barrier_all();                                                                                           \
        if (t->idx < 0) {                                                                                              \
            if (!inplace)                                                                                              \
                CHECK(fc_first_unfilled(d, (n + 2) * sizeof(T)) == (n + 2) * sizeof(T),                                \
                      #TN "_" #OP "_reduce team %s: PE outside the team written", t->name);                            \
            return;                                                                                                    \
        }                                                                                                              \
        int rc = shmem_##TN##_##OP##_reduce(t->team, d, s, n);                                                         \
        CHECK(rc == 0, #TN "_" #OP "_reduce returned %d", rc);                                                         \
        for (size_t i = 0; i < n; i++) {                                                                               \
            T want = GENV_##CLASS(OP, T, 0, fc_world_pe(t, 0), i, t->size, SGN, FP);                                   \
            for (int p = 1; p < t->size; p++)                                                                          \
                want = (T)OP_##OP(want, GENV_##CLASS(OP, T, p, fc_world_pe(t, p), i, t->size, SGN, FP));               \
            if (d[i] != want) {                                                                                        \
                FAIL(#TN "_" #OP "_reduce team %s n %zu%s: dest[%zu] = %Lg want %Lg", t->name, n,                      \
                     inplace ? " in place" : "", i, (long double)d[i], (long double)want);                             \
                break;                                                                                                 \
            }                                                                                                          \
            if (!inplace && s[i] != GENV_##CLASS(OP, T, t->idx, me, i, t->size, SGN, FP)) {                            \
                FAIL(#TN "_" #OP "_reduce team %s: source[%zu] changed", t->name, i);                                  \
                break;                                                                                                 \
            }                                                                                                          \
        }                                                                                                              \
        CHECK(fc_first_unfilled(d + n, 2 * sizeof(T)) == 2 * sizeof(T),                                                \
              #TN "_" #OP "_reduce team %s n %zu%s: wrote past nreduce", t->name, n, inplace ? " in place" : "");      \
    }

#define DEF_CRED(TN, T, OP)                                                                                            \
    static void red_##TN##_##OP(const fc_team *t, size_t n, int inplace) {                                             \
        T *s = (T *)bsrc, *d = inplace ? (T *)bsrc : (T *)bdst;                                                        \
        for (size_t i = 0; i < n; i++)                                                                                 \
            s[i] = CGEN_##OP(T, t->idx, me, i, t->size);                                                               \
        fc_fill(s + n, 2 * sizeof(T));                                                                                 \
        if (!inplace)                                                                                                  \
            fc_fill(d, (n + 2) * sizeof(T));                                                                           \
        shmem_barrier_all();                                                                                           \
        if (t->idx < 0)                                                                                                \
            return;                                                                                                    \
        int rc = shmem_##TN##_##OP##_reduce(t->team, d, s, n);                                                         \
        CHECK(rc == 0, #TN "_" #OP "_reduce returned %d", rc);                                                         \
        for (size_t i = 0; i < n; i++) {                                                                               \
            T want = CGEN_##OP(T, 0, fc_world_pe(t, 0), i, t->size);                                                   \
            for (int p = 1; p < t->size; p++)                                                                          \
                want = OP_##OP(want, CGEN_##OP(T, p, fc_world_pe(t, p), i, t->size));                                  \
            if (d[i] != want) {                                                                                        \
                FAIL(#TN "_" #OP "_reduce team %s n %zu%s: dest[%zu] = %g%+gi want %g%+gi", t->name, n,                \
                     inplace ? " in place" : "", i, (double)creal(d[i]), (double)cimag(d[i]), (double)creal(want),     \
                     (double)cimag(want));                                                                             \
                break;                                                                                                 \
            }                                                                                                          \
        }                                                                                                              \
        CHECK(fc_first_unfilled(d + n, 2 * sizeof(T)) == 2 * sizeof(T),                                                \
              #TN "_" #OP "_reduce team %s n %zu: wrote past nreduce", t->name, n);                                    \
    }

/* X(TYPENAME, TYPE, OP, CLASS, signed, real) */
#define BIT_TYPES(X, OP) GT_BITWISE_TYPES(X, OP, bit)
#define NUM_TYPES(X, OP, CLASS) GT_NUMERIC_TYPES(X, OP, CLASS)

FC_RED_ROUTINES(BIT_TYPES, NUM_TYPES, DEF_RED, DEF_CRED)

typedef void (*red_fn)(const fc_team *, size_t, int);
#define FN_X(TN, T, OP, CLASS, SGN, FP) red_##TN##_##OP,
#define CFN_X(TN, T, OP) red_##TN##_##OP,
static const red_fn all_fns[] = {FC_RED_ROUTINES(BIT_TYPES, NUM_TYPES, FN_X, CFN_X)};

int main(void) {
    fc_begin(teams);
    bsrc = fc_malloc((BIG + 2) * 16);
    bdst = fc_malloc((BIG + 2) * 16);

    for (int ti = 0; ti < FC_NTEAMS; ti++) {
        const fc_team *t = &teams[ti];
        for (size_t f = 0; f < sizeof all_fns / sizeof all_fns[0]; f++) {
            all_fns[f](t, 0, 0);
            all_fns[f](t, 1, 0);
            all_fns[f](t, 7, 1);
            all_fns[f](t, 13, 0);
        }
        /* around the sizes where an implementation may switch algorithms (4, 8, 16, 64 KiB of data), and between */
        for (int d = -1; d <= 1; d++) {
            red_long_sum(t, (size_t)(512 + d), d == 1);
            red_double_sum(t, (size_t)(8192 + d), d == 0);
            red_int_sum(t, (size_t)(5003 + d), d == -1);
            red_int16_max(t, (size_t)(3001 + d), 0);
            red_long_sum(t, (size_t)(1024 + d), d == 0);
            red_int8_xor(t, (size_t)(8192 + d), d == 1);
            red_complexd_prod(t, (size_t)(512 + d), 0);
            red_float_max(t, (size_t)(2048 + d), d == -1);
            red_uint16_and(t, (size_t)(8192 + d), 0);
            red_longdouble_sum(t, (size_t)(1024 + d), 0);
        }
        { /* large */
            red_int_sum(t, BIG, 0);
            red_double_sum(t, BIG, 1);
            red_long_max(t, BIG, 0);
            red_uint64_xor(t, BIG, 1);
            red_complexd_prod(t, BIG, 0);
            red_int16_min(t, BIG - 1, 0);
        }
    }
    return fc_end("coll_reduce", teams, bsrc, bdst);
}
