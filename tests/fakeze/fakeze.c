/* fakeze.c - a stand-in Level Zero loader (libze_loader.so.1) for testing gshmem's Level Zero backend on machines
 * without an Intel GPU: Level Zero's API over the machinery all stand-in drivers share (tests/fakegpu), so the
 * backend's code (symbol loading, device choice, IPC between PEs, memory queries, immediate command lists, events,
 * SPIR-V kernels) runs in CI. Strict where the real driver is, stricter where that finds bugs sooner:
 *  - device memory is memory the CPU cannot touch (fakegpu; FAKEZE_HOST_VISIBLE=1 lifts that, for test programs
 *    that check their own GPU-heap objects; FAKEZE_COHERENT=1 makes the device an integrated one whose memory the
 *    CPU reaches coherently);
 *  - work appended to a command list runs only when an event it signals is waited for on the host (the first query
 *    of a pending event says "not ready"); an event must be reset before it is signalled again;
 *  - kernels reach only device, imported and host (zeMemAllocHost or imported) memory: anything else loses the
 *    device, as a GPU page fault does;
 *  - an IPC handle holds a file descriptor valid only in the exporting process, as the real driver's dma-buf does:
 *    another process must copy that descriptor into itself (pidfd_getfd) and put its own number in the handle;
 *  - kernels are fakegpu's C versions, found by the names the SPIR-V module declares (OpEntryPoint);
 *    FAKEZE_NO_FP64=1 refuses modules that use doubles, as GPUs without fp64 do.
 * Also: FAKEZE_DEVICES=n GPUs (1..4), FAKEZE_P2P=1|0|noatomics (what each pair may do with the other's memory, as
 * zeDeviceGetP2PProperties says and tests/fakegpu enforces; the error of an import the real driver refuses is not
 * documented: this one says ZE_RESULT_ERROR_UNKNOWN), FAKEZE_NO_BLITTER=1 (no copy-only engine), FAKEZE_NO_IMPORT=1 (no
 * Intel extension to page-lock host memory). Fills take one-byte patterns only (all gshmem uses). It models none of a
 * GPU's speed: nothing measured with it means anything. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakegpu.h"
#include "gpu/ze/ze_types.h"

#define API __attribute__((visibility("default")))

static int inited;

static int env1(const char *name) {
    const char *v = getenv(name);
    return v && *v == '1';
}

/* ---- driver, devices, contexts ---- */
#define DRIVER_MAGIC 0x44525652u
#define DEVICE_MAGIC 0x44455643u
#define CTX_MAGIC 0x43545854u
static struct driver { unsigned magic; } the_driver = {DRIVER_MAGIC};
static struct device {
    unsigned magic;
    int index;
} devices[4];
struct context {
    unsigned magic;
};

static int ndevices(void) {
    const char *v = getenv("FAKEZE_DEVICES");
    int n = v ? atoi(v) : 1;
    return n < 1 ? 1 : n > 4 ? 4 : n;
}
static struct device *as_device(zt_device d) {
    struct device *v = d;
    return v >= devices && v < devices + ndevices() && v->magic == DEVICE_MAGIC ? v : NULL;
}
static int good_ctx(zt_context c) { return c && ((struct context *)c)->magic == CTX_MAGIC; }

#define ENTER()                                                                                                        \
    pthread_mutex_lock(&fg_mu);                                                                                        \
    if (!inited) {                                                                                                     \
        pthread_mutex_unlock(&fg_mu);                                                                                  \
        return ZT_ERROR_UNINITIALIZED;                                                                                 \
    }
#define LEAVE(rc)                                                                                                      \
    do {                                                                                                               \
        zt_result r_ = (rc);                                                                                           \
        pthread_mutex_unlock(&fg_mu);                                                                                  \
        return r_;                                                                                                     \
    } while (0)

API zt_result zeInit(uint32_t flags) {
    if (flags & ~(uint32_t)ZT_INIT_FLAG_GPU_ONLY)
        return ZT_ERROR_INVALID_ENUMERATION;
    pthread_mutex_lock(&fg_mu);
    inited = 1;
    fg_host_visible = env1("FAKEZE_HOST_VISIBLE") || env1("FAKEZE_COHERENT");
    fg_p2p_setup("FAKEZE_P2P");
    for (int i = 0; i < 4; i++)
        devices[i] = (struct device){DEVICE_MAGIC, i};
    pthread_mutex_unlock(&fg_mu);
    return ZT_SUCCESS;
}

