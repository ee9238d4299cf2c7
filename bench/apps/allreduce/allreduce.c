/* allreduce.c - Horovod-style gradient allreduce: one fused float32 buffer summed over all PEs, timed per size, as
 * a ring (reduce-scatter + allgather on put-with-signal, pipelined in segments) or the library's sum reduction. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in app.h under -std=c11 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define HAVE_TEAMS (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105)

/* The state of one run: every array is symmetric so that the ring can put straight into its neighbour's copy. */
struct ar {
    float *data;      /* the fused gradient buffer, reduced in place */
    float *recv;      /* ring: where the left neighbour's partial sums land (one slot per segment) */
    uint64_t *sig_rs; /* ring: one signal per segment for the reduce-scatter and one for the allgather */
    uint64_t *sig_ag;
    size_t nseg_max; /* signal words per phase */
    size_t n;        /* floats in this size */
    size_t seg;      /* floats per pipelined segment */
    uint64_t epoch;  /* calls so far: the signals only grow, so no reset is needed between calls */
    int ring;
#if !HAVE_TEAMS
    float *pwrk;
    long *psync[2];
    int psync_i;
#endif
};

/* chunk c of the buffer (one per PE, sizes differ by at most one element) */
static void chunk(size_t n, int npes, int c, size_t *off, size_t *len) {
    size_t base = n / (size_t)npes, rem = n % (size_t)npes, uc = (size_t)c;
    *off = uc * base + (uc < rem ? uc : rem);
    *len = base + (uc < rem);
}

/* segments in chunk c, and the index of its first segment's signal: signals are laid out chunk after chunk */
static size_t nsegs(size_t len, size_t seg) { return len ? (len + seg - 1) / seg : 0; }
static size_t first_sig(const struct ar *a, int npes, int c) {
    size_t s = 0;
    for (int k = 0; k < c; k++) {
        size_t off, len;
        chunk(a->n, npes, k, &off, &len);
        s += nsegs(len, a->seg);
    }
    return s;
}

static void add(float *restrict dst, const float *restrict src, size_t n) {
    for (size_t i = 0; i < n; i++)
        dst[i] += src[i];
}

/* Ring allreduce. Reduce-scatter: at step s PE p sends its partial sum of chunk p-s to p+1, which adds its own and
 * forwards it at step s+1; after npes-1 steps p holds the total of chunk p+1. Allgather: the totals go round the
 * ring once more, straight into the neighbour's buffer. Each segment travels as soon as it is ready, so segments of
 * consecutive steps overlap; the signal of a segment is the step it belongs to (offset by the call's epoch). */
static void ring_allreduce(struct ar *a) {
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes == 1)
        return;
    int right = (me + 1) % npes;
    uint64_t base = a->epoch++ * (uint64_t)(2 * npes);
    size_t off, len;

    /* reduce-scatter, step 0: my own chunk, as it is */
    int c = me;
    chunk(a->n, npes, c, &off, &len);
    size_t s0 = first_sig(a, npes, c);
    for (size_t j = 0, o = 0; o < len; j++, o += a->seg) {
        size_t l = len - o < a->seg ? len - o : a->seg;
        app_putmem_signal_nbi(a->recv + off + o, a->data + off + o, l * sizeof(float), &a->sig_rs[s0 + j], base + 1,
                              right);
    }
    /* reduce-scatter, steps 1..npes-1: receive chunk me-1-s, add mine, pass it on (the last one is complete and
     * starts the allgather) */
    for (int s = 0; s < npes - 1; s++) {
        c = ((me - 1 - s) % npes + npes) % npes;
        chunk(a->n, npes, c, &off, &len);
        s0 = first_sig(a, npes, c);
        int last = s == npes - 2;
        for (size_t j = 0, o = 0; o < len; j++, o += a->seg) {
            size_t l = len - o < a->seg ? len - o : a->seg;
            app_signal_wait_until(&a->sig_rs[s0 + j], SHMEM_CMP_GE, base + 1 + (uint64_t)s);
            add(a->data + off + o, a->recv + off + o, l);
            if (!last)
                app_putmem_signal_nbi(a->recv + off + o, a->data + off + o, l * sizeof(float), &a->sig_rs[s0 + j],
                                      base + 2 + (uint64_t)s, right);
            else
                app_putmem_signal_nbi(a->data + off + o, a->data + off + o, l * sizeof(float), &a->sig_ag[s0 + j],
                                      base + (uint64_t)npes, right);
        }
    }
    /* allgather: receive the total of chunk me-s and pass it on unless the right neighbour made it */
    for (int s = 0; s < npes - 1; s++) {
        c = ((me - s) % npes + npes) % npes;
        chunk(a->n, npes, c, &off, &len);
        s0 = first_sig(a, npes, c);
        int last = s == npes - 2;
        for (size_t j = 0, o = 0; o < len; j++, o += a->seg) {
            size_t l = len - o < a->seg ? len - o : a->seg;
            app_signal_wait_until(&a->sig_ag[s0 + j], SHMEM_CMP_GE, base + (uint64_t)npes + (uint64_t)s);
            if (!last)
                app_putmem_signal_nbi(a->data + off + o, a->data + off + o, l * sizeof(float), &a->sig_ag[s0 + j],
                                      base + (uint64_t)npes + 1 + (uint64_t)s, right);
        }
    }
    /* my puts read from data: done before the caller may touch it */
    shmem_quiet();
}

