/* dev_stream.cu - stream-ordered operations (shmemx_*_on_stream): ordered with kernels on the same stream (a kernel
 * queued after a put and a barrier on the stream sees the data, with no host synchronization in between), never
 * blocking the calling thread (a wait on a signal nobody has sent yet returns at once), collectives and reductions on a
 * stream, and the whole sequence captured into a graph and replayed. */
#include "dev_common.h"

#define N 512

__global__ void k_fill(int *src, int me, int round) {
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        src[i] = me * 100000 + round * 1000 + i;
}

__global__ void k_check(const int *dst, int from, int round, int *fails) {
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        DCHECK(dst[i] == from * 100000 + round * 1000 + i, "round %d: dst[%d] = %d", round, i, dst[i]);
}

__global__ void k_bump(int *round) {
    if (threadIdx.x == 0)
        (*round)++;
}
/* the graph's rounds: the round lives on the device, bumped by a kernel of the graph */
__global__ void k_fill_dev(int *src, int me, const int *round) {
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        src[i] = me * 100000 + *round * 1000 + i;
}
__global__ void k_check_dev(const int *dst, int from, const int *round, int *fails) {
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        DCHECK(dst[i] == from * 100000 + *round * 1000 + i, "graph round %d: dst[%d] = %d", *round, i, dst[i]);
}

int main() {
    dev_init();
    int me = shmem_my_pe(), np = shmem_n_pes(), right = (me + 1) % np, left = (me + np - 1) % np;
    int *src = (int *)shmemg_calloc(N, sizeof(int)), *dst = (int *)shmemg_calloc(N * np, sizeof(int));
    int *red = (int *)shmemg_calloc(N, sizeof(int)), *round = (int *)shmemg_calloc(1, sizeof(int));
    uint64_t *sig = (uint64_t *)shmemg_calloc(1, sizeof(uint64_t));
    cudaStream_t s;
    cudaStreamCreate(&s);

    /* ordered: fill, put, barrier, check, all queued before any synchronization */
    for (int r = 1; r <= 3; r++) {
        k_fill<<<1, 128, 0, s>>>(src, me, r);
        shmemx_putmem_on_stream(dst, src, N * sizeof(int), right, s);
        shmemx_barrier_all_on_stream(s);
        k_check<<<1, 128, 0, s>>>(dst, left, r, dev_fail);
        shmemx_barrier_all_on_stream(s); /* nobody refills before every check ran */
    }
    cudaStreamSynchronize(s);
    dev_check("ordered puts");

    /* never blocking: PE 0 queues a wait for a signal PE 1 sends only after a host barrier */
    if (np > 1) {
        if (me == 0)
            shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_EQ, 5, s); /* returns at once */
        shmem_barrier_all();                                             /* ... or PE 0 would never get here */
        if (me == 1) {
            k_fill<<<1, 128, 0, s>>>(src, me, 9);
            shmemx_putmem_signal_on_stream(dst, src, N * sizeof(int), sig, 5, SHMEM_SIGNAL_SET, 0, s);
            shmemx_quiet_on_stream(s);
        }
        if (me == 0)
            k_check<<<1, 128, 0, s>>>(dst, 1, 9, dev_fail);
        cudaStreamSynchronize(s);
        dev_check("put with signal on a stream");
        shmem_barrier_all();
    }

    /* collectives and reductions on a stream */
    k_fill<<<1, 128, 0, s>>>(src, me, 4);
    shmemx_fcollectmem_on_stream(SHMEM_DEVICE_TEAM_WORLD, dst, src, N * sizeof(int), s);
    for (int p = 0; p < np; p++)
        k_check<<<1, 128, 0, s>>>(dst + p * N, p, 4, dev_fail);
    shmemx_sync_all_on_stream(s);
    shmemx_int_sum_reduce_on_stream(SHMEM_DEVICE_TEAM_WORLD, red, src, N, s);
    shmemx_broadcastmem_on_stream(SHMEM_DEVICE_TEAM_WORLD, dst, src, N * sizeof(int), np - 1, s);
    k_check<<<1, 128, 0, s>>>(dst, np - 1, 4, dev_fail);
    shmemx_barrier_all_on_stream(s);
    cudaStreamSynchronize(s);
    dev_check("collectives on a stream");
    int h[N];
    cudaMemcpy(h, red, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int p = 0; p < np; p++)
            want += p * 100000 + 4 * 1000 + i;
        HCHECK(h[i] == want, "sum on a stream [%d] = %d, expected %d", i, h[i], want);
    }

    /* captured into a graph and replayed: each replay is a new round */
    cudaMemset(round, 0, sizeof(int));
    shmem_barrier_all();
    cudaGraph_t g;
    cudaGraphExec_t gx;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    k_bump<<<1, 32, 0, s>>>(round);
    k_fill_dev<<<1, 128, 0, s>>>(src, me, round);
    shmemx_putmem_on_stream(dst, src, N * sizeof(int), right, s);
    shmemx_barrier_all_on_stream(s);
    k_check_dev<<<1, 128, 0, s>>>(dst, left, round, dev_fail);
    shmemx_barrier_all_on_stream(s);
    cudaStreamEndCapture(s, &g);
    HCHECK(cudaGraphInstantiate(&gx, g, 0) == cudaSuccess, "cudaGraphInstantiate failed");
    for (int r = 0; r < 3; r++)
        cudaGraphLaunch(gx, s);
    cudaStreamSynchronize(s);
    dev_check("graph replays");
    int rounds = 0;
    cudaMemcpy(&rounds, round, sizeof rounds, cudaMemcpyDeviceToHost);
    HCHECK(rounds == 3, "the graph ran %d times, expected 3", rounds);
    cudaGraphExecDestroy(gx);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
    if (me == 0)
        printf("dev_stream: ok (%d PEs)\n", np);
    shmem_finalize();
    return 0;
}
