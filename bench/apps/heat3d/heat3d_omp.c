/* heat3d_omp.c - the 3D heat equation of heat3d.c with the grid in OpenMP device memory, in the two forms of the
 * OpenMP/OpenSHMEM paper: "standard" (the grid is an ordinary mapped variable: boundary planes go out to the host,
 * travel between host symmetric buffers, and ghost planes come back in, every step) and "extended" (the grid is
 * symmetric device memory of a KIND=LIBOMP partition behind the same variable, shmemx_omp_map: boundary planes go
 * device to device by put-with-signal). Same checks as heat3d.c. Runs on OpenMP's host fallback too. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <math.h>
#include <omp.h>
#include <shmemx.h>

#include "app.h"
#pragma omp declare target
#include "heat3d_common.h"
#pragma omp end declare target

static long n = 32, steps = 10, max_serial = 64, partition = 1;
static const char *variant = "extended";
static int extended;
static double alpha = 0.1;
static double *grid;       /* the program's grid variable (host symmetric memory, mapped): 2 parities x words */
static double *dgrid;      /* extended: the symmetric device object behind it */
static size_t words;       /* one parity: plane 0 low ghost, 1..nz interior, nz + 1 high ghost */
static uint64_t sig[2][2]; /* [parity][0: low ghost arrived, 1: high ghost arrived], value s + 1 for u_s */
static long nz, z0, gstep;
static int lo, hi;
static size_t plane;

/* plane k of u_s, as an offset in the grid */
static size_t at(long s, long k) { return (size_t)(s % 2) * words + (size_t)k * plane; }

/* u_s's boundary planes into the neighbours' ghost planes of the same parity, each with its signal */
static void send(long s) {
    long nz_lo;
    heat_slab(n, app_g.npes, lo, &nz_lo, NULL);
    size_t len = plane * sizeof(double);
    if (extended) { /* device to device: the symmetric device grid */
        app_putmem_signal_nbi(dgrid + at(s, nz_lo + 1), dgrid + at(s, 1), len, &sig[s % 2][1], (uint64_t)s + 1, lo);
        app_putmem_signal_nbi(dgrid + at(s, 0), dgrid + at(s, nz), len, &sig[s % 2][0], (uint64_t)s + 1, hi);
        return;
    }
    /* staged: the boundary planes out of the device into the host grid, from there to the neighbours' host grids */
    size_t b1 = at(s, 1), bn = at(s, nz);
#pragma omp target update from(grid [b1:plane], grid [bn:plane])
    app_putmem_signal_nbi(grid + at(s, nz_lo + 1), grid + b1, len, &sig[s % 2][1], (uint64_t)s + 1, lo);
    app_putmem_signal_nbi(grid + at(s, 0), grid + bn, len, &sig[s % 2][0], (uint64_t)s + 1, hi);
}

/* u_s planes k0..k1 from u_{s-1}, on the device */
static void compute(long s, long k0, long k1) {
    double *g = grid, a = alpha;
    size_t all = 2 * words, cur = at(s, 0), prev = at(s - 1, 0), pl = plane;
    long nn = n;
#pragma omp target teams distribute parallel for map(alloc : g [0:all])
    for (long k = k0; k <= k1; k++)
        heat_plane(g + cur + (size_t)k * pl, g + prev + (size_t)(k - 1) * pl, g + prev + (size_t)k * pl,
                   g + prev + (size_t)(k + 1) * pl, nn, a);
}

/* step s, in heat3d.c's order: boundary planes, send, interior, quiet */
static void step(void) {
    long s = gstep + 1;
    app_signal_wait_until(&sig[(s - 1) % 2][0], SHMEM_CMP_GE, (uint64_t)s);
    app_signal_wait_until(&sig[(s - 1) % 2][1], SHMEM_CMP_GE, (uint64_t)s);
    if (!extended) { /* the ghosts arrived in the host grid: into the device */
        size_t g0 = at(s - 1, 0), g1 = at(s - 1, nz + 1);
#pragma omp target update to(grid [g0:plane], grid [g1:plane])
    }
    compute(s, 1, 1);
    if (nz > 1)
        compute(s, nz, nz);
    send(s);
    if (nz > 2)
        compute(s, 2, nz - 1);
    shmem_quiet();
    gstep = s;
}

static void run(void *arg) {
    (void)arg;
    for (long i = 0; i < steps; i++)
        step();
}

/* the initial state at a fresh global step (written on the host, then into the device) */
static void reset(void) {
    shmem_barrier_all();
    gstep += 2;
    for (long k = 0; k < nz; k++)
        heat_init_plane(grid + at(gstep, k + 1), n, z0 + k);
    size_t b = at(gstep, 1), len = (size_t)nz * plane;
#pragma omp target update to(grid [b:len])
    shmem_barrier_all();
    send(gstep);
}

/* this PE's interior of u_s, on the host */
static void fetch(long s) {
    size_t b = at(s, 1), len = (size_t)nz * plane;
#pragma omp target update from(grid [b:len])
}