API zt_result zeDriverGet(uint32_t *n, zt_driver *d) {
    ENTER();
    if (!n)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (*n && d)
        d[0] = &the_driver;
    *n = 1;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeDriverGetApiVersion(zt_driver d, uint32_t *v) {
    ENTER();
    if (d != &the_driver)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    *v = 1u << 16 | 4; /* 1.4 */
    LEAVE(ZT_SUCCESS);
}

API zt_result zeDriverGetExtensionProperties(zt_driver d, uint32_t *n, zt_driver_extension_properties *p) {
    ENTER();
    if (d != &the_driver || !n)
        LEAVE(d != &the_driver ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_NULL_POINTER);
    if (*n && p) {
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "%s", ZT_PCI_PROPERTIES_EXT_NAME);
        p->version = 1u << 16;
    }
    *n = 1;
    LEAVE(ZT_SUCCESS);
}

static zt_result import_ptr(zt_driver d, void *p, size_t size);
static zt_result release_ptr(zt_driver d, void *p);

API zt_result zeDriverGetExtensionFunctionAddress(zt_driver d, const char *name, void **fn) {
    ENTER();
    if (d != &the_driver || !name || !fn)
        LEAVE(d != &the_driver ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_NULL_POINTER);
    *fn = NULL;
    if (!env1("FAKEZE_NO_IMPORT")) {
        if (!strcmp(name, "zexDriverImportExternalPointer"))
            *fn = (void *)import_ptr;
        else if (!strcmp(name, "zexDriverReleaseImportedPointer"))
            *fn = (void *)release_ptr;
    }
    LEAVE(*fn ? ZT_SUCCESS : ZT_ERROR_INVALID_ARGUMENT);
}

API zt_result zeDeviceGet(zt_driver d, uint32_t *n, zt_device *devs) {
    ENTER();
    if (d != &the_driver || !n)
        LEAVE(d != &the_driver ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_NULL_POINTER);
    int all = ndevices();
    if (devs)
        for (uint32_t i = 0; i < *n && i < (uint32_t)all; i++)
            devs[i] = &devices[i];
    if (!devs || *n > (uint32_t)all || !*n)
        *n = (uint32_t)all;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeDeviceGetProperties(zt_device d, zt_device_properties *p) {
    ENTER();
    struct device *v = as_device(d);
    if (!v || !p)
        LEAVE(!v ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_NULL_POINTER);
    if (p->stype != ZT_STYPE_DEVICE_PROPERTIES)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    void *next = p->pNext;
    memset(p, 0, sizeof *p);
    p->stype = ZT_STYPE_DEVICE_PROPERTIES;
    p->pNext = next;
    p->type = ZT_DEVICE_TYPE_GPU;
    p->vendorId = 0x8086;
    p->deviceId = 0x0bd5;
    p->flags = env1("FAKEZE_COHERENT") ? ZT_DEVICE_PROPERTY_FLAG_INTEGRATED : 0;
    p->maxMemAllocSize = (uint64_t)4 << 30;
    p->uuid[0] = (uint8_t)v->index;
    snprintf(p->name, sizeof p->name, "gshmem fake Level Zero GPU (testing only)");
    LEAVE(ZT_SUCCESS);
}

API zt_result zeDeviceGetMemoryProperties(zt_device d, uint32_t *n, zt_device_memory_properties *p) {
    ENTER();
    if (!as_device(d) || !n)
        LEAVE(!as_device(d) ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_NULL_POINTER);
    if (*n && p) {
        if (p->stype != ZT_STYPE_DEVICE_MEMORY_PROPERTIES)
            LEAVE(ZT_ERROR_INVALID_ENUMERATION);
        p->flags = 0;
        p->maxClockRate = 1000;
        p->maxBusWidth = 64;
        p->totalSize = (uint64_t)16 << 30;
        snprintf(p->name, sizeof p->name, "HBM");
    }
    *n = 1;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeDeviceGetMemoryAccessProperties(zt_device d, zt_memory_access_properties *p) {
    ENTER();
    if (!as_device(d) || !p)
        LEAVE(!as_device(d) ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_NULL_POINTER);
    if (p->stype != ZT_STYPE_MEMORY_ACCESS_PROPERTIES)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    uint32_t all = ZT_ACCESS_CAP_RW | ZT_ACCESS_CAP_ATOMIC | ZT_ACCESS_CAP_CONCURRENT;
    int apu = env1("FAKEZE_COHERENT");
    p->hostAllocCapabilities = all | (apu ? ZT_ACCESS_CAP_CONCURRENT_ATOMIC : 0);
    p->deviceAllocCapabilities = all | ZT_ACCESS_CAP_CONCURRENT_ATOMIC;
    p->sharedSingleDeviceAllocCapabilities = ZT_ACCESS_CAP_RW | ZT_ACCESS_CAP_ATOMIC |
                                             (apu ? ZT_ACCESS_CAP_CONCURRENT | ZT_ACCESS_CAP_CONCURRENT_ATOMIC : 0);
    p->sharedCrossDeviceAllocCapabilities = 0;
    p->sharedSystemAllocCapabilities = 0;
    LEAVE(ZT_SUCCESS);
}

/* peer access and native atomics between two devices (FAKEZE_P2P) */
API zt_result zeDeviceCanAccessPeer(zt_device d, zt_device peer, uint8_t *can) {
    ENTER();
    if (!as_device(d) || !as_device(peer))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!can)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    *can = (uint8_t)fg_p2p_access(as_device(d)->index, as_device(peer)->index);
    LEAVE(ZT_SUCCESS);
}

API zt_result zeDeviceGetP2PProperties(zt_device d, zt_device peer, zt_device_p2p_properties *p) {
    ENTER();
    if (!as_device(d) || !as_device(peer))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!p)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (p->stype != ZT_STYPE_DEVICE_P2P_PROPERTIES)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    int a = as_device(d)->index, b = as_device(peer)->index;
    p->flags = (fg_p2p_access(a, b) ? ZT_DEVICE_P2P_PROPERTY_FLAG_ACCESS : 0u) |
               (fg_p2p_access(a, b) && fg_p2p_atomics(a, b) ? ZT_DEVICE_P2P_PROPERTY_FLAG_ATOMICS : 0u);
    LEAVE(ZT_SUCCESS);
}

