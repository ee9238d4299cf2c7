/* fft2d_common.h - what the forms of the 2D FFT share: the input, a hash of the global indices, and (host and OpenMP
 * forms) the checks of a result left transposed in symmetric host memory (FFTW's serial 2D FFT at small N, DFT sums
 * by the definition above it), so the forms are held to the same verification. After app.h; FFT2D_NO_FFTW leaves
 * out all but the input (the GPU form, which checks entries by the definition: a GPU machine needs no FFTW). */
#ifndef GSHMEM_APP_FFT2D_COMMON_H
#define GSHMEM_APP_FFT2D_COMMON_H
#include <math.h>
#include <stdint.h>

/* the input, from global indices only, so PE 0 can build the whole array to check against */
static inline void fft2d_input_at(long i, long j, double v[2]) {
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)j + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 32;
    v[0] = (double)(h & 0xFFFFF) / (double)0x100000 - 0.5;
    v[1] = (double)((h >> 20) & 0xFFFFF) / (double)0x100000 - 0.5;
}

#ifndef FFT2D_NO_FFTW
#include <fftw3.h>

#include "app.h"

#define FFT_PI 3.14159265358979323846
#define V15 (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105)

typedef fftw_complex cplx; /* double[2] */

/* this PE's n / npes rows of the input */
static void fft2d_fill_rows(cplx *a, long n) {
    long nr = n / app_g.npes;
    for (long r = 0; r < nr; r++)
        for (long j = 0; j < n; j++)
            fft2d_input_at((long)app_g.me * nr + r, j, a[r * n + j]);
}

/* PE 0 gathers the transposed result t (n / npes rows per PE) and compares it with a serial fftw_plan_dft_2d */
static int fft2d_verify_serial(long n, cplx *t) {
    long nr = n / app_g.npes;
    int ok = 1;
    if (app_g.me == 0) {
        cplx *in = fftw_alloc_complex((size_t)(n * n)), *ref = fftw_alloc_complex((size_t)(n * n));
        cplx *got = fftw_alloc_complex((size_t)(n * n));
        fftw_plan p = fftw_plan_dft_2d((int)n, (int)n, in, ref, FFTW_FORWARD, FFTW_ESTIMATE);
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                fft2d_input_at(i, j, in[i * n + j]);
        fftw_execute(p);
        for (int q = 0; q < app_g.npes; q++)
            shmem_getmem(got + (size_t)q * nr * n, t, (size_t)(nr * n) * sizeof(cplx), q);
        double maxref = 0, maxerr = 0;
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++) { /* got is transposed: got[j][i] = X[i][j] */
                double dr = got[j * n + i][0] - ref[i * n + j][0], di = got[j * n + i][1] - ref[i * n + j][1];
                maxerr = fmax(maxerr, sqrt(dr * dr + di * di));
                maxref =
                    fmax(maxref, sqrt(ref[i * n + j][0] * ref[i * n + j][0] + ref[i * n + j][1] * ref[i * n + j][1]));
            }
        double rel = maxref > 0 ? maxerr / maxref : maxerr;
        ok = rel < 1e-9 && isfinite(rel);
        if (!app_g.quiet || !ok)
            printf("%s: max error %.3g relative to max |X| %.3g (limit 1e-9)\n", app_g.name, rel, maxref);
        fftw_destroy_plan(p);
        fftw_free(in), fftw_free(ref), fftw_free(got);
    }
    return ok;
}

/* larger N: a few entries X[k1][k2] by the DFT's definition, each PE summing over its rows, then a sum over PEs */
static double fft2d_sum_over_pes(double v) {
    static double src, dst;
#if !V15
    static long psync[SHMEM_REDUCE_SYNC_SIZE];
    static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
#endif
    src = v;
    shmem_barrier_all();
#if V15
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
#else
    shmem_double_sum_to_all(&dst, &src, 1, 0, 0, shmem_n_pes(), pwrk, psync);
#endif
    shmem_barrier_all();
    return dst;
}

static int fft2d_verify_sampled(long n, cplx *t) {
    long nr = n / app_g.npes;
    const long ks[4][2] = {{0, 0}, {1, n - 1}, {n / 3, n / 2}, {n - 1, 7 % n}};
    int ok = 1;
    for (int s = 0; s < 4; s++) {
        long k1 = ks[s][0], k2 = ks[s][1];
        double acc[2] = {0, 0};
        for (long r = 0; r < nr; r++) {
            long i = (long)app_g.me * nr + r;
            for (long j = 0; j < n; j++) {
                cplx v;
                fft2d_input_at(i, j, v);
                long ph = (k1 * i + k2 * j) % n; /* exact phase index, so the twiddle is accurate at any N */
                double w = -2 * FFT_PI * (double)ph / (double)n, c = cos(w), sn = sin(w);
                acc[0] += v[0] * c - v[1] * sn;
                acc[1] += v[0] * sn + v[1] * c;
            }
        }
        double re = fft2d_sum_over_pes(acc[0]), im = fft2d_sum_over_pes(acc[1]);
        /* X[k1][k2] sits in row k2 of the transposed result, on the PE that owns that row */
        double got[2] = {0, 0};
        int owner = (int)(k2 / nr);
        if (app_g.me == 0)
            shmem_getmem(got, t[(k2 % nr) * n + k1], sizeof got, owner);
        double err = hypot(got[0] - re, got[1] - im), scale = sqrt((double)n * (double)n) + hypot(re, im);
        if (app_g.me == 0 && !(err / scale < 1e-9)) {
            printf("%s: X[%ld][%ld] = %.12g%+.12gi, the DFT's definition gives %.12g%+.12gi\n", app_g.name, k1, k2,
                   got[0], got[1], re, im);
            ok = 0;
        }
    }
    return ok;
}

/* --verify: t is this PE's rows of the transposed result, symmetric and up to date on every PE's host */
static int fft2d_verify(long n, long maxserial, cplx *t) {
    return n <= maxserial ? fft2d_verify_serial(n, t) : fft2d_verify_sampled(n, t);
}
#endif

#endif