static double sum_over_pes(double v) {
    static double src, dst;
    src = v;
    shmem_barrier_all();
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
    shmem_barrier_all();
    return dst;
}

static double local_sum(long s) {
    double t = 0;
    for (long k = 1; k <= nz; k++)
        for (size_t i = 0; i < plane; i++)
            t += grid[at(s, k) + i];
    return t;
}

int main(int argc, char **argv) {
    shmem_init();
    const struct app_opt opts[] = {
        {"--n", APP_INT, &n, "global grid N^3 (default 32); at least one plane per PE"},
        {"--steps", APP_INT, &steps, "time steps per repetition (default 10)"},
        {"--max-serial", APP_INT, &max_serial, "--verify compares with a serial run on PE 0 up to this N (64)"},
        {"--variant", APP_STR, &variant, "standard (staged through host memory) or extended (symmetric device memory)"},
        {"--partition", APP_INT, &partition, "extended: the KIND=LIBOMP partition of the grid (default 1)"},
        {NULL, 0, NULL, NULL}};
    app_init(argc, argv, "heat3d-omp", "3D heat equation with the grid in OpenMP device memory", opts);
    extended = !strcmp(variant, "extended");
    if ((!extended && strcmp(variant, "standard")) || n < 3 || n < app_g.npes || steps < 1) {
        if (app_g.me == 0)
            fprintf(stderr,
                    "heat3d-omp: need --variant standard|extended, --n >= 3 and >= the PE count, --steps >= 1\n");
        shmem_finalize();
        return 2;
    }
    app_g.variant = variant;
    plane = (size_t)n * (size_t)n;
    heat_slab(n, app_g.npes, app_g.me, &nz, &z0);
    lo = (app_g.me + app_g.npes - 1) % app_g.npes;
    hi = (app_g.me + 1) % app_g.npes;
    long nz_max = n / app_g.npes + (n % app_g.npes != 0);
    words = (size_t)(nz_max + 2) * plane;
    size_t all = 2 * words, bytes = all * sizeof(double);
    grid = (double *)shmem_malloc(bytes);
    if (!grid) {
        fprintf(stderr, "heat3d-omp: PE %d: shmem_malloc of %zu bytes failed\n", app_g.me, bytes);
        shmem_global_exit(1);
    }
    if (extended) {
        if (!(dgrid = (double *)shmemx_omp_map(grid, bytes, (int)partition))) {
            fprintf(stderr, "heat3d-omp: PE %d: partition %ld has no room for %zu bytes\n", app_g.me, partition, bytes);
            shmem_global_exit(1);
        }
    } else {
#pragma omp target enter data map(alloc : grid [0:all])
    }
    app_param("n", "%ld", n);
    app_param("steps", "%ld", steps);
    app_param("offload_devices", "%d", omp_get_num_devices());

    reset();
    double tmin, tmax, t = app_time("steps", run, NULL, &tmin, &tmax);
    double mlup = (double)n * (double)n * (double)n * (double)steps * 1e-6;
    app_metric("time_per_step", t / (double)steps, tmin / (double)steps, tmax / (double)steps, "s");
    app_metric("MLUP/s", mlup / t, mlup / tmax, mlup / tmin, "MLUP/s");

    if (app_g.verify) { /* heat3d.c's checks: conservation, and at small N a serial run on PE 0 */
        reset();
        double before = sum_over_pes(local_sum(gstep));
        run(NULL);
        shmem_barrier_all();
        fetch(gstep);
        double after = sum_over_pes(local_sum(gstep));
        int ok = fabs(after - before) <= 1e-9 * fabs(before);
        if (!ok && app_g.me == 0)
            printf("heat3d-omp: total heat %.17g before, %.17g after\n", before, after);
        shmem_barrier_all(); /* every PE's interior is on its host before PE 0 reads them */
        if (n <= max_serial && app_g.me == 0) {
            size_t cells = plane * (size_t)n;
            double *got = (double *)malloc(cells * sizeof(double));
            double *a = (double *)malloc((cells + 2 * plane) * sizeof(double));
            double *b = (double *)malloc((cells + 2 * plane) * sizeof(double));
            for (int p = 0; p < app_g.npes; p++) {
                long pz, pz0;
                heat_slab(n, app_g.npes, p, &pz, &pz0);
                shmem_getmem(got + (size_t)pz0 * plane, grid + at(gstep, 1), (size_t)pz * plane * sizeof(double), p);
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
                printf("heat3d-omp: max |distributed - serial| = %g\n", md);
                ok = 0;
            }
            free(got), free(a), free(b);
        }
        shmem_barrier_all();
        app_verdict(ok);
    }
    if (extended) {
        shmemx_omp_unmap(grid);
    } else {
#pragma omp target exit data map(delete : grid [0:all])
    }
    shmem_free(grid);
    return app_finish();
}
