/* roc_alltoall.cpp - rocshmem_ctx_long_wg_alltoall and _wg_fcollect on the world team: block j of PE i's source must
 * land as block i of PE j's destination, and every PE's block everywhere; then an atomic fetch-add count per PE. */
#include "roc_common.h"

#define NE 40 /* longs per block */

__global__ void a2a(long *src, long *dst, long *all, long long *counter, rocshmem_team_t team, int *fails) {
    rocshmem_wg_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    for (int i = (int)threadIdx.x; i < n * NE; i += (int)blockDim.x)
        src[i] = (long)me * 100000 + (i / NE) * 1000 + i % NE;
    __syncthreads();
    rocshmem_ctx_long_wg_alltoall(ROCSHMEM_CTX_DEFAULT, team, dst, src, NE);
    for (int i = (int)threadIdx.x; i < n * NE; i += (int)blockDim.x)
        DCHECK(dst[i] == (long)(i / NE) * 100000 + me * 1000 + i % NE, "alltoall dst[%d] = %ld", i, dst[i]);
    rocshmem_ctx_long_wg_fcollect(ROCSHMEM_CTX_DEFAULT, team, all, src + me * NE, NE);
    for (int i = (int)threadIdx.x; i < n * NE; i += (int)blockDim.x)
        DCHECK(all[i] == (long)(i / NE) * 100000 + (i / NE) * 1000 + i % NE, "fcollect all[%d] = %ld", i, all[i]);
    if (threadIdx.x < (unsigned)n)
        rocshmem_longlong_atomic_fetch_add(counter, 1, (int)threadIdx.x);
    rocshmem_wg_barrier_all();
    if (threadIdx.x == 0)
        DCHECK(rocshmem_longlong_atomic_fetch(counter, me) == n, "counter %lld", *counter);
    rocshmem_wg_finalize();
}

int main() {
    rocshmem_init();
    int n = rocshmem_n_pes();
    int *fails = roc_fails();
    long *src = (long *)rocshmem_malloc(n * NE * sizeof(long)), *dst = (long *)rocshmem_malloc(n * NE * sizeof(long));
    long *all = (long *)rocshmem_malloc(n * NE * sizeof(long));
    long long *counter = (long long *)rocshmem_malloc(sizeof(long long));
    HIPOK(hipMemset(counter, 0, sizeof(long long)));
    rocshmem_barrier_all();
    hipLaunchKernelGGL(a2a, dim3(1), dim3(96), 0, 0, src, dst, all, counter, ROCSHMEM_TEAM_WORLD, fails);
    HIPOK(hipGetLastError());
    HIPOK(hipDeviceSynchronize());
    rocshmem_barrier_all();
    rocshmem_free(counter);
    rocshmem_free(all);
    rocshmem_free(dst);
    rocshmem_free(src);
    return roc_finish("roc_alltoall", fails);
}