/* group 0: compute (copies too); group 1: two copy-only engines (the blitter), unless FAKEZE_NO_BLITTER=1 */
static const zt_queue_group_properties qgroups[2] = {
    {ZT_STYPE_QUEUE_GROUP_PROPERTIES, NULL, ZT_QUEUE_GROUP_COMPUTE | ZT_QUEUE_GROUP_COPY, 128, 1},
    {ZT_STYPE_QUEUE_GROUP_PROPERTIES, NULL, ZT_QUEUE_GROUP_COPY, 4, 2},
};
static uint32_t nqgroups(void) { return env1("FAKEZE_NO_BLITTER") ? 1 : 2; }

API zt_result zeDeviceGetCommandQueueGroupProperties(zt_device d, uint32_t *n, zt_queue_group_properties *g) {
    ENTER();
    if (!as_device(d) || !n)
        LEAVE(!as_device(d) ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_NULL_POINTER);
    uint32_t all = nqgroups();
    if (g) {
        for (uint32_t i = 0; i < *n && i < all; i++) {
            if (g[i].stype != ZT_STYPE_QUEUE_GROUP_PROPERTIES)
                LEAVE(ZT_ERROR_INVALID_ENUMERATION);
            void *next = g[i].pNext;
            g[i] = qgroups[i];
            g[i].pNext = next;
        }
    }
    if (!g || *n > all || !*n)
        *n = all;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeDevicePciGetPropertiesExt(zt_device d, zt_pci_ext_properties *p) {
    ENTER();
    struct device *v = as_device(d);
    if (!v || !p)
        LEAVE(!v ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_NULL_POINTER);
    if (p->stype != ZT_STYPE_PCI_EXT_PROPERTIES)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    p->domain = 0;
    p->bus = 0x3a + (uint32_t)v->index * 0x20; /* no such device here: the topology search finds none, and falls back */
    p->device = 0;
    p->function = 0;
    p->genVersion = p->width = -1;
    p->maxBandwidth = -1;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeContextCreate(zt_driver d, const zt_context_desc *desc, zt_context *c) {
    ENTER();
    if (d != &the_driver || !desc || !c)
        LEAVE(d != &the_driver ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_NULL_POINTER);
    if (desc->stype != ZT_STYPE_CONTEXT_DESC)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    struct context *x = calloc(1, sizeof *x);
    if (!x)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    x->magic = CTX_MAGIC;
    *c = x;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeContextDestroy(zt_context c) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    ((struct context *)c)->magic = 0;
    free(c);
    LEAVE(ZT_SUCCESS);
}

/* fakegpu's answers as Level Zero's result codes */
static zt_result zr(int fg) {
    switch (fg) {
    case FG_OK: return ZT_SUCCESS;
    case FG_NOT_READY: return ZT_NOT_READY;
    case FG_INVALID_VALUE:
    case FG_ALREADY_REGISTERED:
    case FG_NOT_REGISTERED: return ZT_ERROR_INVALID_ARGUMENT;
    case FG_OUT_OF_MEMORY: return ZT_ERROR_OUT_OF_DEVICE_MEMORY;
    case FG_INVALID_HANDLE: return ZT_ERROR_INVALID_NULL_HANDLE;
    case FG_NOT_FOUND: return ZT_ERROR_INVALID_KERNEL_NAME;
    case FG_ILLEGAL_ADDRESS: return ZT_ERROR_DEVICE_LOST; /* a GPU page fault loses the device */
    default: return ZT_ERROR_UNKNOWN;
    }
}

/* ---- memory ---- */
API zt_result zeMemAllocDevice(zt_context c, const zt_device_mem_alloc_desc *desc, size_t size, size_t align,
                               zt_device d, void **p) {
    ENTER();
    if (!good_ctx(c) || !as_device(d))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!desc || !p)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (desc->stype != ZT_STYPE_DEVICE_MEM_ALLOC_DESC)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    if (!size)
        LEAVE(ZT_ERROR_UNSUPPORTED_SIZE);
    if (align & (align - 1) || align > (2u << 20))
        LEAVE(ZT_ERROR_UNSUPPORTED_ALIGNMENT);
    fg_dev = as_device(d)->index;
    LEAVE(zr(fg_mem_alloc(size, p)));
}

API zt_result zeMemAllocHost(zt_context c, const zt_host_mem_alloc_desc *desc, size_t size, size_t align, void **pp) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!desc || !pp)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (desc->stype != ZT_STYPE_HOST_MEM_ALLOC_DESC)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    if (align & (align - 1) || align > 4096)
        LEAVE(ZT_ERROR_UNSUPPORTED_ALIGNMENT);
    if (!size)
        LEAVE(ZT_ERROR_UNSUPPORTED_SIZE);
    zt_result r = zr(fg_host_alloc(size, pp));
    if (r == ZT_SUCCESS)
        memset(*pp, 0x5a, size < 64 ? size : 64); /* not zeroed: the driver promises nothing about the contents */
    LEAVE(r == ZT_ERROR_OUT_OF_DEVICE_MEMORY ? ZT_ERROR_OUT_OF_HOST_MEMORY : r);
}

