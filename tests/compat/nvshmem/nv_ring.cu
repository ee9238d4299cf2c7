/* nv_ring.cu - NVSHMEM's device-guide ring: each PE's kernel puts its number to the next PE with nvshmem_int_p, then
 * the host checks it got the previous PE's; also a round of host-side nvshmem_int_p/g, an atomic fetch-add from
 * every PE to PE 0, and team queries. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "nv_common.h"

__global__ void simple_shift(int *destination) {
    int mype = nvshmem_my_pe();
    int npes = nvshmem_n_pes();
    int peer = (mype + 1) % npes;
    nvshmem_int_p(destination, mype, peer);
}

__global__ void count_in(long *counter, long *fetched) {
    *fetched = nvshmem_long_atomic_fetch_add(counter, 1, 0);
    nvshmem_quiet();
}

int main(void) {
    nvshmem_init();
    int mype = nvshmem_my_pe(), npes = nvshmem_n_pes();
    int mype_node = nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE);
    int ndev = 0;
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    CUDA_CHECK(cudaSetDevice(mype_node % ndev)); /* several PEs may share a GPU */
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    EXPECT(nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD) == npes && nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD) == mype,
           "team queries on NVSHMEM_TEAM_WORLD");
    EXPECT(nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID) == -1, "team_my_pe of NVSHMEM_TEAM_INVALID");

    int *destination = (int *)nvshmem_malloc(sizeof(int));
    simple_shift<<<1, 1, 0, stream>>>(destination);
    nvshmemx_barrier_all_on_stream(stream);
    int msg = -1;
    CUDA_CHECK(cudaMemcpyAsync(&msg, destination, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    EXPECT(msg == (mype + npes - 1) % npes, "kernel ring: got %d, expected %d", msg, (mype + npes - 1) % npes);

    /* the host side of the same names, once every PE has read what the kernel put */
    nvshmem_barrier_all();
    nvshmem_int_p(destination, 100 + mype, (mype + 1) % npes);
    nvshmem_barrier_all();
    EXPECT(nvshmem_int_g(destination, mype) == 100 + (mype + npes - 1) % npes, "host ring: got %d",
           nvshmem_int_g(destination, mype));

    long *counter = (long *)nvshmem_calloc(2, sizeof(long));
    count_in<<<1, 1, 0, stream>>>(counter, counter + 1);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    nvshmem_barrier_all();
    long got[2];
    CUDA_CHECK(cudaMemcpy(got, counter, sizeof got, cudaMemcpyDeviceToHost));
    if (mype == 0)
        EXPECT(got[0] == npes, "PE 0's counter is %ld after %d fetch-adds", got[0], npes);
    EXPECT(got[1] >= 0 && got[1] < npes, "fetch-add returned %ld", got[1]);
    void *p = nvshmem_ptr(destination, mype);
    EXPECT(p == destination, "nvshmem_ptr to this PE is %p, not %p", p, (void *)destination);

    nvshmem_free(counter);
    nvshmem_free(destination);
    CUDA_CHECK(cudaStreamDestroy(stream));
    printf("PE %d: %s\n", mype, nv_fails ? "FAILED" : "ok");
    nvshmem_finalize();
    return nv_fails ? 1 : 0;
}
