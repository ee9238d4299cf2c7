/* bsort_common.h - what the host (bucket_sort.c) and GPU (bucket_sort_gpu.cu) forms of the bucket sort share: the
 * keys (a counter-based generator, so GPU and host make the same keys), the key range of each PE, the phase timings
 * turned into the reported figures, and the verification. C11 and C++ (.cu, nvcc or the CPU emulation). */
#ifndef BSORT_COMMON_H
#define BSORT_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#if defined(__CUDACC__) || defined(GSHMEM_EMULATE_GPU)
#define BS_HD __host__ __device__
#else
#define BS_HD
#endif

typedef uint32_t bs_key;

/* key i of PE pe: a hash of (seed, pe, i), so any thread can make any key and every PE's stream differs */
static inline BS_HD bs_key bs_gen_key(uint64_t seed, int pe, uint64_t i, uint64_t maxkey) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + ((uint64_t)pe << 40) + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (bs_key)(z % maxkey);
}

/* the PE whose range [pe*maxkey/npes, (pe+1)*maxkey/npes) holds key k */
static inline BS_HD int bs_bucket(bs_key k, int npes, uint64_t maxkey) {
    return (int)(((uint64_t)k * (uint64_t)npes) / maxkey);
}

/* the receive table's size in keys: the expected N plus a margin far past the binomial spread of uniform keys */
static inline size_t bs_capacity(size_t nkeys) { return nkeys + nkeys / 4 + 4096; }

/* radix sort digits: 8 bits per pass, as many passes as maxkey-1 has bytes */
static inline int bs_passes(uint64_t maxkey) {
    int p = 0;
    for (uint64_t m = maxkey - 1; m; m >>= 8)
        p++;
    return p ? p : 1;
}

/* ---- the figures ---- */

/* each repetition's phases on this PE (warmup ones first; only the last reps are reported):
 * exch: from the start of the repetition to the received keys being where the final sort runs;
 * comm: from the first reservation (fetch-add) to this PE's puts being complete (quiet, stream or kernel done);
 * sort: the final local sort */
struct bs_phases {
    double *exch, *comm, *sort;
    int n;
};

static inline void bs_phases_init(struct bs_phases *ph) {
    int total = app_g.warmup + app_g.reps;
    ph->exch = (double *)calloc((size_t)total, sizeof(double));
    ph->comm = (double *)calloc((size_t)total, sizeof(double));
    ph->sort = (double *)calloc((size_t)total, sizeof(double));
    ph->n = 0;
}

static inline void bs_phases_free(struct bs_phases *ph) {
    free(ph->exch);
    free(ph->comm);
    free(ph->sort);
}

static inline void bs_phases_record(struct bs_phases *ph, double t0, double tc0, double tc1, double tx, double ts) {
    int total = app_g.warmup + app_g.reps;
    if (ph->n < total) {
        ph->exch[ph->n] = tx - t0;
        ph->comm[ph->n] = tc1 - tc0;
        ph->sort[ph->n] = ts - tx;
        ph->n++;
    }
}

/* the median, min and max of v[0..n) (v is sorted in place) */
static inline void bs_stats(double *v, int n, double *med, double *mn, double *mx) {
    qsort(v, (size_t)n, sizeof(double), app_cmp_double);
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *mn = v[0];
    *mx = v[n - 1];
}

/* every PE's values of a few 64-bit counters, combined: sums[j] = sum over PEs, xors[j] = xor over PEs. Gets from
 * each PE's copy (a portable all-reduce for 1.4 and 1.5 alike; only used outside the timed part). */
static uint64_t *bs_vbuf; /* symmetric, 8 words */
static inline void bs_allreduce_u64(const uint64_t *v, int n, uint64_t *sums, uint64_t *xors) {
    uint64_t tmp[8];
    if (!bs_vbuf)
        bs_vbuf = (uint64_t *)shmem_malloc(8 * sizeof(uint64_t));
    memcpy(bs_vbuf, v, (size_t)n * sizeof(uint64_t));
    shmem_barrier_all();
    for (int j = 0; j < n; j++)
        sums[j] = xors[j] = 0;
    for (int p = 0; p < app_g.npes; p++) {
        shmem_getmem(tmp, bs_vbuf, (size_t)n * sizeof(uint64_t), p);
        for (int j = 0; j < n; j++) {
            sums[j] += tmp[j];
            xors[j] ^= tmp[j];
        }
    }
    shmem_barrier_all();
}

