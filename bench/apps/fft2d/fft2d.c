/* fft2d - a distributed 2D complex FFT (N x N doubles, N/npes rows per PE): row FFTs, a transpose through the PEs,
 * row FFTs again; the result is left transposed (as FFTW-MPI's TRANSPOSED_OUT), so it is one exchange, not two. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in app.h under -std=c11 */
#include "fft2d_common.h"

#define TILE 32

struct fft {
    long n, nr, chunk;
    int me, npes, overlap;
    cplx *a;    /* symmetric: this PE's nr rows of the input, left as they are (no refill between repetitions) */
    cplx *w;    /* symmetric: those rows after the row pass */
    cplx *t;    /* symmetric: this PE's nr rows of the transposed result (columns me*nr.. of the 2D FFT) */
    cplx *send; /* symmetric (alltoall): block p = the nr x nr block of columns p*nr.. of this PE's rows */
    cplx *recv; /* symmetric (alltoall): block q = that block of PE q's rows for this PE's columns */
    cplx *buf[2], *tbuf; /* overlap: gathered pieces (double-buffered) and one chunk of transposed rows */
    long *ctr;           /* symmetric, overlap: ctr[0] the row pass's next chunk, ctr[1] the column pass's */
    fftw_plan prow_oop, prow, pchunk_oop, pchunk; /* all rows a -> w, all rows in place; the same for a chunk */
#if !V15
    long *psync;
#endif
};

/* ---- variant alltoall: row FFTs, pack, one all-to-all, local block transposes, row FFTs ---- */
static void fft_alltoall(struct fft *f) {
    long n = f->n, nr = f->nr;
    fftw_execute_dft(f->prow_oop, f->a, f->w);
    for (int p = 0; p < f->npes; p++) /* block p leaves as nr contiguous rows of nr */
        for (long r = 0; r < nr; r++)
            memcpy(f->send[(p * nr + r) * nr], f->w[r * n + p * nr], (size_t)nr * sizeof(cplx));
    size_t bytes = (size_t)(nr * nr) * sizeof(cplx);
#if V15
    shmem_alltoallmem(SHMEM_TEAM_WORLD, f->recv, f->send, bytes);
#else
    shmem_barrier_all(); /* pSync reuse: the previous call's is over on every PE */
    shmem_alltoall64(f->recv, f->send, bytes / 8, 0, 0, f->npes, f->psync);
#endif
    for (int q = 0; q < f->npes; q++) { /* recv block q holds rows q*nr.. of columns me*nr..: transpose it */
        const cplx *blk = f->recv + (size_t)q * nr * nr;
        for (long r0 = 0; r0 < nr; r0 += TILE) /* in tiles: one side of a naive transpose misses the cache */
            for (long c0 = 0; c0 < nr; c0 += TILE)
                for (long r = r0; r < r0 + TILE && r < nr; r++)
                    for (long c = c0; c < c0 + TILE && c < nr; c++) {
                        f->t[c * n + q * nr + r][0] = blk[r * nr + c][0];
                        f->t[c * n + q * nr + r][1] = blk[r * nr + c][1];
                    }
    }
    fftw_execute_dft(f->prow, f->t, f->t);
}

/* ---- variant overlap: chunks of rows claimed from per-PE atomic counters (a PE done with its own takes others'),
 * the next chunk's data fetched with non-blocking gets while the current one is transformed ---- */

/* the next chunk for this PE: its own counter first, then the others' in turn; *owner gets whose it is */
static long claim(struct fft *f, int which, int *from, long nchunks, int *owner) {
    while (*from < f->npes) {
        int o = (f->me + *from) % f->npes;
        long c = shmem_long_atomic_fetch_inc(&f->ctr[which], o);
        if (c < nchunks) {
            *owner = o;
            return c;
        }
        (*from)++;
    }
    return -1;
}

/* row pass, chunk c of PE o's rows: issue the gets into dst (nothing to fetch for this PE's own) */
static void row_fetch(struct fft *f, int o, long c, cplx *dst) {
    if (o != f->me)
        shmem_getmem_nbi(dst, f->a + c * f->chunk * f->n, (size_t)(f->chunk * f->n) * sizeof(cplx), o);
}

