/* fakecuda.c - a stand-in CUDA driver (libcuda.so.1) for testing gshmem's CUDA backend on machines without a GPU:
 * it exports the driver API entry points gtl_cuda.c loads, so that code (symbol loading, contexts, IPC between PEs,
 * pointer queries, streams, kernel launches with their argument marshalling) runs in CI. It is strict where the real
 * driver is, and stricter where that finds bugs sooner:
 *  - "device memory" is shared memory the CPU cannot touch (PROT_NONE; the fake reaches it through a hidden alias),
 *    so a host load or store of a device pointer faults, as on a GPU (FAKECUDA_HOST_VISIBLE=1 lifts that, for test
 *    programs that check their own GPU-heap objects directly);
 *  - work queued on a stream runs only when the stream or an event after it is synchronized (the first query of an
 *    event says "not ready"), so a result read before its synchronization is stale here, as it may be on a GPU;
 *  - kernels reach only device memory and page-locked host memory (an illegal address is a sticky error);
 *  - API calls need cuInit and a current context in the calling thread; IPC handles open only in other processes.
 * Kernels are C versions of kernels.cu's, found by name in the PTX image the library loads. The machinery (memory,
 * streams, events, kernels) is tests/fakegpu's, shared with the other stand-in drivers; this file is CUDA's API.
 * It models none of a GPU's speed: nothing measured with it means anything. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakegpu.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct {
    char reserved[64];
} CUipcMemHandle;
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

#define API __attribute__((visibility("default")))

static int inited;
static struct ctx { int refs; } primary, other; /* other: one context made with cuCtxCreate */
static __thread struct ctx *current;

/* every call that needs the driver initialized and a context current in this thread */
#define ENTER()                                                                                                        \
    pthread_mutex_lock(&fg_mu);                                                                                        \
    CUresult rc_ = !inited ? FG_NOT_INITIALIZED : !current || !current->refs ? FG_INVALID_CONTEXT : fg_sticky;         \
    if (rc_) {                                                                                                         \
        pthread_mutex_unlock(&fg_mu);                                                                                  \
        return rc_;                                                                                                    \
    }
#define LEAVE(rc)                                                                                                      \
    do {                                                                                                               \
        CUresult r_ = (rc);                                                                                            \
        pthread_mutex_unlock(&fg_mu);                                                                                  \
        return r_;                                                                                                     \
    } while (0)

/* ---- the API ---- */
API CUresult cuInit(unsigned flags) {
    if (flags)
        return FG_INVALID_VALUE;
    pthread_mutex_lock(&fg_mu);
    const char *vis = getenv("FAKECUDA_HOST_VISIBLE"); /* test programs that read their GPU-heap objects directly */
    fg_host_visible = vis && *vis == '1';
    inited = 1;
    pthread_mutex_unlock(&fg_mu);
    return FG_OK;
}

API CUresult cuDriverGetVersion(int *v) {
    if (!v)
        return FG_INVALID_VALUE;
    *v = 12040;
    return FG_OK;
}

API CUresult cuDeviceGetCount(int *n) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    *n = 1;
    return FG_OK;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (ordinal != 0)
        return FG_INVALID_DEVICE;
    *d = 0;
    return FG_OK;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (d != 0 || len <= 0)
        return d ? FG_INVALID_DEVICE : FG_INVALID_VALUE;
    snprintf(name, (size_t)len, "gshmem fake CUDA device (testing only)");
    return FG_OK;
}

API CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (d != 0 || len <= 0)
        return d ? FG_INVALID_DEVICE : FG_INVALID_VALUE;
    snprintf(id, (size_t)len, "0000:41:00.0"); /* the real driver's form: upper-case hex, as "0000:C1:00.0" */
    return FG_OK;
}

API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (d != 0)
        return FG_INVALID_DEVICE;
    *bytes = (size_t)16 << 30;
    return FG_OK;
}

API CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (d != 0)
        return FG_INVALID_DEVICE;
    pthread_mutex_lock(&fg_mu);
    primary.refs++;
    pthread_mutex_unlock(&fg_mu);
    *ctx = &primary;
    return FG_OK;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    if (d != 0)
        return FG_INVALID_DEVICE;
    pthread_mutex_lock(&fg_mu);
    CUresult r = primary.refs > 0 ? (primary.refs--, FG_OK) : FG_INVALID_CONTEXT;
    pthread_mutex_unlock(&fg_mu);
    return r;
}

