/* nv_coll_launch.cu - a ring all-reduce written as one kernel, as NVSHMEM's collective-launch example is: launched
 * with nvshmemx_collective_launch (every block resident), each block passes its partial sums round the ring with
 * nvshmemx_int_put_signal_block, the grid meets in cooperative groups' grid barriers, block 0 adds the blocks' sums
 * and meets the other PEs in nvshmemx_barrier_all_block. The grid-size query must give a grid that launches. */
#include <cooperative_groups.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "nv_common.h"

namespace cg = cooperative_groups;

__global__ void ring_allreduce(int *recv, int *sendbuf, uint64_t *sig, int *result) {
    cg::grid_group grid = cg::this_grid();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), b = blockIdx.x, nb = gridDim.x;
    int next = (me + 1) % n;
    int send = me * 100 + b, acc = send;
    for (int r = 0; r < n - 1; r++) { /* round r's value goes to its own slot: a fast neighbour never overwrites */
        if (threadIdx.x == 0) /* (gshmem takes sources from the symmetric heap only, as OpenSHMEM does) */
            sendbuf[r * nb + b] = send;
        nvshmemx_int_put_signal_block(recv + r * nb + b, sendbuf + r * nb + b, 1, sig + r * nb + b, 1,
                                      NVSHMEM_SIGNAL_SET, next);
        if (threadIdx.x == 0)
            nvshmem_signal_wait_until(sig + r * nb + b, NVSHMEM_CMP_EQ, 1);
        __syncthreads();
        send = recv[r * nb + b];
        acc += send;
    }
    if (threadIdx.x == 0)
        result[b] = acc;
    grid.sync(); /* every block's sum is written */
    if (b == 0) {
        if (threadIdx.x == 0) {
            int total = 0;
            for (int i = 0; i < nb; i++)
                total += result[i];
            result[nb] = total;
        }
        nvshmemx_barrier_all_block();
    }
    grid.sync();
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int gridsize = 0;
    void *noargs[4] = {0, 0, 0, 0};
    if (nvshmemx_collective_launch_query_gridsize((const void *)ring_allreduce, dim3(32), noargs, 0, &gridsize) ||
        gridsize < 1) {
        fprintf(stderr, "FAIL PE %d: nvshmemx_collective_launch_query_gridsize gave %d\n", me, gridsize);
        nvshmem_global_exit(1);
    }
    int nb = gridsize < 4 ? gridsize : 4;
    int *recv = (int *)nvshmem_calloc((size_t)n * nb, sizeof(int)), *result = (int *)nvshmem_calloc(nb + 1, sizeof(int));
    int *sendbuf = (int *)nvshmem_calloc((size_t)n * nb, sizeof(int));
    uint64_t *sig = (uint64_t *)nvshmem_calloc((size_t)n * nb, sizeof(uint64_t));
    void *args[] = {&recv, &sendbuf, &sig, &result};
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    int rc = nvshmemx_collective_launch((const void *)ring_allreduce, dim3(nb), dim3(32), args, 0, stream);
    EXPECT(rc == NVSHMEMX_SUCCESS, "nvshmemx_collective_launch returned %s", nvshmemx_status_string(rc));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    int h[5] = {0};
    CUDA_CHECK(cudaMemcpy(h, result, (nb + 1) * sizeof(int), cudaMemcpyDeviceToHost));
    int total = 0;
    for (int b = 0; b < nb; b++) {
        int want = 100 * n * (n - 1) / 2 + n * b;
        EXPECT(h[b] == want, "block %d's sum is %d, expected %d", b, h[b], want);
        total += want;
    }
    EXPECT(h[nb] == total, "the grid's sum is %d, expected %d", h[nb], total);
    /* a grid larger than the device holds at once cannot be a cooperative launch */
    int big = nvshmemx_collective_launch((const void *)ring_allreduce, dim3(gridsize + 1), dim3(32), args, 0, stream);
    EXPECT(big != NVSHMEMX_SUCCESS, "a collective launch of %d blocks (the device holds %d) succeeded", gridsize + 1, gridsize);
    (void)cudaGetLastError();
    nvshmem_barrier_all();
    nvshmem_free(sig);
    nvshmem_free(result);
    nvshmem_free(sendbuf);
    nvshmem_free(recv);
    CUDA_CHECK(cudaStreamDestroy(stream));
    printf("PE %d: %s\n", me, nv_fails ? "FAILED" : "ok");
    nvshmem_finalize();
    return nv_fails ? 1 : 0;
}
