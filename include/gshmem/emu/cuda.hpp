/* cuda.hpp - what a CUDA program sees when `oshcc --emulate-gpu` builds it for the CPU: the execution-space
 * qualifiers, threadIdx & co, <<<...>>> launches (oshcc turns them into the operators below), the device built-ins
 * programs use (barriers, warp shuffles and votes, atomics, fences) and the runtime calls (memory, streams, events,
 * graphs, errors), all served by the emulation in libgshmem (src/device/emu). A grid's blocks run on OS threads and a
 * block's threads as fibers, so __syncthreads, warp operations and waits work as on a GPU whose grid fits. C++17. */
#ifndef GSHMEM_EMU_CUDA_HPP
#define GSHMEM_EMU_CUDA_HPP
#ifndef __cplusplus
#error "programs built with oshcc --emulate-gpu are compiled as C++ (as nvcc compiles .cu files)"
#endif

#include <gshmem/emu/abi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <tuple>
#include <type_traits>
#include <utility>

#define GSHMEM_EMULATE_GPU 1
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local /* one per OS thread, which runs one block at a time */
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
#define __CUDA_RUNTIME_H__ 1

typedef struct gshmem_emu_dim3 uint3;
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(const uint3 &v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
/* the vector types programs use most */
#define GSHMEM_EMU_VEC(T, N2, N4, A2, A4)                                                                              \
    struct __attribute__((aligned(A2))) N2 {                                                                           \
        T x, y;                                                                                                        \
    };                                                                                                                 \
    struct __attribute__((aligned(A4))) N4 {                                                                           \
        T x, y, z, w;                                                                                                  \
    };                                                                                                                 \
    inline N2 make_##N2(T x, T y) { return N2{x, y}; }                                                                 \
    inline N4 make_##N4(T x, T y, T z, T w) { return N4{x, y, z, w}; }
GSHMEM_EMU_VEC(int, int2, int4, 8, 16)
GSHMEM_EMU_VEC(unsigned, uint2, uint4, 8, 16)
GSHMEM_EMU_VEC(float, float2, float4, 8, 16)
GSHMEM_EMU_VEC(long long, longlong2, longlong4, 16, 16)
GSHMEM_EMU_VEC(double, double2, double4, 16, 16)
#undef GSHMEM_EMU_VEC
#define threadIdx (gshmem_emu_cur->tid)
#define blockIdx (gshmem_emu_cur->bid)
#define blockDim (gshmem_emu_cur->bdim)
#define gridDim (gshmem_emu_cur->gdim)
static constexpr int warpSize = 32;

/* ---- errors, handles, constants ---- */
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorUnknown = 999,
};
typedef enum cudaError cudaError_t;
typedef struct gshmem_emu_stream_s *cudaStream_t;
typedef struct gshmem_emu_event_s *cudaEvent_t;
typedef struct gshmem_emu_graph_s *cudaGraph_t;
typedef struct gshmem_emu_graph_s *cudaGraphExec_t;
typedef struct gshmem_emu_node_s *cudaGraphNode_t;
typedef void (*cudaHostFn_t)(void *);
typedef struct gshmem_emu_mempool_s *cudaMemPool_t; /* (memory pools are not emulated: see below) */
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};
enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};
enum cudaStreamCaptureStatus { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1 };
enum cudaGraphNodeType {
    cudaGraphNodeTypeKernel = 0,
    cudaGraphNodeTypeMemcpy = 1,
    cudaGraphNodeTypeMemset = 2,
    cudaGraphNodeTypeHost = 3,
    cudaGraphNodeTypeGraph = 4,
    cudaGraphNodeTypeEmpty = 5,
    cudaGraphNodeTypeWaitEvent = 6,
    cudaGraphNodeTypeEventRecord = 7,
};
#define cudaStreamDefault 0x0
#define cudaStreamNonBlocking 0x1
#define cudaEventDefault 0x0
#define cudaEventBlockingSync 0x1
#define cudaEventDisableTiming 0x2
#define cudaHostAllocDefault 0x0
#define cudaHostAllocPortable 0x1
#define cudaHostAllocMapped 0x2
#define cudaMemAttachGlobal 0x1

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin;
    int warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], multiProcessorCount, major, minor,
        concurrentKernels, unifiedAddressing, managedMemory, canMapHostMemory, cooperativeLaunch;
};
/* what cudaFuncSetAttribute and cudaFuncSetCacheConfig take (CUDA's values) */
enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
    cudaFuncAttributeClusterDimMustBeSet = 10,
    cudaFuncAttributeRequiredClusterWidth = 11,
    cudaFuncAttributeRequiredClusterHeight = 12,
    cudaFuncAttributeRequiredClusterDepth = 13,
    cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
    cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
    cudaFuncAttributeMax
};
enum cudaFuncCache {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};
enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrMemoryPoolsSupported = 115,
};

