/* heat3d_gpu.cu - heat3d's "extended" GPU forms: the grid in GPU symmetric memory, a stencil kernel, and ghost planes
 * put GPU to GPU with put-with-signal, either from a kernel (shmemg_putmem_signal_tg; waits in the kernel too) or by
 * the host (shmem_putmem_signal_nbi on GPU buffers). Built for the CPU emulation and with nvcc for a GPU. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <shmem.h>
#include <shmemg.h>

#include "app.h"
#include "heat3d_common.h"

static long n = 64, steps = 20, max_serial = 48, blocks = 8, threads = 128;
static const char *variant = "extended";
static int kernel_side; /* 1: waits and puts in kernels; 0: by the host */
static double alpha = 0.1;
static double *buf[2]; /* GPU heap: u_s in buf[s % 2], plane 0 low ghost, 1..nz interior, nz + 1 high ghost */
static uint64_t *sig;  /* GPU heap: [parity * 2 + side], value s + 1 for u_s (side 0: low ghost, 1: high) */
static long nz, z0, gstep, nz_lo;
static int lo, hi;
static size_t plane;

#define CK(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "heat3d-gpu: PE %d: %s: %s\n", shmem_my_pe(), #call, cudaGetErrorString(e_));              \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

static double *pl(long s, long k) { return buf[s % 2] + (size_t)k * plane; }

/* planes k0..k0+cnt-1 of out from in (each a whole buffer); the expression is heat_plane's, point by point. With
 * wait_s > 0 each block first waits for the ghost planes of u_{wait_s - 1} (kernel-initiated form). */
__global__ void k_planes(double *out, const double *in, long n, long k0, long cnt, double alpha, uint64_t *sig_lo,
                         uint64_t *sig_hi, uint64_t wait_s) {
    if (wait_s) {
        if (threadIdx.x == 0) {
            shmemg_signal_wait_until(sig_lo, SHMEM_CMP_GE, wait_s);
            shmemg_signal_wait_until(sig_hi, SHMEM_CMP_GE, wait_s);
        }
        __syncthreads();
    }
    size_t pn = (size_t)n * (size_t)n, total = pn * (size_t)cnt;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
        size_t k = (size_t)k0 + i / pn, r = i % pn;
        long y = (long)(r / (size_t)n), x = (long)(r % (size_t)n);
        const double *c = in + k * pn, *m = c - pn, *p = c + pn;
        long xm = x ? x - 1 : n - 1, xp = x + 1 < n ? x + 1 : 0, ym = y ? y - 1 : n - 1, yp = y + 1 < n ? y + 1 : 0;
        double cc = c[y * n + x];
        out[k * pn + r] = cc + alpha * ((c[y * n + xm] + c[y * n + xp]) + (c[ym * n + x] + c[yp * n + x]) +
                                        (m[y * n + x] + p[y * n + x]) - 6.0 * cc);
    }
}

/* kernel-initiated halo exchange: one block sends both boundary planes of u_s, each with its signal */
__global__ void k_send(double *b, size_t pn, long nz, long nz_lo, uint64_t *sig_par, uint64_t v, int lo, int hi) {
    shmemg_putmem_signal_tg(b + (size_t)(nz_lo + 1) * pn, b + pn, pn * sizeof(double), sig_par + 1, v, SHMEM_SIGNAL_SET,
                            lo);
    shmemg_putmem_signal_tg(b, b + (size_t)nz * pn, pn * sizeof(double), sig_par, v, SHMEM_SIGNAL_SET, hi);
}

static void send_host(long s) {
    uint64_t *sp = sig + (s % 2) * 2;
    shmem_putmem_signal_nbi(pl(s, nz_lo + 1), pl(s, 1), plane * sizeof(double), sp + 1, (uint64_t)s + 1,
                            SHMEM_SIGNAL_SET, lo);
    shmem_putmem_signal_nbi(pl(s, 0), pl(s, nz), plane * sizeof(double), sp, (uint64_t)s + 1, SHMEM_SIGNAL_SET, hi);
}

