/* heat3d_mpi.c - the MPI counterpart of heat3d.c: the same slabs, stencil and checks, ghost planes exchanged with
 * MPI_Isend/MPI_Irecv into the same double buffers (receives for u_s posted as soon as u_s's ghosts are free). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heat3d_common.h"

static int me, npes, lo, hi;
static long n = 128, steps = 20, reps = 5, warmup = 1, max_serial = 64, verify, nz, z0, gstep;
static double alpha = 0.1, *buf[2];
static size_t plane;
static MPI_Request rq[4]; /* receives of both ghost planes, sends of both boundary planes */

static double *pl(long s, long k) { return buf[s % 2] + (size_t)k * plane; }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* u_s's exchange: tag 0 travels up into the receiver's low ghost, tag 1 down into its high ghost */
static void exchange(long s) {
    int cnt = (int)plane;
    MPI_Irecv(pl(s, 0), cnt, MPI_DOUBLE, lo, 0, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(pl(s, nz + 1), cnt, MPI_DOUBLE, hi, 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(pl(s, nz), cnt, MPI_DOUBLE, hi, 0, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(pl(s, 1), cnt, MPI_DOUBLE, lo, 1, MPI_COMM_WORLD, &rq[3]);
}

static void step(void) {
    long s = gstep + 1;
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    heat_plane(pl(s, 1), pl(s - 1, 0), pl(s - 1, 1), pl(s - 1, 2), n, alpha);
    if (nz > 1)
        heat_plane(pl(s, nz), pl(s - 1, nz - 1), pl(s - 1, nz), pl(s - 1, nz + 1), n, alpha);
    exchange(s);
    for (long k = 2; k < nz; k++)
        heat_plane(pl(s, k), pl(s - 1, k - 1), pl(s - 1, k), pl(s - 1, k + 1), n, alpha);
    gstep = s;
}

static void reset(void) {
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long k = 0; k < nz; k++)
        heat_init_plane(pl(gstep, k + 1), n, z0 + k);
    exchange(gstep);
}

static double total(void) {
    double t = 0, all;
    for (long k = 1; k <= nz; k++)
        for (size_t i = 0; i < plane; i++)
            t += pl(gstep, k)[i];
    MPI_Allreduce(&t, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    for (int i = 1; i < argc; i++) {
        long *p = !strcmp(argv[i], "--n")            ? &n
                  : !strcmp(argv[i], "--steps")      ? &steps
                  : !strcmp(argv[i], "--reps")       ? &reps
                  : !strcmp(argv[i], "--warmup")     ? &warmup
                  : !strcmp(argv[i], "--max-serial") ? &max_serial
                                                     : NULL;
        if (!strcmp(argv[i], "--verify"))
            verify = 1;
        else if (p && i + 1 < argc)
            *p = atol(argv[++i]);
        else {
            if (me == 0)
                fprintf(stderr, "usage: mpirun -np N heat3d_mpi [--n N] [--steps S] [--reps R] [--warmup W] "
                                "[--max-serial N] [--verify]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (n < 3 || n < npes || steps < 1 || reps < 1 || warmup < 0) {
        if (me == 0)
            fprintf(stderr, "heat3d_mpi: need --n >= 3 and >= the rank count, --steps >= 1\n");
        MPI_Finalize();
        return 2;
    }
    plane = (size_t)n * (size_t)n;
    heat_slab(n, npes, me, &nz, &z0);
    lo = (me + npes - 1) % npes;
    hi = (me + 1) % npes;
    for (int b = 0; b < 2; b++)
        buf[b] = (double *)malloc((size_t)(nz + 2) * plane * sizeof(double));
    for (int i = 0; i < 4; i++)
        rq[i] = MPI_REQUEST_NULL;
    reset();
    double *t = (double *)malloc((size_t)reps * sizeof(double));
    for (long r = 0; r < warmup + reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        for (long i = 0; i < steps; i++)
            step();
        double dt = now() - t0, mx;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= warmup)
            t[r - warmup] = mx;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp);
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    double mlup = (double)n * (double)n * (double)n * (double)steps * 1e-6;
    if (me == 0)
        printf("heat3d_mpi   host             np=%-3d time_per_step %.6g s (min %.6g, max %.6g) MLUP/s %.6g\n", npes,
               med / (double)steps, t[0] / (double)steps, t[reps - 1] / (double)steps, mlup / med);
    int ok = 1;
    if (verify) {
        reset();
        double before = total();
        for (long i = 0; i < steps; i++)
            step();
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        double after = total();
        ok = fabs(after - before) <= 1e-9 * fabs(before);
        if (n <= max_serial) {
            size_t cells = plane * (size_t)n;
            int *cnts = (int *)malloc((size_t)npes * sizeof(int)), *displ = (int *)malloc((size_t)npes * sizeof(int));
            for (int p = 0; p < npes; p++) {
                long pz, pz0;
                heat_slab(n, npes, p, &pz, &pz0);
                cnts[p] = (int)((size_t)pz * plane);
                displ[p] = (int)((size_t)pz0 * plane);
            }
            double *got = me == 0 ? (double *)malloc(cells * sizeof(double)) : NULL;
            MPI_Gatherv(pl(gstep, 1), (int)((size_t)nz * plane), MPI_DOUBLE, got, cnts, displ, MPI_DOUBLE, 0,
                        MPI_COMM_WORLD);
            if (me == 0) {
                double *a = (double *)malloc((cells + 2 * plane) * sizeof(double));
                double *b = (double *)malloc((cells + 2 * plane) * sizeof(double));
                for (long z = 0; z < n; z++)
                    heat_init_plane(a + (size_t)(z + 1) * plane, n, z);
                for (long s = 0; s < steps; s++) {
                    memcpy(a, a + (size_t)n * plane, plane * sizeof(double));
                    memcpy(a + (size_t)(n + 1) * plane, a + plane, plane * sizeof(double));
                    for (long z = 1; z <= n; z++)
                        heat_plane(b + (size_t)z * plane, a + (size_t)(z - 1) * plane, a + (size_t)z * plane,
                                   a + (size_t)(z + 1) * plane, n, alpha);
                    double *tmp = a;
                    a = b, b = tmp;
                }
                double md = 0;
                for (size_t i = 0; i < cells; i++)
                    md = fmax(md, fabs(got[i] - a[plane + i]));
                ok = ok && md < 1e-12;
                free(a), free(b), free(got);
            }
            free(cnts), free(displ);
        }
        int all;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        ok = all;
        if (me == 0)
            printf("heat3d_mpi host np=%d: verification %s\n", npes, ok ? "passed" : "FAILED");
    }
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    free(t), free(buf[0]), free(buf[1]);
    MPI_Finalize();
    return !ok;
}
