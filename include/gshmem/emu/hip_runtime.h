/* hip_runtime.h - what a HIP program sees when `oshcc --emulate-gpu` builds it for the CPU: HIP's runtime names
 * (memory, streams, events, launches, errors) and device built-ins over the CUDA emulation of gshmem/emu/cuda.hpp,
 * each checking its arguments as HIP documents. <hip/hip_runtime.h> leads here (include/gshmem/emu/sys/hip). C++17.
 *
 * The emulated GPU's wavefront is 32 lanes (warpSize, hipDeviceProp_t::warpSize): the width of AMD's RDNA GPUs in
 * wave32 mode and of the CUDA emulation's warps, which the device library's wavefront (_htg) forms share. CDNA GPUs
 * (MI100-MI300) run 64-lane wavefronts; a program that reads warpSize, as HIP asks, runs on both. */
#ifndef GSHMEM_EMU_HIP_RUNTIME_H
#define GSHMEM_EMU_HIP_RUNTIME_H
#include <gshmem/emu/cuda.hpp>

#include <cstdint>

#define GSHMEM_EMU_HIP 1
/* HIP's rules where they differ from CUDA's (a stream of another device) */
static const int gshmem_emu_hip_rules = gshmem_emu_rules(1);
#define __HIP_EMULATED_BY_GSHMEM__ 1
#define HIP_SYMBOL(X) X
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_DYNAMIC_SHARED(type, var) type *const var = (type *)gshmem_emu_dyn_shared();
/* the index built-ins' older HIP names */
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

/* ---- errors: HIP's codes are CUDA's numbers for every error the emulation reports, so one cast carries them; as
 * HIP's, the type is nodiscard ---- */
enum [[nodiscard]] hipError_t{
    hipSuccess = 0,
    hipErrorInvalidValue = 1,
    hipErrorOutOfMemory = 2,
    hipErrorMemoryAllocation = 2,
    hipErrorNotInitialized = 3,
    hipErrorInitializationError = 3,
    hipErrorInvalidConfiguration = 9,
    hipErrorInvalidMemcpyDirection = 21,
    hipErrorInvalidDeviceFunction = 98,
    hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101,
    hipErrorInvalidHandle = 400,
    hipErrorInvalidResourceHandle = 400,
    hipErrorNotReady = 600,
    hipErrorLaunchFailure = 719,
    hipErrorCooperativeLaunchTooLarge = 720,
    hipErrorNotSupported = 801,
    hipErrorStreamCaptureUnsupported = 900,
    hipErrorUnknown = 999,
};
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaHostFn_t hipHostFn_t;
enum hipMemcpyKind {
    hipMemcpyHostToHost = 0,
    hipMemcpyHostToDevice = 1,
    hipMemcpyDeviceToHost = 2,
    hipMemcpyDeviceToDevice = 3,
    hipMemcpyDefault = 4
};
#define hipStreamDefault 0x0
#define hipStreamNonBlocking 0x1
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4
#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4
#define hipHostMallocNumaUser 0x20000000
#define hipHostMallocCoherent 0x40000000
#define hipHostMallocNonCoherent 0x80000000
#define hipMemAttachGlobal 0x1
#define hipMemAttachHost 0x2

namespace gshmem_emu_hip {
inline hipError_t err(int e) { return (hipError_t)e; }
/* an argument as the kernel's parameter receives it: converted implicitly, as HIP's launch converts them */
template <class P> inline typename std::decay<P>::type formal(typename std::decay<P>::type v) { return v; }
inline hipError_t fail(hipError_t e) { return (hipError_t)gshmem_emu_set_error((int)e); }
} // namespace gshmem_emu_hip

inline const char *hipGetErrorName(hipError_t e) {
    switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorNotInitialized: return "hipErrorNotInitialized";
    case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
    case hipErrorInvalidMemcpyDirection: return "hipErrorInvalidMemcpyDirection";
    case hipErrorInvalidDeviceFunction: return "hipErrorInvalidDeviceFunction";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
    case hipErrorNotReady: return "hipErrorNotReady";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorCooperativeLaunchTooLarge: return "hipErrorCooperativeLaunchTooLarge";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    case hipErrorStreamCaptureUnsupported: return "hipErrorStreamCaptureUnsupported";
    default: return "hipErrorUnknown";
    }
}
inline const char *hipGetErrorString(hipError_t e) {
    switch (e) {
    case hipErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case hipErrorLaunchFailure: return "unspecified launch failure";
    case hipErrorNotInitialized: return "initialization error";
    default: return cudaGetErrorString((cudaError_t)e);
    }
}
inline hipError_t hipGetLastError(void) { return gshmem_emu_hip::err(gshmem_emu_last_error(0)); }
inline hipError_t hipPeekAtLastError(void) { return gshmem_emu_hip::err(gshmem_emu_last_error(1)); }

