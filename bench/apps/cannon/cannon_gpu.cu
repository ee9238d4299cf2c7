/* cannon_gpu - cannon's GPU form: the blocks live in GPU symmetric memory, each step's product is a cuBLAS dgemm (on
 * the CPU emulation a stand-in over OpenBLAS, cublas_standin.h) while the next blocks travel GPU to GPU by put. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <shmem.h>
#include <shmemg.h>
#ifdef GSHMEM_EMULATE_GPU
#include "cublas_standin.h"
#else
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

#include "app.h"
#define CANNON_NO_BLAS /* entries are checked by their definition: no BLAS on a GPU machine */
#include "cannon_common.h"

#define CK(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "cannon_gpu: PE %d: %s: %s\n", shmem_my_pe(), #call, cudaGetErrorString(e_));              \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)
#define CKB(call)                                                                                                      \
    do {                                                                                                               \
        int r_ = (int)(call);                                                                                          \
        if (r_ != 0) {                                                                                                 \
            fprintf(stderr, "cannon_gpu: PE %d: %s: cuBLAS error %d\n", shmem_my_pe(), #call, r_);                     \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

struct cannon {
    long n, nb;
    int me, npes, q, row, col;
    double *a0, *b0, *a[2], *b[2], *c; /* GPU symmetric heap: the input blocks, the travelling ones, C's block */
    uint64_t *sig;                     /* host symmetric: sig[0..1] A's buffers arrived, sig[2..3] B's */
    long *ack;                         /* host symmetric: ack[0] the left PE is done with an A buffer, ack[1] up's B */
    uint64_t tag;                      /* transfers so far over all repetitions: signal values only grow */
    cublasHandle_t blas;
    cudaStream_t st;
};

static int pe_at(const cannon *m, int r, int c) { return cannon_pe(m->q, r, c); }

/* transfer t (0 the skew, then one per step) into buffer t&1 of the PEs that use the blocks next */
static void send(cannon *m, int t, const double *sa, const double *sb, int to_a, int to_b) {
    size_t bytes = (size_t)(m->nb * m->nb) * sizeof(double);
    uint64_t v = m->tag + (uint64_t)t + 1;
    if (t >= 2) { /* the receivers used buffer t&1 in step t-2: wait until they say they are done with it */
        shmem_long_wait_until(&m->ack[0], SHMEM_CMP_GE, (long)(v - 2));
        shmem_long_wait_until(&m->ack[1], SHMEM_CMP_GE, (long)(v - 2));
    }
    shmem_putmem_signal_nbi(m->a[t & 1], sa, bytes, &m->sig[t & 1], v, SHMEM_SIGNAL_SET, to_a);
    shmem_putmem_signal_nbi(m->b[t & 1], sb, bytes, &m->sig[2 + (t & 1)], v, SHMEM_SIGNAL_SET, to_b);
}

static void body(void *arg) {
    cannon *m = (cannon *)arg;
    int nb = (int)m->nb, q = m->q;
    int left = pe_at(m, m->row, m->col - 1), up = pe_at(m, m->row - 1, m->col);
    int right = pe_at(m, m->row, m->col + 1), down = pe_at(m, m->row + 1, m->col);
    const double one = 1.0;
    CK(cudaMemsetAsync(m->c, 0, (size_t)nb * nb * sizeof(double), m->st));
    send(m, 0, m->a0, m->b0, pe_at(m, m->row, m->col - m->row), pe_at(m, m->row - m->col, m->col));
    for (int s = 0; s < q; s++) {
        uint64_t v = m->tag + (uint64_t)s + 1;
        shmem_signal_wait_until(&m->sig[s & 1], SHMEM_CMP_GE, v);
        shmem_signal_wait_until(&m->sig[2 + (s & 1)], SHMEM_CMP_GE, v);
        /* row-major C += A*B is column-major C^T += B^T A^T: cuBLAS gets B first */
        CKB(cublasDgemm(m->blas, CUBLAS_OP_N, CUBLAS_OP_N, nb, nb, nb, &one, m->b[s & 1], nb, m->a[s & 1], nb, &one,
                        m->c, nb));
        if (s + 1 < q) /* the next blocks leave while the GPU multiplies (both only read these buffers) */
            send(m, s + 1, m->a[s & 1], m->b[s & 1], left, up);
        CK(cudaStreamSynchronize(m->st));
        if (s + 2 < q) {
            shmem_quiet(); /* my puts from buffer s&1 are done reading it: it may be overwritten */
            shmem_long_atomic_set(&m->ack[0], (long)v, right);
            shmem_long_atomic_set(&m->ack[1], (long)v, down);
        }
    }
    shmem_quiet();
    m->tag += (uint64_t)q;
}

/* each PE checks its block: entries against their definition up to --max-full, else cannon.c's weighted checksums */
static int verify(cannon *m, long maxfull) {
    long n = m->n, nb = m->nb, r0 = m->row * nb, c0 = m->col * nb;
    double *c = (double *)malloc((size_t)(nb * nb) * sizeof(double)), maxrel = 0;
    CK(cudaMemcpy(c, m->c, (size_t)(nb * nb) * sizeof(double), cudaMemcpyDeviceToHost));
    if (n > maxfull) {
        int ok = cannon_verify_checksum(n, m->q, c);
        free(c);
        return ok;
    }
    for (long i = 0; i < nb; i++)
        for (long j = 0; j < nb; j++) {
            double ref = 0;
            for (long k = 0; k < n; k++)
                ref += a_at(r0 + i, k) * b_at(k, c0 + j);
            maxrel = fmax(maxrel, fabs(c[i * nb + j] - ref) / fabs(ref));
        }
    free(c);
    int ok = maxrel < 1e-10 && std::isfinite(maxrel);
    if (!ok || !app_g.quiet)
        printf("cannon_gpu: PE %d max entry relative error %.3g (limit 1e-10)\n", m->me, maxrel);
    return ok;
}

int main(int argc, char **argv) {
    long n = 1024, maxfull = 256;
    struct app_opt opts[] = {
        {"--n", APP_INT, &n, "the matrices are N x N doubles (default 1024); sqrt(npes) must divide N"},
        {"--max-full", APP_INT, &maxfull, "--verify every entry up to this N (default 256), above it by checksums"},
        {NULL, APP_FLAG, NULL, NULL}};
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_HOST_INIT)) { /* no GPU here (or GPU support could not start on every PE) */
        if (shmem_my_pe() == 0)
            printf("cannon_gpu: SKIP: no GPU support (SHMEM_DEVICE_HOST_INIT not provided)\n");
        shmem_finalize();
        return 77;
    }
    app_init(argc, argv, "cannon", "Cannon's matrix multiply with the blocks in GPU memory and cuBLAS products.", opts);
    cannon m = {};
    m.n = n, m.me = app_g.me, m.npes = app_g.npes;
#ifdef GSHMEM_EMULATE_GPU
    app_g.variant = "gpu-emulated";
#else
    app_g.variant = "gpu";
#endif
    int rc = cannon_grid(n, &m.q);
    if (rc) {
        shmem_finalize();
        return rc;
    }
    m.nb = n / m.q, m.row = m.me / m.q, m.col = m.me % m.q;
    app_param("n", "%ld", n);
    app_param("npes", "%d", m.npes);
    app_param("q", "%d", m.q);
    size_t bytes = (size_t)(m.nb * m.nb) * sizeof(double);
    double **bufs[] = {&m.a0, &m.b0, &m.a[0], &m.a[1], &m.b[0], &m.b[1], &m.c};
    for (double **b : bufs)
        if (!(*b = (double *)shmemg_malloc(bytes))) {
            if (m.me == 0)
                fprintf(stderr, "cannon_gpu: out of GPU symmetric memory for N=%ld (SHMEM_SYMMETRIC_SIZE_DEVICE)\n", n);
            shmem_global_exit(1);
        }
    m.sig = (uint64_t *)shmem_calloc(4, sizeof(uint64_t));
    m.ack = (long *)shmem_calloc(2, sizeof(long));
    CK(cudaStreamCreate(&m.st));
    CKB(cublasCreate(&m.blas));
    CKB(cublasSetStream(m.blas, m.st));
    double *ha = (double *)malloc(bytes), *hb = (double *)malloc(bytes);
    cannon_fill(m.nb, m.row, m.col, ha, hb);
    CK(cudaMemcpy(m.a0, ha, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(m.b0, hb, bytes, cudaMemcpyHostToDevice));
    free(ha), free(hb);
    shmem_barrier_all();

    double tmin, tmax, t = app_time("steps", body, &m, &tmin, &tmax);
    double flop = 2.0 * (double)n * (double)n * (double)n;
    app_metric("time", t, tmin, tmax, "s");
    app_metric("gflops", flop / t * 1e-9, flop / tmax * 1e-9, flop / tmin * 1e-9, "GFLOP/s");
    if (app_g.verify)
        app_verdict(verify(&m, maxfull));

    shmem_barrier_all();
    CKB(cublasDestroy(m.blas));
    CK(cudaStreamDestroy(m.st));
    for (double **b : bufs)
        shmemg_free(*b);
    shmem_free(m.sig), shmem_free(m.ack);
    return app_finish();
}
