/* nv_moe.cu - an MoE-style token shuffle: each PE routes its tokens to experts spread over the PEs, exchanges the
 * per-PE token counts with a block-wide all-to-all in a kernel, then sends each destination its tokens in one
 * block-wide put with signal (the signal carries count + 1, so an empty message arrives too); receivers wait for
 * every source with nvshmem_uint64_wait_until_all and check count, owner and contents of every token. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "nv_common.h"

#define T 64 /* tokens per PE */
#define D 8  /* ints per token */
#define E 3  /* experts per PE */

__host__ __device__ int expert_of(int pe, int t, int n) { return (pe * 7 + t * 13 + t / 5) % (n * E); }

__global__ void shuffle(int *tokens, int *sendbuf, int *send_counts, int *recv_counts, int *recvbuf, uint64_t *sig,
                        int *bad) {
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    __shared__ int offs[8];
    if (threadIdx.x == 0) { /* route: count per destination PE, pack the tokens by destination */
        for (int j = 0; j < n; j++)
            send_counts[j] = 0;
        for (int t = 0; t < T; t++)
            send_counts[expert_of(me, t, n) / E]++;
        int o = 0;
        for (int j = 0; j < n; j++) {
            offs[j] = o;
            o += send_counts[j];
        }
        int fill[8];
        for (int j = 0; j < n; j++)
            fill[j] = offs[j];
        for (int t = 0; t < T; t++) {
            int j = expert_of(me, t, n) / E, k = fill[j]++;
            for (int d = 0; d < D; d++)
                sendbuf[k * D + d] = tokens[t * D + d];
        }
    }
    __syncthreads();
    nvshmemx_int_alltoall_block(NVSHMEM_TEAM_WORLD, recv_counts, send_counts, 1);
    for (int j = 0; j < n; j++) /* source me's tokens land in region me of PE j */
        nvshmemx_int_put_signal_nbi_block(recvbuf + me * T * D, sendbuf + offs[j] * D, send_counts[j] * D, sig + me,
                                          (uint64_t)send_counts[j] + 1, NVSHMEM_SIGNAL_SET, j);
    if (threadIdx.x == 0) {
        nvshmem_uint64_wait_until_all(sig, n, NULL, NVSHMEM_CMP_GT, 0);
        for (int i = 0; i < n; i++) {
            int cnt = (int)sig[i] - 1;
            if (cnt != recv_counts[i])
                atomicAdd(bad, 1);
            int want = 0;
            for (int t = 0; t < T; t++) /* source i's tokens for this PE, in order */
                if (expert_of(i, t, n) / E == me) {
                    for (int d = 0; d < D; d++)
                        if (recvbuf[(i * T + want) * D + d] != i * 100000 + t * 100 + d)
                            atomicAdd(bad, 1);
                    want++;
                }
            if (want != cnt)
                atomicAdd(bad, 1);
        }
    }
    nvshmem_quiet();
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int *tokens = (int *)nvshmem_malloc(T * D * sizeof(int)), *sendbuf = (int *)nvshmem_malloc(T * D * sizeof(int));
    int *counts = (int *)nvshmem_calloc(2 * n, sizeof(int)), *recvbuf = (int *)nvshmem_calloc(n * T * D, sizeof(int));
    uint64_t *sig = (uint64_t *)nvshmem_calloc(n, sizeof(uint64_t));
    int *bad = (int *)nvshmem_calloc(1, sizeof(int));
    int *h = (int *)malloc(T * D * sizeof(int));
    for (int t = 0; t < T; t++)
        for (int d = 0; d < D; d++)
            h[t * D + d] = me * 100000 + t * 100 + d;
    CUDA_CHECK(cudaMemcpy(tokens, h, T * D * sizeof(int), cudaMemcpyHostToDevice));
    nvshmem_barrier_all();
    shuffle<<<1, 64>>>(tokens, sendbuf, counts, counts + n, recvbuf, sig, bad);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    int hb = -1, hc[8];
    CUDA_CHECK(cudaMemcpy(&hb, bad, sizeof hb, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hc, counts + n, n * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(hb == 0, "%d wrong counts or token values after the shuffle", hb);
    int total = 0, want = 0;
    for (int i = 0; i < n; i++) {
        total += hc[i];
        for (int t = 0; t < T; t++)
            want += expert_of(i, t, n) / E == me;
    }
    EXPECT(total == want, "received %d tokens, expected %d", total, want);
    /* every token went somewhere: the tokens received over all PEs are all the tokens sent */
    int *all = (int *)nvshmem_malloc(sizeof(int)), *sum = (int *)nvshmem_malloc(sizeof(int));
    CUDA_CHECK(cudaMemcpy(all, &total, sizeof total, cudaMemcpyHostToDevice));
    nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, sum, all, 1);
    int hs = 0;
    CUDA_CHECK(cudaMemcpy(&hs, sum, sizeof hs, cudaMemcpyDeviceToHost));
    EXPECT(hs == n * T, "%d tokens received over all PEs, %d sent", hs, n * T);
    nvshmem_barrier_all();
    free(h);
    nvshmem_free(sum);
    nvshmem_free(all);
    nvshmem_free(bad);
    nvshmem_free(sig);
    nvshmem_free(recvbuf);
    nvshmem_free(counts);
    nvshmem_free(sendbuf);
    nvshmem_free(tokens);
    printf("PE %d: %s\n", me, nv_fails ? "FAILED" : "ok");
    nvshmem_finalize();
    return nv_fails ? 1 : 0;
}
