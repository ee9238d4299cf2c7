/* dev_stream.cu - stream-ordered operations (shmemx_*_on_stream): ordered with kernels on the same stream (a kernel
 * queued after a put and a barrier on the stream sees the data, with no host synchronization in between), never
 * blocking the calling thread (a wait on a signal nobody has sent yet returns at once), collectives and reductions on a
 * stream, large puts and gets (the copy engine's to a peer this PE maps) in the stream's order, and the whole sequence
 * captured into a graph and replayed. */
#include <time.h>

#include "dev_common.h"

#define N 512
#define BIG ((size_t)4 << 20) /* bytes */
#define BIGN (BIG / sizeof(int))

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

__host__ __device__ int big_val(int from, int round, size_t i) {
    return (int)((unsigned)from << 24 | (unsigned)round << 20 | (unsigned)(i & 0xfffff));
}
/* held until the host opens the gate, then fills the source: what the stream holds after it waits */
__global__ void k_gate_fill(const volatile int *gate, int *src, int me, int round) {
    if (threadIdx.x == 0)
        while (!*gate)
            __nanosleep(1000);
    __syncthreads();
    for (size_t i = threadIdx.x; i < BIGN; i += blockDim.x)
        src[i] = big_val(me, round, i);
}
__global__ void k_fill_big(int *src, int me, int round) {
    for (size_t i = threadIdx.x; i < BIGN; i += blockDim.x)
        src[i] = big_val(me, round, i);
}
__global__ void k_check_big(const int *dst, int from, int round, int *fails) {
    size_t bad = BIGN;
    for (size_t i = threadIdx.x; i < BIGN && bad == BIGN; i += blockDim.x)
        if (dst[i] != big_val(from, round, i))
            bad = i;
    DCHECK(bad == BIGN, "round %d: big dst[%zu] = %#x, expected %#x", round, bad, dst[bad], big_val(from, round, bad));
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

    /* large transfers, to a peer this PE maps the copy engine's, in the stream's order like kernels: the put waits for
     * the kernel queued before it, held at a gate the host opens only once every PE has seen its destination still
     * untouched (a copy made off the stream, or at once, shows there), and the kernels after it see its data. A
     * stream not ordered with the legacy one, so nothing else orders the copy. */
    cudaStream_t ns;
    cudaStreamCreateWithFlags(&ns, cudaStreamNonBlocking);
    int *gate = nullptr;
    cudaMallocHost((void **)&gate, sizeof(int));
    *gate = 0;
    int *bsrc = (int *)shmemg_malloc(BIG), *bdst = (int *)shmemg_malloc(BIG), *hb = (int *)malloc(BIG);
    uint64_t *bsig = (uint64_t *)shmemg_calloc(1, sizeof(uint64_t));
    HCHECK(bsrc && bdst && hb && gate, "allocations for the large transfers");
    cudaMemset(bsrc, 0xee, BIG); /* what a copy made too early would carry */
    cudaMemset(bdst, 0, BIG);
    cudaDeviceSynchronize();
    shmem_barrier_all();
    k_gate_fill<<<1, 128, 0, ns>>>(gate, bsrc, me, 1);
    shmemx_putmem_on_stream(bdst, bsrc, BIG, right, ns);
    shmemx_barrier_all_on_stream(ns);
    k_check_big<<<1, 128, 0, ns>>>(bdst, left, 1, dev_fail);
    cudaStreamSynchronize(nullptr);
    struct timespec pause_ts = {0, 20000000}; /* time for a copy wrongly left to another stream to land */
    nanosleep(&pause_ts, nullptr);
    shmem_barrier_all();
    cudaMemcpy(hb, bdst, BIG, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < BIGN; i++)
        HCHECK(hb[i] == 0, "the put on the stream ran before the kernel queued ahead of it: dst[%zu] = %#x", i, hb[i]);
    shmem_barrier_all();
    __atomic_store_n(gate, 1, __ATOMIC_RELEASE);
    cudaStreamSynchronize(ns);
    dev_check("a large put on a stream");
    shmem_barrier_all();
    cudaMemsetAsync(bdst, 0, BIG, ns);
    shmemx_getmem_on_stream(bdst, bsrc, BIG, right, ns);
    k_check_big<<<1, 128, 0, ns>>>(bdst, right, 1, dev_fail);
    cudaStreamSynchronize(ns);
    dev_check("a large get on a stream");
    shmem_barrier_all(); /* every get is done before the sources change */
    k_fill_big<<<1, 128, 0, ns>>>(bsrc, me, 2);
    shmemx_putmem_signal_on_stream(bdst, bsrc, BIG, bsig, 2, SHMEM_SIGNAL_ADD, right, ns);
    shmemx_signal_wait_until_on_stream(bsig, SHMEM_CMP_EQ, 2, ns);
    k_check_big<<<1, 128, 0, ns>>>(bdst, left, 2, dev_fail); /* the data came before the signal */
    cudaStreamSynchronize(ns);
    dev_check("a large put with signal on a stream");
    /* captured, the put to a peer this PE maps is one copy (SHMEM_DEVICE_PROXY_ALL sends it through the proxy), to any
     * other one kernel */
    const char *pa = getenv("SHMEM_DEVICE_PROXY_ALL");
    int copy_engine = shmem_ptr(bdst, right) && !(pa && atoi(pa));
    cudaGraph_t pg;
    cudaStreamBeginCapture(ns, cudaStreamCaptureModeGlobal);
    shmemx_putmem_on_stream(bdst, bsrc, BIG, right, ns);
    cudaStreamEndCapture(ns, &pg);
    cudaGraphNode_t node = nullptr;
    size_t nn = 1;
    cudaGraphNodeType nt = cudaGraphNodeTypeEmpty;
    HCHECK(cudaGraphGetNodes(pg, &node, &nn) == cudaSuccess && nn == 1 &&
               cudaGraphNodeGetType(node, &nt) == cudaSuccess,
           "a captured put is %zu graph nodes, expected 1", nn);
    HCHECK(nt == (copy_engine ? cudaGraphNodeTypeMemcpy : cudaGraphNodeTypeKernel),
           "a captured put to PE %d is a node of type %d, expected %s", right, (int)nt,
           copy_engine ? "a copy (the peer is mapped)" : "a kernel (the peer is not mapped)");
    cudaGraphDestroy(pg);
    shmem_barrier_all();
    cudaStreamDestroy(ns);
    cudaFreeHost(gate);
    free(hb);

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