API CUresult cuCtxGetCurrent(void **ctx) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    *ctx = current;
    return FG_OK;
}

API CUresult cuCtxSetCurrent(void *ctx) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (ctx && ((ctx != &primary && ctx != &other) || !((struct ctx *)ctx)->refs))
        return FG_INVALID_CONTEXT;
    current = ctx;
    return FG_OK;
}

/* one more context on the device, made current (an application's own, or the runtime's after cudaSetDevice) */
API CUresult cuCtxCreate_v2(void **ctx, unsigned flags, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (d != 0)
        return FG_INVALID_DEVICE;
    pthread_mutex_lock(&fg_mu);
    CUresult r = other.refs ? FG_OUT_OF_MEMORY : FG_OK; /* one at a time is all the tests need */
    if (r == FG_OK) {
        other.refs = 1;
        current = &other;
        *ctx = &other;
    }
    pthread_mutex_unlock(&fg_mu);
    (void)flags;
    return r;
}

API CUresult cuCtxDestroy_v2(void *ctx) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (ctx != &other || !other.refs)
        return FG_INVALID_CONTEXT;
    other.refs = 0;
    if (current == &other)
        current = NULL;
    return FG_OK;
}

API CUresult cuCtxGetDevice(CUdevice *d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (!current)
        return FG_INVALID_CONTEXT;
    *d = 0;
    return FG_OK;
}

API CUresult cuStreamCreate(void **s, unsigned flags) {
    ENTER();
    (void)flags;
    LEAVE(fg_stream_create(current, s));
}

API CUresult cuStreamDestroy_v2(void *stream) {
    ENTER();
    LEAVE(fg_stream_destroy(stream));
}

API CUresult cuStreamSynchronize(void *stream) {
    ENTER();
    LEAVE(fg_stream_sync(stream, current));
}

API CUresult cuEventCreate(void **ev, unsigned flags) {
    ENTER();
    (void)flags;
    LEAVE(fg_event_create(ev));
}

API CUresult cuEventDestroy_v2(void *ev) {
    ENTER();
    LEAVE(fg_event_destroy(ev));
}

API CUresult cuEventRecord(void *ev, void *stream) {
    ENTER();
    LEAVE(fg_event_record(ev, stream, current));
}

API CUresult cuEventQuery(void *ev) {
    ENTER();
    LEAVE(fg_event_query(ev));
}

API CUresult cuEventSynchronize(void *ev) {
    ENTER();
    LEAVE(fg_event_sync(ev));
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size) {
    ENTER();
    void *d = NULL;
    CUresult r = fg_mem_alloc(size, &d);
    if (!r)
        *p = (CUdeviceptr)(uintptr_t)d;
    LEAVE(r);
}

API CUresult cuMemFree_v2(CUdeviceptr p) {
    ENTER();
    LEAVE(fg_mem_free((void *)(uintptr_t)p));
}

API CUresult cuMemHostAlloc(void **pp, size_t size, unsigned flags) {
    ENTER();
    (void)flags;
    LEAVE(fg_host_alloc(size, pp));
}

API CUresult cuMemFreeHost(void *p) {
    ENTER();
    LEAVE(fg_host_free(p));
}

API CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned flags) {
    ENTER();
    (void)flags;
    LEAVE(fg_host_register(p, size));
}

API CUresult cuMemHostUnregister(void *p) {
    ENTER();
    LEAVE(fg_host_unregister(p));
}

API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, void *stream) {
    ENTER();
    LEAVE(fg_copy_async((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, stream, current));
}

API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *m, void *stream) {
    ENTER();
    if (m->srcMemoryType != 4 || m->dstMemoryType != 4 || m->srcXInBytes || m->srcY || m->dstXInBytes || m->dstY)
        LEAVE(FG_INVALID_VALUE); /* gshmem passes unified pointers with the offsets folded in */
    LEAVE(fg_copy2d_async((void *)(uintptr_t)m->dstDevice, m->dstPitch, (const void *)(uintptr_t)m->srcDevice,
                          m->srcPitch, m->WidthInBytes, m->Height, stream, current));
}