inline const char *cudaGetErrorName(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorCooperativeLaunchTooLarge: return "cudaErrorCooperativeLaunchTooLarge";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaErrorUnknown";
    }
}
inline const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorStreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case cudaErrorCooperativeLaunchTooLarge:
        return "too many blocks in cooperative launch (emulated GPU: at most one block per SM, SHMEM_EMU_SMS, and per "
               "block worker, SHMEM_EMU_BLOCKS; fewer of many threads where vm.max_map_count limits their stacks)";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "unknown error (emulated GPU)";
    }
}
inline cudaError_t cudaGetLastError(void) { return (cudaError_t)gshmem_emu_last_error(0); }
inline cudaError_t cudaPeekAtLastError(void) { return (cudaError_t)gshmem_emu_last_error(1); }

/* ---- devices ---- */
inline cudaError_t cudaSetDevice(int d) { return (cudaError_t)gshmem_emu_set_device(d); }
inline cudaError_t cudaGetDevice(int *d) { return (cudaError_t)gshmem_emu_get_device(d); }
inline cudaError_t cudaGetDeviceCount(int *n) { return (cudaError_t)gshmem_emu_device_count(n); }
inline cudaError_t cudaDeviceSynchronize(void) { return (cudaError_t)gshmem_emu_device_synchronize(); }
inline cudaError_t cudaDeviceReset(void) { return (cudaError_t)gshmem_emu_device_synchronize(); }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d) {
    int n = 0;
    (void)gshmem_emu_device_count(&n);
    if (!p || d < 0 || d >= n)
        return (cudaError_t)gshmem_emu_set_error(p ? cudaErrorInvalidDevice : cudaErrorInvalidValue);
    std::memset(p, 0, sizeof *p);
    std::snprintf(p->name, sizeof p->name, "gshmem emulated GPU (CPU)");
    p->totalGlobalMem = (size_t)16 << 30;
    p->sharedMemPerBlock = GSHMEM_EMU_SHMEM_DEFAULT;
    p->sharedMemPerBlockOptin = GSHMEM_EMU_SHMEM_OPTIN;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->multiProcessorCount = gshmem_emu_sm_count();
    p->major = 7;
    p->minor = 0;
    p->concurrentKernels = p->unifiedAddressing = p->managedMemory = p->canMapHostMemory = p->cooperativeLaunch = 1;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d) {
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, d);
    if (e)
        return e;
    *v = a == cudaDevAttrWarpSize                 ? 32
         : a == cudaDevAttrMaxThreadsPerBlock     ? 1024
         : a == cudaDevAttrMultiProcessorCount    ? p.multiProcessorCount
         : a == cudaDevAttrComputeCapabilityMajor ? p.major
         : a == cudaDevAttrCooperativeLaunch      ? 1
         : a == cudaDevAttrMaxSharedMemoryPerBlock      ? (int)p.sharedMemPerBlock
         : a == cudaDevAttrMaxSharedMemoryPerBlockOptin ? (int)p.sharedMemPerBlockOptin
         : a == cudaDevAttrMemoryPoolsSupported   ? 1
                                                  : 0;
    return cudaSuccess;
}
/* a kernel's dynamic shared memory beyond the default 48 KiB must be asked for first, up to the opt-in limit, as on
 * a GPU: a launch with more is refused (cudaErrorInvalidValue). Given a kernel or a pointer to one. */
template <class F> inline cudaError_t cudaFuncSetAttribute(F f, cudaFuncAttribute attr, int value) {
    return (cudaError_t)gshmem_emu_func_attr(reinterpret_cast<const void *>(f), (int)attr, value);
}
template <class F> inline cudaError_t cudaFuncSetCacheConfig(F f, cudaFuncCache c) {
    if (!f)
        return (cudaError_t)gshmem_emu_set_error(cudaErrorInvalidDeviceFunction);
    if ((int)c < 0 || (int)c > 3)
        return (cudaError_t)gshmem_emu_set_error(cudaErrorInvalidValue);
    return cudaSuccess; /* (a preference only, as on a GPU) */
}

