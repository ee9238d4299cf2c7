/* fft2d_omp.c - the 2D FFT of fft2d.c (alltoall variant) with the arrays in OpenMP device memory and the row FFTs in
 * target regions, in the two forms of the OpenMP/OpenSHMEM paper: "standard" (the arrays are an ordinary mapped
 * variable: the packed rows go out to the host before the transpose, travel between host symmetric buffers, and come
 * back in) and "extended" (the arrays are symmetric device memory of a KIND=LIBOMP partition behind the same
 * variable, shmemx_omp_map: the all-to-all goes device to device). Same checks as fft2d.c; host fallback too. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <omp.h>
#include <shmemx.h>

#include "fft2d_common.h"

static long n = 1024, max_serial = 1024, partition = 1;
static const char *variant = "extended";
static int extended, logn;
static long nr;     /* rows per PE */
static size_t part; /* complex numbers in each of the four arrays below: nr x n */
/* the program's array variable (host symmetric memory, mapped), four parts of `part` numbers: the input (never
 * overwritten, so repetitions need no refill), this PE's rows of the transposed result, and the all-to-all's send
 * and receive buffers. The result part is also the row pass's scratch: the column pass rewrites it whole. */
static cplx *buf;
static cplx *dbuf; /* extended: the symmetric device object behind it */
static cplx *tw;   /* the twiddles e^(-2 pi i k / n), k < n / 2: an ordinary mapped variable, computed on the device */
enum { IN, OUT, SEND, RECV, NPARTS };

#pragma omp declare target
/* j with its low lg bits in reverse order */
static long fft_rev(long j, int lg) {
    long r = 0;
    for (int b = 0; b < lg; b++, j >>= 1)
        r = r << 1 | (j & 1);
    return r;
}

/* x[0, len), given in bit-reversed order, becomes its forward DFT (FFTW_FORWARD's sign, unnormalised) in natural
 * order: radix-2 butterflies in place, stage m's twiddles tw[k * len / m] read from the table, not recomputed */
static void fft_butterflies(cplx *x, long len, cplx *w) {
    for (long m = 2; m <= len; m <<= 1) {
        long half = m >> 1, stride = len / m;
        for (long s = 0; s < len; s += m)
            for (long k = 0; k < half; k++) {
                double *u = x[s + k], *v = x[s + k + half];
                const double *t = w[k * stride];
                double vr = v[0] * t[0] - v[1] * t[1], vi = v[0] * t[1] + v[1] * t[0];
                v[0] = u[0] - vr, v[1] = u[1] - vi;
                u[0] += vr, u[1] += vi;
            }
    }
}
#pragma omp end declare target

static void twiddles(void) {
    cplx *w = tw;
    long h = n / 2, len = n;
#pragma omp target teams distribute parallel for map(alloc : w [0:h])
    for (long k = 0; k < h; k++) {
        double a = -2 * FFT_PI * (double)k / (double)len;
        w[k][0] = cos(a), w[k][1] = sin(a);
    }
}

/* on the device: each of this PE's rows transformed (into its row of the result part), then packed for the
 * all-to-all: block p of the send part = the nr x nr block of columns p*nr.., nr contiguous rows of nr */
static void row_pass(void) {
    cplx *b = buf, *w = tw;
    size_t all = NPARTS * part, in = IN * part, out = OUT * part, send = SEND * part;
    long len = n, rows = nr, h = n / 2;
    int lg = logn, np = app_g.npes;
#pragma omp target teams distribute parallel for map(alloc : b [0:all], w [0:h])
    for (long r = 0; r < rows; r++) {
        cplx *x = b + out + (size_t)(r * len);
        cplx *a = b + in + (size_t)(r * len);
        for (long j = 0; j < len; j++) {
            long k = fft_rev(j, lg);
            x[k][0] = a[j][0], x[k][1] = a[j][1];
        }
        fft_butterflies(x, len, w);
        for (int p = 0; p < np; p++)
            for (long c = 0; c < rows; c++) {
                double *d = b[send + (size_t)((p * rows + r) * rows + c)];
                d[0] = x[p * rows + c][0], d[1] = x[p * rows + c][1];
            }
    }
}

/* the transpose through the PEs: receive block q = block me of PE q's send part */
static void exchange(void) {
    size_t bytes = (size_t)(nr * nr) * sizeof(cplx);
    if (extended) { /* device to device: the symmetric device arrays */
        shmem_alltoallmem(SHMEM_TEAM_WORLD, dbuf + RECV * part, dbuf + SEND * part, bytes);
        return;
    }
    /* staged: the packed rows out of the device into the host array, all-to-all between the host arrays, back in */
    size_t send = SEND * part, recv = RECV * part, len = part;
#pragma omp target update from(buf [send:len])
    shmem_alltoallmem(SHMEM_TEAM_WORLD, buf + recv, buf + send, bytes);
#pragma omp target update to(buf [recv:len])
}