/* step s, as in heat3d.c: boundary planes, their sends, then the interior */
static void step(void) {
    long s = gstep + 1;
    uint64_t *sp = sig + ((s - 1) % 2) * 2;
    unsigned g = (unsigned)blocks, t = (unsigned)threads;
    if (kernel_side) {
        k_planes<<<g, t>>>(buf[s % 2], buf[(s - 1) % 2], n, 1, 1, alpha, sp, sp + 1, (uint64_t)s);
        if (nz > 1)
            k_planes<<<g, t>>>(buf[s % 2], buf[(s - 1) % 2], n, nz, 1, alpha, sp, sp + 1, 0);
        k_send<<<1, t>>>(buf[s % 2], plane, nz, nz_lo, sig + (s % 2) * 2, (uint64_t)s + 1, lo, hi);
        if (nz > 2)
            k_planes<<<g, t>>>(buf[s % 2], buf[(s - 1) % 2], n, 2, nz - 2, alpha, sp, sp + 1, 0);
    } else {
        shmem_signal_wait_until(sp, SHMEM_CMP_GE, (uint64_t)s);
        shmem_signal_wait_until(sp + 1, SHMEM_CMP_GE, (uint64_t)s);
        k_planes<<<g, t>>>(buf[s % 2], buf[(s - 1) % 2], n, 1, 1, alpha, sp, sp + 1, 0);
        if (nz > 1)
            k_planes<<<g, t>>>(buf[s % 2], buf[(s - 1) % 2], n, nz, 1, alpha, sp, sp + 1, 0);
        CK(cudaDeviceSynchronize());
        send_host(s);
        if (nz > 2)
            k_planes<<<g, t>>>(buf[s % 2], buf[(s - 1) % 2], n, 2, nz - 2, alpha, sp, sp + 1, 0);
        CK(cudaDeviceSynchronize());
        shmem_quiet(); /* the planes sent are rewritten at step s + 2 */
    }
    gstep = s;
}

static void run(void *arg) {
    (void)arg;
    for (long i = 0; i < steps; i++)
        step();
    CK(cudaDeviceSynchronize());
}

static void reset(void) {
    CK(cudaDeviceSynchronize());
    shmem_barrier_all();
    gstep += 2;
    std::vector<double> h((size_t)nz * plane);
    for (long k = 0; k < nz; k++)
        heat_init_plane(h.data() + (size_t)k * plane, n, z0 + k);
    CK(cudaMemcpy(pl(gstep, 1), h.data(), h.size() * sizeof(double), cudaMemcpyHostToDevice));
    shmem_barrier_all();
    send_host(gstep);
    shmem_quiet();
}

static double sum_over_pes(double v) {
    static double src, dst;
    src = v;
    shmem_barrier_all();
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
    shmem_barrier_all();
    return dst;
}

