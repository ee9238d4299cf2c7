/* cannon_common.h - what the forms of cannon share: the PE grid, the inputs and the checks of C, so every form is
 * verified the same way. Host code, C or C++, after app.h; CANNON_NO_BLAS leaves out the serial check (cblas). */
#ifndef GSHMEM_APP_CANNON_COMMON_H
#define GSHMEM_APP_CANNON_COMMON_H
#include <math.h>

/* *q with npes = q^2; returns 0, or the exit status when this job cannot run (PE 0 has said why): 77 when npes is
 * not a square (ctest counts it a skip), 2 when q does not divide n */
static inline int cannon_grid(long n, int *q) {
    *q = 0;
    while ((*q + 1) * (*q + 1) <= app_g.npes)
        ++*q;
    if (*q * *q != app_g.npes) {
        if (app_g.me == 0)
            printf("%s: needs a square number of PEs (1, 4, 9, ...), not %d: skipped\n", app_g.name, app_g.npes);
        return 77;
    }
    if (n < 1 || n % *q) {
        if (app_g.me == 0)
            fprintf(stderr, "%s: --n %ld must be a positive multiple of sqrt(npes) = %d\n", app_g.name, n, *q);
        return 2;
    }
    return 0;
}

/* the PE of grid position (r, c), both taken modulo q */
static inline int cannon_pe(int q, int r, int c) { return ((r + q) % q) * q + (c + q) % q; }

/* the inputs, from global indices only: PE 0 can build all of them to check against; in [0.5, 1.5) so the
 * relative error of each C entry is meaningful (no cancellation) */
static inline double a_at(long i, long j) {
    uint64_t h = ((uint64_t)i << 32 | (uint64_t)j) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    return 0.5 + (double)(h >> 11) / 9007199254740992.0;
}
static inline double b_at(long i, long j) { return a_at(j + 0x5555, i + 0x1234); }

/* the blocks (row, col) of A and B, nb x nb row-major */
static inline void cannon_fill(long nb, int row, int col, double *a, double *b) {
    for (long i = 0; i < nb; i++)
        for (long j = 0; j < nb; j++) {
            a[i * nb + j] = a_at(row * nb + i, col * nb + j);
            b[i * nb + j] = b_at(row * nb + i, col * nb + j);
        }
}

/* larger N: u^T C w = (u^T A)(B w) with weights u, w; each PE checks the rows and columns of its block:
 * sum_ij u_i C_ij w_j over its block = sum_k (sum_i u_i A_ik)(sum_j B_kj w_j) over its rows i and columns j */
static inline int cannon_verify_checksum(long n, int q, const double *c) {
    long nb = n / q, r0 = (app_g.me / q) * nb, c0 = (app_g.me % q) * nb;
    double got = 0, want = 0, mag = 0;
    for (long i = 0; i < nb; i++)
        for (long j = 0; j < nb; j++)
            got += (1.0 + (double)((r0 + i) % 7)) * c[i * nb + j] * (1.0 + (double)((c0 + j) % 5));
    for (long k = 0; k < n; k++) {
        double ua = 0, bw = 0;
        for (long i = 0; i < nb; i++)
            ua += (1.0 + (double)((r0 + i) % 7)) * a_at(r0 + i, k);
        for (long j = 0; j < nb; j++)
            bw += b_at(k, c0 + j) * (1.0 + (double)((c0 + j) % 5));
        want += ua * bw;
        mag += fabs(ua * bw);
    }
    double rel = fabs(got - want) / mag;
    int ok = rel < 1e-10 && isfinite(rel);
    if (!ok || !app_g.quiet)
        printf("%s: PE %d weighted block sum relative error %.3g (limit 1e-10)\n", app_g.name, app_g.me, rel);
    return ok;
}

/* the serial check needs cblas; the GPU form leaves it out (it checks entries by their definition instead), so a GPU
 * machine needs no BLAS */
#ifndef CANNON_NO_BLAS
#include <cblas.h>

/* small N: PE 0 gathers C (c: this PE's block, symmetric, on the host) and compares it with one serial dgemm */
static inline int cannon_verify_serial(long n, int q, double *c) {
    long nb = n / q;
    int ok = 1;
    if (app_g.me == 0) {
        double *a = (double *)malloc((size_t)(n * n) * sizeof(double));
        double *b = (double *)malloc((size_t)(n * n) * sizeof(double));
        double *ref = (double *)malloc((size_t)(n * n) * sizeof(double));
        double *blk = (double *)malloc((size_t)(nb * nb) * sizeof(double));
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                a[i * n + j] = a_at(i, j), b[i * n + j] = b_at(i, j);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0, a, (int)n, b, (int)n, 0.0,
                    ref, (int)n);
        double maxrel = 0;
        for (int p = 0; p < app_g.npes; p++) {
            shmem_getmem(blk, c, (size_t)(nb * nb) * sizeof(double), p);
            long r0 = (p / q) * nb, c0 = (p % q) * nb;
            for (long i = 0; i < nb; i++)
                for (long j = 0; j < nb; j++) {
                    double want = ref[(r0 + i) * n + c0 + j];
                    maxrel = fmax(maxrel, fabs(blk[i * nb + j] - want) / fabs(want));
                }
        }
        ok = maxrel < 1e-10 && isfinite(maxrel);
        if (!app_g.quiet || !ok)
            printf("%s: max relative error %.3g (limit 1e-10)\n", app_g.name, maxrel);
        free(a), free(b), free(ref), free(blk);
    }
    return ok;
}

/* this PE's verdict on C (c: its block, symmetric, on the host): the serial comparison up to max_serial */
static inline int cannon_verify(long n, int q, long max_serial, double *c) {
    return n <= max_serial ? cannon_verify_serial(n, q, c) : cannon_verify_checksum(n, q, c);
}

#endif

#endif