static void row_work(struct fft *f, int o, long c, cplx *src) {
    size_t off = (size_t)(c * f->chunk * f->n);
    if (o == f->me) {
        fftw_execute_dft(f->pchunk_oop, f->a + off, f->w + off);
    } else { /* a stolen chunk's result goes back to its owner */
        fftw_execute_dft(f->pchunk, src, src);
        shmem_putmem_nbi(f->w + off, src, (size_t)(f->chunk * f->n) * sizeof(cplx), o);
    }
}

/* column pass, chunk c of PE o's transposed rows (columns o*nr + c*chunk..): from every PE q the chunk-wide strip of
 * its nr rows; dst[q*nr + r][k] = w_q[r][o*nr + c*chunk + k] */
static void col_fetch(struct fft *f, int o, long c, cplx *dst) {
    long n = f->n, nr = f->nr, k = f->chunk;
    for (int q = 0; q < f->npes; q++)
        for (long r = 0; r < nr; r++)
            shmem_getmem_nbi(dst[(q * nr + r) * k], f->w[r * n + o * nr + c * k], (size_t)k * sizeof(cplx), q);
}

static void col_work(struct fft *f, int o, long c, cplx *src) {
    long n = f->n, k = f->chunk;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < k; j++) {
            f->tbuf[j * n + i][0] = src[i * k + j][0];
            f->tbuf[j * n + i][1] = src[i * k + j][1];
        }
    fftw_execute_dft(f->pchunk, f->tbuf, f->tbuf);
    cplx *dst = f->t + c * k * n;
    if (o == f->me)
        memcpy(dst, f->tbuf, (size_t)(k * n) * sizeof(cplx));
    else
        shmem_putmem(dst, f->tbuf, (size_t)(k * n) * sizeof(cplx), o); /* tbuf is reused at once */
}

typedef void (*fetch_fn)(struct fft *, int, long, cplx *);
typedef void (*work_fn)(struct fft *, int, long, cplx *);

/* claim, fetch the next while working on the current one: shmem_quiet completes the gets issued before the work */
static void pipeline(struct fft *f, int which, long nchunks, fetch_fn fetch, work_fn work) {
    int from = 0, o = 0, onext = 0;
    long c = claim(f, which, &from, nchunks, &o);
    if (c >= 0)
        fetch(f, o, c, f->buf[0]);
    shmem_quiet();
    for (int cur = 0; c >= 0; cur ^= 1) {
        long next = claim(f, which, &from, nchunks, &onext);
        if (next >= 0)
            fetch(f, onext, next, f->buf[cur ^ 1]);
        work(f, o, c, f->buf[cur]);
        shmem_quiet();
        c = next, o = onext;
    }
}

static void fft_overlap(struct fft *f) {
    long nchunks = f->nr / f->chunk;
    /* atomic sets, not stores: the words are AMO targets, and with NIC atomics a CPU store need not be seen by them */
    shmem_long_atomic_set(&f->ctr[0], 0, f->me);
    shmem_long_atomic_set(&f->ctr[1], 0, f->me);
    shmem_barrier_all(); /* counters reset everywhere before anyone claims */
    pipeline(f, 0, nchunks, row_fetch, row_work);
    shmem_barrier_all(); /* every row transformed (stolen ones put back) before the columns are read */
    pipeline(f, 1, nchunks, col_fetch, col_work);
}