API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char byte, size_t n, void *stream) {
    ENTER();
    LEAVE(fg_memset_async((void *)(uintptr_t)dst, byte, n, stream, current));
}

API CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr ptr) {
    ENTER();
    struct fg_range *r = fg_find((void *)(uintptr_t)ptr);
    if (!r)
        LEAVE(FG_INVALID_VALUE); /* memory the driver does not know */
    int dev = r->kind == FG_DEVICE || r->kind == FG_IMPORTED;
    switch (attr) {
    case 2: *(unsigned *)data = dev ? 2 : 1; break; /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE: device or host */
    case 11: *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)r->addr; break; /* RANGE_START_ADDR */
    case 12: *(size_t *)data = r->len; break;                               /* RANGE_SIZE */
    default: LEAVE(FG_INVALID_VALUE);
    }
    LEAVE(FG_OK);
}

API CUresult cuPointerSetAttribute(const void *value, int attr, CUdeviceptr ptr) {
    ENTER();
    struct fg_range *r = fg_find((void *)(uintptr_t)ptr);
    if (attr != 6 || !r || r->kind != FG_DEVICE || !value) /* only SYNC_MEMOPS, on device memory */
        LEAVE(FG_INVALID_VALUE);
    LEAVE(FG_OK);
}

API CUresult cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr p) {
    ENTER();
    LEAVE(fg_ipc_get((void *)(uintptr_t)p, (unsigned char *)h->reserved, "FAKECU1"));
}

API CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *p, CUipcMemHandle h, unsigned flags) {
    ENTER();
    if (flags != 1) /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, the one flag there is */
        LEAVE(FG_INVALID_VALUE);
    void *d = NULL;
    CUresult r = fg_ipc_open((const unsigned char *)h.reserved, "FAKECU1", &d);
    if (!r)
        *p = (CUdeviceptr)(uintptr_t)d;
    LEAVE(r);
}

API CUresult cuIpcCloseMemHandle(CUdeviceptr p) {
    ENTER();
    LEAVE(fg_ipc_close((void *)(uintptr_t)p));
}

API CUresult cuModuleLoadData(void **mod, const void *image) {
    ENTER();
    if (!image || !strstr(image, ".entry"))
        LEAVE(FG_INVALID_IMAGE);
    char *copy = strdup(image);
    if (!copy)
        LEAVE(FG_OUT_OF_MEMORY);
    *mod = copy;
    LEAVE(FG_OK);
}

API CUresult cuModuleUnload(void *mod) {
    ENTER();
    if (!mod)
        LEAVE(FG_INVALID_VALUE);
    free(mod);
    LEAVE(FG_OK);
}

/* a kernel the image defines and the fake implements */
API CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
    ENTER();
    char entry[96];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    if (!mod || !strstr(mod, entry))
        LEAVE(FG_NOT_FOUND);
    LEAVE(fg_function(name, fn));
}

API CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shmem, void *stream, void **params, void **extra) {
    ENTER();
    LEAVE(fg_launch(fn, gx, gy, gz, bx, by, bz, shmem, stream, current, params, extra));
}

static const char *const names[][2] = {
    {"0", "CUDA_SUCCESS"},
    {"1", "CUDA_ERROR_INVALID_VALUE"},
    {"2", "CUDA_ERROR_OUT_OF_MEMORY"},
    {"3", "CUDA_ERROR_NOT_INITIALIZED"},
    {"101", "CUDA_ERROR_INVALID_DEVICE"},
    {"200", "CUDA_ERROR_INVALID_IMAGE"},
    {"201", "CUDA_ERROR_INVALID_CONTEXT"},
    {"400", "CUDA_ERROR_INVALID_HANDLE"},
    {"500", "CUDA_ERROR_NOT_FOUND"},
    {"600", "CUDA_ERROR_NOT_READY"},
    {"700", "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {"712", "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
    {"713", "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
};

API CUresult cuGetErrorString(CUresult r, const char **s) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (atoi(names[i][0]) == r) {
            *s = names[i][1];
            return FG_OK;
        }
    *s = NULL;
    return FG_INVALID_VALUE;
}