/* the reported metrics from app_time's result and each repetition's phases (slowest PE per repetition).
 * bytes: the mean over PEs of the key bytes each PE sends to other PEs in one repetition. */
static inline void bs_report(struct bs_phases *ph, double med, double tmin, double tmax, double total_keys,
                             double bytes) {
    int r = app_g.reps, off = ph->n - r;
    double *x = (double *)calloc((size_t)r, sizeof(double)), *c = (double *)calloc((size_t)r, sizeof(double)),
           *s = (double *)calloc((size_t)r, sizeof(double)), *bl = (double *)calloc((size_t)r, sizeof(double)),
           *bu = (double *)calloc((size_t)r, sizeof(double));
    for (int i = 0; i < r; i++) {
        x[i] = app_max_over_pes(ph->exch[off + i]);
        c[i] = app_max_over_pes(ph->comm[off + i]);
        s[i] = app_max_over_pes(ph->sort[off + i]);
        bl[i] = x[i] > 0 ? bytes / x[i] / 1e6 : 0;
        bu[i] = c[i] > 0 ? bytes / c[i] / 1e6 : 0;
    }
    double m, lo, hi;
    app_metric("time", med, tmin, tmax, "s");
    app_metric("keys_per_s", total_keys / med, total_keys / tmax, total_keys / tmin, "keys/s");
    bs_stats(x, r, &m, &lo, &hi);
    app_metric("exchange_time", m, lo, hi, "s");
    bs_stats(c, r, &m, &lo, &hi);
    app_metric("comm_time", m, lo, hi, "s");
    bs_stats(s, r, &m, &lo, &hi);
    app_metric("local_sort_time", m, lo, hi, "s");
    bs_stats(bl, r, &m, &lo, &hi);
    app_metric("bw_lower_per_pe", m, lo, hi, "MB/s");
    bs_stats(bu, r, &m, &lo, &hi);
    app_metric("bw_upper_per_pe", m, lo, hi, "MB/s");
    free(x), free(c), free(s), free(bl), free(bu);
}

/* ---- verification ---- */

/* sum and xor of keys, the count and a failure flag, gathered: gen are this PE's generated keys, out its sorted
 * result (both in host memory); overflow: reservations that did not fit a receive table (counted by the senders) */
static inline int bs_verify(const bs_key *gen, size_t ngen, const bs_key *out, size_t nout, uint64_t maxkey,
                            long overflow) {
    int me = app_g.me, npes = app_g.npes, ok = 1;
    uint64_t v[6] = {0, 0, 0, 0, (uint64_t)ngen, (uint64_t)nout}, s[6], x[6];
    for (size_t i = 0; i < ngen; i++)
        v[0] += gen[i], v[1] ^= (uint64_t)gen[i] * 0x9E3779B97F4A7C15ull;
    size_t bad_range = 0, bad_order = 0;
    for (size_t i = 0; i < nout; i++) {
        v[2] += out[i], v[3] ^= (uint64_t)out[i] * 0x9E3779B97F4A7C15ull;
        if (bs_bucket(out[i], npes, maxkey) != me)
            bad_range++;
        if (i && out[i - 1] > out[i])
            bad_order++;
    }
    if (bad_range || bad_order || overflow) {
        printf("%s %s PE %d: %zu keys outside its range, %zu out of order, %ld reservations past a table\n", app_g.name,
               app_g.variant, me, bad_range, bad_order, overflow);
        ok = 0;
    }
    bs_allreduce_u64(v, 6, s, x);
    if (me == 0 && (s[5] != s[4] || s[2] != s[0] || x[3] != x[1])) {
        printf("%s %s: %llu keys received of %llu generated; sum %llu vs %llu, xor %llx vs %llx\n", app_g.name,
               app_g.variant, (unsigned long long)s[5], (unsigned long long)s[4], (unsigned long long)s[2],
               (unsigned long long)s[0], (unsigned long long)x[3], (unsigned long long)x[1]);
        ok = 0;
    }
    return app_verdict(ok);
}

#endif