API zt_result zeMemFree(zt_context c, void *p) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    struct fg_range *r = fg_find(p);
    if (!r || r->addr != (char *)p || (r->kind != FG_DEVICE && r->kind != FG_HOSTALLOC))
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    LEAVE(zr(r->kind == FG_DEVICE ? fg_mem_free(p) : fg_host_free(p)));
}

API zt_result zeMemGetAllocProperties(zt_context c, const void *p, zt_memory_allocation_properties *m, zt_device *d) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!m)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (m->stype != ZT_STYPE_MEMORY_ALLOCATION_PROPERTIES)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    struct fg_range *r = fg_find(p);
    int device = r && (r->kind == FG_DEVICE || r->kind == FG_IMPORTED);
    m->type = !r || r->kind == FG_REGISTERED ? ZT_MEMORY_TYPE_UNKNOWN
              : device                       ? ZT_MEMORY_TYPE_DEVICE
                                             : ZT_MEMORY_TYPE_HOST;
    m->id = r ? (uint64_t)(uintptr_t)r->addr : 0;
    m->pageSize = r ? 4096 : 0;
    if (d)
        *d = device ? &devices[0] : NULL;
    LEAVE(ZT_SUCCESS); /* memory the driver does not know is answered, as UNKNOWN, not refused */
}

API zt_result zeMemGetAddressRange(zt_context c, const void *p, void **base, size_t *size) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    struct fg_range *r = fg_find(p);
    if (!r || r->kind == FG_REGISTERED)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    if (base)
        *base = r->addr;
    if (size)
        *size = r->len;
    LEAVE(ZT_SUCCESS);
}

/* Intel's extension: page-lock host memory the application allocated (the backend's host_register) */
static zt_result import_ptr(zt_driver d, void *p, size_t size) {
    ENTER();
    if (d != &the_driver)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    LEAVE(zr(fg_host_register(p, size)));
}

static zt_result release_ptr(zt_driver d, void *p) {
    ENTER();
    if (d != &the_driver)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    LEAVE(zr(fg_host_unregister(p)));
}

/* ---- IPC: the handle holds the exporter's descriptor of the memory in its first 8 bytes, as Intel's driver's
 * does, then fakegpu's handle (which names the exporter and its descriptor). Opening checks that the descriptor in
 * the first 8 bytes is this process's copy of that very memory. ---- */
#define IPC_MAGIC "FAKEZE1"
API zt_result zeMemGetIpcHandle(zt_context c, const void *p, zt_ipc_handle *h) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!h)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    struct fg_range *r = fg_find(p);
    unsigned char fgh[64];
    if (!r || r->kind != FG_DEVICE || r->addr != (const char *)p || fg_ipc_get((void *)(uintptr_t)p, fgh, IPC_MAGIC))
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    uint64_t fd = (uint64_t)r->fd;
    memset(h, 0, sizeof *h);
    memcpy(h->data, &fd, sizeof fd);
    memcpy(h->data + 8, fgh, 32); /* fakegpu's handle uses at most its first 32 bytes */
    LEAVE(ZT_SUCCESS);
}