/* ---- memory ---- */
inline cudaError_t cudaMalloc(void **p, size_t n) {
    return (cudaError_t)gshmem_emu_malloc(p, n, GSHMEM_EMU_MEM_DEVICE);
}
template <class T> inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **)p, n); }
inline cudaError_t cudaMallocManaged(void **p, size_t n, unsigned = cudaMemAttachGlobal) {
    return (cudaError_t)gshmem_emu_malloc(p, n, GSHMEM_EMU_MEM_MANAGED);
}
template <class T> inline cudaError_t cudaMallocManaged(T **p, size_t n, unsigned f = cudaMemAttachGlobal) {
    return cudaMallocManaged((void **)p, n, f);
}
inline cudaError_t cudaMallocHost(void **p, size_t n) {
    return (cudaError_t)gshmem_emu_malloc(p, n, GSHMEM_EMU_MEM_HOST);
}
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t n) { return cudaMallocHost((void **)p, n); }
inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) { return cudaMallocHost(p, n); }
template <class T> inline cudaError_t cudaHostAlloc(T **p, size_t n, unsigned f) {
    return cudaHostAlloc((void **)p, n, f);
}
inline cudaError_t cudaFree(void *p) { return (cudaError_t)gshmem_emu_free(p, GSHMEM_EMU_MEM_DEVICE); }
/* stream-ordered: usable from where the stream reaches the allocation to where it reaches the free */
inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) {
    return (cudaError_t)gshmem_emu_malloc_async(p, n, s);
}
template <class T> inline cudaError_t cudaMallocAsync(T **p, size_t n, cudaStream_t s) {
    return cudaMallocAsync((void **)p, n, s);
}
inline cudaError_t cudaFreeAsync(void *p, cudaStream_t s) { return (cudaError_t)gshmem_emu_free_async(p, s); }
inline cudaError_t cudaFreeHost(void *p) { return (cudaError_t)gshmem_emu_free(p, GSHMEM_EMU_MEM_HOST); }
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
    return (cudaError_t)gshmem_emu_memcpy(d, s, n, nullptr, 0);
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t st = nullptr) {
    return (cudaError_t)gshmem_emu_memcpy(d, s, n, st, 1);
}
inline cudaError_t cudaMemset(void *d, int v, size_t n) { return (cudaError_t)gshmem_emu_memset(d, v, n, nullptr, 0); }
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st = nullptr) {
    return (cudaError_t)gshmem_emu_memset(d, v, n, st, 1);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbol(T &sym, const void *src, size_t n, size_t off = 0,
                                      cudaMemcpyKind = cudaMemcpyHostToDevice) {
    return (cudaError_t)gshmem_emu_memcpy((char *)&sym + off, src, n, nullptr, 0);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &sym, size_t n, size_t off = 0,
                                        cudaMemcpyKind = cudaMemcpyDeviceToHost) {
    return (cudaError_t)gshmem_emu_memcpy(dst, (const char *)&sym + off, n, nullptr, 0);
}
template <class T> inline cudaError_t cudaGetSymbolAddress(void **p, const T &sym) {
    *p = (void *)&sym;
    return cudaSuccess;
}

/* ---- streams, events, host functions, graphs ---- */
inline cudaError_t cudaStreamCreate(cudaStream_t *s) { return (cudaError_t)gshmem_emu_stream_create((void **)s, 0); }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f) {
    return (cudaError_t)gshmem_emu_stream_create((void **)s, f);
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) { return (cudaError_t)gshmem_emu_stream_destroy(s); }
inline cudaError_t cudaStreamSynchronize(cudaStream_t s) { return (cudaError_t)gshmem_emu_stream_synchronize(s); }
inline cudaError_t cudaStreamQuery(cudaStream_t s) { return (cudaError_t)gshmem_emu_stream_query(s); }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned = 0) {
    return (cudaError_t)gshmem_emu_stream_wait_event(s, e);
}
inline cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *arg) {
    return (cudaError_t)gshmem_emu_host_func(s, fn, arg);
}
inline cudaError_t cudaEventCreate(cudaEvent_t *e) { return (cudaError_t)gshmem_emu_event_create((void **)e, 0); }
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned f) {
    return (cudaError_t)gshmem_emu_event_create((void **)e, f);
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) { return (cudaError_t)gshmem_emu_event_destroy(e); }
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr) {
    return (cudaError_t)gshmem_emu_event_record(e, s);
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e) { return (cudaError_t)gshmem_emu_event_synchronize(e); }
inline cudaError_t cudaEventQuery(cudaEvent_t e) { return (cudaError_t)gshmem_emu_event_query(e); }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
    return (cudaError_t)gshmem_emu_event_elapsed(ms, a, b);
}
inline cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
    return (cudaError_t)gshmem_emu_capture_begin(s);
}
inline cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g) {
    return (cudaError_t)gshmem_emu_capture_end(s, (void **)g);
}
inline cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *st) {
    int c = 0;
    cudaError_t e = (cudaError_t)gshmem_emu_capture_status(s, &c);
    *st = c ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return e;
}
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long = 0) {
    *x = g; /* the emulation runs the captured list itself */
    return (cudaError_t)gshmem_emu_graph_retain(g);
}
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, cudaGraphNode_t *, char *, size_t) {
    return cudaGraphInstantiate(x, g, 0ull);
}
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s) {
    return (cudaError_t)gshmem_emu_graph_launch(x, s);
}
inline cudaError_t cudaGraphDestroy(cudaGraph_t g) { return (cudaError_t)gshmem_emu_graph_destroy(g); }
inline cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
    return (cudaError_t)gshmem_emu_graph_nodes(g, (void **)nodes, n);
}
inline cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *t) {
    int v = 0;
    cudaError_t e = (cudaError_t)gshmem_emu_node_type(node, t ? &v : nullptr);
    if (!e)
        *t = (cudaGraphNodeType)v;
    return e;
}
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) { return (cudaError_t)gshmem_emu_graph_destroy(x); }