/* ---- devices ---- */
struct hipDeviceProp_t {
    char name[256];
    size_t totalGlobalMem, sharedMemPerBlock;
    int warpSize, maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], multiProcessorCount, major, minor,
        concurrentKernels, managedMemory, canMapHostMemory, cooperativeLaunch, gcnArch;
    char gcnArchName[256];
};
enum hipDeviceAttribute_t { /* (HIP's values, not CUDA's) */
                            hipDeviceAttributeCooperativeLaunch = 10,
                            hipDeviceAttributeComputeCapabilityMajor = 23,
                            hipDeviceAttributeMaxThreadsPerBlock = 56,
                            hipDeviceAttributeComputeCapabilityMinor = 61,
                            hipDeviceAttributeMultiprocessorCount = 63,
                            hipDeviceAttributeWarpSize = 87,
};
inline hipError_t hipSetDevice(int d) { return gshmem_emu_hip::err(gshmem_emu_set_device(d)); }
inline hipError_t hipGetDevice(int *d) {
    return d ? gshmem_emu_hip::err(gshmem_emu_get_device(d)) : gshmem_emu_hip::fail(hipErrorInvalidValue);
}
inline hipError_t hipGetDeviceCount(int *n) {
    return n ? gshmem_emu_hip::err(gshmem_emu_device_count(n)) : gshmem_emu_hip::fail(hipErrorInvalidValue);
}
inline hipError_t hipDeviceSynchronize(void) { return gshmem_emu_hip::err(gshmem_emu_device_synchronize()); }
inline hipError_t hipDeviceReset(void) { return gshmem_emu_hip::err(gshmem_emu_device_synchronize()); }
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t *p, int d) {
    cudaDeviceProp c;
    if (!p)
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    hipError_t e = gshmem_emu_hip::err(cudaGetDeviceProperties(&c, d));
    if (e)
        return e;
    std::memset(p, 0, sizeof *p);
    std::memcpy(p->name, c.name, sizeof p->name);
    std::snprintf(p->gcnArchName, sizeof p->gcnArchName, "emulated");
    p->totalGlobalMem = c.totalGlobalMem;
    p->sharedMemPerBlock = c.sharedMemPerBlock;
    p->warpSize = warpSize;
    p->maxThreadsPerBlock = c.maxThreadsPerBlock;
    for (int i = 0; i < 3; i++) {
        p->maxThreadsDim[i] = c.maxThreadsDim[i];
        p->maxGridSize[i] = c.maxGridSize[i];
    }
    p->multiProcessorCount = c.multiProcessorCount;
    p->major = c.major;
    p->minor = c.minor;
    p->concurrentKernels = p->managedMemory = p->canMapHostMemory = p->cooperativeLaunch = 1;
    return hipSuccess;
}
inline hipError_t hipDeviceGetAttribute(int *v, hipDeviceAttribute_t a, int d) {
    hipDeviceProp_t p;
    if (!v)
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    hipError_t e = hipGetDeviceProperties(&p, d);
    if (e)
        return e;
    switch (a) {
    case hipDeviceAttributeWarpSize: *v = p.warpSize; break;
    case hipDeviceAttributeMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case hipDeviceAttributeMultiprocessorCount: *v = p.multiProcessorCount; break;
    case hipDeviceAttributeComputeCapabilityMajor: *v = p.major; break;
    case hipDeviceAttributeComputeCapabilityMinor: *v = p.minor; break;
    case hipDeviceAttributeCooperativeLaunch: *v = 1; break;
    default: return gshmem_emu_hip::fail(hipErrorInvalidValue);
    }
    return hipSuccess;
}