API zt_result zeMemOpenIpcHandle(zt_context c, zt_device d, zt_ipc_handle h, uint32_t flags, void **p) {
    ENTER();
    if (!good_ctx(c) || !as_device(d))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (flags > 3 || !p)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    uint64_t fd;
    unsigned char fgh[64] = {0};
    memcpy(&fd, h.data, sizeof fd);
    memcpy(fgh, h.data + 8, 32);
    struct {
        char magic[8];
        int pid, fd;
    } who;
    memcpy(&who, fgh, sizeof who);
    if (memcmp(who.magic, IPC_MAGIC, sizeof who.magic))
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    /* the descriptor must be this process's and name the exported memory: the exporter's number names nothing
     * here, or something else */
    char theirs[64];
    snprintf(theirs, sizeof theirs, "/proc/%d/fd/%d", who.pid, who.fd);
    struct stat mine, exp;
    if (fd > 0x7fffffff || fstat((int)fd, &mine) || stat(theirs, &exp) || mine.st_dev != exp.st_dev ||
        mine.st_ino != exp.st_ino) {
        fprintf(stderr,
                "fakeze: zeMemOpenIpcHandle: descriptor %d is not this process's copy of the exported memory (it "
                "must be fetched from the exporter, e.g. with pidfd_getfd)\n",
                (int)fd);
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    }
    fg_dev = as_device(d)->index;
    LEAVE(zr(fg_ipc_open(fgh, IPC_MAGIC, p)));
}

API zt_result zeMemCloseIpcHandle(zt_context c, const void *p) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    LEAVE(zr(fg_ipc_close((void *)(uintptr_t)p)));
}

/* ---- events: a pool's slots, each a fakegpu event recorded after the work that signals it ---- */
#define POOL_MAGIC 0x504f4f4cu
#define EVENT_MAGIC 0x45564e54u
#define LIST_MAGIC 0x4c495354u
struct pool {
    unsigned magic;
    uint32_t count;
    unsigned char *used;
};
enum { EV_RESET, EV_PENDING, EV_SIGNALED };
struct event {
    unsigned magic;
    struct pool *pool;
    uint32_t index;
    int state;
    void *fg; /* fakegpu's event */
};
struct list {
    unsigned magic;
    uint32_t ordinal;
    int dev;      /* the device it runs on */
    void *stream; /* fakegpu's stream: an immediate list runs in order */
};

API zt_result zeEventPoolCreate(zt_context c, const zt_event_pool_desc *desc, uint32_t nd, zt_device *devs,
                                zt_pool *out) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!desc || !out || (nd && !devs))
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (desc->stype != ZT_STYPE_EVENT_POOL_DESC)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    if (!desc->count)
        LEAVE(ZT_ERROR_INVALID_SIZE);
    for (uint32_t i = 0; i < nd; i++)
        if (!as_device(devs[i]))
            LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    struct pool *p = calloc(1, sizeof *p);
    if (!p || !(p->used = calloc(desc->count, 1))) {
        free(p);
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    }
    p->magic = POOL_MAGIC;
    p->count = desc->count;
    *out = p;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeEventPoolDestroy(zt_pool pp) {
    ENTER();
    struct pool *p = pp;
    if (!p || p->magic != POOL_MAGIC)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    for (uint32_t i = 0; i < p->count; i++)
        if (p->used[i])
            LEAVE(ZT_ERROR_HANDLE_OBJECT_IN_USE); /* its events first */
    p->magic = 0;
    free(p->used);
    free(p);
    LEAVE(ZT_SUCCESS);
}

API zt_result zeEventCreate(zt_pool pp, const zt_event_desc *desc, zt_event *out) {
    ENTER();
    struct pool *p = pp;
    if (!p || p->magic != POOL_MAGIC)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!desc || !out)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (desc->stype != ZT_STYPE_EVENT_DESC)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    if (desc->index >= p->count || p->used[desc->index])
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    struct event *e = calloc(1, sizeof *e);
    if (!e || fg_event_create(&e->fg)) {
        free(e);
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    }
    e->magic = EVENT_MAGIC;
    e->pool = p;
    e->index = desc->index;
    p->used[desc->index] = 1;
    *out = e;
    LEAVE(ZT_SUCCESS);
}

static struct event *as_event(zt_event e) {
    struct event *v = e;
    return v && v->magic == EVENT_MAGIC ? v : NULL;
}

API zt_result zeEventDestroy(zt_event ev) {
    ENTER();
    struct event *e = as_event(ev);
    if (!e)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (e->state == EV_PENDING)
        LEAVE(ZT_ERROR_HANDLE_OBJECT_IN_USE); /* work still signals it */
    fg_event_destroy(e->fg);
    e->pool->used[e->index] = 0;
    e->magic = 0;
    free(e);
    LEAVE(ZT_SUCCESS);
}

