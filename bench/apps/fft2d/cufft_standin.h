/* cufft_standin.h - NOT cuFFT: a stand-in for the few cuFFT calls fft2d_gpu.cu makes (cufftPlanMany for batched 1D
 * Z2Z, cufftSetStream, cufftExecZ2Z, cufftDestroy), for gshmem's CPU emulation of the GPU, which has no cuFFT. */
#ifndef GSHMEM_BENCH_CUFFT_STANDIN_H
#define GSHMEM_BENCH_CUFFT_STANDIN_H
/* Transforms run with FFTW on the emulated device memory (which the emulation's CPU threads may touch), queued on
 * the plan's stream as a host function, so they keep their order with the program's kernels and copies as cuFFT's
 * would. Only what fft2d_gpu.cu uses: rank 1, contiguous batches (NULL embeds), Z2Z. Its timings are the CPU's. */
#ifndef GSHMEM_EMULATE_GPU
#error "cufft_standin.h is for the CPU emulation of the GPU only; with nvcc use <cufft.h> and -lcufft"
#endif
#include <cstdlib>
#include <fftw3.h>

typedef int cufftHandle;
typedef double2 cufftDoubleComplex;
enum cufftResult_t {
    CUFFT_SUCCESS = 0,
    CUFFT_INVALID_PLAN = 1,
    CUFFT_ALLOC_FAILED = 2,
    CUFFT_INVALID_VALUE = 4,
    CUFFT_EXEC_FAILED = 6,
    CUFFT_NOT_SUPPORTED = 16
};
typedef enum cufftResult_t cufftResult;
enum cufftType_t { CUFFT_Z2Z = 0x69 };
typedef enum cufftType_t cufftType;
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1

struct cufft_standin_plan {
    int used, n, batch, istride, idist, ostride, odist;
    cudaStream_t stream;
    fftw_plan p[2][2]; /* [inverse][in place]: FFTW plans differ in both, made at first use */
};
static cufft_standin_plan cufft_standin_plans[16];

inline cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist,
                                 int *onembed, int ostride, int odist, cufftType type, int batch) {
    if (rank != 1 || type != CUFFT_Z2Z || inembed || onembed || n[0] < 1 || batch < 1)
        return CUFFT_NOT_SUPPORTED;
    for (int h = 0; h < 16; h++)
        if (!cufft_standin_plans[h].used) {
            cufft_standin_plans[h] = cufft_standin_plan{1, n[0], batch, istride, idist, ostride, odist, nullptr, {}};
            *plan = h;
            return CUFFT_SUCCESS;
        }
    return CUFFT_ALLOC_FAILED;
}

inline cufftResult cufftSetStream(cufftHandle plan, cudaStream_t s) {
    if (plan < 0 || plan >= 16 || !cufft_standin_plans[plan].used)
        return CUFFT_INVALID_PLAN;
    cufft_standin_plans[plan].stream = s;
    return CUFFT_SUCCESS;
}

struct cufft_standin_job {
    fftw_plan p;
    fftw_complex *in, *out;
};
static void cufft_standin_run(void *arg) {
    cufft_standin_job *j = (cufft_standin_job *)arg;
    fftw_execute_dft(j->p, j->in, j->out); /* the new-array execute is thread-safe; planning is not, so not here */
    free(j);
}

inline cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction) {
    if (plan < 0 || plan >= 16 || !cufft_standin_plans[plan].used)
        return CUFFT_INVALID_PLAN;
    if (direction != CUFFT_FORWARD && direction != CUFFT_INVERSE)
        return CUFFT_INVALID_VALUE;
    cufft_standin_plan *pl = &cufft_standin_plans[plan];
    int inv = direction == CUFFT_INVERSE, inplace = idata == odata;
    fftw_complex *in = (fftw_complex *)idata, *out = (fftw_complex *)odata;
    if (!pl->p[inv][inplace]) { /* planned on the calling thread; ESTIMATE does not touch the arrays */
        pl->p[inv][inplace] = fftw_plan_many_dft(1, &pl->n, pl->batch, in, NULL, pl->istride, pl->idist, out, NULL,
                                                 pl->ostride, pl->odist, direction, FFTW_ESTIMATE | FFTW_UNALIGNED);
        if (!pl->p[inv][inplace])
            return CUFFT_EXEC_FAILED;
    }
    cufft_standin_job *j = (cufft_standin_job *)malloc(sizeof *j);
    if (!j)
        return CUFFT_ALLOC_FAILED;
    *j = cufft_standin_job{pl->p[inv][inplace], in, out};
    return cudaLaunchHostFunc(pl->stream, cufft_standin_run, j) == cudaSuccess ? CUFFT_SUCCESS : CUFFT_EXEC_FAILED;
}

inline cufftResult cufftDestroy(cufftHandle plan) {
    if (plan < 0 || plan >= 16 || !cufft_standin_plans[plan].used)
        return CUFFT_INVALID_PLAN;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            if (cufft_standin_plans[plan].p[i][k])
                fftw_destroy_plan(cufft_standin_plans[plan].p[i][k]);
    cufft_standin_plans[plan] = cufft_standin_plan{};
    return CUFFT_SUCCESS;
}
#endif