/* ---- memory ---- */
/* "If size is 0, no memory is allocated, *ptr returns nullptr, and hipSuccess is returned" (hipMalloc) */
inline hipError_t hipMalloc(void **p, size_t n) {
    if (!p)
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    if (!n) {
        *p = nullptr;
        return hipSuccess;
    }
    return gshmem_emu_hip::err(gshmem_emu_malloc(p, n, GSHMEM_EMU_MEM_DEVICE));
}
template <class T> inline hipError_t hipMalloc(T **p, size_t n) { return hipMalloc((void **)p, n); }
inline hipError_t hipFree(void *p) { return gshmem_emu_hip::err(gshmem_emu_free(p, GSHMEM_EMU_MEM_DEVICE)); }
inline hipError_t hipHostMalloc(void **p, size_t n, unsigned flags = hipHostMallocDefault) {
    const unsigned known = hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined |
                           hipHostMallocNumaUser | hipHostMallocCoherent | hipHostMallocNonCoherent;
    /* coherent and non-coherent at once is refused */
    if (!p || (flags & ~known) || ((flags & hipHostMallocCoherent) && (flags & hipHostMallocNonCoherent)))
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    if (!n) {
        *p = nullptr;
        return hipSuccess;
    }
    return gshmem_emu_hip::err(gshmem_emu_malloc(p, n, GSHMEM_EMU_MEM_HOST));
}
template <class T> inline hipError_t hipHostMalloc(T **p, size_t n, unsigned flags = hipHostMallocDefault) {
    return hipHostMalloc((void **)p, n, flags);
}
inline hipError_t hipHostFree(void *p) { return gshmem_emu_hip::err(gshmem_emu_free(p, GSHMEM_EMU_MEM_HOST)); }
inline hipError_t hipMallocManaged(void **p, size_t n, unsigned flags = hipMemAttachGlobal) {
    if (!p || (flags != hipMemAttachGlobal && flags != hipMemAttachHost))
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    if (!n) {
        *p = nullptr;
        return hipSuccess;
    }
    return gshmem_emu_hip::err(gshmem_emu_malloc(p, n, GSHMEM_EMU_MEM_MANAGED));
}
template <class T> inline hipError_t hipMallocManaged(T **p, size_t n, unsigned flags = hipMemAttachGlobal) {
    return hipMallocManaged((void **)p, n, flags);
}
namespace gshmem_emu_hip {
inline bool bad_kind(hipMemcpyKind k) { return (unsigned)k > (unsigned)hipMemcpyDefault; }
} // namespace gshmem_emu_hip
inline hipError_t hipMemcpy(void *d, const void *s, size_t n, hipMemcpyKind k) {
    if (gshmem_emu_hip::bad_kind(k))
        return gshmem_emu_hip::fail(hipErrorInvalidMemcpyDirection);
    return gshmem_emu_hip::err(gshmem_emu_memcpy(d, s, n, nullptr, 0));
}
inline hipError_t hipMemcpyAsync(void *d, const void *s, size_t n, hipMemcpyKind k, hipStream_t st = nullptr) {
    if (gshmem_emu_hip::bad_kind(k))
        return gshmem_emu_hip::fail(hipErrorInvalidMemcpyDirection);
    return gshmem_emu_hip::err(gshmem_emu_memcpy(d, s, n, st, 1));
}
inline hipError_t hipMemcpyHtoD(void *d, const void *s, size_t n) { return hipMemcpy(d, s, n, hipMemcpyHostToDevice); }
inline hipError_t hipMemcpyDtoH(void *d, const void *s, size_t n) { return hipMemcpy(d, s, n, hipMemcpyDeviceToHost); }
inline hipError_t hipMemset(void *d, int v, size_t n) {
    if (!d && n)
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    return gshmem_emu_hip::err(gshmem_emu_memset(d, v, n, nullptr, 0));
}
inline hipError_t hipMemsetAsync(void *d, int v, size_t n, hipStream_t st = nullptr) {
    if (!d && n)
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    return gshmem_emu_hip::err(gshmem_emu_memset(d, v, n, st, 1));
}
/* (HIP_SYMBOL(x) is x on AMD: the symbol is passed as the object) */
template <class T>
inline hipError_t hipMemcpyToSymbol(T &sym, const void *src, size_t n, size_t off = 0,
                                    hipMemcpyKind k = hipMemcpyHostToDevice) {
    if (gshmem_emu_hip::bad_kind(k))
        return gshmem_emu_hip::fail(hipErrorInvalidMemcpyDirection);
    if (off + n > sizeof(T))
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    return gshmem_emu_hip::err(gshmem_emu_memcpy((char *)&sym + off, src, n, nullptr, 0));
}
template <class T>
inline hipError_t hipMemcpyFromSymbol(void *dst, const T &sym, size_t n, size_t off = 0,
                                      hipMemcpyKind k = hipMemcpyDeviceToHost) {
    if (gshmem_emu_hip::bad_kind(k))
        return gshmem_emu_hip::fail(hipErrorInvalidMemcpyDirection);
    if (off + n > sizeof(T))
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    return gshmem_emu_hip::err(gshmem_emu_memcpy(dst, (const char *)&sym + off, n, nullptr, 0));
}

