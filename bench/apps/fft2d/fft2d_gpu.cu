/* fft2d_gpu - fft2d's GPU form: the rows transformed on the GPU (cuFFT; on the CPU emulation a stand-in over FFTW,
 * cufft_standin.h), packing and block transposes as kernels, the all-to-all between PEs' GPU symmetric buffers. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <shmem.h>
#include <shmemg.h>
#ifdef GSHMEM_EMULATE_GPU
#include "cufft_standin.h"
#else
#include <cuda_runtime.h>
#include <cufft.h>
#endif

#include "app.h"
#define FFT2D_NO_FFTW /* entries are checked by the DFT's definition: no FFTW on a GPU machine */
#include "fft2d_common.h"

typedef cufftDoubleComplex cplx; /* double2 */

#define CK(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "fft2d_gpu: PE %d: %s: %s\n", shmem_my_pe(), #call, cudaGetErrorString(e_));               \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)
#define CKF(call)                                                                                                      \
    do {                                                                                                               \
        int r_ = (int)(call);                                                                                          \
        if (r_ != 0) {                                                                                                 \
            fprintf(stderr, "fft2d_gpu: PE %d: %s: cuFFT error %d\n", shmem_my_pe(), #call, r_);                       \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

struct fftg {
    long n, nr;
    int me, npes;
    cplx *a, *w, *send, *recv, *t; /* GPU symmetric heap: input, after the row pass, all-to-all buffers, result */
    cufftHandle plan;
    cudaStream_t st;
};

/* send block p (nr x nr, row-major) = columns p*nr.. of this PE's rows */
__global__ void pack(const cplx *w, cplx *send, long n, long nr) {
    long total = nr * n;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long)gridDim.x * blockDim.x) {
        long r = i / n, col = i % n, p = col / nr, c = col % nr;
        send[(p * nr + r) * nr + c] = w[i];
    }
}

/* recv block q holds rows q*nr.. of this PE's columns: t[c][q*nr + r] = block_q[r][c], through a shared tile so both
 * the reads and the writes are coalesced */
#define TILE 32
__global__ void transpose(const cplx *recv, cplx *t, long n, long nr) {
    __shared__ cplx tile[TILE][TILE + 1];
    long q = blockIdx.z, r0 = (long)blockIdx.y * TILE, c0 = (long)blockIdx.x * TILE;
    const cplx *blk = recv + q * nr * nr;
    for (int k = threadIdx.y; k < TILE; k += blockDim.y)
        if (r0 + k < nr && c0 + threadIdx.x < nr)
            tile[k][threadIdx.x] = blk[(r0 + k) * nr + c0 + threadIdx.x];
    __syncthreads();
    for (int k = threadIdx.y; k < TILE; k += blockDim.y)
        if (c0 + k < nr && r0 + threadIdx.x < nr)
            t[(c0 + k) * n + q * nr + r0 + threadIdx.x] = tile[threadIdx.x][k];
}

static void body(void *arg) {
    fftg *f = (fftg *)arg;
    long n = f->n, nr = f->nr;
    CKF(cufftExecZ2Z(f->plan, f->a, f->w, CUFFT_FORWARD));
    pack<<<(unsigned)((nr * n + 255) / 256 < 4096 ? (nr * n + 255) / 256 : 4096), 256, 0, f->st>>>(f->w, f->send, n,
                                                                                                   nr);
    CK(cudaStreamSynchronize(f->st)); /* the collective reads send from the host side: the kernel must be done */
    shmem_alltoallmem(SHMEM_TEAM_WORLD, f->recv, f->send, (size_t)(nr * nr) * sizeof(cplx));
    dim3 grid((unsigned)((nr + TILE - 1) / TILE), (unsigned)((nr + TILE - 1) / TILE), (unsigned)f->npes);
    transpose<<<grid, dim3(TILE, 8), 0, f->st>>>(f->recv, f->t, n, nr);
    CKF(cufftExecZ2Z(f->plan, f->t, f->t, CUFFT_FORWARD));
    CK(cudaStreamSynchronize(f->st));
}

/* X[k1][k2] by the DFT's definition, on the host */
static void dft_at(long n, long k1, long k2, double out[2]) {
    const double pi = 3.14159265358979323846;
    out[0] = out[1] = 0;
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            double v[2];
            fft2d_input_at(i, j, v);
            double w = -2 * pi * (double)((k1 * i + k2 * j) % n) / (double)n, c = cos(w), s = sin(w);
            out[0] += v[0] * c - v[1] * s;
            out[1] += v[0] * s + v[1] * c;
        }
}

/* PE 0 reads entries of the transposed result (GPU memory of their owners) and compares them with the definition:
 * every entry up to --max-full, else a spread of samples */
