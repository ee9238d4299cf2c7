/* gtl_cuda.c - the CUDA backend of the GPU transport layer. It loads the driver (libcuda.so.1) at run time through
 * one list of symbols, so one build of gshmem runs with or without a GPU and links against no CUDA library. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gtl.h"
#include "state.h"

/* The few driver API types used, declared here so the build needs no CUDA headers (values from cuda.h). */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUstream, *CUmodule, *CUfunction;
typedef unsigned long long CUdeviceptr;
typedef struct {
    char reserved[64];
} CUipcMemHandle;
#define CUDA_SUCCESS 0
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_SYNC_MEMOPS 6
#define CU_POINTER_ATTRIBUTE_RANGE_START_ADDR 11
#define CU_POINTER_ATTRIBUTE_RANGE_SIZE 12
#define CU_MEMORYTYPE_DEVICE 2
#define CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS 1
#define CU_STREAM_NON_BLOCKING 1
#define CU_MEMHOSTALLOC_PORTABLE 1
#define CU_MEMHOSTALLOC_DEVICEMAP 2

/* name in the driver, parameter list, our field (every entry point returns CUresult) */
#define CUDA_SYMBOLS(X)                                                                                                \
    X("cuInit", (unsigned), init)                                                                                      \
    X("cuDriverGetVersion", (int *), driver_version)                                                                   \
    X("cuDeviceGetCount", (int *), device_count)                                                                       \
    X("cuDeviceGet", (CUdevice *, int), device_get)                                                                    \
    X("cuDeviceGetName", (char *, int, CUdevice), device_name)                                                         \
    X("cuDeviceTotalMem_v2", (size_t *, CUdevice), device_mem)                                                         \
    X("cuCtxGetCurrent", (CUcontext *), ctx_get_current)                                                               \
    X("cuCtxSetCurrent", (CUcontext), ctx_set_current)                                                                 \
    X("cuCtxGetDevice", (CUdevice *), ctx_get_device)                                                                  \
    X("cuDevicePrimaryCtxRetain", (CUcontext *, CUdevice), primary_retain)                                             \
    X("cuDevicePrimaryCtxRelease_v2", (CUdevice), primary_release)                                                     \
    X("cuStreamCreate", (CUstream *, unsigned), stream_create)                                                         \
    X("cuStreamDestroy_v2", (CUstream), stream_destroy)                                                                \
    X("cuStreamSynchronize", (CUstream), stream_sync)                                                                  \
    X("cuMemAlloc_v2", (CUdeviceptr *, size_t), mem_alloc)                                                             \
    X("cuMemFree_v2", (CUdeviceptr), mem_free)                                                                         \
    X("cuMemHostAlloc", (void **, size_t, unsigned), host_alloc)                                                       \
    X("cuMemFreeHost", (void *), host_free)                                                                            \
    X("cuMemcpyAsync", (CUdeviceptr, CUdeviceptr, size_t, CUstream), memcpy_async)                                     \
    X("cuMemsetD8Async", (CUdeviceptr, unsigned char, size_t, CUstream), memset_async)                                 \
    X("cuPointerGetAttribute", (void *, int, CUdeviceptr), ptr_attr)                                                   \
    X("cuPointerSetAttribute", (const void *, int, CUdeviceptr), ptr_set_attr)                                         \
    X("cuIpcGetMemHandle", (CUipcMemHandle *, CUdeviceptr), ipc_get)                                                   \
    X("cuIpcOpenMemHandle_v2", (CUdeviceptr *, CUipcMemHandle, unsigned), ipc_open)                                    \
    X("cuIpcCloseMemHandle", (CUdeviceptr), ipc_close)                                                                 \
    X("cuModuleLoadData", (CUmodule *, const void *), module_load)                                                     \
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
static CUstream stream;
static int stream_lock; /* one copy at a time on the library's stream */
static CUfunction amo_fn[2];
static unsigned long long *amo_out; /* pinned, mapped: where the atomic kernel leaves the old value */

