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
 * Devices: FAKECUDA_DEVICES=n (1..8; bus ids 0000:41:00.0 on), of which CUDA_VISIBLE_DEVICES shows a list, as the
 * driver does; FAKECUDA_P2P=1|0|noatomics links every pair (tests/fakegpu: the IPC import and the atomic kernel it
 * refuses); FAKECUDA_COMPUTE_MODE=default|exclusive_process|prohibited, enforced across the processes of one launcher
 * (a second process's context on an exclusive device: CUDA_ERROR_DEVICE_UNAVAILABLE); FAKECUDA_MPS=1: an MPS client
 * (the device attribute says so, exclusive devices take several processes, and the context's SM count is
 * CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of the device's 132).
 * Kernels are C versions of kernels.cu's, found by name in the PTX image the library loads. The machinery (memory,
 * streams, events, kernels) is tests/fakegpu's, shared with the other stand-in drivers; this file is CUDA's API.
 * It models none of a GPU's speed: nothing measured with it means anything. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

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

#define MAX_DEV 8
#define SMS 132
static int inited;
static int nphys = 1, nvis = 1, vis[MAX_DEV]; /* devices, and the physical device of each visible ordinal */
static int compute_mode, mps, mps_pct = 100;
static struct ctx {
    int refs;
    int dev;               /* physical */
} primary[MAX_DEV], other; /* other: one context made with cuCtxCreate */
static int excl_fd[MAX_DEV] = {-1, -1, -1, -1, -1, -1, -1, -1};
static __thread struct ctx *current;

/* every call that needs the driver initialized and a context current in this thread */
#define ENTER()                                                                                                        \
    pthread_mutex_lock(&fg_mu);                                                                                        \
    CUresult rc_ = !inited ? FG_NOT_INITIALIZED : !current || !current->refs ? FG_INVALID_CONTEXT : fg_sticky;         \
    if (rc_) {                                                                                                         \
        pthread_mutex_unlock(&fg_mu);                                                                                  \
        return rc_;                                                                                                    \
    }                                                                                                                  \
    fg_dev = current->dev;
#define LEAVE(rc)                                                                                                      \
    do {                                                                                                               \
        CUresult r_ = (rc);                                                                                            \
        pthread_mutex_unlock(&fg_mu);                                                                                  \
        return r_;                                                                                                     \
    } while (0)

/* A context on an EXCLUSIVE_PROCESS device: one process of the launcher at a time holds the device (an abstract
 * socket named after the launcher and the device, let go when the process ends), unless MPS serves them all. */
static CUresult claim(int d) {
    if (compute_mode == 2)
        return FG_DEVICE_UNAVAILABLE; /* PROHIBITED: no context at all */
    if (compute_mode != 3 || mps || excl_fd[d] >= 0)
        return FG_OK;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int len = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "gshmem-fakecuda-%d-%d-excl-%d", (int)getuid(),
                       (int)getppid(), d);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return FG_OUT_OF_MEMORY;
    if (bind(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len))) {
        close(fd);
        return FG_DEVICE_UNAVAILABLE; /* another process has a context on it */
    }
    excl_fd[d] = fd;
    return FG_OK;
}

static int env_int(const char *name, int dflt) {
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

/* ---- the API ---- */
API CUresult cuInit(unsigned flags) {
    if (flags)
        return FG_INVALID_VALUE;
    pthread_mutex_lock(&fg_mu);
    const char *hv = getenv("FAKECUDA_HOST_VISIBLE"); /* test programs that read their GPU-heap objects directly */
    fg_host_visible = hv && *hv == '1';
    nphys = env_int("FAKECUDA_DEVICES", 1);
    nphys = nphys < 1 ? 1 : nphys > MAX_DEV ? MAX_DEV : nphys;
    /* CUDA_VISIBLE_DEVICES: the ordinals shown, in that order; the list ends at the first that names no device */
    const char *cv = getenv("CUDA_VISIBLE_DEVICES");
    nvis = 0;
    if (!cv) {
        for (int i = 0; i < nphys; i++)
            vis[nvis++] = i;
    } else {
        for (const char *c = cv; *c && nvis < MAX_DEV;) {
            char *end;
            long k = strtol(c, &end, 10);
            if (end == c || k < 0 || k >= nphys)
                break;
            vis[nvis++] = (int)k;
            c = *end == ',' ? end + 1 : end;
            if (*end != ',')
                break;
        }
    }
    const char *cm = getenv("FAKECUDA_COMPUTE_MODE");
    compute_mode = !cm || !strcmp(cm, "default") ? 0 : !strcmp(cm, "prohibited") ? 2 : 3;
    mps = env_int("FAKECUDA_MPS", 0) == 1;
    mps_pct = env_int("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", 100);
    mps_pct = mps_pct < 1 ? 1 : mps_pct > 100 ? 100 : mps_pct;
    fg_p2p_setup("FAKECUDA_P2P");
    for (int i = 0; i < MAX_DEV; i++)
        primary[i].dev = i;
    inited = 1;
    pthread_mutex_unlock(&fg_mu);
    return FG_OK;
}

/* a visible ordinal's physical device, -1 when it names none */
static int phys(CUdevice d) { return d >= 0 && d < nvis ? vis[d] : -1; }
static void bus_of(int p, char *id, size_t len) { snprintf(id, len, "0000:%02X:00.0", 0x41 + p); }

API CUresult cuDriverGetVersion(int *v) {
    if (!v)
        return FG_INVALID_VALUE;
    *v = 12040;
    return FG_OK;
}

API CUresult cuDeviceGetCount(int *n) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    *n = nvis;
    return FG_OK;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (phys(ordinal) < 0)
        return FG_INVALID_DEVICE;
    *d = ordinal;
    return FG_OK;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (phys(d) < 0 || len <= 0)
        return phys(d) < 0 ? FG_INVALID_DEVICE : FG_INVALID_VALUE;
    snprintf(name, (size_t)len, "gshmem fake CUDA device (testing only)");
    return FG_OK;
}

API CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (phys(d) < 0 || len <= 0)
        return phys(d) < 0 ? FG_INVALID_DEVICE : FG_INVALID_VALUE;
    bus_of(phys(d), id, (size_t)len); /* the real driver's form: upper-case hex, as "0000:C1:00.0" */
    return FG_OK;
}

API CUresult cuDeviceGetByPCIBusId(CUdevice *d, const char *id) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (!d || !id)
        return FG_INVALID_VALUE;
    for (int i = 0; i < nvis; i++) {
        char b[32];
        bus_of(vis[i], b, sizeof b);
        if (!strcasecmp(b, id)) {
            *d = i;
            return FG_OK;
        }
    }
    return FG_INVALID_DEVICE; /* no visible device there */
}

API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (phys(d) < 0)
        return FG_INVALID_DEVICE;
    *bytes = (size_t)16 << 30;
    return FG_OK;
}

API CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (phys(d) < 0)
        return FG_INVALID_DEVICE;
    if (!v)
        return FG_INVALID_VALUE;
    switch (attr) {
    case 16: *v = SMS; break;          /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
    case 20: *v = compute_mode; break; /* CU_DEVICE_ATTRIBUTE_COMPUTE_MODE */
    case 100:                          /* PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: a discrete GPU */
    case 101: *v = 0; break;           /* DIRECT_MANAGED_MEM_ACCESS_FROM_HOST */
    case 133: *v = mps; break;         /* CU_DEVICE_ATTRIBUTE_MPS_ENABLED */
    default: return FG_INVALID_VALUE;  /* not modelled: a caller that needs more must say so here */
    }
    return FG_OK;
}

/* "0 if device == peerDevice": a device is not its own peer */
API CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (phys(d) < 0 || phys(peer) < 0)
        return FG_INVALID_DEVICE;
    if (!can)
        return FG_INVALID_VALUE;
    *can = d != peer && fg_p2p_access(phys(d), phys(peer));
    return FG_OK;
}

/* the attributes of a link between two devices (CU_DEVICE_P2P_ATTRIBUTE_*: 1 performance rank, 2 access supported,
 * 3 native atomics, 4 array access); the same device is CUDA_ERROR_INVALID_DEVICE */
API CUresult cuDeviceGetP2PAttribute(int *v, int attr, CUdevice a, CUdevice b) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    if (phys(a) < 0 || phys(b) < 0 || a == b)
        return FG_INVALID_DEVICE;
    if (!v)
        return FG_INVALID_VALUE;
    switch (attr) {
    case 1: *v = 0; break;
    case 2:
    case 4: *v = fg_p2p_access(phys(a), phys(b)); break;
    case 3: *v = fg_p2p_atomics(phys(a), phys(b)); break;
    default: return FG_INVALID_VALUE;
    }
    return FG_OK;
}

API CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    int p = phys(d);
    if (p < 0)
        return FG_INVALID_DEVICE;
    pthread_mutex_lock(&fg_mu);
    CUresult r = primary[p].refs ? FG_OK : claim(p);
    if (!r)
        primary[p].refs++;
    pthread_mutex_unlock(&fg_mu);
    if (!r)
        *ctx = &primary[p];
    return r;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    int p = phys(d);
    if (p < 0)
        return FG_INVALID_DEVICE;
    pthread_mutex_lock(&fg_mu);
    CUresult r = primary[p].refs > 0 ? (primary[p].refs--, FG_OK) : FG_INVALID_CONTEXT;
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
    struct ctx *c = ctx;
    if (c && ((c != &other && (c < primary || c >= primary + MAX_DEV)) || !c->refs))
        return FG_INVALID_CONTEXT;
    current = ctx;
    return FG_OK;
}

/* one more context on the device, made current (an application's own, or the runtime's after cudaSetDevice) */
API CUresult cuCtxCreate_v2(void **ctx, unsigned flags, CUdevice d) {
    if (!inited)
        return FG_NOT_INITIALIZED;
    int p = phys(d);
    if (p < 0)
        return FG_INVALID_DEVICE;
    pthread_mutex_lock(&fg_mu);
    CUresult r = other.refs ? FG_OUT_OF_MEMORY : claim(p); /* one at a time is all the tests need */
    if (r == FG_OK) {
        other.refs = 1;
        other.dev = p;
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
    for (int i = 0; i < nvis; i++)
        if (vis[i] == current->dev) {
            *d = i;
            return FG_OK;
        }
    return FG_INVALID_CONTEXT;
}

/* the SMs the current context may use: under MPS, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of the device's (type 0,
 * CU_EXEC_AFFINITY_TYPE_SM_COUNT, the one there is) */
API CUresult cuCtxGetExecAffinity(int *param, int type) {
    ENTER();
    if (!param)
        LEAVE(FG_INVALID_VALUE);
    if (type != 0)
        LEAVE(FG_UNSUPPORTED_EXEC_AFFINITY);
    param[0] = 0;
    param[1] = mps ? (SMS * mps_pct + 99) / 100 : SMS;
    LEAVE(FG_OK);
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

/* every stream of the current context, and what else it runs (fg_device_sync); the error of a failed one */
API CUresult cuCtxSynchronize(void) {
    ENTER();
    LEAVE(fg_device_sync(current));
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
    {"46", "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {"217", "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
    {"224", "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY"},
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