static int verify(fftg *f, long maxfull) {
    long n = f->n, nr = f->nr;
    int ok = 1;
    if (f->me == 0) {
        long ns = n <= maxfull ? n * n : 16, bad = 0;
        double maxerr = 0;
        for (long s = 0; s < ns; s++) {
            long k1 = n <= maxfull ? s / n : (s * 7919) % n, k2 = n <= maxfull ? s % n : (s * 104729 + 3) % n;
            double want[2], got[2];
            dft_at(n, k1, k2, want);
            /* X[k1][k2] is row k2 of the transposed result: PE k2/nr, row k2%nr, column k1 */
            shmem_getmem(got, f->t + (k2 % nr) * n + k1, sizeof got, (int)(k2 / nr));
            double err = hypot(got[0] - want[0], got[1] - want[1]) / ((double)n + hypot(want[0], want[1]));
            maxerr = fmax(maxerr, err);
            if (!(err < 1e-9) && bad++ < 4)
                printf("fft2d_gpu: X[%ld][%ld] = %.12g%+.12gi, the DFT's definition gives %.12g%+.12gi\n", k1, k2,
                       got[0], got[1], want[0], want[1]);
        }
        ok = bad == 0;
        if (!app_g.quiet || !ok)
            printf("fft2d_gpu: %ld entries checked, max scaled error %.3g (limit 1e-9)\n", ns, maxerr);
    }
    return ok;
}

int main(int argc, char **argv) {
    long n = 1024, maxfull = 32;
    struct app_opt opts[] = {
        {"--n", APP_INT, &n, "the array is N x N complex doubles (default 1024); npes must divide N"},
        {"--max-full", APP_INT, &maxfull,
         "--verify checks every entry up to this N (default 32), else 16 sampled ones"},
        {NULL, APP_FLAG, NULL, NULL}};
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_HOST_INIT)) { /* no GPU here (or GPU support could not start on every PE) */
        if (shmem_my_pe() == 0)
            printf("fft2d_gpu: SKIP: no GPU support (SHMEM_DEVICE_HOST_INIT not provided)\n");
        shmem_finalize();
        return 77;
    }
    app_init(argc, argv, "fft2d", "The 2D FFT with rows on the GPU (cuFFT) and the transpose in GPU memory.", opts);
    fftg f = {};
    f.n = n, f.me = app_g.me, f.npes = app_g.npes;
    if (n < 1 || n % f.npes || n > 1 << 20) {
        if (f.me == 0)
            fprintf(stderr, "fft2d_gpu: --n %ld must be a positive multiple of the number of PEs (%d)\n", n, f.npes);
        shmem_finalize();
        return 2;
    }
#ifdef GSHMEM_EMULATE_GPU
    app_g.variant = "gpu-emulated";
#else
    app_g.variant = "gpu";
#endif
    f.nr = n / f.npes;
    app_param("n", "%ld", n);
    app_param("npes", "%d", f.npes);
    size_t local = (size_t)(f.nr * n) * sizeof(cplx);
    cplx **bufs[] = {&f.a, &f.w, &f.send, &f.recv, &f.t};
    for (cplx **b : bufs)
        if (!(*b = (cplx *)shmemg_malloc(local))) {
            if (f.me == 0)
                fprintf(stderr, "fft2d_gpu: out of GPU symmetric memory for N=%ld (SHMEM_SYMMETRIC_SIZE_DEVICE)\n", n);
            shmem_global_exit(1);
        }
    CK(cudaStreamCreate(&f.st));
    int len = (int)n;
    CKF(cufftPlanMany(&f.plan, 1, &len, NULL, 1, len, NULL, 1, len, CUFFT_Z2Z, (int)f.nr));
    CKF(cufftSetStream(f.plan, f.st));
    double *h = (double *)malloc(local);
    for (long r = 0; r < f.nr; r++)
        for (long j = 0; j < n; j++)
            fft2d_input_at((long)f.me * f.nr + r, j, h + 2 * (r * n + j));
    CK(cudaMemcpy(f.a, h, local, cudaMemcpyHostToDevice));
    free(h);
    shmem_barrier_all();

    double tmin, tmax, t = app_time(app_g.variant, body, &f, &tmin, &tmax);
    app_metric("time", t, tmin, tmax, "s");
    double flop = 5.0 * (double)n * (double)n * log2((double)n * (double)n);
    app_metric("gflops", flop / t * 1e-9, flop / tmax * 1e-9, flop / tmin * 1e-9, "GFLOP/s");
    if (app_g.verify)
        app_verdict(verify(&f, maxfull));

    shmem_barrier_all();
    CKF(cufftDestroy(f.plan));
    CK(cudaStreamDestroy(f.st));
    for (cplx **b : bufs)
        shmemg_free(*b);
    return app_finish();
}
