/* nv_fcollect.cu - concatenating collectives: host nvshmem_long_fcollect and nvshmem_int_broadcast and
 * nvshmem_int_alltoall on GPU buffers, block-wide nvshmemx_int_fcollect_block and nvshmemx_int_broadcast_block in a
 * kernel, and nvshmemx_int_fcollect_on_stream; every element checked. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "nv_common.h"

#define M 16

__global__ void dev_coll(int *src, int *dst, int *bdst) {
    nvshmemx_int_fcollect_block(NVSHMEM_TEAM_WORLD, dst, src, M);
    nvshmemx_int_broadcast_block(NVSHMEM_TEAM_WORLD, bdst, src, M, nvshmem_n_pes() - 1);
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    long *lsrc = (long *)nvshmem_malloc(M * sizeof(long)), *ldst = (long *)nvshmem_malloc(n * M * sizeof(long));
    int *src = (int *)nvshmem_malloc(n * M * sizeof(int)), *dst = (int *)nvshmem_malloc(n * M * sizeof(int));
    int *bdst = (int *)nvshmem_malloc(M * sizeof(int));
    long hl[M];
    int *h = (int *)malloc(n * M * sizeof(int)), *g = (int *)malloc(n * M * sizeof(int));
    for (int i = 0; i < M; i++)
        hl[i] = (long)me * 1000 + i;
    for (int i = 0; i < n * M; i++)
        h[i] = me * 10000 + i;
    CUDA_CHECK(cudaMemcpy(lsrc, hl, sizeof hl, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(src, h, n * M * sizeof(int), cudaMemcpyHostToDevice));
    nvshmem_barrier_all();

    long *gl = (long *)malloc(n * M * sizeof(long));
    nvshmem_long_fcollect(NVSHMEM_TEAM_WORLD, ldst, lsrc, M);
    CUDA_CHECK(cudaMemcpy(gl, ldst, n * M * sizeof(long), cudaMemcpyDeviceToHost));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < M; i++)
            EXPECT(gl[p * M + i] == (long)p * 1000 + i, "host fcollect [%d][%d] = %ld", p, i, gl[p * M + i]);
    nvshmem_int_alltoall(NVSHMEM_TEAM_WORLD, dst, src, M);
    CUDA_CHECK(cudaMemcpy(g, dst, n * M * sizeof(int), cudaMemcpyDeviceToHost));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < M; i++)
            EXPECT(g[p * M + i] == p * 10000 + me * M + i, "host alltoall [%d][%d] = %d", p, i, g[p * M + i]);
    nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, bdst, src, M, 0);
    CUDA_CHECK(cudaMemcpy(g, bdst, M * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++)
        EXPECT(g[i] == i, "host broadcast [%d] = %d", i, g[i]);
    nvshmem_barrier_all();

    dev_coll<<<1, 64>>>(src, dst, bdst);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(g, dst, n * M * sizeof(int), cudaMemcpyDeviceToHost));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < M; i++)
            EXPECT(g[p * M + i] == p * 10000 + i, "device fcollect [%d][%d] = %d", p, i, g[p * M + i]);
    CUDA_CHECK(cudaMemcpy(g, bdst, M * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++)
        EXPECT(g[i] == (n - 1) * 10000 + i, "device broadcast [%d] = %d", i, g[i]);
    nvshmem_barrier_all();

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    CUDA_CHECK(cudaMemset(dst, 0xff, n * M * sizeof(int))); /* what the device fcollect left there must go */
    CUDA_CHECK(cudaMemcpy(bdst, h, M * sizeof(int), cudaMemcpyHostToDevice)); /* this PE's own first M values */
    nvshmem_barrier_all();
    nvshmemx_int_fcollect_on_stream(NVSHMEM_TEAM_WORLD, dst, bdst, M, stream);
    CUDA_CHECK(cudaMemcpyAsync(g, dst, n * M * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int p = 0; p < n; p++)
        for (int i = 0; i < M; i++)
            EXPECT(g[p * M + i] == p * 10000 + i && g[p * M + i] != -1, "fcollect on stream [%d][%d] = %d", p, i,
                   g[p * M + i]);
    nvshmem_barrier_all();
    CUDA_CHECK(cudaStreamDestroy(stream));
    free(gl);
    free(g);
    free(h);
    nvshmem_free(bdst);
    nvshmem_free(dst);
    nvshmem_free(src);
    nvshmem_free(ldst);
    nvshmem_free(lsrc);
    printf("PE %d: %s\n", me, nv_fails ? "FAILED" : "ok");
    nvshmem_finalize();
    return nv_fails ? 1 : 0;
}
