/* gtl_cuda.c - the CUDA backend of the GPU transport layer. It loads the driver (libcuda.so.1) at run time through
 * one list of symbols, so one build of gshmem runs with or without a GPU and links against no CUDA library. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gtl.h"
#include "gpu/gtl_kernels.h"
#include "gpu/gtl_stream.h"
#include "state.h"

/* The few driver API types used, declared here so the build needs no CUDA headers (values from cuda.h). */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUstream, *CUmodule, *CUfunction, *CUevent;
typedef unsigned long long CUdeviceptr;
typedef struct {
    char reserved[64];
} CUipcMemHandle;
#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_READY 600
#define CU_EVENT_DISABLE_TIMING 2
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_SYNC_MEMOPS 6
#define CU_POINTER_ATTRIBUTE_RANGE_START_ADDR 11
#define CU_POINTER_ATTRIBUTE_RANGE_SIZE 12
#define CU_MEMORYTYPE_DEVICE 2
#define CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS 1
#define CU_STREAM_NON_BLOCKING 1
#define CU_MEMHOSTALLOC_PORTABLE 1
#define CU_MEMHOSTALLOC_DEVICEMAP 2
#define CU_MEMHOSTREGISTER_PORTABLE 1
#define CU_MEMORYTYPE_UNIFIED 4
#define CUDA_ERROR_DEVICE_UNAVAILABLE 46
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_COMPUTE_MODE 20
#define CU_COMPUTEMODE_PROHIBITED 2
#define CU_COMPUTEMODE_EXCLUSIVE_PROCESS 3
#define CU_DEVICE_ATTRIBUTE_MPS_ENABLED 133 /* CUDA 12.3 on; older drivers refuse the attribute: not known */
#define CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED 3
#define CU_EXEC_AFFINITY_TYPE_SM_COUNT 0
typedef struct {
    int type;
    union {
        struct {
            unsigned val;
        } smCount;
    } param;
} CUexecAffinityParam;
typedef struct {
    size_t srcXInBytes, srcY;
    int srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    void *srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    void *dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

/* name in the driver, parameter list, our field (every entry point returns CUresult) */
#define CUDA_SYMBOLS(X)                                                                                                \
    X("cuInit", (unsigned), init)                                                                                      \
    X("cuDriverGetVersion", (int *), driver_version)                                                                   \
    X("cuDeviceGetCount", (int *), device_count)                                                                       \
    X("cuDeviceGet", (CUdevice *, int), device_get)                                                                    \
    X("cuDeviceGetName", (char *, int, CUdevice), device_name)                                                         \
    X("cuDeviceGetPCIBusId", (char *, int, CUdevice), device_busid)                                                    \
    X("cuDeviceTotalMem_v2", (size_t *, CUdevice), device_mem)                                                         \
    X("cuDeviceGetAttribute", (int *, int, CUdevice), device_attr)                                                     \
    X("cuDeviceGetByPCIBusId", (CUdevice *, const char *), device_by_busid)                                            \
    X("cuDeviceCanAccessPeer", (int *, CUdevice, CUdevice), can_access_peer)                                           \
    X("cuDeviceGetP2PAttribute", (int *, int, CUdevice, CUdevice), p2p_attr)                                           \
    X("cuCtxGetCurrent", (CUcontext *), ctx_get_current)                                                               \
    X("cuCtxSetCurrent", (CUcontext), ctx_set_current)                                                                 \
    X("cuCtxGetDevice", (CUdevice *), ctx_get_device)                                                                  \
    X("cuCtxSynchronize", (void), ctx_sync)                                                                            \
    X("cuDevicePrimaryCtxRetain", (CUcontext *, CUdevice), primary_retain)                                             \
    X("cuDevicePrimaryCtxRelease_v2", (CUdevice), primary_release)                                                     \
    X("cuStreamCreate", (CUstream *, unsigned), stream_create)                                                         \
    X("cuStreamDestroy_v2", (CUstream), stream_destroy)                                                                \
    X("cuStreamSynchronize", (CUstream), stream_sync)                                                                  \
    X("cuEventCreate", (CUevent *, unsigned), event_create)                                                            \
    X("cuEventDestroy_v2", (CUevent), event_destroy)                                                                   \
    X("cuEventRecord", (CUevent, CUstream), event_record)                                                              \
    X("cuEventQuery", (CUevent), event_query)                                                                          \
    X("cuEventSynchronize", (CUevent), event_sync)                                                                     \
    X("cuMemAlloc_v2", (CUdeviceptr *, size_t), mem_alloc)                                                             \
    X("cuMemFree_v2", (CUdeviceptr), mem_free)                                                                         \
    X("cuMemHostAlloc", (void **, size_t, unsigned), host_alloc)                                                       \
    X("cuMemFreeHost", (void *), host_free)                                                                            \
    X("cuMemHostRegister_v2", (void *, size_t, unsigned), host_register)                                               \
    X("cuMemHostUnregister", (void *), host_unregister)                                                                \
    X("cuMemcpyAsync", (CUdeviceptr, CUdeviceptr, size_t, CUstream), memcpy_async)                                     \
    X("cuMemcpy2DAsync_v2", (const CUDA_MEMCPY2D *, CUstream), memcpy2d_async)                                         \
    X("cuMemsetD8Async", (CUdeviceptr, unsigned char, size_t, CUstream), memset_async)                                 \
    X("cuPointerGetAttribute", (void *, int, CUdeviceptr), ptr_attr)                                                   \
    X("cuPointerSetAttribute", (const void *, int, CUdeviceptr), ptr_set_attr)                                         \
    X("cuIpcGetMemHandle", (CUipcMemHandle *, CUdeviceptr), ipc_get)                                                   \
    X("cuIpcOpenMemHandle_v2", (CUdeviceptr *, CUipcMemHandle, unsigned), ipc_open)                                    \
    X("cuIpcCloseMemHandle", (CUdeviceptr), ipc_close)                                                                 \
    X("cuModuleLoadData", (CUmodule *, const void *), module_load)                                                     \
    X("cuModuleUnload", (CUmodule), module_unload)                                                                     \
    X("cuModuleGetFunction", (CUfunction *, CUmodule, const char *), module_function)                                  \
    X("cuLaunchKernel",                                                                                                \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void **, void **),  \
      launch)                                                                                                          \
    X("cuGetErrorString", (CUresult, const char **), error_string)