#ifdef GSHMEM_HAVE_CUDA_PTX
#include "amo_kernels_ptx.h" /* generated: static const char gshmemi_amo_ptx[] */
#endif

/* Operation codes of amo_kernels.cu */
enum { OP_FETCH, OP_SET, OP_SWAP, OP_CSWAP, OP_ADD, OP_AND, OP_OR, OP_XOR };

static const char *errstr(CUresult r) {
    const char *s = NULL;
    if (cu.error_string)
        cu.error_string(r, &s);
    return s ? s : "unknown CUDA error";
}

/* The context is per thread in the driver: any thread that enters the library may be the first to use it. */
static __thread int ctx_set;
static int use_ctx(void) {
    if (SHMEMI_LIKELY(ctx_set))
        return 0;
    if (cu.ctx_set_current(ctx) != CUDA_SUCCESS)
        return -1;
    ctx_set = 1;
    return 0;
}

static void lock(void) {
    while (__atomic_exchange_n(&stream_lock, 1, __ATOMIC_ACQUIRE))
        shmemi_cpu_relax();
}
static void unlock(void) { __atomic_store_n(&stream_lock, 0, __ATOMIC_RELEASE); }

static void unload(void) {
    if (lib)
        dlclose(lib);
    lib = NULL;
    memset(&cu, 0, sizeof cu);
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
    /* the GPU the application made current before initializing, else one per PE of the node, round robin (several
     * PEs may share one: that works without MPS) */
    CUcontext cur = NULL;
    if (cu.ctx_get_current(&cur) == CUDA_SUCCESS && cur && cu.ctx_get_device(&dev) == CUDA_SUCCESS) {
        ctx = cur;
    } else {
        if ((r = cu.device_get(&dev, local_rank % n)) != CUDA_SUCCESS ||
            (r = cu.primary_retain(&ctx, dev)) != CUDA_SUCCESS) {
            snprintf(why, whylen, "cannot open device %d: %s", local_rank % n, errstr(r));
            unload();
            return -1;
        }
        retained = 1;
    }
    ctx_set = 0;
    if (use_ctx() || (r = cu.stream_create(&stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
        snprintf(why, whylen, "cannot create a stream: %s", errstr(r));
        if (retained)
            cu.primary_release(dev);
        unload();
        return -1;
    }
#ifdef GSHMEM_HAVE_CUDA_PTX
    CUmodule mod;
    if (cu.module_load(&mod, gshmemi_amo_ptx) != CUDA_SUCCESS ||
        cu.module_function(&amo_fn[0], mod, "gshmemi_amo32") != CUDA_SUCCESS ||
        cu.module_function(&amo_fn[1], mod, "gshmemi_amo64") != CUDA_SUCCESS ||
        cu.host_alloc((void **)&amo_out, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS)
        amo_fn[0] = amo_fn[1] = NULL; /* atomics on device memory then fail with a message; the rest works */
#endif
    char name[128] = "?";
    size_t mem = 0;
    int ver = 0;
    cu.device_name(name, sizeof name, dev);
    cu.device_mem(&mem, dev);
    cu.driver_version(&ver);
    snprintf(desc, desclen, "%s (device %d of %d, %zu GiB), driver API %d.%d, shared by %d PE%s of this node%s", name,
             (int)dev, n, mem >> 30, ver / 1000, ver % 1000 / 10, nlocal, nlocal == 1 ? "" : "s",
             amo_fn[1] ? "" : "; no atomic kernels (built without nvcc)");
    return 0;
}

static void cuda_fini(void) {
    if (!lib)
        return;
    use_ctx();
    cu.stream_destroy(stream);
    if (amo_out)
        cu.host_free(amo_out);
    amo_out = NULL;
    amo_fn[0] = amo_fn[1] = NULL;
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
        return GTL_MEM_HOST; /* not known to the driver, host (pinned or not) or managed: the CPU can touch it */
    CUdeviceptr b = 0;
    size_t s = 0;
    if (cu.ptr_attr(&b, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
        cu.ptr_attr(&s, CU_POINTER_ATTRIBUTE_RANGE_SIZE, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS) {
        *base = (uintptr_t)b;
        *size = s;
    }
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

/* Copies go on the library's own stream and are waited for: a copy from pageable host memory may return before
 * its DMA lands otherwise, and OpenSHMEM's blocking routines promise the source is reusable and (for gets) the data
 * there when they return. */
static int cuda_copy(void *dst, const void *src, size_t n) {
    if (use_ctx())
        return -1;
    lock();
    CUresult r = cu.memcpy_async((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, n, stream);
    if (r == CUDA_SUCCESS)
        r = cu.stream_sync(stream);
    unlock();
    return r == CUDA_SUCCESS ? 0 : -1;
}

static int cuda_memset(void *dst, int byte, size_t n) {
    if (use_ctx())
        return -1;
    lock();
    CUresult r = cu.memset_async((CUdeviceptr)(uintptr_t)dst, (unsigned char)byte, n, stream);
    if (r == CUDA_SUCCESS)
        r = cu.stream_sync(stream);
    unlock();
    return r == CUDA_SUCCESS ? 0 : -1;
}

static int cuda_amo(void *p, int op, uint64_t value, uint64_t cond, size_t size, uint64_t *old) {
    static const int code[] = {
        [SHMEMI_AMO_FETCH] = OP_FETCH,   [SHMEMI_AMO_SET] = OP_SET,       [SHMEMI_AMO_SWAP] = OP_SWAP,
        [SHMEMI_AMO_CSWAP] = OP_CSWAP,   [SHMEMI_AMO_FETCH_INC] = OP_ADD, [SHMEMI_AMO_INC] = OP_ADD,
        [SHMEMI_AMO_FETCH_ADD] = OP_ADD, [SHMEMI_AMO_ADD] = OP_ADD,       [SHMEMI_AMO_FETCH_AND] = OP_AND,
        [SHMEMI_AMO_AND] = OP_AND,       [SHMEMI_AMO_FETCH_OR] = OP_OR,   [SHMEMI_AMO_OR] = OP_OR,
        [SHMEMI_AMO_FETCH_XOR] = OP_XOR, [SHMEMI_AMO_XOR] = OP_XOR,
    };
    CUfunction f = amo_fn[size == 8];
    if (!f || use_ctx())
        return -1;
    if (op == SHMEMI_AMO_INC || op == SHMEMI_AMO_FETCH_INC)
        value = 1;
    int k = code[op];
    unsigned v32 = (unsigned)value, c32 = (unsigned)cond;
    void *pp = p;
    unsigned long long *out = amo_out;
    void *args64[] = {&pp, &k, &value, &cond, &out};
    void *args32[] = {&pp, &k, &v32, &c32, &out};
    lock();
    CUresult r = cu.launch(f, 1, 1, 1, 1, 1, 1, 0, stream, size == 8 ? args64 : args32, NULL);
    if (r == CUDA_SUCCESS)
        r = cu.stream_sync(stream);
    uint64_t v = *(volatile unsigned long long *)amo_out;
    unlock();
    if (r != CUDA_SUCCESS)
        return -1;
    *old = size == 8 ? v : (uint32_t)v;
    return 0;
}

const struct gtl_backend shmemi_gtl_cuda = {
    .name = "cuda",
    .init = cuda_init,
    .fini = cuda_fini,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .query = cuda_query,
    .ipc_export = cuda_ipc_export,
    .ipc_import = cuda_ipc_import,
    .ipc_close = cuda_ipc_close,
    .ipc_done = cuda_ipc_done,
    .copy = cuda_copy,
    .memset = cuda_memset,
    .amo = cuda_amo,
};
