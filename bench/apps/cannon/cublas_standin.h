/* cublas_standin.h - NOT cuBLAS: a stand-in for the few cuBLAS calls cannon_gpu.cu makes (cublasCreate,
 * cublasSetStream, cublasDgemm, cublasDestroy), for gshmem's CPU emulation of the GPU, which has no cuBLAS. */
#ifndef GSHMEM_BENCH_CUBLAS_STANDIN_H
#define GSHMEM_BENCH_CUBLAS_STANDIN_H
/* The product runs with OpenBLAS's cblas_dgemm (column-major, as cuBLAS's) on the emulated device memory, which the
 * emulation's CPU threads may touch, queued on the handle's stream as a host function so it keeps its order with
 * the program's kernels and copies. alpha and beta are host pointers (cuBLAS's default pointer mode). Its timings
 * are the CPU's. */
#ifndef GSHMEM_EMULATE_GPU
#error "cublas_standin.h is for the CPU emulation of the GPU only; with nvcc use <cublas_v2.h> and -lcublas"
#endif
#include <cblas.h>
#include <cstdlib>

enum cublasStatus_t {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_EXECUTION_FAILED = 13
};
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
struct cublas_standin_ctx {
    cudaStream_t stream;
};
typedef cublas_standin_ctx *cublasHandle_t;

inline cublasStatus_t cublasCreate(cublasHandle_t *h) {
    *h = (cublasHandle_t)calloc(1, sizeof(cublas_standin_ctx));
    return *h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t h) {
    free(h);
    return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s) {
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = s;
    return CUBLAS_STATUS_SUCCESS;
}

struct cublas_standin_gemm {
    cublasOperation_t ta, tb;
    int m, n, k, lda, ldb, ldc;
    double alpha, beta;
    const double *a, *b;
    double *c;
};
static void cublas_standin_run(void *arg) {
    cublas_standin_gemm *g = (cublas_standin_gemm *)arg;
    cblas_dgemm(CblasColMajor, g->ta == CUBLAS_OP_T ? CblasTrans : CblasNoTrans,
                g->tb == CUBLAS_OP_T ? CblasTrans : CblasNoTrans, g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b,
                g->ldb, g->beta, g->c, g->ldc);
    free(g);
}

inline cublasStatus_t cublasDgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                  const double *alpha, const double *a, int lda, const double *b, int ldb,
                                  const double *beta, double *c, int ldc) {
    if (!h)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || k < 0 || !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublas_standin_gemm *g = (cublas_standin_gemm *)malloc(sizeof *g);
    if (!g)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *g = cublas_standin_gemm{ta, tb, m, n, k, lda, ldb, ldc, *alpha, *beta, a, b, c};
    return cudaLaunchHostFunc(h->stream, cublas_standin_run, g) == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                                                                               : CUBLAS_STATUS_EXECUTION_FAILED;
}
#endif