static struct {
#define X(sym, args, field) CUresult(*field) args;
    CUDA_SYMBOLS(X)
#undef X
} cu;

static void *lib;
static CUcontext ctx;
static CUdevice dev;
static int retained;
static struct gtl_stream_ops ops; /* the driver's calls for gtl_stream.c, filled once the driver is loaded */
static struct gtl_streams gs;
static CUfunction amo_fn[2];
/* kernels.cu's reductions gshmemi_red_<op>_<type>, looked up on first use */
static CUfunction red_fn[SHMEMI_OP_PROD + 1][GTLK_NONE];
static unsigned long long *amo_out; /* pinned, mapped: where the atomic kernel leaves the old value */

#ifdef GSHMEM_HAVE_CUDA_PTX
#include "kernels_ptx.h" /* generated: static const unsigned char gshmemi_kernels_ptx[] */
#endif
#ifdef GSHMEM_HAVE_CUDA_FATBIN
#include "kernels_fatbin.h" /* generated: gshmemi_kernels_fatbin[], machine code for GSHMEM_CUDA_SASS_ARCHS */
#endif
static CUmodule mod;

static const char *errstr(CUresult r) {
    const char *s = NULL;
    if (cu.error_string)
        cu.error_string(r, &s);
    return s ? s : "unknown CUDA error";
}