API zt_result zeEventHostSynchronize(zt_event ev, uint64_t timeout) {
    ENTER();
    struct event *e = as_event(ev);
    if (!e)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (e->state == EV_RESET) {
        if (timeout == UINT64_MAX) { /* nothing will ever signal it: the real call never returns */
            fprintf(stderr, "fakeze: zeEventHostSynchronize waits forever on an event no work signals\n");
            abort();
        }
        LEAVE(ZT_NOT_READY);
    }
    zt_result r = zr(fg_event_sync(e->fg));
    e->state = EV_SIGNALED;
    LEAVE(r);
}

API zt_result zeEventQueryStatus(zt_event ev) {
    ENTER();
    struct event *e = as_event(ev);
    if (!e)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (e->state == EV_RESET)
        LEAVE(ZT_NOT_READY);
    zt_result r = zr(fg_event_query(e->fg));
    if (r != ZT_NOT_READY)
        e->state = EV_SIGNALED;
    LEAVE(r);
}

API zt_result zeEventHostReset(zt_event ev) {
    ENTER();
    struct event *e = as_event(ev);
    if (!e)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (e->state == EV_PENDING)
        LEAVE(ZT_ERROR_HANDLE_OBJECT_IN_USE); /* the GPU would signal it after the reset */
    e->state = EV_RESET;
    LEAVE(ZT_SUCCESS);
}

/* ---- immediate command lists: fakegpu streams, whose work waits until something waits for it ---- */
API zt_result zeCommandListCreateImmediate(zt_context c, zt_device d, const zt_queue_desc *q, zt_cmdlist *out) {
    ENTER();
    if (!good_ctx(c) || !as_device(d))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!q || !out)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (q->stype != ZT_STYPE_QUEUE_DESC || q->mode < 0 || q->mode > 2)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    if (q->ordinal >= nqgroups() || q->index >= qgroups[q->ordinal].numQueues)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    struct list *l = calloc(1, sizeof *l);
    if (!l || fg_stream_create(l, &l->stream)) {
        free(l);
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    }
    l->magic = LIST_MAGIC;
    l->ordinal = q->ordinal;
    l->dev = as_device(d)->index;
    *out = l;
    LEAVE(ZT_SUCCESS);
}

static struct list *as_list(zt_cmdlist h) {
    struct list *l = h;
    return l && l->magic == LIST_MAGIC ? l : NULL;
}

API zt_result zeCommandListDestroy(zt_cmdlist h) {
    ENTER();
    struct list *l = as_list(h);
    if (!l)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    fg_stream_destroy(l->stream); /* appended work still completes */
    l->magic = 0;
    free(l);
    LEAVE(ZT_SUCCESS);
}

/* the checks every append makes: the list, its signal event (reset since it was last signalled: a second signal
 * would be lost), no waits on other events (gshmem uses none) */
static zt_result check_append(struct list *l, zt_event ev, uint32_t nwait, zt_event *waits) {
    struct event *e = ev ? as_event(ev) : NULL;
    return !l || (ev && !e)     ? ZT_ERROR_INVALID_NULL_HANDLE
           : nwait || waits     ? ZT_ERROR_INVALID_ARGUMENT
           : e && e->state != 0 ? ZT_ERROR_INVALID_ARGUMENT
                                : ZT_SUCCESS;
}

/* after the work was queued: the event behind it */
static zt_result signal_after(struct list *l, zt_event ev) {
    struct event *e = as_event(ev);
    if (!e)
        return ZT_SUCCESS;
    zt_result r = zr(fg_event_record(e->fg, l->stream, l));
    if (r == ZT_SUCCESS)
        e->state = EV_PENDING;
    return r;
}

API zt_result zeCommandListAppendMemoryCopy(zt_cmdlist h, void *dst, const void *src, size_t n, zt_event ev,
                                            uint32_t nwait, zt_event *waits) {
    ENTER();
    struct list *l = as_list(h);
    zt_result r = check_append(l, ev, nwait, waits);
    if (r == ZT_SUCCESS && (!dst || !src))
        r = ZT_ERROR_INVALID_NULL_POINTER;
    if (r == ZT_SUCCESS && (r = zr(fg_copy_async(dst, src, n, l->stream, l))) == ZT_SUCCESS)
        r = signal_after(l, ev);
    LEAVE(r);
}

