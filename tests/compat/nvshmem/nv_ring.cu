/* nv_ring.cu - NVSHMEM's device-guide ring: each PE's kernel puts its number to the next PE with nvshmem_int_p, then
 * the host checks it got the previous PE's; also a round of host-side nvshmem_int_p/g, an atomic fetch-add from
 * every PE to PE 0, team queries, and NVSHMEM's numbering of comparisons (LE and GE differ from OpenSHMEM's) and signal
 * operators (SET 9, ADD 10) on both sides. */
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

/* v holds 5: which comparisons with 5 and 6 hold */
__global__ void compare(long *v, int *res) {
    res[0] = nvshmem_long_test(v, NVSHMEM_CMP_GE, 6);
    res[1] = nvshmem_long_test(v, NVSHMEM_CMP_LE, 6);
    res[2] = nvshmem_long_test(v, NVSHMEM_CMP_GE, 5);
    res[3] = nvshmem_long_test(v, NVSHMEM_CMP_LT, 5);
    res[4] = nvshmem_long_test(v, NVSHMEM_CMP_GT, 4);
}
__global__ void add_signal(uint64_t *sig, int pe) {
    nvshmemx_signal_op(sig, 3, NVSHMEM_SIGNAL_ADD, pe);
    nvshmemx_signal_op(sig, 4, NVSHMEM_SIGNAL_ADD, pe);
    nvshmem_quiet();
}
__global__ void set_signal(uint64_t *sig, int pe, uint64_t *seen) {
    *seen = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, 7);
    nvshmemx_signal_op(sig, 2, NVSHMEM_SIGNAL_SET, pe);
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

    /* comparisons (kernels only in NVSHMEM): 5 >= 6 no, 5 <= 6 yes, 5 >= 5 yes, 5 < 5 no, 5 > 4 yes */
    long five = 5;
    int res[5] = {-1, -1, -1, -1, -1}, want[5] = {0, 1, 1, 0, 1};
    int *dres = (int *)nvshmem_calloc(5, sizeof(int));
    CUDA_CHECK(cudaMemcpy(counter, &five, sizeof five, cudaMemcpyHostToDevice));
    compare<<<1, 1>>>(counter, dres);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(res, dres, sizeof res, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 5; i++)
        EXPECT(res[i] == want[i], "kernel comparison %d gave %d", i, res[i]);
    nvshmem_free(dres);
    /* signals: two adds from the previous PE's kernel, waited for, then a set by this PE's kernel */
    uint64_t *sig = (uint64_t *)nvshmem_calloc(2, sizeof(uint64_t)), hs[2] = {0, 0};
    add_signal<<<1, 1>>>(sig, (mype + 1) % npes);
    set_signal<<<1, 1>>>(sig, mype, sig + 1);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(hs, sig, sizeof hs, cudaMemcpyDeviceToHost));
    EXPECT(hs[1] == 7, "signal after adds of 3 and 4: %llu", (unsigned long long)hs[1]);
    EXPECT(hs[0] == 2, "signal after a set of 2: %llu", (unsigned long long)hs[0]);
    nvshmem_barrier_all();
    nvshmem_free(sig);
    nvshmem_free(counter);
    nvshmem_free(destination);
    CUDA_CHECK(cudaStreamDestroy(stream));
    printf("PE %d: %s\n", mype, nv_fails ? "FAILED" : "ok");
    nvshmem_finalize();
    return nv_fails ? 1 : 0;
}