/* ---- streams and events ---- */
inline hipError_t hipStreamCreate(hipStream_t *s) {
    return s ? gshmem_emu_hip::err(gshmem_emu_stream_create((void **)s, 0))
             : gshmem_emu_hip::fail(hipErrorInvalidValue);
}
inline hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned f) {
    if (!s || (f & ~(unsigned)hipStreamNonBlocking))
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    return gshmem_emu_hip::err(gshmem_emu_stream_create((void **)s, f));
}
inline hipError_t hipStreamDestroy(hipStream_t s) {
    if (!s) /* the null stream is not one to destroy */
        return gshmem_emu_hip::fail(hipErrorInvalidHandle);
    return gshmem_emu_hip::err(gshmem_emu_stream_destroy(s));
}
inline hipError_t hipStreamSynchronize(hipStream_t s) { return gshmem_emu_hip::err(gshmem_emu_stream_synchronize(s)); }
inline hipError_t hipStreamQuery(hipStream_t s) { return gshmem_emu_hip::err(gshmem_emu_stream_query(s)); }
/* "flags: must be 0" */
inline hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned flags = 0) {
    if (flags || !e)
        return gshmem_emu_hip::fail(flags ? hipErrorInvalidValue : hipErrorInvalidHandle);
    return gshmem_emu_hip::err(gshmem_emu_stream_wait_event(s, e));
}
inline hipError_t hipLaunchHostFunc(hipStream_t s, hipHostFn_t fn, void *arg) {
    if (!fn)
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    return gshmem_emu_hip::err(gshmem_emu_host_func(s, fn, arg));
}
/* Interprocess events are not emulated (one process per PE, no IPC event handles): refused as unsupported */
inline hipError_t hipEventCreateWithFlags(hipEvent_t *e, unsigned f) {
    const unsigned known = hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess;
    if (!e || (f & ~known) || ((f & hipEventInterprocess) && !(f & hipEventDisableTiming)))
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    if (f & hipEventInterprocess)
        return gshmem_emu_hip::fail(hipErrorNotSupported);
    return gshmem_emu_hip::err(gshmem_emu_event_create((void **)e, f));
}
inline hipError_t hipEventCreate(hipEvent_t *e) { return hipEventCreateWithFlags(e, hipEventDefault); }
inline hipError_t hipEventDestroy(hipEvent_t e) { return gshmem_emu_hip::err(gshmem_emu_event_destroy(e)); }
inline hipError_t hipEventRecord(hipEvent_t e, hipStream_t s = nullptr) {
    return gshmem_emu_hip::err(gshmem_emu_event_record(e, s));
}
inline hipError_t hipEventSynchronize(hipEvent_t e) { return gshmem_emu_hip::err(gshmem_emu_event_synchronize(e)); }
inline hipError_t hipEventQuery(hipEvent_t e) { return gshmem_emu_hip::err(gshmem_emu_event_query(e)); }
/* HIP: an event never recorded, or one created with hipEventDisableTiming, is an invalid handle here; one recorded
 * but not yet reached is hipErrorNotReady */
inline hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b) {
    unsigned fa = 0, fb = 0;
    int ra = 0, rb = 0;
    if (!ms)
        return gshmem_emu_hip::fail(hipErrorInvalidValue);
    if (!a || !b || gshmem_emu_event_info(a, &fa, &ra) || gshmem_emu_event_info(b, &fb, &rb) || !ra || !rb ||
        ((fa | fb) & hipEventDisableTiming))
        return gshmem_emu_hip::fail(hipErrorInvalidHandle);
    return gshmem_emu_hip::err(gshmem_emu_event_elapsed(ms, a, b));
}

/* ---- launches: hipLaunchKernelGGL(kernel, grid, block, dynamic shared bytes, stream, args...), and <<<...>>>
 * (oshcc --emulate-gpu rewrites it for .hip sources and HIP .cpp ones). As HIP's, the argument count must be the
 * kernel's and each argument converts to its parameter's type; an invalid configuration is the launch's error,
 * returned by hipGetLastError. ---- */
