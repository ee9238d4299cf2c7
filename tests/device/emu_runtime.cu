/* emu_runtime.cu - the CPU emulation of the GPU (oshcc --emulate-gpu) on its own, no OpenSHMEM: indices, block
 * barriers with static and dynamic shared memory, warp shuffles and votes, atomics under contention, a spin lock
 * between a block's threads, blocks that wait for each other, streams and events in order, host functions, graph
 * capture and replay, launch errors, launches by cudaLaunchKernel, stream-ordered allocation. Written as a CUDA
 * program; with nvcc it would run on a GPU unchanged. */
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <thread>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL line %d: ", __LINE__);                                                                        \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)
#define CUDA(x) CHECK((x) == cudaSuccess, "%s: %s", #x, cudaGetErrorString(cudaGetLastError()))

__global__ void indices(int *out) {
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned nt = blockDim.x * blockDim.y * blockDim.z;
    out[b * nt + t] = (int)(b * 1000 + t);
}

/* tree reduction in static shared memory: every level needs the barrier */
__global__ void block_sum(const int *in, int *out) {
    __shared__ int s[256];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k /= 2) {
        if (t < k)
            s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = s[0];
}

/* the same in dynamic shared memory, reversed through it */
__global__ void reverse(int *d) {
    extern __shared__ int buf[];
    unsigned t = threadIdx.x, n = blockDim.x;
    buf[t] = d[t];
    __syncthreads();
    d[t] = buf[n - 1 - t];
}

__global__ void warps(int *out) {
    unsigned lane = threadIdx.x % 32;
    int v = (int)threadIdx.x;
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    int first = __shfl_sync(0xffffffffu, (int)threadIdx.x, 0);
    unsigned odd = __ballot_sync(0xffffffffu, threadIdx.x & 1);
    int all = __all_sync(0xffffffffu, threadIdx.x < 1000), any = __any_sync(0xffffffffu, threadIdx.x == 5);
    int x = __shfl_xor_sync(0xffffffffu, (int)lane, 1);
    if (lane == 0) {
        unsigned w = threadIdx.x / 32;
        out[w * 6 + 0] = v;
        out[w * 6 + 1] = first;
        out[w * 6 + 2] = (int)odd;
        out[w * 6 + 3] = all;
        out[w * 6 + 4] = any;
        out[w * 6 + 5] = x;
    }
}

__global__ void contend(unsigned long long *c, float *f, int *mn, int *lock, int *crit) {
    atomicAdd(c, 1ull);
    atomicAdd(f, 0.5f);
    atomicMin(mn, (int)(blockIdx.x * blockDim.x + threadIdx.x));
    /* a spin lock between threads of one block: the holder must get to run while the others spin */
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    int v = *crit;
    *crit = v + 1;
    __threadfence();
    atomicExch(lock, 0);
}

/* block 0 waits for a flag that the last block sets: blocks run at once */
__global__ void handshake(volatile int *flag, int *seen) {
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == 0) {
        while (*flag == 0)
            __nanosleep(100);
        *seen = *flag;
    } else if (blockIdx.x == gridDim.x - 1) {
        *flag = 42;
    }
}

__global__ void add_one(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

static void host_note(void *arg) { *(int *)arg += 1; }

/* one block that waits for the host to open the gate, then fills p */
__global__ void gate_then_fill(volatile int *gate, int *p, int n, int value) {
    if (threadIdx.x == 0)
        while (*gate == 0)
            __nanosleep(1000);
    __syncthreads();
    for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x)
        p[i] = value;
}

#ifdef GSHMEM_EMULATE_GPU
static void hold(void *) {
    for (;;)
        pause();
}
#endif

/* cudaMallocAsync/cudaFreeAsync: the memory is the allocation's from where its stream reaches the allocation to where
 * it reaches the free, whatever the host does meanwhile */
