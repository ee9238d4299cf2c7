/* gups_common.h - what the host (gups.c) and GPU (gups_gpu.cu) forms of GUPS share: the HPCC RandomAccess update
 * stream (x^63 + ... polynomial over GF(2), POLY 0x7) with a jump to any position, and the table's layout over PEs. */
#ifndef GSHMEM_APP_GUPS_COMMON_H
#define GSHMEM_APP_GUPS_COMMON_H
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GUPS_HD __host__ __device__
#else
#define GUPS_HD
#endif

#define GUPS_POLY UINT64_C(0x7)
#define GUPS_PERIOD INT64_C(1317624576693539401)

/* one step of the stream: multiply by x modulo the polynomial */
static inline GUPS_HD uint64_t gups_next(uint64_t r) { return (r << 1) ^ ((int64_t)r < 0 ? GUPS_POLY : 0); }

/* the n-th element of the stream (n = 0 gives 1), by square-and-multiply in GF(2)[x] modulo the polynomial, so each
 * PE (and each GPU thread) starts its share of the updates where a serial run would be */
static inline uint64_t gups_start(int64_t n) {
    while (n < 0)
        n += GUPS_PERIOD;
    while (n > GUPS_PERIOD)
        n -= GUPS_PERIOD;
    if (n == 0)
        return 1;
    uint64_t sq[64]; /* sq[j] = x^(2j): squaring a polynomial spreads bit j to bit 2j */
    uint64_t t = 1;
    for (int j = 0; j < 64; j++) {
        sq[j] = t;
        t = gups_next(gups_next(t));
    }
    int i = 62;
    while (i >= 0 && !((n >> i) & 1))
        i--;
    uint64_t r = 2; /* x^1: the top bit of n */
    while (i > 0) {
        uint64_t s = 0;
        for (int j = 0; j < 64; j++)
            if ((r >> j) & 1)
                s ^= sq[j];
        r = s;
        i--;
        if ((n >> i) & 1)
            r = gups_next(r);
    }
    return r;
}

/* the global table: 2^log2_total words in blocks over the PEs (the first `rem` PEs hold one word more when the PE
 * count is not a power of two) */
struct gups_layout {
    uint64_t total, mask, base, rem;
    int shift; /* >= 0: every PE holds 2^shift words, so the owner is a shift */
};

static inline void gups_layout_init(struct gups_layout *l, int log2_local, int npes) {
    int lg = 0;
    while ((2 << lg) <= npes)
        lg++;
    l->total = (uint64_t)1 << (log2_local + lg);
    l->mask = l->total - 1;
    l->base = l->total / (uint64_t)npes;
    l->rem = l->total % (uint64_t)npes;
    l->shift = (1 << lg) == npes ? log2_local : -1;
}

static inline GUPS_HD uint64_t gups_first(const struct gups_layout *l, int pe) {
    uint64_t p = (uint64_t)pe;
    return p * l->base + (p < l->rem ? p : l->rem);
}
static inline GUPS_HD uint64_t gups_count(const struct gups_layout *l, int pe) {
    return l->base + ((uint64_t)pe < l->rem);
}
/* the owner and offset of global word g */
static inline GUPS_HD int gups_owner(const struct gups_layout *l, uint64_t g, uint64_t *off) {
    if (l->shift >= 0) {
        *off = g & ((UINT64_C(1) << l->shift) - 1);
        return (int)(g >> l->shift);
    }
    uint64_t big = l->rem * (l->base + 1);
    int pe = g < big ? (int)(g / (l->base + 1)) : (int)(l->rem + (g - big) / l->base);
    *off = g - gups_first(l, pe);
    return pe;
}

/* PE pe's share of n updates: it starts at *first in the stream */
static inline uint64_t gups_share(uint64_t n, int npes, int pe, uint64_t *first) {
    uint64_t b = n / (uint64_t)npes, r = n % (uint64_t)npes, p = (uint64_t)pe;
    *first = p * b + (p < r ? p : r);
    return b + (p < r);
}

/* the expected table after one pass of all n updates, for this PE's words: a serial recompute of the whole stream */
static inline void gups_expected(const struct gups_layout *l, uint64_t n, int me, uint64_t *exp) {
    uint64_t first = gups_first(l, me), cnt = gups_count(l, me);
    for (uint64_t i = 0; i < cnt; i++)
        exp[i] = first + i;
    uint64_t r = 1;
    for (uint64_t i = 0; i < n; i++) {
        r = gups_next(r);
        uint64_t g = r & l->mask;
        if (g - first < cnt)
            exp[g - first] ^= r;
    }
}

#endif