static double local_sum(void) {
    std::vector<double> h((size_t)nz * plane);
    CK(cudaMemcpy(h.data(), pl(gstep, 1), h.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double t = 0;
    for (double v : h)
        t += v;
    return t;
}

int main(int argc, char **argv) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT | SHMEM_DEVICE_KERNEL_INIT, &provided);
    const struct app_opt opts[] = {
        {"--n", APP_INT, &n, "global grid N^3 (default 64); at least one plane per PE"},
        {"--steps", APP_INT, &steps, "time steps per repetition (default 20)"},
        {"--max-serial", APP_INT, &max_serial, "--verify compares with a serial run on PE 0 up to this N (48)"},
        {"--variant", APP_STR, &variant, "extended (kernels wait and put) | extended-host (the host waits and puts)"},
        {"--blocks", APP_INT, &blocks, "stencil kernel blocks (default 8)"},
        {"--threads", APP_INT, &threads, "threads per block (default 128)"},
        {NULL, APP_INT, NULL, NULL}};
    app_init(argc, argv, "heat3d-gpu", "3D heat equation on GPU memory, put-with-signal halos GPU to GPU", opts);
    kernel_side = !strcmp(variant, "extended");
    if ((!kernel_side && strcmp(variant, "extended-host")) || n < 3 || n < app_g.npes || steps < 1 || blocks < 1 ||
        threads < 1) {
        if (app_g.me == 0)
            fprintf(stderr, "heat3d-gpu: need --variant extended|extended-host, --n >= 3 and >= the PE count\n");
        shmem_finalize();
        return 2;
    }
    int need = SHMEM_DEVICE_HOST_INIT | (kernel_side ? SHMEM_DEVICE_KERNEL_INIT : 0);
    if ((provided & need) != need) {
#ifdef GSHMEM_EMULATE_GPU
        if (app_g.me == 0)
            fprintf(stderr, "heat3d-gpu: GPU support not provided on the emulated GPU (SHMEM_SYMMETRIC_SIZE_DEVICE)\n");
        shmem_global_exit(1);
#else
        if (app_g.me == 0)
            printf("SKIP: no GPU support here\n");
        shmem_finalize();
        return 77;
#endif
    }
    app_g.variant = variant;
    plane = (size_t)n * (size_t)n;
    heat_slab(n, app_g.npes, app_g.me, &nz, &z0);
    lo = (app_g.me + app_g.npes - 1) % app_g.npes;
    hi = (app_g.me + 1) % app_g.npes;
    heat_slab(n, app_g.npes, lo, &nz_lo, NULL);
    long nz_max = n / app_g.npes + (n % app_g.npes != 0);
    size_t words = (size_t)(nz_max + 2) * plane;
    buf[0] = (double *)shmemg_malloc(2 * words * sizeof(double));
    sig = (uint64_t *)shmemg_calloc(4, sizeof(uint64_t));
    if (!buf[0] || !sig) {
        fprintf(stderr, "heat3d-gpu: PE %d: shmemg_malloc of %zu bytes failed (SHMEM_SYMMETRIC_SIZE_DEVICE?)\n",
                app_g.me, 2 * words * sizeof(double));
        shmem_global_exit(1);
    }
    buf[1] = buf[0] + words;
    app_param("n", "%ld", n);
    app_param("steps", "%ld", steps);
    app_param("blocks", "%ld", blocks);
    app_param("threads", "%ld", threads);

    reset();
    double tmin, tmax, t = app_time("steps", run, NULL, &tmin, &tmax);
    double mlup = (double)n * (double)n * (double)n * (double)steps * 1e-6;
    app_metric("time_per_step", t / (double)steps, tmin / (double)steps, tmax / (double)steps, "s");
    app_metric("MLUP/s", mlup / t, mlup / tmax, mlup / tmin, "MLUP/s");

    if (app_g.verify) {
        /* as heat3d.c: conservation of the total, and at small N a serial run on PE 0 (a GPU may contract the
         * stencil's multiply-add, so equality is to 1e-12, not bitwise) */
        reset();
        double before = sum_over_pes(local_sum());
        run(NULL);
        shmem_barrier_all();
        double after = sum_over_pes(local_sum());
        int ok = std::fabs(after - before) <= 1e-9 * std::fabs(before);
        if (!ok && app_g.me == 0)
            printf("heat3d-gpu: total heat %.17g before, %.17g after\n", before, after);
        if (n <= max_serial && app_g.me == 0) {
            size_t cells = plane * (size_t)n;
            std::vector<double> got(cells), a(cells + 2 * plane), b(cells + 2 * plane);
            for (int p = 0; p < app_g.npes; p++) {
                long pz, pz0;
                heat_slab(n, app_g.npes, p, &pz, &pz0);
                shmem_getmem(got.data() + (size_t)pz0 * plane, pl(gstep, 1), (size_t)pz * plane * sizeof(double), p);
            }
            for (long z = 0; z < n; z++)
                heat_init_plane(a.data() + (size_t)(z + 1) * plane, n, z);
            for (long s = 0; s < steps; s++) {
                std::memcpy(a.data(), a.data() + (size_t)n * plane, plane * sizeof(double));
                std::memcpy(a.data() + (size_t)(n + 1) * plane, a.data() + plane, plane * sizeof(double));
                for (long z = 1; z <= n; z++)
                    heat_plane(b.data() + (size_t)z * plane, a.data() + (size_t)(z - 1) * plane,
                               a.data() + (size_t)z * plane, a.data() + (size_t)(z + 1) * plane, n, alpha);
                a.swap(b);
            }
            double md = 0;
            for (size_t i = 0; i < cells; i++)
                md = std::fmax(md, std::fabs(got[i] - a[plane + i]));
            if (md >= 1e-12) {
                printf("heat3d-gpu: max |distributed - serial| = %g\n", md);
                ok = 0;
            }
        }
        app_verdict(ok);
    }
    shmemg_free(sig);
    shmemg_free(buf[0]);
    return app_finish();
}
