/* fft2d_mpi - fft2d's MPI counterpart: the same N x N complex input transformed by FFTW-MPI (fftw_mpi_plan_dft_2d,
 * rows distributed, output transposed as fft2d leaves it), timed the same way, with the same JSON for compare-apps. */
#include <fftw3-mpi.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the input, from global indices only: the same as fft2d.c's */
static void input_at(long i, long j, fftw_complex v) {
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ ((uint64_t)j + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 32;
    v[0] = (double)(h & 0xFFFFF) / (double)0x100000 - 0.5;
    v[1] = (double)((h >> 20) & 0xFFFFF) / (double)0x100000 - 0.5;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    fftw_mpi_init();
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long n = 1024;
    int reps = 5, warmup = 1, verify = 0, quiet = 0;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--n") && v)
            n = atol(v), i++;
        else if (!strcmp(a, "--reps") && v)
            reps = atoi(v), i++;
        else if (!strcmp(a, "--warmup") && v)
            warmup = atoi(v), i++;
        else if (!strcmp(a, "--json") && v)
            json = v, i++;
        else if (!strcmp(a, "--verify"))
            verify = 1;
        else if (!strcmp(a, "--quiet"))
            quiet = 1;
        else {
            if (me == 0)
                fprintf(stderr,
                        "usage: mpirun -np N fft2d_mpi [--n N] [--reps R] [--warmup W] [--json FILE] [--verify] "
                        "[--quiet]\n");
            MPI_Finalize();
            return strcmp(a, "--help") ? 2 : 0;
        }
    }
    if (n < 1 || reps < 1 || warmup < 0) {
        if (me == 0)
            fprintf(stderr, "fft2d_mpi: bad --n, --reps or --warmup\n");
        MPI_Finalize();
        return 2;
    }
    ptrdiff_t nr, r0, nc, c0;
    ptrdiff_t alloc = fftw_mpi_local_size_2d_transposed(n, n, MPI_COMM_WORLD, &nr, &r0, &nc, &c0);
    fftw_complex *a = fftw_alloc_complex((size_t)alloc), *back = fftw_alloc_complex((size_t)alloc);
    fftw_plan fwd =
        fftw_mpi_plan_dft_2d(n, n, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_OUT);
    fftw_plan inv =
        fftw_mpi_plan_dft_2d(n, n, back, back, MPI_COMM_WORLD, FFTW_BACKWARD, FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_IN);
    double *t = calloc((size_t)reps, sizeof(double));
    for (int r = 0; r < warmup + reps; r++) {
        for (ptrdiff_t i = 0; i < nr; i++) /* in place: every repetition starts from the input */
            for (long j = 0; j < n; j++)
                input_at(r0 + i, j, a[i * n + j]);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        fftw_execute(fwd);
        double dt = MPI_Wtime() - t0, mx;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= warmup)
            t[r - warmup] = mx;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp);
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    double flop = 5.0 * (double)n * (double)n * log2((double)n * (double)n);
    int verified = -1;
    if (verify) { /* the inverse of the transposed result must give back N^2 times the input */
        memcpy(back, a, (size_t)alloc * sizeof(fftw_complex));
        fftw_execute(inv);
        double err = 0, all;
        for (ptrdiff_t i = 0; i < nr; i++)
            for (long j = 0; j < n; j++) {
                fftw_complex v;
                input_at(r0 + i, j, v);
                double s = 1.0 / ((double)n * (double)n);
                err = fmax(err, hypot(back[i * n + j][0] * s - v[0], back[i * n + j][1] * s - v[1]));
            }
        MPI_Allreduce(&err, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        verified = all < 1e-9;
        if (me == 0)
            printf("fft2d_mpi np=%d: verification %s (max error %.3g after the inverse)\n", np,
                   verified ? "passed" : "FAILED", all);
    }
    if (me == 0) {
        if (!quiet || !json)
            printf("%-12s %-16s np=%-3d %-22s %12.6g s (min %.6g, max %.6g)\n", "fft2d", "fftw-mpi", np, "time", med,
                   t[0], t[reps - 1]);
        if (json) {
            FILE *f = fopen(json, "w");
            if (f) {
                fprintf(f,
                        "{\"app\": \"fft2d\", \"variant\": \"fftw-mpi\", \"impl\": \"mpi\", \"npes\": %d, \"verify\": "
                        "\"%s\", \"params\": {\"reps\": \"%d\", \"n\": \"%ld\", \"npes\": \"%d\"}, \"metrics\": "
                        "{\"time\": {\"median\": %.9g, \"min\": %.9g, \"max\": %.9g, \"unit\": \"s\"}, \"gflops\": "
                        "{\"median\": %.9g, \"min\": %.9g, \"max\": %.9g, \"unit\": \"GFLOP/s\"}}}\n",
                        np,
                        verified < 0 ? "skipped"
                        : verified   ? "passed"
                                     : "failed",
                        reps, n, np, med, t[0], t[reps - 1], flop / med * 1e-9, flop / t[reps - 1] * 1e-9,
                        flop / t[0] * 1e-9);
                fclose(f);
            } else {
                fprintf(stderr, "fft2d_mpi: cannot write %s\n", json);
            }
        }
    }
    free(t);
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(inv);
    fftw_free(a), fftw_free(back);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return verified == 0;
}