/* ---- device built-ins ---- */
inline void __syncthreads(void) { gshmem_emu_syncthreads(); }
inline int __syncthreads_count(int p) { return gshmem_emu_syncthreads_op(0, p); }
inline int __syncthreads_and(int p) { return gshmem_emu_syncthreads_op(1, p); }
inline int __syncthreads_or(int p) { return gshmem_emu_syncthreads_op(2, p); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { gshmem_emu_syncwarp(mask); }
inline unsigned __activemask(void) { return gshmem_emu_activemask(); }
inline unsigned __ballot_sync(unsigned m, int p) { return gshmem_emu_vote(m, GSHMEM_EMU_VOTE_BALLOT, p); }
inline int __any_sync(unsigned m, int p) { return (int)gshmem_emu_vote(m, GSHMEM_EMU_VOTE_ANY, p); }
inline int __all_sync(unsigned m, int p) { return (int)gshmem_emu_vote(m, GSHMEM_EMU_VOTE_ALL, p); }
namespace gshmem_emu {
template <class T> inline T shfl(unsigned m, T v, int kind, int arg, int width) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "__shfl_*_sync takes values of 8 bytes or less");
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof v);
    u = gshmem_emu_shfl(m, u, kind, arg, width);
    T r;
    std::memcpy((void *)&r, &u, sizeof r); /* (a type with private members, as __half, too) */
    return r;
}
} // namespace gshmem_emu
template <class T> inline T __shfl_sync(unsigned m, T v, int src, int w = 32) {
    return gshmem_emu::shfl(m, v, GSHMEM_EMU_SHFL_IDX, src, w);
}
template <class T> inline T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) {
    return gshmem_emu::shfl(m, v, GSHMEM_EMU_SHFL_UP, (int)d, w);
}
template <class T> inline T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) {
    return gshmem_emu::shfl(m, v, GSHMEM_EMU_SHFL_DOWN, (int)d, w);
}
template <class T> inline T __shfl_xor_sync(unsigned m, T v, int lm, int w = 32) {
    return gshmem_emu::shfl(m, v, GSHMEM_EMU_SHFL_XOR, lm, w);
}
inline void __threadfence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __nanosleep(unsigned) { gshmem_emu_yield(); }
[[noreturn]] inline void __trap(void) { gshmem_emu_trap("__trap() in a kernel"); }
inline long long clock64(void) {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}
template <class T> inline T __ldg(const T *p) { return *p; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
#ifndef GSHMEM_EMU_NO_MINMAX
/* CUDA's overload set: each width, its signed and unsigned mixes (compared as the unsigned type, which is what they
 * return), float, double and their mix; a mix CUDA does not declare is as ambiguous here as under nvcc */
#define GSHMEM_EMU_MINMAX(R, A, B)                                                                                     \
    inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                                                       \
    inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
GSHMEM_EMU_MINMAX(int, int, int)
GSHMEM_EMU_MINMAX(unsigned, unsigned, unsigned)
GSHMEM_EMU_MINMAX(unsigned, int, unsigned)
GSHMEM_EMU_MINMAX(unsigned, unsigned, int)
GSHMEM_EMU_MINMAX(long, long, long)
GSHMEM_EMU_MINMAX(unsigned long, unsigned long, unsigned long)
GSHMEM_EMU_MINMAX(unsigned long, long, unsigned long)
GSHMEM_EMU_MINMAX(unsigned long, unsigned long, long)
GSHMEM_EMU_MINMAX(long long, long long, long long)
GSHMEM_EMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
GSHMEM_EMU_MINMAX(unsigned long long, long long, unsigned long long)
GSHMEM_EMU_MINMAX(unsigned long long, unsigned long long, long long)
GSHMEM_EMU_MINMAX(float, float, float)
GSHMEM_EMU_MINMAX(double, double, double)
GSHMEM_EMU_MINMAX(double, float, double)
GSHMEM_EMU_MINMAX(double, double, float)
#undef GSHMEM_EMU_MINMAX
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
#endif

/* Atomics: every scope is the system's here (the CPU is the device); a failing compare-and-swap lets the block's
 * other threads run, since a lock taken by one of them is released only when it runs */
namespace gshmem_emu {
template <class T> inline T fetch_op(T *p, T v, int op) {
    switch (op) {
    case 0: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    case 1: return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
    case 2: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
    case 3: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
    case 4: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
    default: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
    }
}
template <class T, class F> inline T cas_loop(T *p, F f) {
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, f(old), true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return old;
}
/* before a system-scope atomic: the emulated link to the memory's GPU may lack native atomics (abi.h) */
inline void sys(const void *p) {
    if (__builtin_expect(gshmem_emu_atomics_checked, 0))
        gshmem_emu_peer_atomic(p);
}
template <class T> inline T fp_add(T *p, T v) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "");
    typedef typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type U;
    U *q = reinterpret_cast<U *>(p);
    U old = __atomic_load_n(q, __ATOMIC_RELAXED), nw;
    T o;
    do {
        std::memcpy(&o, &old, sizeof o);
        T n = o + v;
        std::memcpy(&nw, &n, sizeof nw);
    } while (!__atomic_compare_exchange_n(q, &old, nw, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return o;
}
} // namespace gshmem_emu
#define GSHMEM_EMU_INT_ATOMICS(T)                                                                                      \
    inline T atomicAdd(T *p, T v) { return gshmem_emu::fetch_op(p, v, 0); }                                            \
    inline T atomicSub(T *p, T v) { return gshmem_emu::fetch_op(p, v, 1); }                                            \
    inline T atomicAnd(T *p, T v) { return gshmem_emu::fetch_op(p, v, 2); }                                            \
    inline T atomicOr(T *p, T v) { return gshmem_emu::fetch_op(p, v, 3); }                                             \
    inline T atomicXor(T *p, T v) { return gshmem_emu::fetch_op(p, v, 4); }                                            \
    inline T atomicExch(T *p, T v) { return gshmem_emu::fetch_op(p, v, 5); }                                           \
    inline T atomicMin(T *p, T v) {                                                                                    \
        return gshmem_emu::cas_loop(p, [v](T o) { return o < v ? o : v; });                                            \
    }                                                                                                                  \
    inline T atomicMax(T *p, T v) {                                                                                    \
        return gshmem_emu::cas_loop(p, [v](T o) { return o > v ? o : v; });                                            \
    }                                                                                                                  \
    inline T atomicCAS(T *p, T cmp, T v) {                                                                             \
        T old = cmp;                                                                                                   \
        if (!__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))                       \
            gshmem_emu_yield();                                                                                        \
        return old;                                                                                                    \
    }                                                                                                                  \
    inline T atomicAdd_system(T *p, T v) { return gshmem_emu::sys(p), atomicAdd(p, v); }                               \
    inline T atomicAdd_block(T *p, T v) { return atomicAdd(p, v); }                                                    \
    inline T atomicSub_system(T *p, T v) { return gshmem_emu::sys(p), atomicSub(p, v); }                               \
    inline T atomicAnd_system(T *p, T v) { return gshmem_emu::sys(p), atomicAnd(p, v); }                               \
    inline T atomicOr_system(T *p, T v) { return gshmem_emu::sys(p), atomicOr(p, v); }                                 \
    inline T atomicXor_system(T *p, T v) { return gshmem_emu::sys(p), atomicXor(p, v); }                               \
    inline T atomicExch_system(T *p, T v) { return gshmem_emu::sys(p), atomicExch(p, v); }                             \
    inline T atomicMin_system(T *p, T v) { return gshmem_emu::sys(p), atomicMin(p, v); }                               \
    inline T atomicMax_system(T *p, T v) { return gshmem_emu::sys(p), atomicMax(p, v); }                               \
    inline T atomicCAS_system(T *p, T c, T v) { return gshmem_emu::sys(p), atomicCAS(p, c, v); }                       \
    inline T atomicCAS_block(T *p, T c, T v) { return atomicCAS(p, c, v); }
