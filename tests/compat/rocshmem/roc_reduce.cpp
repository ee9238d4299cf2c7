/* roc_reduce.cpp - work-group reductions on the world team (rocshmem_ctx_int_sum_wg_reduce, _max_, double sum, and
 * the bitwise xor), and the host's team reduction and broadcast, each result checked against its formula. */
#include "roc_common.h"

#define NR 300

__global__ void reduce(int *isrc, int *idst, double *dsrc, double *ddst, int *xdst, rocshmem_team_t team, int *fails) {
    rocshmem_wg_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    for (int i = (int)threadIdx.x; i < NR; i += (int)blockDim.x) {
        isrc[i] = me + i;
        dsrc[i] = 0.5 * me + i;
    }
    __syncthreads();
    rocshmem_ctx_int_sum_wg_reduce(ROCSHMEM_CTX_DEFAULT, team, idst, isrc, NR);
    for (int i = (int)threadIdx.x; i < NR; i += (int)blockDim.x)
        DCHECK(idst[i] == n * i + n * (n - 1) / 2, "sum[%d] = %d", i, idst[i]);
    rocshmem_ctx_int_max_wg_reduce(ROCSHMEM_CTX_DEFAULT, team, idst, isrc, NR);
    for (int i = (int)threadIdx.x; i < NR; i += (int)blockDim.x)
        DCHECK(idst[i] == n - 1 + i, "max[%d] = %d", i, idst[i]);
    rocshmem_ctx_double_sum_wg_reduce(ROCSHMEM_CTX_DEFAULT, team, ddst, dsrc, NR);
    for (int i = (int)threadIdx.x; i < NR; i += (int)blockDim.x)
        DCHECK(ddst[i] == n * (double)i + 0.25 * n * (n - 1), "double sum[%d] = %g", i, ddst[i]);
    rocshmem_ctx_int_xor_wg_reduce(ROCSHMEM_CTX_DEFAULT, team, xdst, isrc, NR);
    for (int i = (int)threadIdx.x; i < NR; i += (int)blockDim.x) {
        int want = 0;
        for (int p = 0; p < n; p++)
            want ^= p + i;
        DCHECK(xdst[i] == want, "xor[%d] = %d, expected %d", i, xdst[i], want);
    }
    rocshmem_wg_finalize();
}

int main() {
    rocshmem_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    int *fails = roc_fails();
    int *isrc = (int *)rocshmem_malloc(NR * sizeof(int)), *idst = (int *)rocshmem_malloc(NR * sizeof(int));
    int *xdst = (int *)rocshmem_malloc(NR * sizeof(int));
    double *dsrc = (double *)rocshmem_malloc(NR * sizeof(double)),
           *ddst = (double *)rocshmem_malloc(NR * sizeof(double));
    rocshmem_barrier_all();
    hipLaunchKernelGGL(reduce, dim3(1), dim3(128), 0, 0, isrc, idst, dsrc, ddst, xdst, ROCSHMEM_TEAM_WORLD, fails);
    HIPOK(hipGetLastError());
    HIPOK(hipDeviceSynchronize());
    /* the host's forms on the same buffers: sum of (me + i), then PE n-1's values broadcast */
    rocshmem_barrier_all();
    rocshmem_ctx_int_sum_reduce(ROCSHMEM_CTX_DEFAULT, ROCSHMEM_TEAM_WORLD, idst, isrc, NR);
    int h[NR], bad = 0;
    HIPOK(hipMemcpy(h, idst, sizeof h, hipMemcpyDeviceToHost));
    for (int i = 0; i < NR; i++)
        bad += h[i] != n * i + n * (n - 1) / 2;
    rocshmem_ctx_int_broadcast(ROCSHMEM_CTX_DEFAULT, ROCSHMEM_TEAM_WORLD, idst, isrc, NR, n - 1);
    HIPOK(hipMemcpy(h, idst, sizeof h, hipMemcpyDeviceToHost));
    for (int i = 0; i < NR; i++)
        bad += h[i] != n - 1 + i;
    if (bad) {
        printf("FAIL PE %d: %d host reduction/broadcast elements wrong\n", me, bad);
        int one = 1;
        HIPOK(hipMemcpy(fails, &one, sizeof one, hipMemcpyHostToDevice));
    }
    rocshmem_barrier_all();
    rocshmem_free(ddst);
    rocshmem_free(dsrc);
    rocshmem_free(xdst);
    rocshmem_free(idst);
    rocshmem_free(isrc);
    return roc_finish("roc_reduce", fails);
}