API zt_result zeCommandListAppendMemoryCopyRegion(zt_cmdlist h, void *dst, const zt_copy_region *dr, uint32_t dpitch,
                                                  uint32_t dslice, const void *src, const zt_copy_region *sr,
                                                  uint32_t spitch, uint32_t sslice, zt_event ev, uint32_t nwait,
                                                  zt_event *waits) {
    ENTER();
    (void)dslice;
    (void)sslice;
    struct list *l = as_list(h);
    zt_result r = check_append(l, ev, nwait, waits);
    if (r != ZT_SUCCESS)
        LEAVE(r);
    if (!dst || !src || !dr || !sr)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    /* 2D only (depth 1), the same extent on both sides, each row inside its pitch */
    if (dr->depth != 1 || sr->depth != 1 || dr->width != sr->width || dr->height != sr->height || !dr->width ||
        !dr->height || dr->originZ || sr->originZ || (uint64_t)dr->originX + dr->width > dpitch ||
        (uint64_t)sr->originX + sr->width > spitch)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    char *d = (char *)dst + (size_t)dr->originY * dpitch + dr->originX;
    const char *s = (const char *)src + (size_t)sr->originY * spitch + sr->originX;
    if ((r = zr(fg_copy2d_async(d, dpitch, s, spitch, dr->width, dr->height, l->stream, l))) == ZT_SUCCESS)
        r = signal_after(l, ev);
    LEAVE(r);
}

API zt_result zeCommandListAppendMemoryFill(zt_cmdlist h, void *dst, const void *pattern, size_t psize, size_t n,
                                            zt_event ev, uint32_t nwait, zt_event *waits) {
    ENTER();
    struct list *l = as_list(h);
    zt_result r = check_append(l, ev, nwait, waits);
    if (r != ZT_SUCCESS)
        LEAVE(r);
    if (!dst || !pattern)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (!psize || psize & (psize - 1) || psize > qgroups[l->ordinal].maxMemoryFillPatternSize || n % psize)
        LEAVE(ZT_ERROR_INVALID_SIZE);
    if (psize != 1)
        LEAVE(ZT_ERROR_UNSUPPORTED_SIZE); /* the fake's limit (fakegpu sets bytes), not the driver's */
    if ((r = zr(fg_memset_async(dst, *(const unsigned char *)pattern, n, l->stream, l))) == ZT_SUCCESS)
        r = signal_after(l, ev);
    LEAVE(r);
}

/* ---- modules: SPIR-V, its entry points read from OpEntryPoint; kernels are fakegpu's C versions ---- */
#define MODULE_MAGIC 0x4d4f444cu
#define KERNEL_MAGIC 0x4b45524eu
#define MAX_ARGS 5
struct module {
    unsigned magic;
    int nnames;
    char names[128][64];
};
/* each kernel's arguments and their sizes, as kernels.cl declares them (a name ending in '_' is a prefix) */
static const struct {
    const char *name;
    int nargs;
    size_t size[MAX_ARGS];
} protos[] = {
    {"gshmemi_amo32", 5, {8, 4, 4, 4, 8}},
    {"gshmemi_amo64", 5, {8, 4, 8, 8, 8}},
    {"gshmemi_red_", 3, {8, 8, 8}},
};
struct kernel {
    unsigned magic;
    int nargs;
    const size_t *size;
    void *fn; /* fakegpu's function */
    uint64_t args[MAX_ARGS][2];
    unsigned set; /* bit i: argument i was given */
    uint32_t group;
};

/* the entry points' names, -1 when it is not SPIR-V; *fp64: it declares the Float64 capability */
static int parse_spirv(const uint8_t *b, size_t size, struct module *m, int *fp64) {
    if (size < 20 || size % 4)
        return -1;
    const uint32_t *w = (const uint32_t *)(const void *)b;
    size_t nw = size / 4;
    if (w[0] != 0x07230203u)
        return -1;
    *fp64 = 0;
    for (size_t i = 5; i < nw;) {
        uint32_t len = w[i] >> 16, opcode = w[i] & 0xffff;
        if (!len || i + len > nw)
            return -1;
        if (opcode == 17 && len == 2 && w[i + 1] == 10) /* OpCapability Float64 */
            *fp64 = 1;
        if (opcode == 15 && len >= 4 && m->nnames < 128) { /* OpEntryPoint model id "name" interface... */
            const char *s = (const char *)(const void *)&w[i + 3];
            size_t max = (len - 3) * 4;
            if (strnlen(s, max) < max && strlen(s) < sizeof m->names[0])
                snprintf(m->names[m->nnames++], sizeof m->names[0], "%s", s);
        }
        i += len;
    }
    return 0;
}

API zt_result zeModuleCreate(zt_context c, zt_device d, const zt_module_desc *desc, zt_module *out, void **log) {
    ENTER();
    if (!good_ctx(c) || !as_device(d))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!desc || !out || !desc->pInputModule)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (log)
        *log = NULL;
    if (desc->stype != ZT_STYPE_MODULE_DESC || desc->format != ZT_MODULE_FORMAT_IL_SPIRV)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    struct module *m = calloc(1, sizeof *m);
    int fp64 = 0;
    if (!m)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    if (parse_spirv(desc->pInputModule, desc->inputSize, m, &fp64) || !m->nnames) {
        free(m);
        LEAVE(ZT_ERROR_INVALID_NATIVE_BINARY);
    }
    if (fp64 && env1("FAKEZE_NO_FP64")) {
        free(m);
        LEAVE(ZT_ERROR_MODULE_BUILD_FAILURE);
    }
    m->magic = MODULE_MAGIC;
    *out = m;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeModuleDestroy(zt_module h) {
    ENTER();
    struct module *m = h;
    if (!m || m->magic != MODULE_MAGIC)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    m->magic = 0;
    free(m);
    LEAVE(ZT_SUCCESS);
}