GSHMEM_EMU_INT_ATOMICS(int)
GSHMEM_EMU_INT_ATOMICS(unsigned int)
GSHMEM_EMU_INT_ATOMICS(unsigned long long)
GSHMEM_EMU_INT_ATOMICS(long long)
#undef GSHMEM_EMU_INT_ATOMICS
inline unsigned short atomicCAS(unsigned short *p, unsigned short c, unsigned short v) {
    unsigned short old = c;
    if (!__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        gshmem_emu_yield();
    return old;
}
inline float atomicAdd(float *p, float v) { return gshmem_emu::fp_add(p, v); }
inline double atomicAdd(double *p, double v) { return gshmem_emu::fp_add(p, v); }
inline float atomicAdd_system(float *p, float v) { return gshmem_emu::sys(p), gshmem_emu::fp_add(p, v); }
inline double atomicAdd_system(double *p, double v) { return gshmem_emu::sys(p), gshmem_emu::fp_add(p, v); }
inline float atomicExch(float *p, float v) {
    float old;
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
    return old;
}
inline unsigned atomicInc(unsigned *p, unsigned lim) {
    return gshmem_emu::cas_loop(p, [lim](unsigned o) { return o >= lim ? 0u : o + 1; });
}
inline unsigned atomicDec(unsigned *p, unsigned lim) {
    return gshmem_emu::cas_loop(p, [lim](unsigned o) { return (o == 0 || o > lim) ? lim : o - 1; });
}

/* ---- kernel launches: oshcc --emulate-gpu turns  k<<<g, b, s, st>>>(a...)  into
 *      k << ::gshmem_emu::cfg(g, b, s, st) << ::gshmem_emu::args(a...)  ---- */
namespace gshmem_emu {
struct launch_cfg {
    dim3 grid, block;
    size_t shmem;
    cudaStream_t stream;
};
inline launch_cfg cfg(dim3 g, dim3 b, size_t shmem = 0, cudaStream_t s = nullptr) { return {g, b, shmem, s}; }
template <class... P> struct bound {
    void (*fn)(P...);
    launch_cfg c;
};
template <class... P> inline bound<P...> operator<<(void (*fn)(P...), launch_cfg c) { return {fn, c}; }
template <class... A> inline std::tuple<typename std::decay<A>::type...> args(A &&...a) {
    return std::tuple<typename std::decay<A>::type...>(std::forward<A>(a)...);
}
template <class... P> struct closure {
    void (*fn)(P...);
    std::tuple<typename std::decay<P>::type...> a; /* the arguments, by value, as CUDA copies them */
};
template <class... P> void run(void *c) {
    closure<P...> *k = static_cast<closure<P...> *>(c);
    std::apply(k->fn, k->a);
}
template <class... P> void release(void *c) { delete static_cast<closure<P...> *>(c); }
template <class... P, class... A> inline void operator<<(bound<P...> b, std::tuple<A...> a) {
    static_assert(sizeof...(P) == sizeof...(A), "kernel launched with the wrong number of arguments");
    if (gshmem_emu_func_shmem(reinterpret_cast<const void *>(b.fn), b.c.shmem))
        return; /* more dynamic shared memory than the kernel may have: refused, the last error says so */
    closure<P...> *c = new closure<P...>{b.fn, std::tuple<typename std::decay<P>::type...>(std::move(a))};
    gshmem_emu_launch(b.c.grid, b.c.block, b.c.shmem, b.c.stream, &run<P...>, c, &release<P...>);
}
/* cudaLaunchKernel & co: the arguments from an array of pointers to them */
template <class... P, size_t... I>
inline closure<P...> *closure_from(void (*fn)(P...), void **args, std::index_sequence<I...>) {
    return new closure<P...>{
        fn, std::tuple<typename std::decay<P>::type...>(*static_cast<typename std::decay<P>::type *>(args[I])...)};
}
template <class... P>
inline cudaError_t launch_args(void (*fn)(P...), dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s,
                               unsigned flags) {
    if (!fn)
        return (cudaError_t)gshmem_emu_set_error(cudaErrorInvalidDeviceFunction);
    if (sizeof...(P) && !args)
        return (cudaError_t)gshmem_emu_set_error(cudaErrorInvalidValue);
    if (int e = gshmem_emu_func_shmem(reinterpret_cast<const void *>(fn), shmem))
        return (cudaError_t)e;
    closure<P...> *c = closure_from(fn, args, std::index_sequence_for<P...>{});
    return (cudaError_t)gshmem_emu_launch_ex(g, b, shmem, s, &run<P...>, c, &release<P...>, flags);
}
template <class...> struct not_emulated : std::false_type {};
/* runs before main in every unit that includes this: the library learns the program's kernels run on the CPU */
static const int registered = gshmem_emu_program(GSHMEM_EMU_ABI_VERSION);
} // namespace gshmem_emu

template <class... P>
inline cudaError_t cudaLaunchKernel(void (*fn)(P...), dim3 g, dim3 b, void **args, size_t shmem = 0,
                                    cudaStream_t s = nullptr) {
    return gshmem_emu::launch_args(fn, g, b, args, shmem, s, 0);
}
/* Every block resident at once, so that cooperative_groups::this_grid().sync() may gather them: a grid larger than
 * the emulated GPU holds is refused (cudaErrorCooperativeLaunchTooLarge), as on a GPU */
template <class... P>
inline cudaError_t cudaLaunchCooperativeKernel(void (*fn)(P...), dim3 g, dim3 b, void **args, size_t shmem = 0,
                                               cudaStream_t s = nullptr) {
    return gshmem_emu::launch_args(fn, g, b, args, shmem, s, GSHMEM_EMU_LAUNCH_COOPERATIVE);
}
/* The C forms take the kernel as a const void *, which does not say how to pass its arguments on the CPU: oshcc
 * --emulate-gpu rewrites a cast of a kernel's name to (const void *) or (void *) into one through
 * gshmem_emu::kreg, which records the kernel's launcher under its address (nvshmemx_collective_launch and programs
 * that launch by pointer do that); an address never cast so is refused, cudaErrorInvalidDeviceFunction. */
namespace gshmem_emu {
typedef cudaError_t (*erased_launch)(const void *, dim3, dim3, void **, size_t, cudaStream_t, unsigned);
struct kernel_entry {
    const void *fn;
    erased_launch launch;
};
inline kernel_entry kernel_table[1024];
inline int kernel_count;
template <class... P>
cudaError_t launch_erased(const void *fn, dim3 g, dim3 b, void **a, size_t s, cudaStream_t st, unsigned f) {
    return launch_args(reinterpret_cast<void (*)(P...)>(const_cast<void *>(fn)), g, b, a, s, st, f);
}
inline erased_launch kernel_find(const void *fn) {
    int n = __atomic_load_n(&kernel_count, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n && i < 1024; i++)
        if (kernel_table[i].fn == fn)
            return kernel_table[i].launch;
    return nullptr;
}
template <class... P> inline void (*kreg(void (*fn)(P...)))(P...) {
    static int lock;
    if (!kernel_find((const void *)fn)) {
        while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
            gshmem_emu_yield();
        int n = kernel_count;
        if (n < 1024 && !kernel_find((const void *)fn)) {
            kernel_table[n] = kernel_entry{(const void *)fn, &launch_erased<P...>};
            __atomic_store_n(&kernel_count, n + 1, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
    }
    return fn;
}
/* anything else cast to a pointer passes through as it was */
template <class T, class = std::enable_if_t<!std::is_function<std::remove_pointer_t<std::decay_t<T>>>::value>>
inline T &&kreg(T &&v) {
    return std::forward<T>(v);
}
inline cudaError_t launch_ptr(const char *name, const void *fn, dim3 g, dim3 b, void **args, size_t shmem,
                              cudaStream_t s, unsigned flags) {
    erased_launch l = fn ? kernel_find(fn) : nullptr;
    if (!l) {
        std::fprintf(stderr,
                     "%s: the kernel at %p was not cast to (const void *) by name in a file oshcc --emulate-gpu "
                     "compiled, so the emulation does not know its parameters: cast it there, or launch it with "
                     "<<<>>> or the kernel itself\n",
                     name, fn);
        return (cudaError_t)gshmem_emu_set_error(cudaErrorInvalidDeviceFunction);
    }
    return l(fn, g, b, args, shmem, s, flags);
}
} // namespace gshmem_emu
inline cudaError_t cudaLaunchKernel(const void *fn, dim3 g, dim3 b, void **args, size_t shmem = 0,
                                    cudaStream_t s = nullptr) {
    return gshmem_emu::launch_ptr("cudaLaunchKernel", fn, g, b, args, shmem, s, 0);
}
inline cudaError_t cudaLaunchCooperativeKernel(const void *fn, dim3 g, dim3 b, void **args, size_t shmem = 0,
                                               cudaStream_t s = nullptr) {
    return gshmem_emu::launch_ptr("cudaLaunchCooperativeKernel", fn, g, b, args, shmem, s,
                                  GSHMEM_EMU_LAUNCH_COOPERATIVE);
}
/* An SM of the emulated GPU runs one block at a time (docs/device.md) */
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, F fn, int block_size, size_t,
                                                                          unsigned = 0) {
    if (!n || !fn || block_size <= 0)
        return (cudaError_t)gshmem_emu_set_error(cudaErrorInvalidValue);
    *n = block_size <= 1024 && gshmem_emu_coop_max_blocks((unsigned)block_size) > 0;
    return cudaSuccess;
}
template <class F>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F fn, int block_size, size_t shmem) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, fn, block_size, shmem, 0);
}