/* The context is per thread in the driver: any thread that enters the library may be the first to use it, and the
 * application may make another one current on it (cudaSetDevice to another GPU) between our calls. Each entry point
 * makes ours current if it is not; a context of the application's it displaced is put back on the way out (every
 * entry point of the backend table goes through ENTRY below), so the application's later calls on that thread still
 * reach its own device. A thread that had none keeps ours (the next call then costs one cuCtxGetCurrent). */
static __thread CUcontext displaced;
static int use_ctx(void) {
    CUcontext cur = NULL;
    if (SHMEMI_LIKELY(cu.ctx_get_current(&cur) == CUDA_SUCCESS && cur == ctx))
        return 0;
    if (cu.ctx_set_current(ctx) != CUDA_SUCCESS)
        return -1;
    displaced = cur;
    return 0;
}
static void done_ctx(void) {
    if (SHMEMI_UNLIKELY(displaced != NULL)) {
        cu.ctx_set_current(displaced);
        displaced = NULL;
    }
}

static void unload(void) {
    if (lib)
        dlclose(lib);
    lib = NULL;
    memset(&cu, 0, sizeof cu);
}

/* device i's PCI address, for the topology-aware choice of this PE's device (shmemi_gtl_pick_busid) */
static int busid(int i, char *id, int len) {
    CUdevice d;
    return cu.device_get(&d, i) != CUDA_SUCCESS || cu.device_busid(id, len, d) != CUDA_SUCCESS;
}

/* gtl_stream.c's calls that differ from the driver's in their arguments */
static int op_copy(void *dst, const void *src, size_t n, void *st) {
    return cu.memcpy_async((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, n, st);
}
static int op_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, void *st) {
    CUDA_MEMCPY2D m = {.srcMemoryType = CU_MEMORYTYPE_UNIFIED,
                       .srcDevice = (CUdeviceptr)(uintptr_t)src,
                       .srcPitch = spitch,
                       .dstMemoryType = CU_MEMORYTYPE_UNIFIED,
                       .dstDevice = (CUdeviceptr)(uintptr_t)dst,
                       .dstPitch = dpitch,
                       .WidthInBytes = width,
                       .Height = height};
    return cu.memcpy2d_async(&m, st);
}
static int op_memset(void *dst, int byte, size_t n, void *st) {
    return cu.memset_async((CUdeviceptr)(uintptr_t)dst, (unsigned char)byte, n, st);
}
static int op_launch(void *fn, unsigned blocks, unsigned threads, void *st, void **args) {
    return cu.launch(fn, blocks, 1, 1, threads, 1, 1, 0, st, args, NULL);
}
static int op_event_create(void **ev) { return cu.event_create(ev, CU_EVENT_DISABLE_TIMING); }
static int op_stream_create(void **st) { return cu.stream_create(st, CU_STREAM_NON_BLOCKING); }
/* (on the thread gtls_idle starts: our context made current there, and left so as the thread ends) */
static int op_device_sync(void) { return use_ctx() ? -1 : cu.ctx_sync(); }
static int op_on_device(const void *p) {
    unsigned type = 0;
    return cu.ptr_attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
           type == CU_MEMORYTYPE_DEVICE;
}

static int cuda_init(int local_rank, int nlocal, char *desc, size_t desclen, char *why, size_t whylen) {
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, whylen, "no CUDA driver (libcuda.so.1 cannot be loaded: %s)", dlerror());
        return -1;
    }
#define X(sym, args, field)                                                                                            \
    if (!(*(void **)&cu.field = dlsym(lib, sym))) {                                                                    \
        snprintf(why, whylen, "the CUDA driver lacks %s (too old?)", sym);                                             \
        unload();                                                                                                      \
        return -1;                                                                                                     \
    }
    CUDA_SYMBOLS(X)
