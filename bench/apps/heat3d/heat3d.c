/* heat3d.c - the 3D heat equation (7-point stencil, explicit Euler, periodic) on an N^3 grid in z slabs over PEs;
 * ghost planes come by put-with-signal (signal = step), double-buffered, so no barrier per step. Host form (C). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <math.h>

#include "app.h"
#include "heat3d_common.h"

static long n = 128, steps = 20, max_serial = 64;
static const char *variant = "host";
static double alpha = 0.1;
static double *buf[2];     /* u_s lives in buf[s % 2]: plane 0 low ghost, 1..nz interior, nz + 1 high ghost */
static uint64_t sig[2][2]; /* [parity][0: low ghost arrived, 1: high ghost arrived], value s + 1 for u_s */
static long nz, z0, gstep; /* this PE's planes, its first global plane, the global step of the current state */
static int lo, hi;         /* neighbour PEs below and above (periodic) */
static size_t plane;       /* N * N */

static double *pl(long s, long k) { return buf[s % 2] + (size_t)k * plane; }

/* u_s's boundary planes into the neighbours' ghost planes of the same parity, each with its signal */
static void send(long s) {
    long nz_lo;
    heat_slab(n, app_g.npes, lo, &nz_lo, NULL);
    app_putmem_signal_nbi(pl(s, nz_lo + 1), pl(s, 1), plane * sizeof(double), &sig[s % 2][1], (uint64_t)s + 1, lo);
    app_putmem_signal_nbi(pl(s, 0), pl(s, nz), plane * sizeof(double), &sig[s % 2][0], (uint64_t)s + 1, hi);
}

/* step s: u_s from u_{s-1}. The boundary planes first (they need the ghosts), sent at once; the interior meanwhile.
 * Why one quiet per step is enough: a neighbour writes our ghosts of u_s only after its step s, which needed our
 * u_{s-1} boundary, sent after our step s-1 had finished reading those ghost planes (ghost reads come before sends). */
static void step(void) {
    long s = gstep + 1;
    app_signal_wait_until(&sig[(s - 1) % 2][0], SHMEM_CMP_GE, (uint64_t)s);
    app_signal_wait_until(&sig[(s - 1) % 2][1], SHMEM_CMP_GE, (uint64_t)s);
    heat_plane(pl(s, 1), pl(s - 1, 0), pl(s - 1, 1), pl(s - 1, 2), n, alpha);
    if (nz > 1)
        heat_plane(pl(s, nz), pl(s - 1, nz - 1), pl(s - 1, nz), pl(s - 1, nz + 1), n, alpha);
    send(s);
    for (long k = 2; k < nz; k++)
        heat_plane(pl(s, k), pl(s - 1, k - 1), pl(s - 1, k), pl(s - 1, k + 1), n, alpha);
    shmem_quiet(); /* the boundary planes sent are rewritten at step s + 2 */
    gstep = s;
}

static void run(void *arg) {
    (void)arg;
    for (long i = 0; i < steps; i++)
        step();
}

/* the initial state at a fresh global step: signals of the skipped steps were never sent, so no stale one matches */
static void reset(void) {
    shmem_barrier_all();
    gstep += 2;
    for (long k = 0; k < nz; k++)
        heat_init_plane(pl(gstep, k + 1), n, z0 + k);
    shmem_barrier_all();
    send(gstep);
}

static double sum_over_pes(double v) {
    static double src, dst;
    static long psync[SHMEM_REDUCE_SYNC_SIZE];
    static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE > 1 ? SHMEM_REDUCE_MIN_WRKDATA_SIZE : 1];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    src = v;
    shmem_barrier_all();
    APP_REDUCE(double, sum, &dst, &src);
    (void)pwrk, (void)psync;
    shmem_barrier_all();
    return dst;
}

static double local_sum(long s) {
    double t = 0;
    for (long k = 1; k <= nz; k++)
        for (size_t i = 0; i < plane; i++)
            t += pl(s, k)[i];
    return t;
}

int main(int argc, char **argv) {
    shmem_init();
    const struct app_opt opts[] = {
        {"--n", APP_INT, &n, "global grid N^3 (default 128); at least one plane per PE"},
        {"--steps", APP_INT, &steps, "time steps per repetition (default 20)"},
        {"--max-serial", APP_INT, &max_serial, "--verify compares with a serial run on PE 0 up to this N (64)"},
        {"--variant", APP_STR, &variant, "host (the only host form; the GPU form is heat3d-gpu)"},
        {NULL, 0, NULL, NULL}};
    app_init(argc, argv, "heat3d", "3D heat equation, 7-point stencil, slabs with put-with-signal halos", opts);
    if (strcmp(variant, "host") || n < 3 || n < app_g.npes || steps < 1) {
        if (app_g.me == 0)
            fprintf(stderr, "heat3d: need --variant host, --n >= 3 and >= the PE count, --steps >= 1\n");
        shmem_finalize();
        return 2;
    }
    app_g.variant = variant;
    plane = (size_t)n * (size_t)n;
    heat_slab(n, app_g.npes, app_g.me, &nz, &z0);
    lo = (app_g.me + app_g.npes - 1) % app_g.npes;
    hi = (app_g.me + 1) % app_g.npes;
    long nz_max = n / app_g.npes + (n % app_g.npes != 0);
    size_t words = (size_t)(nz_max + 2) * plane;
    buf[0] = (double *)shmem_malloc(2 * words * sizeof(double));
    if (!buf[0]) {
        fprintf(stderr, "heat3d: PE %d: shmem_malloc of %zu bytes failed\n", app_g.me, 2 * words * sizeof(double));
        shmem_global_exit(1);
    }
    buf[1] = buf[0] + words;
    app_param("n", "%ld", n);
    app_param("steps", "%ld", steps);

    reset();
    double tmin, tmax, t = app_time("steps", run, NULL, &tmin, &tmax);
    double mlup = (double)n * (double)n * (double)n * (double)steps * 1e-6;
    app_metric("time_per_step", t / (double)steps, tmin / (double)steps, tmax / (double)steps, "s");
    app_metric("MLUP/s", mlup / t, mlup / tmax, mlup / tmin, "MLUP/s");

    if (app_g.verify) {
        /* from the initial state again: total heat is conserved (periodic), and at small N every point matches a
         * serial run on PE 0 that uses the same plane routine in the same order */
        reset();
        double before = sum_over_pes(local_sum(gstep));
        run(NULL);
        shmem_barrier_all();
        double after = sum_over_pes(local_sum(gstep));
        int ok = fabs(after - before) <= 1e-9 * fabs(before);
        if (!ok && app_g.me == 0)
            printf("heat3d: total heat %.17g before, %.17g after\n", before, after);
        if (n <= max_serial && app_g.me == 0) {
            size_t cells = plane * (size_t)n;
            double *got = (double *)malloc(cells * sizeof(double));
            double *a = (double *)malloc((cells + 2 * plane) * sizeof(double)); /* planes -1..n */
            double *b = (double *)malloc((cells + 2 * plane) * sizeof(double));
            for (int p = 0; p < app_g.npes; p++) {
                long pz, pz0;
                heat_slab(n, app_g.npes, p, &pz, &pz0);
                shmem_getmem(got + (size_t)pz0 * plane, pl(gstep, 1), (size_t)pz * plane * sizeof(double), p);
            }
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
            if (md >= 1e-12) {
                printf("heat3d: max |distributed - serial| = %g\n", md);
                ok = 0;
            }
            free(got), free(a), free(b);
        }
        app_verdict(ok);
    }
    shmem_free(buf[0]);
    return app_finish();
}