/* ---- not emulated: a call stops compilation with the feature's name ---- */
#define GSHMEM_EMU_NOT_EMULATED(name, what)                                                                            \
    template <class... A> inline cudaError_t name(A...) {                                                              \
        static_assert(gshmem_emu::not_emulated<A...>::value,                                                           \
                      #name ": " what " is not emulated by oshcc --emulate-gpu (docs/device.md lists what is)");       \
        return cudaErrorNotSupported;                                                                                  \
    }
GSHMEM_EMU_NOT_EMULATED(cudaMallocFromPoolAsync, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaDeviceGetDefaultMemPool, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaDeviceGetMemPool, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaDeviceSetMemPool, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaMemPoolCreate, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaMemPoolDestroy, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaMemPoolSetAttribute, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaMemPoolGetAttribute, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaMemPoolSetAccess, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaMemPoolTrimTo, "memory pools")
GSHMEM_EMU_NOT_EMULATED(cudaLaunchCooperativeKernelMultiDevice, "a cooperative launch over several devices")
GSHMEM_EMU_NOT_EMULATED(cudaLaunchKernelEx, "launch attributes (clusters, programmatic launch)")
#undef GSHMEM_EMU_NOT_EMULATED
/* (a pool's form of cudaMallocAsync) */
template <class T> inline cudaError_t cudaMallocAsync(T **, size_t, cudaMemPool_t, cudaStream_t) {
    static_assert(gshmem_emu::not_emulated<T>::value,
                  "cudaMallocAsync from a memory pool: memory pools are not emulated by oshcc --emulate-gpu "
                  "(docs/device.md lists what is)");
    return cudaErrorNotSupported;
}

#endif
