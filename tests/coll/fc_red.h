/* fc_red.h - value generators of the reduction tests (team-based and active-set): team PE p (world PE w) contributes
 * gen(p, w, i) to reduction i; every value and every partial result is exact in its type, so the library's result
 * must equal the local fold bit for bit, whatever order it combines in. */
#ifndef FC_RED_H
#define FC_RED_H

#include "fc.h"

#include <complex.h>

static inline unsigned long long gen_bits(int w, size_t i) {
    unsigned long long x = (unsigned long long)(w + 1) * 0x9E3779B97F4A7C15ull ^ (i + 1) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 32);
}
static inline unsigned long long gen_common(size_t i) { return 0x0101010101010101ull << (i % 8); }
/* and: random bits plus bits every PE sets; or: sparse bits; xor: random */
#define GEN_and(w, i) (gen_bits(w, i) | gen_common(i))
#define GEN_or(w, i) (gen_bits(w, i) & gen_bits(w + 100, i) & gen_bits(w + 200, i))
#define GEN_xor(w, i) gen_bits(w, i)
static inline double gen_minmax(int w, size_t i, int sgn, int fp) {
    long v = (long)((w * 37 + (long)i * 11) % 23);
    return (double)(sgn ? v - 11 : v) / (fp ? 4.0 : 1.0);
}
static inline double gen_sum(int w, size_t i, int sgn, int fp) {
    long v = (long)((w * 7 + (long)i * 3) % 11);
    return (double)(sgn ? v - 5 : v) / (fp ? 4.0 : 1.0);
}
/* prod: 1 everywhere except 2 on one team PE, 3 (0.5 for reals) on the next, -1 on some (signed types) */
static inline double gen_prod(int p, size_t i, int tsize, int sgn, int fp) {
    if ((size_t)p == i % (size_t)tsize)
        return 2;
    if (tsize > 1 && (size_t)p == (i + 1) % (size_t)tsize)
        return fp ? 0.5 : 3;
    if (sgn && (p + i) % 3 == 0)
        return -1;
    return 1;
}

#define OP_and(a, b) ((a) & (b))
#define OP_or(a, b) ((a) | (b))
#define OP_xor(a, b) ((a) ^ (b))
#define OP_max(a, b) ((a) > (b) ? (a) : (b))
#define OP_min(a, b) ((a) < (b) ? (a) : (b))
#define OP_sum(a, b) ((a) + (b))
#define OP_prod(a, b) ((a) * (b))

/* GEN_<class>(T, p, w, i, tsize, SGN, FP) */
#define GENV_bit(OP, T, p, w, i, tsize, SGN, FP) ((T)GEN_##OP(w, i))
#define GENV_max(OP, T, p, w, i, tsize, SGN, FP) ((T)gen_minmax(w, i, SGN, FP))
#define GENV_min(OP, T, p, w, i, tsize, SGN, FP) ((T)gen_minmax(w, i, SGN, FP))
#define GENV_sum(OP, T, p, w, i, tsize, SGN, FP) ((T)gen_sum(w, i, SGN, FP))
#define GENV_prod(OP, T, p, w, i, tsize, SGN, FP) ((T)gen_prod(p, i, tsize, SGN, FP))

/* complex: sum of (a + b i) with small integer halves; product of units {1, i, -1, -i} and one (1 + i) */
static inline double complex gen_csum(int w, size_t i) { return gen_sum(w, i, 1, 1) + gen_sum(w + 3, i + 1, 1, 1) * I; }
static inline double complex gen_cprod(int p, size_t i, int tsize) {
    static const double complex units[4] = {1, I, -1, -I};
    double complex z = units[(p + i) % 4];
    return (size_t)p == i % (size_t)tsize ? z * (1 + I) : z;
}
#define CGEN_sum(T, p, w, i, tsize) ((T)gen_csum(w, i))
#define CGEN_prod(T, p, w, i, tsize) ((T)gen_cprod(p, i, tsize))

/* Instantiates X once per reduction routine of the spec's tables (team-based, or the deprecated *_to_all ones):
 * BITLIST(X, op) for and/or/xor, NUMLIST(X, op, class of values) for max/min/sum/prod, then
 * CX(TYPENAME, TYPE, op) for the complex sum and prod. */
// clang-format off
#define FC_RED_ROUTINES(BITLIST, NUMLIST, X, CX) \
    BITLIST(X, and) BITLIST(X, or) BITLIST(X, xor) \
    NUMLIST(X, max, max) NUMLIST(X, min, min) NUMLIST(X, sum, sum) NUMLIST(X, prod, prod) \
    CX(complexf, float _Complex, sum) CX(complexf, float _Complex, prod) \
    CX(complexd, double _Complex, sum) CX(complexd, double _Complex, prod)
// clang-format on

#endif