static void lib_allreduce(struct ar *a) {
#if HAVE_TEAMS
    shmem_float_sum_reduce(SHMEM_TEAM_WORLD, a->data, a->data, a->n);
#else
    /* two pSync arrays in turn: a call may start before every PE has left the previous one */
    shmem_float_sum_to_all(a->data, a->data, (int)a->n, 0, 0, shmem_n_pes(), a->pwrk, a->psync[a->psync_i]);
    a->psync_i ^= 1;
#endif
}

static void body(void *arg) {
    struct ar *a = (struct ar *)arg;
    if (a->ring)
        ring_allreduce(a);
    else
        lib_allreduce(a);
}

/* exact in float: small integers whose sum over <= 4096 PEs stays below 2^24 */
static float init_val(int p, size_t i) { return (float)((i * 7 + (size_t)p * 3) % 1021 + (size_t)p % 5); }

static void fill(struct ar *a, int me) {
    for (size_t i = 0; i < a->n; i++)
        a->data[i] = init_val(me, i);
}

static int check(const struct ar *a, int npes) {
    size_t bad = 0, first = 0;
    float first_want = 0;
    for (size_t i = 0; i < a->n; i++) {
        float want = 0;
        for (int p = 0; p < npes; p++)
            want += init_val(p, i);
        if (a->data[i] != want && !bad++)
            first = i, first_want = want;
    }
    if (bad)
        fprintf(stderr, "allreduce PE %d: %zu of %zu elements wrong, first [%zu] = %g, want %g\n", shmem_my_pe(), bad,
                a->n, first, (double)a->data[first], (double)first_want);
    return bad == 0;
}