#undef X
    CUresult r = cu.init(0);
    int n = 0;
    if (r != CUDA_SUCCESS || cu.device_count(&n) != CUDA_SUCCESS || n == 0) {
        snprintf(why, whylen, "%s", r != CUDA_SUCCESS ? errstr(r) : "the CUDA driver sees no device");
        unload();
        return -1;
    }
    /* the GPU the application made current before initializing, else the one shmemi_gtl_pick_device chooses for
     * this PE (several PEs may share one: that works without MPS) */
    CUcontext cur = NULL;
    if (cu.ctx_get_current(&cur) == CUDA_SUCCESS && cur && cu.ctx_get_device(&dev) == CUDA_SUCCESS) {
        ctx = cur;
    } else {
        int want = shmemi_gtl_pick_busid(n, busid, local_rank, nlocal), mode = 0;
        if ((r = cu.device_get(&dev, want)) != CUDA_SUCCESS || (r = cu.primary_retain(&ctx, dev)) != CUDA_SUCCESS) {
            /* a device only one process may use (or none): say which mode, and what lets several PEs share it */
            if (cu.device_attr(&mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev) == CUDA_SUCCESS &&
                mode == CU_COMPUTEMODE_EXCLUSIVE_PROCESS)
                snprintf(why, whylen,
                         "cannot open device %d: %s: it is in EXCLUSIVE_PROCESS compute mode and another process has "
                         "it (%d PEs on this node, %d GPU%s); start MPS (nvidia-cuda-mps-control -d), under which "
                         "processes may share such a GPU, or set the compute mode to DEFAULT (nvidia-smi -c DEFAULT), "
                         "or run at most one PE per GPU",
                         want, errstr(r), nlocal, n, n == 1 ? "" : "s");
            else if (mode == CU_COMPUTEMODE_PROHIBITED)
                snprintf(why, whylen,
                         "cannot open device %d: %s: it is in PROHIBITED compute mode (no process may use it); set "
                         "the compute mode to DEFAULT (nvidia-smi -c DEFAULT) or hide it (CUDA_VISIBLE_DEVICES)",
                         want, errstr(r));
            else
                snprintf(why, whylen, "cannot open device %d: %s", want, errstr(r));
            unload();
            return -1;
        }
        retained = 1;
    }
    displaced = NULL;
    ops = (struct gtl_stream_ops){.copy = op_copy,
                                  .copy2d = op_copy2d,
                                  .memset = op_memset,
                                  .sync = cu.stream_sync,
                                  .launch = op_launch,
                                  .event_create = op_event_create,
                                  .event_record = cu.event_record,
                                  .event_query = cu.event_query,
                                  .event_sync = cu.event_sync,
                                  .event_destroy = cu.event_destroy,
                                  .stream_create = op_stream_create,
                                  .stream_destroy = cu.stream_destroy,
                                  .on_device = op_on_device,
                                  .device_sync = op_device_sync,
                                  .not_ready = CUDA_ERROR_NOT_READY};
    int current = 0;
    if ((r = cu.ctx_set_current(ctx)) != CUDA_SUCCESS || (current = 1, r = gtls_open(&gs, &ops)) != CUDA_SUCCESS) {
        snprintf(why, whylen, "cannot %s: %s", current ? "create a stream" : "make the device's context current",
                 errstr(r));
        if (retained)
            cu.primary_release(dev);
        retained = 0;
        unload();
        return -1;
    }
    const char *nokern = "; no atomic kernels (built without nvcc)";
#ifdef GSHMEM_HAVE_CUDA_PTX
    static char kerr[160];
    const char *step = "cuModuleLoadData (the embedded PTX)";
    mod = NULL;
#ifdef GSHMEM_HAVE_CUDA_FATBIN
    /* the machine code built for this GPU if there is some; else (another GPU, or a driver older than the toolkit
     * for SASS of a newer major version) the driver's JIT compiles the PTX */
    if ((r = cu.module_load(&mod, gshmemi_kernels_fatbin)) != CUDA_SUCCESS) {
        shmemi_debug("CUDA: no embedded machine code for this GPU (%s): kernels from the PTX", errstr(r));
        mod = NULL;
    }