static void stream_ordered(cudaStream_t s1, cudaStream_t s2) {
    const int n = 50000;
    static int back[n];
    int pools = 0, *gate = nullptr, *a = nullptr, *b = nullptr;
    CUDA(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
    CHECK(pools == 1, "cudaDevAttrMemoryPoolsSupported is %d", pools);
    CUDA(cudaMallocManaged(&gate, sizeof *gate));
    *gate = 0;
    CUDA(cudaMallocAsync(&a, n * sizeof(int), s1));
    gate_then_fill<<<1, 256, 0, s1>>>(gate, a, n, 7);
    CUDA(cudaMemcpyAsync(back, a, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
    CUDA(cudaFreeAsync(a, s1)); /* returns at once: the stream has not reached it */
    /* another stream's allocation meanwhile is other memory: a is still the fill's */
    CUDA(cudaMallocAsync(&b, n * sizeof(int), s2));
    CUDA(cudaMemsetAsync(b, 0, n * sizeof(int), s2));
    CUDA(cudaStreamSynchronize(s2));
    CHECK(b + n <= a || a + n <= b, "cudaMallocAsync on another stream returned %p, inside %p freed later in order",
          (void *)b, (void *)a);
    *gate = 1;
    CUDA(cudaStreamSynchronize(s1));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += back[i] != 7;
    CHECK(bad == 0, "%d of %d values filled before cudaFreeAsync were lost", bad, n);
    CUDA(cudaMemcpy(back, b, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        bad += back[i] != 0;
    CHECK(bad == 0, "%d values of the other stream's allocation changed", bad);
    CUDA(cudaFreeAsync(b, s2));
    CUDA(cudaStreamSynchronize(s2));
    CUDA(cudaFree(gate));
}

/* dynamic shared memory beyond 48 KiB: every word written, then summed by thread 0 */
__global__ void big_shared(long *out, int n) {
    extern __shared__ int words[];
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        words[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) {
        long s = 0;
        for (int i = 0; i < n; i++)
            s += words[i];
        *out = s;
    }
}

/* a kernel's dynamic shared memory past the default needs cudaFuncSetAttribute first, up to the opt-in limit; the
 * other attributes and cache preferences are checked as CUDA documents them */
static void func_attributes(void) {
    int optin = 0, dflt = 0;
    CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CUDA(cudaDeviceGetAttribute(&dflt, cudaDevAttrMaxSharedMemoryPerBlock, 0));
    CHECK(dflt == 48 << 10 && optin > dflt, "shared memory per block %d, opt-in %d", dflt, optin);
    long *out, h = 0;
    const int n = (64 << 10) / sizeof(int);
    CUDA(cudaMalloc(&out, sizeof *out));
    big_shared<<<1, 128, 64 << 10>>>(out, n);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue, "64 KiB of dynamic shared memory without the attribute ran");
    CHECK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1) ==
              cudaErrorInvalidValue,
          "a dynamic shared memory limit past the opt-in was accepted");
    (void)cudaGetLastError();
    CUDA(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
    big_shared<<<1, 128, 64 << 10>>>(out, n);
    CUDA(cudaGetLastError());
    CUDA(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h == (long)n * (n - 1) / 2, "64 KiB of shared words summed to %ld", h);
    big_shared<<<1, 128, (64 << 10) + 4>>>(out, n);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue, "more than the kernel's set limit ran");
    void *args[] = {&out, (void *)&n};
    CHECK(cudaLaunchKernel(big_shared, dim3(1), dim3(128), args, (64 << 10) + 4, 0) == cudaErrorInvalidValue,
          "cudaLaunchKernel past the kernel's limit was accepted");
    (void)cudaGetLastError();
    CHECK(cudaFuncSetAttribute(big_shared, cudaFuncAttributePreferredSharedMemoryCarveout, 101) ==
              cudaErrorInvalidValue,
          "a carveout of 101%% was accepted");
    (void)cudaGetLastError();
    CUDA(cudaFuncSetAttribute(big_shared, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
    CHECK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeClusterDimMustBeSet, 1) == cudaErrorInvalidValue,
          "the read-only cudaFuncAttributeClusterDimMustBeSet was written");
    (void)cudaGetLastError();
    CHECK(cudaFuncSetCacheConfig(big_shared, (cudaFuncCache)7) == cudaErrorInvalidValue, "cache preference 7");
    (void)cudaGetLastError();
    CUDA(cudaFuncSetCacheConfig(big_shared, cudaFuncCachePreferShared));
    CUDA(cudaFree(out));
}

/* a fault where a program uses stream-ordered memory before its stream allocates it */
static void early_use_faults(void) {
#ifdef GSHMEM_EMULATE_GPU
    /* used before its stream reaches the allocation: undefined in CUDA, a fault here. Checked in a child forked
     * before this process has any stream or kernel thread: one of those holding a lock when fork copies it would
     * leave the child waiting for it forever (as CUDA, the emulation is not for a forked child's use) */
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) { /* the stream is held by a host function that never returns */
        cudaStream_t s3;
        int *c = nullptr;
        signal(SIGSEGV, SIG_DFL); /* the fault ends the process (AddressSanitizer's handler would exit 1) */
        alarm(20);
        cudaStreamCreate(&s3);
        cudaLaunchHostFunc(s3, hold, nullptr);
        cudaMallocAsync(&c, sizeof(int), s3);
        *(volatile int *)c = 1;
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
          "a use before the stream reached cudaMallocAsync did not fault (status %#x)", status);
#endif
}

/* several devices (SHMEM_EMU_GPUS, 8 unless set): the current one is each host thread's, and streams and events
 * belong to the device current at their creation, as CUDA's programming guide says of them */
static void devices(int *v) {
    int n = 0, cur = -1;
    CUDA(cudaGetDeviceCount(&n));
    const char *want = getenv("SHMEM_EMU_GPUS");
    CHECK(n == (want ? atoi(want) : 8), "%d devices", n);
    CHECK(cudaSetDevice(n) == cudaErrorInvalidDevice, "device %d of %d was accepted", n, n);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice, "the refusal was not the last error");
    CHECK(cudaSetDevice(-1) == cudaErrorInvalidDevice, "device -1 was accepted");
    (void)cudaGetLastError();
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, n) == cudaErrorInvalidDevice, "properties of device %d", n);
    (void)cudaGetLastError();
    if (n < 2)
        return;
    CUDA(cudaGetDeviceProperties(&prop, n - 1));
    CUDA(cudaSetDevice(n - 1));
    CUDA(cudaGetDevice(&cur));
    CHECK(cur == n - 1, "current device %d after setting %d", cur, n - 1);
    std::thread([] {
        int other = -1;
        CUDA(cudaGetDevice(&other));
        CHECK(other == 0, "a new host thread starts on device %d, not 0", other);
    }).join();
    cudaStream_t s;
    cudaEvent_t ea, e0;
    CUDA(cudaStreamCreate(&s));
    CUDA(cudaEventCreate(&ea));
    add_one<<<1, 32, 0, s>>>(v, 32);
    CUDA(cudaGetLastError());
    CUDA(cudaEventRecord(ea, s));
    CUDA(cudaSetDevice(0));
    CUDA(cudaEventCreate(&e0));
    add_one<<<1, 32, 0, s>>>(v, 32);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle,
          "a kernel was launched into a stream of device %d while device 0 was current", n - 1);
    CHECK(cudaEventRecord(e0, s) == cudaErrorInvalidResourceHandle,
          "an event of device 0 was recorded into a stream of device %d", n - 1);
    (void)cudaGetLastError();
    CUDA(cudaEventRecord(e0, 0));
    CUDA(cudaEventSynchronize(ea)); /* queries and waits cross devices */
    CUDA(cudaStreamWaitEvent(0, ea, 0));
    static int h[32];
    CUDA(cudaMemcpyAsync(h, v, sizeof h, cudaMemcpyDeviceToHost, s)); /* and copies */
    CUDA(cudaStreamSynchronize(s));
    CUDA(cudaEventSynchronize(e0));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, ea, e0) == cudaErrorInvalidResourceHandle,
          "the time between events of devices %d and 0 was given", n - 1);
    (void)cudaGetLastError();
    CUDA(cudaStreamDestroy(s));
    CUDA(cudaEventDestroy(ea));
    CUDA(cudaEventDestroy(e0));
}