int main(int argc, char **argv) {
    size_t min = 4096, max = 4u << 20, seg_bytes = 256u << 10;
    long factor = 4;
    const char *variant = "ring";
    struct app_opt opts[] = {
        {"--min", APP_SIZE, &min, "smallest buffer in bytes (default 4k; k/M/G suffixes)"},
        {"--max", APP_SIZE, &max, "largest buffer in bytes (default 4M; up to 256M)"},
        {"--factor", APP_INT, &factor, "size step: 2 or 4 (default 4)"},
        {"--variant", APP_STR, &variant, "ring (put-with-signal ring) or reduce (shmem_float_sum_reduce)"},
        {"--seg", APP_SIZE, &seg_bytes, "ring: bytes per pipelined segment (default 256k)"},
        {NULL, 0, NULL, NULL},
    };
    shmem_init();
    app_init(argc, argv, "allreduce",
             "Sums a fused float32 buffer over all PEs (Horovod-style gradient allreduce), for each size from --min\n"
             "to --max. Reports the median time and the bus bandwidth (nccl-tests: algbw = S/t, busbw = algbw *\n"
             "2(n-1)/n) as time_<S> and busbw_<S>, S in bytes. Needs a symmetric heap of about 2 * --max\n"
             "(SHMEM_SYMMETRIC_SIZE).",
             opts);
    int me = app_g.me, npes = app_g.npes;
    int ring = !strcmp(variant, "ring");
    if ((!ring && strcmp(variant, "reduce")) || (factor != 2 && factor != 4) || min < sizeof(float) ||
        min % sizeof(float) || max < min || seg_bytes < sizeof(float)) {
        if (me == 0)
            fprintf(stderr, "allreduce: need --variant ring|reduce, --factor 2|4, 4 <= --min <= --max (--min a "
                            "multiple of 4), --seg >= 4\n");
        shmem_finalize();
        return 2;
    }
    app_g.variant = variant;
    app_param("min", "%zu", min);
    app_param("max", "%zu", max);
    app_param("factor", "%ld", factor);
    if (ring)
        app_param("seg", "%zu", seg_bytes);

    struct ar a;
    memset(&a, 0, sizeof a);
    a.ring = ring;
    a.epoch = 1;
    size_t nmax = max / sizeof(float);
    a.data = (float *)shmem_malloc(nmax * sizeof(float));
    a.seg = seg_bytes / sizeof(float);
    if (ring) {
        a.recv = (float *)shmem_malloc(nmax * sizeof(float));
        a.nseg_max = nmax / a.seg + (size_t)npes + 1; /* each chunk may end in a partial segment */
        a.sig_rs = (uint64_t *)shmem_calloc(2 * a.nseg_max, sizeof(uint64_t));
        a.sig_ag = a.sig_rs ? a.sig_rs + a.nseg_max : NULL;
    }
#if !HAVE_TEAMS
    else {
        size_t nw = nmax / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? nmax / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
        a.pwrk = (float *)shmem_malloc(nw * sizeof(float));
        for (int k = 0; k < 2; k++) {
            a.psync[k] = (long *)shmem_malloc(SHMEM_REDUCE_SYNC_SIZE * sizeof(long));
            for (int i = 0; a.psync[k] && i < SHMEM_REDUCE_SYNC_SIZE; i++)
                a.psync[k][i] = SHMEM_SYNC_VALUE;
        }
        if (!a.pwrk || !a.psync[0] || !a.psync[1])
            a.data = NULL;
    }
#endif
    if (!a.data || (ring && (!a.recv || !a.sig_rs))) {
        if (me == 0)
            fprintf(stderr, "allreduce: symmetric heap too small for --max %zu (set SHMEM_SYMMETRIC_SIZE)\n", max);
        shmem_global_exit(2);
    }
    shmem_barrier_all();

    /* a training job's allreduces are thousands: measure the steady state. gshmem's reduction takes about 20 calls
     * to reach it (the first ones at a size were ~8x slower), more than the per-size --warmup gives the first size */
    a.n = min / sizeof(float);
    fill(&a, me);
    for (int i = 0; i < 32; i++)
        body(&a);
    shmem_barrier_all();

    int ok = 1;
    for (size_t bytes = min; bytes <= max; bytes *= (size_t)factor) {
        a.n = bytes / sizeof(float);
        if (app_g.verify) {
            fill(&a, me);
            shmem_barrier_all();
            body(&a);
            shmem_barrier_all();
            ok &= check(&a, npes);
        }
        fill(&a, me); /* the timed calls sum the sums: it grows, but sums of finite floats stay NaN-free */
        char what[64];
        snprintf(what, sizeof what, "%zu bytes", bytes);
        double tmin, tmax, t = app_time(what, body, &a, &tmin, &tmax);
        double f = npes > 1 ? 2.0 * (npes - 1) / npes : 0.0, gb = (double)bytes / 1e9;
        char name[48];
        snprintf(name, sizeof name, "time_%zu", bytes);
        app_metric(name, t * 1e6, tmin * 1e6, tmax * 1e6, "us");
        snprintf(name, sizeof name, "busbw_%zu", bytes);
        app_metric(name, gb / t * f, gb / tmax * f, gb / tmin * f, "GB/s");
        if (bytes > max / (size_t)factor)
            break;
    }
    if (app_g.verify)
        app_verdict(ok);
    return app_finish();
}