#endif
    if ((!mod && (r = cu.module_load(&mod, gshmemi_kernels_ptx)) != CUDA_SUCCESS) ||
        (step = "cuModuleGetFunction", r = cu.module_function(&amo_fn[0], mod, "gshmemi_amo32")) != CUDA_SUCCESS ||
        (r = cu.module_function(&amo_fn[1], mod, "gshmemi_amo64")) != CUDA_SUCCESS ||
        (step = "cuMemHostAlloc",
         r = cu.host_alloc((void **)&amo_out, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP)) !=
            CUDA_SUCCESS) {
        /* atomics on device memory then fail with a message; the rest works, and reductions run on the host */
        snprintf(kerr, sizeof kerr, "; no atomic or reduction kernels (%s: %s)", step, errstr(r));
        nokern = kerr;
        shmemi_debug("CUDA: %s", kerr + 2);
        amo_fn[0] = amo_fn[1] = NULL;
        if (mod)
            cu.module_unload(mod);
        mod = NULL;
    }
    /* small copies as kernels (gtl_stream.c), else every copy on the copy engine */
    gs.cutover = mod ? shmemi_env.gpu_copy_cutover : 0;
    if (gs.cutover && (cu.module_function(&gs.inline_fn[0], mod, "gshmemi_put_inline64") != CUDA_SUCCESS ||
                       cu.module_function(&gs.inline_fn[1], mod, "gshmemi_put_inline4k") != CUDA_SUCCESS ||
                       cu.module_function(&gs.copy_fn, mod, "gshmemi_copy_sm") != CUDA_SUCCESS ||
                       cu.host_alloc((void **)&gs.bounce, GTLS_BOUNCE_SIZE,
                                     CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS))
        gs.cutover = 0;
#endif
    char name[128] = "?";
    size_t mem = 0;
    int ver = 0;
    cu.device_name(name, sizeof name, dev);
    cu.device_mem(&mem, dev);
    cu.driver_version(&ver);
    char cut[64] = "";
    if (gs.cutover)
        snprintf(cut, sizeof cut, "; copies up to %zu B as kernels", gs.cutover);
    snprintf(desc, desclen, "%s (device %d of %d, %zu GiB), driver API %d.%d, shared by %d PE%s of this node%s%s", name,
             (int)dev, n, mem >> 30, ver / 1000, ver % 1000 / 10, nlocal, nlocal == 1 ? "" : "s",
             amo_fn[1] ? "" : nokern, cut);
    return 0;
}

/* Grace-Hopper and other coherent systems: the CPU reaches device memory through the host's page tables (ATS) and
 * accesses managed memory directly. cuDeviceGetAttribute is looked up on its own: a driver without it is not one. */
#define CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES 100
#define CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST 101
static int cuda_coherent(void) {
    int a = 0, b = 0;
    return lib &&
           cu.device_attr(&a, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES, dev) == CUDA_SUCCESS &&
           cu.device_attr(&b, CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST, dev) == CUDA_SUCCESS && a == 1 &&
           b == 1;
}

/* ---- the node's other GPUs, and other processes on this one ---- */
static int cuda_busid(int i, char *id, size_t len) {
    if (!lib)
        return -1;
    if (i < 0)
        return cu.device_busid(id, (int)len, dev) != CUDA_SUCCESS;
    int n = 0;
    return cu.device_count(&n) != CUDA_SUCCESS || i >= n || busid(i, id, (int)len);
}

/* Peer access as cuDeviceCanAccessPeer says, native atomics as the link's attribute says (NVLink has them, PCIe
 * mostly not); a device the driver does not find by bus id is hidden from this process (CUDA_VISIBLE_DEVICES). */