int main() {
    early_use_faults();
    /* CUDA's min/max overloads, mixed signedness compared as unsigned, as nvcc's */
    unsigned ub = 5;
    int ia = -1;
    CHECK(min(ub, 3) == 3u && max(ia, 2u) == 0xffffffffu && min(2.5f, 1.0) == 1.0 && max(7L, 9UL) == 9UL &&
              min(-3LL, 2ULL) == 2ULL && umin(4u, 9u) == 4u,
          "min/max overloads");
    int n = 0;
    CUDA(cudaGetDeviceCount(&n));
    CHECK(n >= 1, "%d devices", n);
    CUDA(cudaSetDevice(0));

    /* indices over a 3D grid of 3D blocks */
    int *d;
    const int nb = 2 * 3 * 2, nt = 4 * 2 * 3;
    CUDA(cudaMalloc(&d, nb * nt * sizeof(int)));
    indices<<<dim3(2, 3, 2), dim3(4, 2, 3)>>>(d);
    static int h[4096];
    CUDA(cudaMemcpy(h, d, nb * nt * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < nb; b++)
        for (int t = 0; t < nt; t++)
            CHECK(h[b * nt + t] == b * 1000 + t, "indices[%d][%d] = %d", b, t, h[b * nt + t]);
    CUDA(cudaFree(d));

    /* barriers */
    int *in, *out;
    CUDA(cudaMalloc(&in, 8 * 256 * sizeof(int)));
    CUDA(cudaMalloc(&out, 8 * sizeof(int)));
    for (int i = 0; i < 8 * 256; i++)
        h[i] = i;
    CUDA(cudaMemcpy(in, h, 8 * 256 * sizeof(int), cudaMemcpyHostToDevice));
    block_sum<<<8, 256>>>(in, out);
    CUDA(cudaMemcpy(h, out, 8 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < 8; b++) {
        int want = 0;
        for (int i = 0; i < 256; i++)
            want += b * 256 + i;
        CHECK(h[b] == want, "block %d sum %d, expected %d", b, h[b], want);
    }
    for (int i = 0; i < 128; i++)
        h[i] = i;
    CUDA(cudaMemcpy(in, h, 128 * sizeof(int), cudaMemcpyHostToDevice));
    reverse<<<1, 128, 128 * sizeof(int)>>>(in);
    CUDA(cudaMemcpy(h, in, 128 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 128; i++)
        CHECK(h[i] == 127 - i, "reverse[%d] = %d", i, h[i]);

    /* warps */
    warps<<<1, 96>>>(out);
    int wv[18];
    CUDA(cudaMemcpy(wv, out, sizeof wv, cudaMemcpyDeviceToHost));
    for (int w = 0; w < 3; w++) {
        int sum = 0;
        for (int l = 0; l < 32; l++)
            sum += w * 32 + l;
        CHECK(wv[w * 6 + 0] == sum, "warp %d shfl_down sum %d, expected %d", w, wv[w * 6], sum);
        CHECK(wv[w * 6 + 1] == w * 32, "warp %d shfl from lane 0: %d", w, wv[w * 6 + 1]);
        CHECK((unsigned)wv[w * 6 + 2] == 0xaaaaaaaau, "warp %d ballot %#x", w, (unsigned)wv[w * 6 + 2]);
        CHECK(wv[w * 6 + 3] == 1 && wv[w * 6 + 4] == (w == 0), "warp %d all %d any %d", w, wv[w * 6 + 3],
              wv[w * 6 + 4]);
        CHECK(wv[w * 6 + 5] == 1, "warp %d shfl_xor from lane 1: %d", w, wv[w * 6 + 5]);
    }

    /* atomics and a lock */
    unsigned long long *c;
    float *f;
    int *mn, *lock, *crit;
    CUDA(cudaMallocManaged(&c, sizeof *c));
    CUDA(cudaMallocManaged(&f, sizeof *f));
    CUDA(cudaMallocManaged(&mn, sizeof *mn));
    CUDA(cudaMallocManaged(&lock, sizeof *lock));
    CUDA(cudaMallocManaged(&crit, sizeof *crit));
    *c = 0;
    *f = 0;
    *mn = 1 << 30;
    *lock = *crit = 0;
    contend<<<4, 64>>>(c, f, mn, lock, crit);
    CUDA(cudaDeviceSynchronize());
    CHECK(*c == 256 && *f == 128.0f && *mn == 0 && *crit == 256, "atomics: %llu %g %d, lock-protected count %d", *c,
          (double)*f, *mn, *crit);

    /* blocks that wait for each other */
    int *flag, *seen;
    CUDA(cudaMallocManaged(&flag, sizeof *flag));
    CUDA(cudaMallocManaged(&seen, sizeof *seen));
    *flag = *seen = 0;
    handshake<<<6, 32>>>(flag, seen);
    CUDA(cudaDeviceSynchronize());
    CHECK(*seen == 42, "block 0 saw %d", *seen);

    /* streams, events, host functions: in order on one stream, waits across streams */
    cudaStream_t s1, s2;
    cudaEvent_t e0, e1;
    CUDA(cudaStreamCreate(&s1));
    CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CUDA(cudaEventCreate(&e0));
    CUDA(cudaEventCreate(&e1));
    int *v;
    CUDA(cudaMalloc(&v, 1000 * sizeof(int)));
    CUDA(cudaMemsetAsync(v, 0, 1000 * sizeof(int), s1));
    CUDA(cudaEventRecord(e0, s1));
    for (int i = 0; i < 10; i++)
        add_one<<<4, 256, 0, s1>>>(v, 1000);
    CUDA(cudaEventRecord(e1, s1));
    CUDA(cudaStreamWaitEvent(s2, e1, 0));
    add_one<<<4, 256, 0, s2>>>(v, 1000); /* after all ten */
    int notes = 0;
    CUDA(cudaLaunchHostFunc(s2, host_note, &notes));
    CUDA(cudaStreamSynchronize(s2));
    CHECK(notes == 1, "host function ran %d times", notes);
    CUDA(cudaMemcpy(h, v, 1000 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1000; i++)
        CHECK(h[i] == 11, "ordered stream: v[%d] = %d", i, h[i]);
    float ms = -1;
    CUDA(cudaEventElapsedTime(&ms, e0, e1));
    CHECK(ms >= 0, "elapsed %g ms", (double)ms);

    /* graph capture and replay: nothing runs while capturing, each launch replays it */
    cudaGraph_t g;
    cudaGraphExec_t gx;
    CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    add_one<<<4, 256, 0, s1>>>(v, 1000);
    CUDA(cudaLaunchHostFunc(s1, host_note, &notes));
    add_one<<<4, 256, 0, s1>>>(v, 1000);
    cudaStreamCaptureStatus st;
    CUDA(cudaStreamIsCapturing(s1, &st));
    CHECK(st == cudaStreamCaptureStatusActive, "not capturing");
    CHECK(cudaStreamSynchronize(s1) == cudaErrorStreamCaptureUnsupported, "synchronize while capturing was allowed");
    CUDA(cudaStreamEndCapture(s1, &g));
    CUDA(cudaStreamSynchronize(s1));
    CUDA(cudaMemcpy(h, v, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(h[0] == 11 && notes == 1, "capture ran its work: v[0] %d, notes %d", h[0], notes);
    size_t nn = 0;
    CUDA(cudaGraphGetNodes(g, nullptr, &nn));
    CHECK(nn == 3, "the graph has %zu nodes, expected 3", nn);
    cudaGraphNode_t nodes[5];
    nn = 5;
    CUDA(cudaGraphGetNodes(g, nodes, &nn));
    cudaGraphNodeType types[3] = {};
    for (int i = 0; i < 3 && nn == 3; i++)
        CUDA(cudaGraphNodeGetType(nodes[i], &types[i]));
    CHECK(nn == 3 && !nodes[3] && !nodes[4] && types[0] == cudaGraphNodeTypeKernel &&
              types[1] == cudaGraphNodeTypeHost && types[2] == cudaGraphNodeTypeKernel,
          "graph nodes: %zu of types %d %d %d", nn, (int)types[0], (int)types[1], (int)types[2]);
    CUDA(cudaGraphInstantiate(&gx, g, 0));
    CUDA(cudaGraphDestroy(g));
    for (int i = 0; i < 3; i++)
        CUDA(cudaGraphLaunch(gx, s1));
    CUDA(cudaStreamSynchronize(s1));
    CUDA(cudaMemcpy(h, v, 1000 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(h[999] == 17 && notes == 4, "after 3 replays: v[999] %d, notes %d", h[999], notes);
    CUDA(cudaGraphExecDestroy(gx));

    /* by the runtime API: the arguments from an array of pointers to them */
    int len = 1000;
    void *args[] = {&v, &len};
    CUDA(cudaLaunchKernel(add_one, dim3(4), dim3(256), args, 0, s1));
    CUDA(cudaStreamSynchronize(s1));
    CUDA(cudaMemcpy(h, v, 1000 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(h[0] == 18 && h[999] == 18, "cudaLaunchKernel: v[0] %d v[999] %d", h[0], h[999]);
    /* the C form: a kernel cast to const void * by name is known by its parameters (oshcc's rewrite); a pointer never
     * cast so is refused, not called with arguments it cannot pass */
    CUDA(cudaLaunchCooperativeKernel((const void *)add_one, dim3(2), dim3(64), args, 0, s1));
    CUDA(cudaLaunchKernel((const void *)add_one, dim3(4), dim3(256), args, 0, s1));
    CUDA(cudaStreamSynchronize(s1));
    CUDA(cudaMemcpy(h, v, 1000 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(h[0] == 20 && h[127] == 20 && h[128] == 19 && h[999] == 19, "by pointer: v[0] %d v[128] %d v[999] %d", h[0],
          h[128], h[999]);
    const void *unseen = reinterpret_cast<const void *>(&stream_ordered);
    CHECK(cudaLaunchKernel(unseen, dim3(1), dim3(1), args, 0, s1) == cudaErrorInvalidDeviceFunction,
          "a pointer never cast by name was launched");
    CHECK(cudaGetLastError() == cudaErrorInvalidDeviceFunction, "the refusal was not the last error");

    stream_ordered(s1, s2);
    devices(v);
    func_attributes();

    /* launch errors are reported, not run */
    add_one<<<1, 2048>>>(v, 1000);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "a block of 2048 threads was accepted");
    CHECK(cudaGetLastError() == cudaSuccess, "the error was not cleared");

    CUDA(cudaStreamDestroy(s1));
    CUDA(cudaStreamDestroy(s2));
    CUDA(cudaEventDestroy(e0));
    CUDA(cudaEventDestroy(e1));
    CUDA(cudaFree(v));
    if (failures) {
        printf("emu_runtime: %d failures\n", failures);
        return 1;
    }
    printf("emu_runtime: ok\n");
    return 0;
}
