/* nv_block_put.cu - block- and warp-wide RMA: each block puts its slice of an array to the next PE with
 * nvshmemx_int_put_block, each warp gets a slice of the previous PE's with nvshmemx_getmem_warp, a block-wide
 * put with signal, and nvshmemx_barrier_all_block inside the kernel; the host checks every element. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "nv_common.h"

#define N 4096

__global__ void block_put(int *dst, int *src, int *got, uint64_t *sig, int *flagged) {
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int chunk = N / gridDim.x, base = blockIdx.x * chunk;
    for (int i = threadIdx.x; i < chunk; i += blockDim.x)
        src[base + i] = me * N + base + i;
    __syncthreads();
    nvshmemx_int_put_block(dst + base, src + base, chunk, (me + 1) % n);
    nvshmemx_int_put_signal_block(flagged + base, src + base, chunk, sig + blockIdx.x, 1, NVSHMEM_SIGNAL_ADD,
                                  (me + 1) % n);
    nvshmemx_flush_block(); /* the sources may be reused from here (the quiet below makes the data land) */
    nvshmem_quiet();
    if (blockIdx.x == 0)
        nvshmemx_barrier_all_block(); /* every PE's block 0 is here: the other blocks may still be writing */
    if (threadIdx.x == 0)
        nvshmem_signal_wait_until(sig + blockIdx.x, NVSHMEM_CMP_GE, 1);
    __syncthreads();
    /* src of the previous PE is complete once its block's signal arrived: the warps fetch its slice */
    int warp = threadIdx.x / 32, nwarps = (blockDim.x + 31) / 32, wchunk = chunk / nwarps;
    nvshmemx_getmem_warp(got + base + warp * wchunk, src + base + warp * wchunk, wchunk * sizeof(int),
                         (me + n - 1) % n);
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), blocks = 4;
    int *dst = (int *)nvshmem_calloc(N, sizeof(int)), *src = (int *)nvshmem_malloc(N * sizeof(int));
    int *got = (int *)nvshmem_calloc(N, sizeof(int)), *flagged = (int *)nvshmem_calloc(N, sizeof(int));
    uint64_t *sig = (uint64_t *)nvshmem_calloc(blocks, sizeof(uint64_t));
    block_put<<<blocks, 128>>>(dst, src, got, sig, flagged);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    int *h = (int *)malloc(3 * N * sizeof(int));
    CUDA_CHECK(cudaMemcpy(h, dst, N * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h + N, got, N * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h + 2 * N, flagged, N * sizeof(int), cudaMemcpyDeviceToHost));
    int prev = (me + n - 1) % n;
    for (int i = 0; i < N; i++) {
        EXPECT(h[i] == prev * N + i, "dst[%d] = %d, expected %d", i, h[i], prev * N + i);
        EXPECT(h[N + i] == prev * N + i, "got[%d] = %d, expected %d", i, h[N + i], prev * N + i);
        EXPECT(h[2 * N + i] == prev * N + i, "flagged[%d] = %d", i, h[2 * N + i]);
    }
    free(h);
    nvshmem_free(sig);
    nvshmem_free(flagged);
    nvshmem_free(got);
    nvshmem_free(src);
    nvshmem_free(dst);
    printf("PE %d: %s\n", me, nv_fails ? "FAILED" : "ok");
    nvshmem_finalize();
    return nv_fails ? 1 : 0;
}