template <class... P, class... A>
inline void hipLaunchKernelGGL(void (*kernel)(P...), const dim3 &grid, const dim3 &block, std::uint32_t shmem,
                               hipStream_t stream, A &&...args) {
    static_assert(sizeof...(P) == sizeof...(A), "hipLaunchKernelGGL: Argument Count Mismatch (the kernel's "
                                                "parameters and the arguments given differ in number)");
    kernel << ::gshmem_emu::cfg(grid, block, shmem, stream)
           << ::gshmem_emu::args(gshmem_emu_hip::formal<P>(std::forward<A>(args))...);
}
template <class... P>
inline hipError_t hipLaunchKernel(void (*fn)(P...), dim3 g, dim3 b, void **args, size_t shmem = 0,
                                  hipStream_t s = nullptr) {
    return gshmem_emu_hip::err(gshmem_emu::launch_args(fn, g, b, args, shmem, s, 0));
}
template <class... P>
inline hipError_t hipLaunchCooperativeKernel(void (*fn)(P...), dim3 g, dim3 b, void **args, unsigned shmem = 0,
                                             hipStream_t s = nullptr) {
    return gshmem_emu_hip::err(gshmem_emu::launch_args(fn, g, b, args, shmem, s, GSHMEM_EMU_LAUNCH_COOPERATIVE));
}

/* ---- device built-ins HIP names differently: no mask (the whole wavefront), a 64-bit ballot ---- */
inline unsigned __lane_id(void) { return gshmem_emu_cur->lane; }
inline unsigned long long __ballot(int p) {
    return (unsigned long long)gshmem_emu_vote(0xffffffffu, GSHMEM_EMU_VOTE_BALLOT, p);
}
inline int __any(int p) { return (int)gshmem_emu_vote(0xffffffffu, GSHMEM_EMU_VOTE_ANY, p); }
inline int __all(int p) { return (int)gshmem_emu_vote(0xffffffffu, GSHMEM_EMU_VOTE_ALL, p); }
template <class T> inline T __shfl(T v, int src, int w = warpSize) {
    return gshmem_emu::shfl(0xffffffffu, v, GSHMEM_EMU_SHFL_IDX, src, w);
}
template <class T> inline T __shfl_up(T v, unsigned d, int w = warpSize) {
    return gshmem_emu::shfl(0xffffffffu, v, GSHMEM_EMU_SHFL_UP, (int)d, w);
}
template <class T> inline T __shfl_down(T v, unsigned d, int w = warpSize) {
    return gshmem_emu::shfl(0xffffffffu, v, GSHMEM_EMU_SHFL_DOWN, (int)d, w);
}
template <class T> inline T __shfl_xor(T v, int lm, int w = warpSize) {
    return gshmem_emu::shfl(0xffffffffu, v, GSHMEM_EMU_SHFL_XOR, lm, w);
}
inline long long wall_clock64(void) { return clock64(); }

/* ---- not emulated: a call stops compilation with the feature's name ---- */
#define GSHMEM_EMU_HIP_NOT_EMULATED(name, what)                                                                        \
    template <class... A> inline hipError_t name(A...) {                                                               \
        static_assert(gshmem_emu::not_emulated<A...>::value,                                                           \
                      #name ": " what " is not emulated by oshcc --emulate-gpu (docs/device.md lists what is)");       \
        return hipErrorNotSupported;                                                                                   \
    }
GSHMEM_EMU_HIP_NOT_EMULATED(hipExtLaunchKernelGGL, "hipExtLaunchKernelGGL (launch with events)")
GSHMEM_EMU_HIP_NOT_EMULATED(hipModuleLoad, "code objects (hipModule*)")
GSHMEM_EMU_HIP_NOT_EMULATED(hipModuleLaunchKernel, "code objects (hipModule*)")
GSHMEM_EMU_HIP_NOT_EMULATED(hipIpcGetMemHandle, "IPC memory handles")
GSHMEM_EMU_HIP_NOT_EMULATED(hipIpcOpenMemHandle, "IPC memory handles")
GSHMEM_EMU_HIP_NOT_EMULATED(hipMallocAsync, "stream-ordered allocation under the HIP names")
#undef GSHMEM_EMU_HIP_NOT_EMULATED

#endif