API zt_result zeKernelCreate(zt_module h, const zt_kernel_desc *desc, zt_kernel *out) {
    ENTER();
    struct module *m = h;
    if (!m || m->magic != MODULE_MAGIC)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!desc || !out || !desc->pKernelName)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (desc->stype != ZT_STYPE_KERNEL_DESC)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    const char *name = desc->pKernelName;
    int in = 0;
    for (int i = 0; i < m->nnames && !in; i++)
        in = !strcmp(m->names[i], name);
    size_t k = 0, np = sizeof protos / sizeof protos[0];
    for (; in && k < np; k++) {
        size_t len = strlen(protos[k].name);
        if (protos[k].name[len - 1] == '_' ? !strncmp(name, protos[k].name, len) : !strcmp(name, protos[k].name))
            break;
    }
    void *fn = NULL;
    if (!in || k == np || fg_function(name, &fn)) /* not in the module, or no C version of it */
        LEAVE(ZT_ERROR_INVALID_KERNEL_NAME);
    struct kernel *kn = calloc(1, sizeof *kn);
    if (!kn)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    kn->magic = KERNEL_MAGIC;
    kn->nargs = protos[k].nargs;
    kn->size = protos[k].size;
    kn->fn = fn;
    *out = kn;
    LEAVE(ZT_SUCCESS);
}

static struct kernel *as_kernel(zt_kernel h) {
    struct kernel *k = h;
    return k && k->magic == KERNEL_MAGIC ? k : NULL;
}

API zt_result zeKernelDestroy(zt_kernel h) {
    ENTER();
    struct kernel *k = as_kernel(h);
    if (!k)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    k->magic = 0;
    free(k);
    LEAVE(ZT_SUCCESS);
}

API zt_result zeKernelSetArgumentValue(zt_kernel h, uint32_t i, size_t size, const void *v) {
    ENTER();
    struct kernel *k = as_kernel(h);
    if (!k)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (i >= (uint32_t)k->nargs)
        LEAVE(ZT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    if (size != k->size[i] || !v)
        LEAVE(ZT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    memset(k->args[i], 0, sizeof k->args[i]);
    memcpy(k->args[i], v, size);
    k->set |= 1u << i;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeKernelSetGroupSize(zt_kernel h, uint32_t x, uint32_t y, uint32_t z) {
    ENTER();
    struct kernel *k = as_kernel(h);
    if (!k)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!x || y != 1 || z != 1 || x > 1024)
        LEAVE(ZT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    k->group = x;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeKernelSuggestGroupSize(zt_kernel h, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t *x, uint32_t *y,
                                       uint32_t *z) {
    ENTER();
    if (!as_kernel(h))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!x || !y || !z || !gx || !gy || !gz)
        LEAVE(!x || !y || !z ? ZT_ERROR_INVALID_NULL_POINTER : ZT_ERROR_INVALID_ARGUMENT);
    *x = gx >= 256 ? 256 : gx;
    *y = *z = 1;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeCommandListAppendLaunchKernel(zt_cmdlist h, zt_kernel kh, const zt_group_count *g, zt_event ev,
                                              uint32_t nwait, zt_event *waits) {
    ENTER();
    struct kernel *k = as_kernel(kh);
    struct list *l = as_list(h);
    zt_result r = check_append(l, ev, nwait, waits);
    if (r == ZT_SUCCESS && !k)
        r = ZT_ERROR_INVALID_NULL_HANDLE;
    if (r != ZT_SUCCESS)
        LEAVE(r);
    if (!g)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (!(qgroups[l->ordinal].flags & ZT_QUEUE_GROUP_COMPUTE))
        LEAVE(ZT_ERROR_INVALID_ARGUMENT); /* a copy engine runs no kernels */
    if (!k->group || !g->x || g->y != 1 || g->z != 1 || k->set != (1u << k->nargs) - 1)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT); /* group size and every argument first */
    void *params[MAX_ARGS];
    for (int i = 0; i < k->nargs; i++)
        params[i] = k->args[i]; /* fakegpu takes the values now, as the driver does at append */
    fg_dev = l->dev;
    if ((r = zr(fg_launch(k->fn, g->x, 1, 1, k->group, 1, 1, 0, l->stream, l, params, NULL))) == ZT_SUCCESS)
        r = signal_after(l, ev);
    LEAVE(r);
}