/* on the device: row c of the result = column me*nr + c of the row pass's output, gathered from the receive blocks
 * (block q holds rows q*nr.. of it) straight into bit-reversed order, then transformed */
static void column_pass(void) {
    cplx *b = buf, *w = tw;
    size_t all = NPARTS * part, out = OUT * part, recv = RECV * part;
    long len = n, rows = nr, h = n / 2;
    int lg = logn;
#pragma omp target teams distribute parallel for map(alloc : b [0:all], w [0:h])
    for (long c = 0; c < rows; c++) {
        cplx *x = b + out + (size_t)(c * len);
        for (long i = 0; i < len; i++) {
            const double *s = b[recv + (size_t)((i / rows) * rows * rows + (i % rows) * rows + c)];
            long k = fft_rev(i, lg);
            x[k][0] = s[0], x[k][1] = s[1];
        }
        fft_butterflies(x, len, w);
    }
}

static void body(void *arg) {
    (void)arg;
    row_pass();
    exchange();
    column_pass();
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    shmem_init();
    const struct app_opt opts[] = {
        {"--n", APP_INT, &n, "the array is N x N complex doubles (default 1024): a power of two, npes must divide it"},
        {"--max-serial", APP_INT, &max_serial,
         "--verify against a serial 2D FFT up to this N (default 1024), above it against sampled DFT sums"},
        {"--variant", APP_STR, &variant, "standard (staged through host memory) or extended (symmetric device memory)"},
        {"--partition", APP_INT, &partition, "extended: the KIND=LIBOMP partition of the arrays (default 1)"},
        {NULL, 0, NULL, NULL}};
    app_init(argc, argv, "fft2d-omp", "A distributed 2D complex FFT with the arrays in OpenMP device memory", opts);
    extended = !strcmp(variant, "extended");
    /* the device FFT is radix 2 only */
    if ((!extended && strcmp(variant, "standard")) || n < 2 || (n & (n - 1)) || n % app_g.npes) {
        if (app_g.me == 0)
            fprintf(stderr, "fft2d-omp: need --variant standard|extended and --n a power of two >= 2 that the number "
                            "of PEs divides\n");
        shmem_finalize();
        return 2;
    }
    app_g.variant = variant;
    while (1L << logn < n)
        logn++;
    nr = n / app_g.npes;
    part = (size_t)(nr * n);
    size_t all = NPARTS * part, bytes = all * sizeof(cplx), h = (size_t)n / 2;
    buf = (cplx *)shmem_malloc(bytes);
    tw = (cplx *)malloc(h * sizeof(cplx));
    if (!buf || !tw) {
        fprintf(stderr, "fft2d-omp: PE %d: no memory for %zu bytes of symmetric arrays\n", app_g.me, bytes);
        shmem_global_exit(1);
    }
    if (extended) {
        if (!(dbuf = (cplx *)shmemx_omp_map(buf, bytes, (int)partition))) {
            fprintf(stderr, "fft2d-omp: PE %d: partition %ld has no room for %zu bytes\n", app_g.me, partition, bytes);
            shmem_global_exit(1);
        }
    } else {
#pragma omp target enter data map(alloc : buf [0:all])
    }
#pragma omp target enter data map(alloc : tw [0:h])
    app_param("n", "%ld", n);
    app_param("npes", "%d", app_g.npes);
    app_param("offload_devices", "%d", omp_get_num_devices());

    twiddles();
    fft2d_fill_rows(buf + IN * part, n);
    size_t in = IN * part;
#pragma omp target update to(buf [in:part])
    shmem_barrier_all();

    double tmin, tmax, t = app_time(variant, body, NULL, &tmin, &tmax);
    app_metric("time", t, tmin, tmax, "s");
    double flop = 5.0 * (double)n * (double)n * log2((double)n * (double)n); /* the usual 5 N log2 N count */
    app_metric("gflops", flop / t * 1e-9, flop / tmax * 1e-9, flop / tmin * 1e-9, "GFLOP/s");

    if (app_g.verify) { /* fft2d.c's checks, on the result brought to every PE's host */
        size_t out = OUT * part;
#pragma omp target update from(buf [out:part])
        shmem_barrier_all();
        app_verdict(fft2d_verify(n, max_serial, buf + out));
    }
#pragma omp target exit data map(delete : tw [0:h])
    if (extended) {
        shmemx_omp_unmap(buf);
    } else {
#pragma omp target exit data map(delete : buf [0:all])
    }
    free(tw);
    shmem_free(buf);
    return app_finish();
}