static void body(void *arg) {
    struct fft *f = arg;
    if (f->overlap)
        fft_overlap(f);
    else
        fft_alltoall(f);
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    long n = 1024, chunk = 0, maxserial = 1024;
    const char *variant = "alltoall";
    struct app_opt opts[] = {
        {"--n", APP_INT, &n, "the array is N x N complex doubles (default 1024); npes must divide N"},
        {"--variant", APP_STR, &variant, "alltoall (default) or overlap"},
        {"--chunk", APP_INT, &chunk, "overlap: rows per claimed chunk (default: nr/8, at least 1)"},
        {"--max-serial", APP_INT, &maxserial,
         "--verify against a serial 2D FFT up to this N (default 1024), above it against sampled DFT sums"},
        {NULL, 0, NULL, NULL}};
    shmem_init();
    app_init(argc, argv, "fft2d", "A distributed 2D complex FFT: row FFTs, a transpose, row FFTs.", opts);
    struct fft f = {.n = n, .me = app_g.me, .npes = app_g.npes};
    f.overlap = !strcmp(variant, "overlap");
    if (!f.overlap && strcmp(variant, "alltoall")) {
        if (f.me == 0)
            fprintf(stderr, "fft2d: unknown --variant %s (alltoall or overlap)\n", variant);
        shmem_finalize();
        return 2;
    }
    if (n < 1 || n % f.npes) {
        if (f.me == 0)
            fprintf(stderr, "fft2d: --n %ld must be a positive multiple of the number of PEs (%d)\n", n, f.npes);
        shmem_finalize();
        return 2;
    }
    app_g.variant = f.overlap ? "overlap" : "alltoall";
    f.nr = n / f.npes;
    f.chunk = chunk > 0 ? chunk : (f.nr / 8 > 0 ? f.nr / 8 : 1);
    while (f.nr % f.chunk) /* whole chunks only */
        f.chunk--;
    app_param("n", "%ld", n);
    app_param("npes", "%d", f.npes);
    if (f.overlap)
        app_param("chunk", "%ld", f.chunk);

    size_t local = (size_t)(f.nr * n) * sizeof(cplx);
    f.a = shmem_align(64, local);
    f.w = shmem_align(64, local);
    f.t = shmem_align(64, local);
    f.send = shmem_align(64, local);
    f.recv = shmem_align(64, local);
    f.ctr = shmem_calloc(2, sizeof(long));
    f.buf[0] = fftw_alloc_complex((size_t)(f.chunk * n));
    f.buf[1] = fftw_alloc_complex((size_t)(f.chunk * n));
    f.tbuf = fftw_alloc_complex((size_t)(f.chunk * n));
#if !V15
    f.psync = shmem_malloc(SHMEM_ALLTOALL_SYNC_SIZE * sizeof(long));
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
        f.psync[i] = SHMEM_SYNC_VALUE;
#endif
    if (!f.a || !f.w || !f.t || !f.send || !f.recv || !f.ctr || !f.buf[0] || !f.buf[1] || !f.tbuf) {
        if (f.me == 0)
            fprintf(stderr, "fft2d: out of memory for N=%ld (raise SHMEM_SYMMETRIC_SIZE)\n", n);
        shmem_global_exit(1);
    }
    /* plans once (set-up, not timed); FFTW_ESTIMATE leaves the arrays alone while planning */
    int len = (int)n;
    f.prow_oop =
        fftw_plan_many_dft(1, &len, (int)f.nr, f.a, NULL, 1, len, f.w, NULL, 1, len, FFTW_FORWARD, FFTW_ESTIMATE);
    f.prow = fftw_plan_many_dft(1, &len, (int)f.nr, f.t, NULL, 1, len, f.t, NULL, 1, len, FFTW_FORWARD, FFTW_ESTIMATE);
    /* executed on pieces of a and on the buffers alike (fftw_execute_dft), so no alignment is assumed */
    f.pchunk = fftw_plan_many_dft(1, &len, (int)f.chunk, f.buf[0], NULL, 1, len, f.buf[0], NULL, 1, len, FFTW_FORWARD,
                                  FFTW_ESTIMATE | FFTW_UNALIGNED);
    f.pchunk_oop = fftw_plan_many_dft(1, &len, (int)f.chunk, f.a, NULL, 1, len, f.w, NULL, 1, len, FFTW_FORWARD,
                                      FFTW_ESTIMATE | FFTW_UNALIGNED);
    /* once: the row pass reads a and writes w, so every repetition transforms the same input */
    fft2d_fill_rows(f.a, n);
    shmem_barrier_all();

    double tmin, tmax, t = app_time(app_g.variant, body, &f, &tmin, &tmax);
    app_metric("time", t, tmin, tmax, "s");
    double flop = 5.0 * (double)n * (double)n * log2((double)n * (double)n); /* the usual 5 N log2 N count */
    app_metric("gflops", flop / t * 1e-9, flop / tmax * 1e-9, flop / tmin * 1e-9, "GFLOP/s");

    if (app_g.verify)
        app_verdict(fft2d_verify(n, maxserial, f.t));

    fftw_destroy_plan(f.prow_oop), fftw_destroy_plan(f.prow);
    fftw_destroy_plan(f.pchunk_oop), fftw_destroy_plan(f.pchunk);
    fftw_free(f.buf[0]), fftw_free(f.buf[1]), fftw_free(f.tbuf);
    shmem_barrier_all();
    shmem_free(f.a), shmem_free(f.w), shmem_free(f.t), shmem_free(f.send), shmem_free(f.recv), shmem_free(f.ctr);
#if !V15
    shmem_free(f.psync);
#endif
    return app_finish();
}