static int cuda_p2p(const char *from, const char *to) {
    CUdevice a, b;
    int can = 0, atom = 0;
    if (!lib || cu.device_by_busid(&a, from) != CUDA_SUCCESS || cu.device_by_busid(&b, to) != CUDA_SUCCESS)
        return -1;
    if (a == b)
        return GTL_P2P_ACCESS | GTL_P2P_ATOMICS;
    if (cu.can_access_peer(&can, a, b) != CUDA_SUCCESS || !can)
        return 0;
    if (cu.p2p_attr(&atom, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, a, b) != CUDA_SUCCESS)
        atom = 0;
    return GTL_P2P_ACCESS | (atom ? GTL_P2P_ATOMICS : 0);
}

/* MPS from the device's attribute (drivers before 12.3 do not say); this process's SMs from the context's execution
 * affinity (CUDA 11.4 on, looked up on its own), which MPS's CUDA_MPS_ACTIVE_THREAD_PERCENTAGE limits */
static int cuda_share(struct gtl_share *sh) {
    int mps = 0, sms = 0;
    sh->mps = cu.device_attr(&mps, CU_DEVICE_ATTRIBUTE_MPS_ENABLED, dev) == CUDA_SUCCESS ? mps != 0 : -1;
    sh->sms = cu.device_attr(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) == CUDA_SUCCESS ? sms : 0;
    sh->sms_mine = 0;
    CUresult (*affinity)(CUexecAffinityParam *, int) = NULL;
    *(void **)&affinity = dlsym(lib, "cuCtxGetExecAffinity");
    CUexecAffinityParam p = {0};
    if (affinity && !use_ctx() && affinity(&p, CU_EXEC_AFFINITY_TYPE_SM_COUNT) == CUDA_SUCCESS)
        sh->sms_mine = (int)p.param.smCount.val;
    return 0;
}

static void cuda_fini(void) {
    if (!lib)
        return;
    use_ctx();
    if (gs.bounce)
        cu.host_free(gs.bounce);
    gs.bounce = NULL;
    gs.cutover = 0;
    gtls_close(&gs);
    if (amo_out)
        cu.host_free(amo_out);
    amo_out = NULL;
    amo_fn[0] = amo_fn[1] = NULL;
    memset(red_fn, 0, sizeof red_fn);
    if (mod)
        cu.module_unload(mod);
    mod = NULL;
    if (retained)
        cu.primary_release(dev);
    retained = 0;
    /* the driver stays loaded: unloading it under a live CUDA runtime of the application is not safe */
}

static int cuda_alloc(size_t size, void **ptr) {
    CUdeviceptr p;
    if (use_ctx() || cu.mem_alloc(&p, size) != CUDA_SUCCESS)
        return -1;
    int one = 1; /* copies into this memory are complete when they return, whatever the source */
    cu.ptr_set_attr(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p);
    *ptr = (void *)(uintptr_t)p;
    return 0;
}

static void cuda_free(void *ptr, size_t size) {
    (void)size;
    if (!use_ctx())
        cu.mem_free((CUdeviceptr)(uintptr_t)ptr);
}

static int cuda_query(const void *p, uintptr_t *base, size_t *size) {
    unsigned type = 0;
    if (use_ctx() || cu.ptr_attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_DEVICE)
        return GTL_MEM_HOST; /* not known to the driver, or host memory (pinned or not): the CPU can touch it */
    /* Managed memory reads as host or device memory depending on where its pages are; either answer is correct (the
     * CPU and the driver's copies both reach it), and asking IS_MANAGED too would cost every pinned host buffer a
     * second driver call per operation (host answers are not cached). */
    CUdeviceptr b = 0;
    size_t s = 0;
    if (cu.ptr_attr(&b, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
        cu.ptr_attr(&s, CU_POINTER_ATTRIBUTE_RANGE_SIZE, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS) {
        *base = (uintptr_t)b;
        *size = s;
    }
    /* Once per allocation (the answer is cached): the application's own copies into it from pageable memory are
     * then complete when they return, so a put from it right after one reads the new data (UCX and Open MPI do the
     * same). Refused for memory from a stream-ordered pool, which is left as it is. */
    int one = 1;
    cu.ptr_set_attr(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, b ? b : (CUdeviceptr)(uintptr_t)p);
    return GTL_MEM_DEVICE;
}

static int cuda_ipc_export(void *base, size_t size, struct gtl_ipc *h) {
    (void)size;
    CUipcMemHandle m;
    if (use_ctx() || cu.ipc_get(&m, (CUdeviceptr)(uintptr_t)base) != CUDA_SUCCESS)
        return -1;
    memcpy(h->bytes, &m, sizeof m);
    return 0;
}

static int cuda_ipc_import(const struct gtl_ipc *h, size_t size, void **ptr) {
    (void)size;
    CUipcMemHandle m;
    CUdeviceptr p;
    memcpy(&m, h->bytes, sizeof m);
    if (use_ctx() || cu.ipc_open(&p, m, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != CUDA_SUCCESS)
        return -1;
    *ptr = (void *)(uintptr_t)p;
    return 0;
}

static void cuda_ipc_close(void *ptr, size_t size) {
    (void)size;
    if (!use_ctx())
        cu.ipc_close((CUdeviceptr)(uintptr_t)ptr);
}

static void cuda_ipc_done(void *base) { (void)base; }

/* Copies go on the library's own stream and are waited for (gtl_stream.c): a copy from pageable host memory may
 * return before its DMA lands otherwise, and OpenSHMEM's blocking routines promise the source is reusable and (for
 * gets) the data there when they return. */
static int cuda_copy(void *dst, const void *src, size_t n) { return use_ctx() ? -1 : gtls_copy(&gs, dst, src, n); }

static int cuda_copy_start(void *dst, const void *src, size_t n, void **ticket) {
    return use_ctx() ? -1 : gtls_copy_start(&gs, dst, src, n, ticket);
}

static int cuda_copy_end(void *ticket, int wait) { return use_ctx() ? -1 : gtls_copy_end(&gs, ticket, wait); }

static int cuda_memset(void *dst, int byte, size_t n) { return use_ctx() ? -1 : gtls_memset(&gs, dst, byte, n); }

static int cuda_amo(void *p, int op, uint64_t value, uint64_t cond, size_t size, uint64_t *old) {
    if (!amo_fn[size == 8] || use_ctx())
        return -1;
    return gtls_amo(&gs, amo_fn, amo_out, p, op, value, cond, size, old);
}

static int cuda_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height) {
    return use_ctx() ? -1 : gtls_copy2d(&gs, dst, dpitch, src, spitch, width, height);
}

/* ---- reductions ---- */
static int cuda_reduce(int op, int dt, void *acc, const void *in, size_t count) {
    int t = gtlk_type(op, dt);
    if (!mod || t == GTLK_NONE || op < 0 || op > SHMEMI_OP_PROD || use_ctx())
        return -1;
    CUfunction *f = &red_fn[op][t];
    if (!*f) {
        char name[64];
        if (gtlk_red_name(op, t, name, sizeof name) || cu.module_function(f, mod, name) != CUDA_SUCCESS) {
            *f = NULL;
            return -1;
        }
    }
    return count ? gtls_reduce(&gs, *f, acc, in, count) : 0; /* 0 elements: the caller asked whether there is one */
}

/* Pinned for every context (portable): the application may copy from the heap with contexts of its own too. */
static int cuda_host_register(void *p, size_t size) {
    return use_ctx() || cu.host_register(p, size, CU_MEMHOSTREGISTER_PORTABLE) != CUDA_SUCCESS ? -1 : 0;
}

static int cuda_host_unregister(void *p) { return use_ctx() || cu.host_unregister(p) != CUDA_SUCCESS ? -1 : 0; }

static int cuda_host_alloc_sz(size_t size, void **ptr) {
    if (use_ctx() || cu.host_alloc(ptr, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS)
        return -1;
    memset(*ptr, 0, size);
    return 0;
}
static void cuda_host_free(void *ptr) {
    if (!use_ctx())
        cu.host_free(ptr);
}

static int cuda_idle(int wait_s) { return lib ? gtls_idle(&gs, wait_s) : -1; }

static int cuda_net_addr(void *base, void **addr, int *device) {
    *addr = base;
    *device = (int)dev;
    return 0;
}

/* every entry point that may make our context current puts back the one it displaced (see use_ctx) */
#define ENTRY(...) GTLS_ENTRY(done_ctx, __VA_ARGS__)
#define ENTRY_VOID(...) GTLS_ENTRY_VOID(done_ctx, __VA_ARGS__)
ENTRY_VOID(cuda_fini, (void), ())
ENTRY(int, cuda_alloc, (size_t size, void **ptr), (size, ptr))
ENTRY_VOID(cuda_free, (void *ptr, size_t size), (ptr, size))
ENTRY(int, cuda_query, (const void *p, uintptr_t *base, size_t *size), (p, base, size))
ENTRY(int, cuda_ipc_export, (void *base, size_t size, struct gtl_ipc *h), (base, size, h))
ENTRY(int, cuda_ipc_import, (const struct gtl_ipc *h, size_t size, void **ptr), (h, size, ptr))
ENTRY_VOID(cuda_ipc_close, (void *ptr, size_t size), (ptr, size))
ENTRY(int, cuda_copy, (void *dst, const void *src, size_t n), (dst, src, n))
ENTRY(int, cuda_copy_start, (void *dst, const void *src, size_t n, void **ticket), (dst, src, n, ticket))
ENTRY(int, cuda_copy_end, (void *ticket, int wait), (ticket, wait))
ENTRY(int, cuda_memset, (void *dst, int byte, size_t n), (dst, byte, n))
ENTRY(int, cuda_amo, (void *p, int op, uint64_t value, uint64_t cond, size_t size, uint64_t *old),
      (p, op, value, cond, size, old))
ENTRY(int, cuda_copy2d, (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height),
      (dst, dpitch, src, spitch, width, height))
ENTRY(int, cuda_reduce, (int op, int dt, void *acc, const void *in, size_t count), (op, dt, acc, in, count))
ENTRY(int, cuda_host_register, (void *p, size_t size), (p, size))
ENTRY(int, cuda_host_unregister, (void *p), (p))
ENTRY(int, cuda_host_alloc_sz, (size_t size, void **ptr), (size, ptr))
ENTRY_VOID(cuda_host_free, (void *ptr), (ptr))
ENTRY(int, cuda_share, (struct gtl_share * sh), (sh))

const struct gtl_backend shmemi_gtl_cuda = {
    .name = "cuda",
    .net_iface = 1, /* FI_HMEM_CUDA */
    .init = cuda_init,
    .fini = cuda_fini_e,
    .alloc = cuda_alloc_e,
    .free = cuda_free_e,
    .query = cuda_query_e,
    .ipc_export = cuda_ipc_export_e,
    .ipc_import = cuda_ipc_import_e,
    .ipc_close = cuda_ipc_close_e,
    .ipc_done = cuda_ipc_done,
    .copy = cuda_copy_e,
    .copy_start = cuda_copy_start_e,
    .copy_end = cuda_copy_end_e,
    .memset = cuda_memset_e,
    .amo = cuda_amo_e,
    .copy2d = cuda_copy2d_e,
    .reduce = cuda_reduce_e,
    .net_addr = cuda_net_addr,
    .host_register = cuda_host_register_e,
    .host_unregister = cuda_host_unregister_e,
    .host_alloc = cuda_host_alloc_sz_e,
    .host_free = cuda_host_free_e,
    .coherent = cuda_coherent,
    .busid = cuda_busid,
    .p2p = cuda_p2p,
    .share = cuda_share_e,
    .idle = cuda_idle,
};
