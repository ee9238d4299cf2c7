/* fakeze.c - a stand-in Level Zero loader (libze_loader.so.1) for testing gshmem's Level Zero backend on machines
 * without an Intel GPU: it exports the entry points gtl_ze.c loads, so that code (symbol loading, device choice, IPC
 * between PEs, memory queries, immediate command lists, events, SPIR-V kernels) runs in CI. Strict where the real
 * driver is, stricter where that finds bugs sooner:
 *  - device memory is shared memory the CPU cannot touch (PROT_NONE; the fake reaches it through a hidden alias), so
 *    a host load or store of it faults (FAKEZE_HOST_VISIBLE=1 lifts that, for test programs that check their own
 *    GPU-heap objects; FAKEZE_COHERENT=1 makes the device an integrated one whose memory the CPU reaches);
 *  - work appended to a command list runs only when an event it signals is waited for on the host (the first query
 *    of a pending event says "not ready"); an event must be reset before it is signalled again;
 *  - kernels reach only device, imported and host (zeMemAllocHost or imported) memory: anything else loses the
 *    device, as a GPU page fault does;
 *  - an IPC handle holds a file descriptor valid only in the exporting process, as the real driver's dma-buf does:
 *    another process must copy that descriptor into itself (pidfd_getfd) and put its own number in the handle;
 *  - kernels are C versions of kernels.cl's, found by the names the SPIR-V module declares (OpEntryPoint);
 *    FAKEZE_NO_FP64=1 refuses modules that use doubles, as GPUs without fp64 do.
 * Also: FAKEZE_DEVICES=n GPUs (1..4), FAKEZE_NO_BLITTER=1 (no copy-only engine), FAKEZE_NO_IMPORT=1 (no Intel
 * extension to page-lock host memory). It models none of a GPU's speed: nothing measured with it means anything. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/ze/ze_types.h"

#define API __attribute__((visibility("default")))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int inited;
static zt_result lost; /* a fault in a kernel or copy loses the device, as on a GPU: every later wait fails */

static int env1(const char *name) {
    const char *v = getenv(name);
    return v && *v == '1';
}

/* ======== device memory: ranges the CPU cannot touch, reached through an alias (separable from the rest) ======== */
enum { R_DEVICE = 1, R_IMPORTED, R_HOST, R_REGISTERED };
#define MAX_RANGES 1024
static struct range {
    char *addr;  /* what the application sees (device: PROT_NONE unless host-visible) */
    char *alias; /* device: the same pages, readable and writable; host: addr */
    size_t len;
    int kind, fd; /* fd: device memory's memfd, in the process that allocated it */
    uint64_t id;  /* device memory: names the allocation across processes */
} ranges[MAX_RANGES];
static int nranges;

static struct range *find(const void *p) {
    for (int i = 0; i < nranges; i++)
        if ((uintptr_t)p - (uintptr_t)ranges[i].addr < ranges[i].len)
            return &ranges[i];
    return NULL;
}

static struct range *add(char *addr, char *alias, size_t len, int kind, int fd, uint64_t id) {
    if (nranges == MAX_RANGES)
        return NULL;
    ranges[nranges] = (struct range){addr, alias, len, kind, fd, id};
    return &ranges[nranges++];
}

static void drop(struct range *r) { *r = ranges[--nranges]; }

/* Where the bytes [p, p+n) are for the CPU: device memory through its alias, other memory as is (kernels: only
 * memory the device may reach). NULL: a fault. */
static char *xlate(const void *p, size_t n, int kernel) {
    struct range *r = find(p);
    if (!r)
        return kernel ? NULL : (char *)(uintptr_t)p;
    if (n > r->len - (size_t)((const char *)p - r->addr))
        return NULL;
    return r->alias + ((const char *)p - r->addr);
}

static int host_visible(void) { return env1("FAKEZE_HOST_VISIBLE") || env1("FAKEZE_COHERENT"); }

/* device pointers 2 MiB-aligned, as large device allocations are */
static int map_views(int fd, size_t len, char **dev, char **alias) {
    size_t align = 2u << 20;
    char *res = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED)
        return -1;
    char *d = (char *)(((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1));
    if (d > res)
        munmap(res, (size_t)(d - res));
    munmap(d + len, (size_t)(res + len + align - (d + len)));
    char *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (a == MAP_FAILED) {
        munmap(d, len);
        return -1;
    }
    if (host_visible() && mmap(d, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) != d) {
        munmap(a, len);
        munmap(d, len);
        return -1;
    }
    *dev = d;
    *alias = a;
    return 0;
}

static void unmap(struct range *r) {
    munmap(r->addr, r->len);
    munmap(r->alias, r->len);
    if (r->fd >= 0)
        close(r->fd);
    drop(r);
}

static int mapped(const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, end = (uintptr_t)p + n;
    unsigned char v;
    for (; a < end; a += 4096)
        if (mincore((void *)a, 4096, &v))
            return 0;
    return 1;
}
/* ======== end of the device-memory model ======== */

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
    pthread_mutex_lock(&mu);                                                                                           \
    if (!inited) {                                                                                                     \
        pthread_mutex_unlock(&mu);                                                                                     \
        return ZT_ERROR_UNINITIALIZED;                                                                                 \
    }
#define LEAVE(rc)                                                                                                      \
    do {                                                                                                               \
        zt_result r_ = (rc);                                                                                           \
        pthread_mutex_unlock(&mu);                                                                                     \
        return r_;                                                                                                     \
    } while (0)

API zt_result zeInit(uint32_t flags) {
    if (flags & ~(uint32_t)ZT_INIT_FLAG_GPU_ONLY)
        return ZT_ERROR_INVALID_ENUMERATION;
    pthread_mutex_lock(&mu);
    inited = 1;
    for (int i = 0; i < 4; i++)
        devices[i] = (struct device){DEVICE_MAGIC, i};
    pthread_mutex_unlock(&mu);
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
    size_t len = (size + 4095) & ~(size_t)4095;
    uint64_t id = ((uint64_t)getpid() << 32) ^ ((uint64_t)random() << 8) ^ (uint64_t)nranges;
    char name[48];
    snprintf(name, sizeof name, "fakeze:%016" PRIx64, id);
    int fd = memfd_create(name, MFD_CLOEXEC);
    char *dev, *alias;
    if (fd < 0 || ftruncate(fd, (off_t)len) || map_views(fd, len, &dev, &alias)) {
        if (fd >= 0)
            close(fd);
        LEAVE(ZT_ERROR_OUT_OF_DEVICE_MEMORY);
    }
    if (!add(dev, alias, len, R_DEVICE, fd, id)) {
        munmap(dev, len);
        munmap(alias, len);
        close(fd);
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    }
    *p = dev;
    LEAVE(ZT_SUCCESS);
}

static int overlaps_host(const char *p, size_t n) {
    for (int i = 0; i < nranges; i++)
        if ((ranges[i].kind == R_HOST || ranges[i].kind == R_REGISTERED) && p < ranges[i].addr + ranges[i].len &&
            ranges[i].addr < p + n)
            return 1;
    return 0;
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
    size_t len = (size + 4095) & ~(size_t)4095;
    char *p = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    if (p == MAP_FAILED)
        LEAVE(len ? ZT_ERROR_OUT_OF_HOST_MEMORY : ZT_ERROR_UNSUPPORTED_SIZE);
    memset(p, 0x5a, 64); /* not zeroed: the driver promises nothing about the contents */
    if (!add(p, p, len, R_HOST, -1, 0)) {
        munmap(p, len);
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    }
    *pp = p;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeMemFree(zt_context c, void *p) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    struct range *r = find(p);
    if (!r || (r->kind != R_DEVICE && r->kind != R_HOST) || r->addr != p)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    if (r->kind == R_HOST) {
        munmap(r->addr, r->len);
        drop(r);
    } else {
        unmap(r);
    }
    LEAVE(ZT_SUCCESS);
}

API zt_result zeMemGetAllocProperties(zt_context c, const void *p, zt_memory_allocation_properties *m, zt_device *d) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!m)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (m->stype != ZT_STYPE_MEMORY_ALLOCATION_PROPERTIES)
        LEAVE(ZT_ERROR_INVALID_ENUMERATION);
    struct range *r = find(p);
    m->type = !r || r->kind == R_REGISTERED ? ZT_MEMORY_TYPE_UNKNOWN
              : r->kind == R_HOST           ? ZT_MEMORY_TYPE_HOST
                                            : ZT_MEMORY_TYPE_DEVICE;
    m->id = r ? (uint64_t)(r - ranges) + 1 : 0;
    m->pageSize = r ? 4096 : 0;
    if (d)
        *d = r && (r->kind == R_DEVICE || r->kind == R_IMPORTED) ? &devices[0] : NULL;
    LEAVE(ZT_SUCCESS); /* memory the driver does not know is answered, as UNKNOWN, not refused */
}

API zt_result zeMemGetAddressRange(zt_context c, const void *p, void **base, size_t *size) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    struct range *r = find(p);
    if (!r || r->kind == R_REGISTERED)
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
    if (!p || !size || find(p) || overlaps_host(p, size) || !mapped(p, size))
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    if (!add(p, p, size, R_REGISTERED, -1, 0))
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    LEAVE(ZT_SUCCESS);
}

static zt_result release_ptr(zt_driver d, void *p) {
    ENTER();
    struct range *r = find(p);
    if (d != &the_driver || !r || r->kind != R_REGISTERED || r->addr != p)
        LEAVE(d != &the_driver ? ZT_ERROR_INVALID_NULL_HANDLE : ZT_ERROR_INVALID_ARGUMENT);
    zt_result rc = mapped(r->addr, r->len) ? ZT_SUCCESS : ZT_ERROR_INVALID_ARGUMENT; /* unmapped while imported */
    drop(r);
    LEAVE(rc);
}

/* ---- IPC: the handle holds the exporter's descriptor of the memory (valid in that process only) and its id ---- */
struct ipc {
    uint64_t fd, id, len;
    char magic[8];
};

API zt_result zeMemGetIpcHandle(zt_context c, const void *p, zt_ipc_handle *h) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    struct range *r = find(p);
    if (!h)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (!r || r->kind != R_DEVICE || r->addr != p)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    struct ipc m = {(uint64_t)r->fd, r->id, r->len, "FAKEZE1"};
    memset(h, 0, sizeof *h);
    memcpy(h->data, &m, sizeof m);
    LEAVE(ZT_SUCCESS);
}

API zt_result zeMemOpenIpcHandle(zt_context c, zt_device d, zt_ipc_handle h, uint32_t flags, void **p) {
    ENTER();
    if (!good_ctx(c) || !as_device(d))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    struct ipc m;
    memcpy(&m, h.data, sizeof m);
    if (memcmp(m.magic, "FAKEZE1", 8) || flags > 3 || !p)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    /* the descriptor must be this process's and name that allocation: a number copied from another process names
     * nothing here, or something else */
    char path[64], link[128], want[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", (int)m.fd);
    snprintf(want, sizeof want, "/memfd:fakeze:%016" PRIx64 " (deleted)", m.id);
    ssize_t ll = m.fd > 0x7fffffff ? -1 : readlink(path, link, sizeof link - 1);
    struct stat st;
    if (ll < 0 || (link[ll] = 0, strcmp(link, want)) || fstat((int)m.fd, &st) || (uint64_t)st.st_size != m.len) {
        fprintf(stderr,
                "fakeze: zeMemOpenIpcHandle: descriptor %d is not this process's copy of the exported "
                "memory (it must be fetched from the exporter, e.g. with pidfd_getfd)\n",
                (int)m.fd);
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    }
    char *dev, *alias;
    if (map_views((int)m.fd, m.len, &dev, &alias))
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    if (!add(dev, alias, m.len, R_IMPORTED, -1, m.id)) { /* the caller keeps (and may close) its descriptor */
        munmap(dev, m.len);
        munmap(alias, m.len);
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    }
    *p = dev;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeMemCloseIpcHandle(zt_context c, const void *p) {
    ENTER();
    if (!good_ctx(c))
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    struct range *r = find(p);
    if (!r || r->kind != R_IMPORTED || r->addr != p)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    unmap(r);
    LEAVE(ZT_SUCCESS);
}

/* ---- events ---- */
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
    int state, queried;
    struct list *list; /* while pending: the list whose work signals it */
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
    if (!e)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    *e = (struct event){EVENT_MAGIC, p, desc->index, EV_RESET, 0, NULL};
    p->used[desc->index] = 1;
    *out = e;
    LEAVE(ZT_SUCCESS);
}

static struct event *as_event(zt_event e) {
    struct event *v = e;
    return v && v->magic == EVENT_MAGIC ? v : NULL;
}

/* ---- command lists: appended work waits in a queue until something waits for it ---- */
enum { Q_COPY, Q_FILL, Q_REGION, Q_KERNEL };
struct kern;
#define MAX_ARGS 5
struct op {
    int kind;
    char *dst;
    const char *src;
    size_t n, dpitch, spitch, height, pattern_size;
    unsigned char pattern[128];
    const struct kern *k;
    uint64_t args[MAX_ARGS][2]; /* each argument's value, as set when the launch was appended */
    uint32_t group, groups;
    char kname[64];
    struct event *signal;
    struct op *next;
};
struct list {
    unsigned magic;
    uint32_t ordinal;
    struct op *head, *tail;
};

static void run_op(struct op *o);

/* runs the list's queue up to and including `until` (all of it when NULL) */
static void drain(struct list *l, struct op *until) {
    while (l->head) {
        struct op *o = l->head;
        l->head = o->next;
        if (!l->head)
            l->tail = NULL;
        run_op(o);
        if (o->signal) {
            o->signal->state = EV_SIGNALED;
            o->signal->list = NULL;
        }
        int last = o == until;
        free(o);
        if (last)
            break;
    }
}

static struct op *signal_op(struct event *e) {
    for (struct op *o = e->list ? e->list->head : NULL; o; o = o->next)
        if (o->signal == e)
            return o;
    return NULL;
}

API zt_result zeEventDestroy(zt_event ev) {
    ENTER();
    struct event *e = as_event(ev);
    if (!e)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (e->state == EV_PENDING)
        LEAVE(ZT_ERROR_HANDLE_OBJECT_IN_USE); /* work still signals it */
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
    if (e->state == EV_PENDING)
        drain(e->list, signal_op(e));
    LEAVE(lost);
}

API zt_result zeEventQueryStatus(zt_event ev) {
    ENTER();
    struct event *e = as_event(ev);
    if (!e)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (e->state == EV_RESET)
        LEAVE(ZT_NOT_READY);
    if (e->state == EV_PENDING && !e->queried) {
        e->queried = 1;
        LEAVE(ZT_NOT_READY);
    }
    if (e->state == EV_PENDING)
        drain(e->list, signal_op(e));
    LEAVE(lost ? lost : ZT_SUCCESS);
}

API zt_result zeEventHostReset(zt_event ev) {
    ENTER();
    struct event *e = as_event(ev);
    if (!e)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (e->state == EV_PENDING)
        LEAVE(ZT_ERROR_HANDLE_OBJECT_IN_USE); /* the GPU would signal it after the reset */
    e->state = EV_RESET;
    e->queried = 0;
    LEAVE(ZT_SUCCESS);
}

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
    if (!l)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    l->magic = LIST_MAGIC;
    l->ordinal = q->ordinal;
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
    drain(l, NULL); /* appended work still completes */
    l->magic = 0;
    free(l);
    LEAVE(ZT_SUCCESS);
}

/* puts o on the list, signalling ev when it has run; waits on other events are not used by gshmem (refused) */
static zt_result append(zt_cmdlist h, struct op *o, zt_event ev, uint32_t nwait, zt_event *waits) {
    struct list *l = as_list(h);
    struct event *e = ev ? as_event(ev) : NULL;
    zt_result r = !l || (ev && !e) ? ZT_ERROR_INVALID_NULL_HANDLE
                  : nwait || waits ? ZT_ERROR_INVALID_ARGUMENT
                  : e && e->state != EV_RESET
                      ? ZT_ERROR_INVALID_ARGUMENT /* signalled again before a reset: the new signal is lost */
                      : ZT_SUCCESS;
    if (r) {
        free(o);
        return r;
    }
    o->signal = e;
    if (e) {
        e->state = EV_PENDING;
        e->queried = 0;
        e->list = l;
    }
    if (l->tail)
        l->tail->next = o;
    else
        l->head = o;
    l->tail = o;
    return ZT_SUCCESS;
}

static struct op *new_op(int kind) {
    struct op *o = calloc(1, sizeof *o);
    if (o)
        o->kind = kind;
    return o;
}

API zt_result zeCommandListAppendMemoryCopy(zt_cmdlist h, void *dst, const void *src, size_t n, zt_event ev,
                                            uint32_t nwait, zt_event *waits) {
    ENTER();
    if (!dst || !src)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    struct op *o = new_op(Q_COPY);
    if (!o)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    o->dst = dst;
    o->src = src;
    o->n = n;
    LEAVE(append(h, o, ev, nwait, waits));
}

API zt_result zeCommandListAppendMemoryCopyRegion(zt_cmdlist h, void *dst, const zt_copy_region *dr, uint32_t dpitch,
                                                  uint32_t dslice, const void *src, const zt_copy_region *sr,
                                                  uint32_t spitch, uint32_t sslice, zt_event ev, uint32_t nwait,
                                                  zt_event *waits) {
    ENTER();
    (void)dslice;
    (void)sslice;
    if (!dst || !src || !dr || !sr)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    /* 2D only (depth 1), the same extent on both sides, each row inside its pitch */
    if (dr->depth != 1 || sr->depth != 1 || dr->width != sr->width || dr->height != sr->height || !dr->width ||
        !dr->height || dr->originZ || sr->originZ || (uint64_t)dr->originX + dr->width > dpitch ||
        (uint64_t)sr->originX + sr->width > spitch)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT);
    struct op *o = new_op(Q_REGION);
    if (!o)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    o->dst = (char *)dst + (size_t)dr->originY * dpitch + dr->originX;
    o->src = (const char *)src + (size_t)sr->originY * spitch + sr->originX;
    o->n = dr->width;
    o->height = dr->height;
    o->dpitch = dpitch;
    o->spitch = spitch;
    LEAVE(append(h, o, ev, nwait, waits));
}

API zt_result zeCommandListAppendMemoryFill(zt_cmdlist h, void *dst, const void *pattern, size_t psize, size_t n,
                                            zt_event ev, uint32_t nwait, zt_event *waits) {
    ENTER();
    struct list *l = as_list(h);
    if (!l)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!dst || !pattern)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (!psize || psize & (psize - 1) || psize > qgroups[l->ordinal].maxMemoryFillPatternSize || n % psize)
        LEAVE(ZT_ERROR_INVALID_SIZE);
    struct op *o = new_op(Q_FILL);
    if (!o)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    o->dst = dst;
    o->n = n;
    o->pattern_size = psize;
    memcpy(o->pattern, pattern, psize);
    LEAVE(append(h, o, ev, nwait, waits));
}

/* ---- kernels: kernels.cl's, in C ---- */
struct kern {
    const char *name; /* a prefix when it ends in '_' */
    int (*run)(const struct kern *k, const char *name, uint64_t (*args)[2], uint32_t group, uint32_t groups);
    int nargs;
    size_t size[MAX_ARGS];
};

static int k_amo(const struct kern *k, const char *name, uint64_t (*a)[2], uint32_t group, uint32_t groups) {
    (void)name;
    int wide = k->size[2] == 8;
    if (group != 1 || groups != 1)
        return ZT_ERROR_INVALID_ARGUMENT; /* one work-item does the atomic: more would apply it several times */
    void *ptr = (void *)(uintptr_t)a[0][0], *outp = (void *)(uintptr_t)a[4][0];
    int op = (int)(uint32_t)a[1][0];
    uint64_t v = a[2][0], c = a[3][0];
    size_t sz = wide ? 8 : 4;
    char *w = xlate(ptr, sz, 1);
    uint64_t *out = (uint64_t *)(void *)xlate(outp, 8, 1);
    if (!w || !out || ((uintptr_t)ptr & (sz - 1)) || ((uintptr_t)outp & 7))
        return ZT_ERROR_DEVICE_LOST;
    uint64_t old = 0;
#define AMO(T)                                                                                                         \
    do {                                                                                                               \
        T *p = (T *)(void *)w, tv = (T)v, tc = (T)c;                                                                   \
        switch (op) {                                                                                                  \
        case 0: old = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;                                                     \
        case 1: __atomic_store_n(p, tv, __ATOMIC_SEQ_CST); break;                                                      \
        case 2: old = __atomic_exchange_n(p, tv, __ATOMIC_SEQ_CST); break;                                             \
        case 3:                                                                                                        \
            __atomic_compare_exchange_n(p, &tc, tv, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                            \
            old = tc;                                                                                                  \
            break;                                                                                                     \
        case 4: old = __atomic_fetch_add(p, tv, __ATOMIC_SEQ_CST); break;                                              \
        case 5: old = __atomic_fetch_and(p, tv, __ATOMIC_SEQ_CST); break;                                              \
        case 6: old = __atomic_fetch_or(p, tv, __ATOMIC_SEQ_CST); break;                                               \
        case 7: old = __atomic_fetch_xor(p, tv, __ATOMIC_SEQ_CST); break;                                              \
        default: return ZT_ERROR_INVALID_ARGUMENT;                                                                     \
        }                                                                                                              \
    } while (0)
    if (wide)
        AMO(uint64_t);
    else
        AMO(uint32_t);
    *out = old; /* the kernel stores the whole 64-bit word (the old value widened) */
    return ZT_SUCCESS;
}

struct cf {
    float re, im;
};
struct cd {
    double re, im;
};
enum { O_AND, O_OR, O_XOR, O_SUM, O_PROD, O_MAX, O_MIN };
static const char *const onames[] = {"and", "or", "xor", "sum", "prod", "max", "min"};
static const char *const tnames[] = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "c32", "c64"};
static const size_t tsizes[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16};

#define LOOP(T, ...)                                                                                                   \
    do {                                                                                                               \
        T *a = (T *)(void *)A;                                                                                         \
        const T *b = (const T *)(const void *)B;                                                                       \
        for (size_t i = 0; i < n; i++)                                                                                 \
            __VA_ARGS__;                                                                                               \
    } while (0)
#define INTOPS(T)                                                                                                      \
    switch (op) {                                                                                                      \
    case O_AND: LOOP(T, a[i] = (T)(a[i] & b[i])); break;                                                               \
    case O_OR: LOOP(T, a[i] = (T)(a[i] | b[i])); break;                                                                \
    case O_XOR: LOOP(T, a[i] = (T)(a[i] ^ b[i])); break;                                                               \
    case O_SUM: LOOP(T, a[i] = (T)(a[i] + b[i])); break;                                                               \
    case O_PROD: LOOP(T, a[i] = (T)(a[i] * b[i])); break;                                                              \
    case O_MAX: LOOP(T, a[i] = b[i] > a[i] ? b[i] : a[i]); break;                                                      \
    case O_MIN: LOOP(T, a[i] = b[i] < a[i] ? b[i] : a[i]); break;                                                      \
    }
#define FLOPS(T)                                                                                                       \
    switch (op) {                                                                                                      \
    case O_SUM: LOOP(T, a[i] += b[i]); break;                                                                          \
    case O_PROD: LOOP(T, a[i] *= b[i]); break;                                                                         \
    case O_MAX: LOOP(T, a[i] = b[i] > a[i] ? b[i] : a[i]); break;                                                      \
    case O_MIN: LOOP(T, a[i] = b[i] < a[i] ? b[i] : a[i]); break;                                                      \
    }
#define CPLX(T, F)                                                                                                     \
    switch (op) {                                                                                                      \
    case O_SUM: LOOP(T, (a[i].re += b[i].re, a[i].im += b[i].im)); break;                                              \
    case O_PROD:                                                                                                       \
        LOOP(                                                                                                          \
            T, do {                                                                                                    \
                F re = a[i].re * b[i].re - a[i].im * b[i].im, im = a[i].re * b[i].im + a[i].im * b[i].re;              \
                a[i].re = re;                                                                                          \
                a[i].im = im;                                                                                          \
            } while (0));                                                                                              \
        break;                                                                                                         \
    }

/* gshmemi_red_<op>_<type>(a, b, n): the name says op and type */
static int k_red(const struct kern *k, const char *name, uint64_t (*args)[2], uint32_t group, uint32_t groups) {
    (void)k;
    (void)group;
    (void)groups;
    int op = -1, t = -1;
    const char *rest = name + strlen("gshmemi_red_");
    for (int i = 0; i < 7; i++)
        if (!strncmp(rest, onames[i], strlen(onames[i])) && rest[strlen(onames[i])] == '_')
            op = i;
    if (op < 0)
        return ZT_ERROR_INVALID_ARGUMENT;
    rest += strlen(onames[op]) + 1;
    for (int i = 0; i < 12; i++)
        if (!strcmp(rest, tnames[i]))
            t = i;
    if (t < 0)
        return ZT_ERROR_INVALID_ARGUMENT;
    size_t n = (size_t)args[2][0];
    char *A = xlate((void *)(uintptr_t)args[0][0], n * tsizes[t], 1);
    const char *B = xlate((void *)(uintptr_t)args[1][0], n * tsizes[t], 1);
    if (!A || !B)
        return ZT_ERROR_DEVICE_LOST;
    switch (t) {
    case 0: INTOPS(uint8_t); break;
    case 1: INTOPS(uint16_t); break;
    case 2: INTOPS(uint32_t); break;
    case 3: INTOPS(uint64_t); break;
    case 4: INTOPS(int8_t); break;
    case 5: INTOPS(int16_t); break;
    case 6: INTOPS(int32_t); break;
    case 7: INTOPS(int64_t); break;
    case 8: FLOPS(float); break;
    case 9: FLOPS(double); break;
    case 10: CPLX(struct cf, float); break;
    case 11: CPLX(struct cd, double); break;
    }
    return ZT_SUCCESS;
}

/* each kernel's arguments and their sizes, as kernels.cl declares them */
static const struct kern protos[] = {
    {"gshmemi_amo32", k_amo, 5, {8, 4, 4, 4, 8}},
    {"gshmemi_amo64", k_amo, 5, {8, 4, 8, 8, 8}},
    {"gshmemi_red_", k_red, 3, {8, 8, 8}},
};

static void run_op(struct op *o) {
    switch (o->kind) {
    case Q_COPY: {
        char *d = xlate(o->dst, o->n, 0);
        const char *s = xlate(o->src, o->n, 0);
        if (!d || !s)
            lost = ZT_ERROR_DEVICE_LOST;
        else
            memmove(d, s, o->n);
        break;
    }
    case Q_FILL: {
        char *d = xlate(o->dst, o->n, 0);
        if (!d)
            lost = ZT_ERROR_DEVICE_LOST;
        else
            for (size_t i = 0; i < o->n; i += o->pattern_size)
                memcpy(d + i, o->pattern, o->pattern_size);
        break;
    }
    case Q_REGION: {
        char *d = xlate(o->dst, (o->height - 1) * o->dpitch + o->n, 0);
        const char *s = xlate(o->src, (o->height - 1) * o->spitch + o->n, 0);
        if (!d || !s) {
            lost = ZT_ERROR_DEVICE_LOST;
            break;
        }
        for (size_t r = 0; r < o->height; r++)
            memmove(d + r * o->dpitch, s + r * o->spitch, o->n);
        break;
    }
    case Q_KERNEL: {
        int rc = o->k->run(o->k, o->kname, o->args, o->group, o->groups);
        if (rc)
            lost = rc == ZT_ERROR_DEVICE_LOST ? rc : ZT_ERROR_DEVICE_LOST;
        break;
    }
    }
}

/* ---- modules: SPIR-V, its entry points read from OpEntryPoint ---- */
#define MODULE_MAGIC 0x4d4f444cu
#define KERNEL_MAGIC 0x4b45524eu
struct module {
    unsigned magic;
    int nnames;
    char names[128][64];
};
struct kernel {
    unsigned magic;
    const struct kern *proto;
    char name[64];
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
    const struct kern *p = NULL;
    for (size_t k = 0; in && !p && k < sizeof protos / sizeof protos[0]; k++) {
        size_t len = strlen(protos[k].name);
        if (protos[k].name[len - 1] == '_' ? !strncmp(name, protos[k].name, len) : !strcmp(name, protos[k].name))
            p = &protos[k];
    }
    if (!p) /* not in the module, or the fake has no C version of it */
        LEAVE(ZT_ERROR_INVALID_KERNEL_NAME);
    struct kernel *k = calloc(1, sizeof *k);
    if (!k)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    k->magic = KERNEL_MAGIC;
    k->proto = p;
    snprintf(k->name, sizeof k->name, "%s", name);
    *out = k;
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
    if (i >= (uint32_t)k->proto->nargs)
        LEAVE(ZT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    if (size != k->proto->size[i] || !v)
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
    if (!x || !y || !z)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    *x = gx >= 256 ? 256 : gx ? gx : 1;
    *y = gy ? 1 : 1;
    *z = gz ? 1 : 1;
    LEAVE(ZT_SUCCESS);
}

API zt_result zeCommandListAppendLaunchKernel(zt_cmdlist h, zt_kernel kh, const zt_group_count *g, zt_event ev,
                                              uint32_t nwait, zt_event *waits) {
    ENTER();
    struct kernel *k = as_kernel(kh);
    struct list *l = as_list(h);
    if (!k || !l)
        LEAVE(ZT_ERROR_INVALID_NULL_HANDLE);
    if (!g)
        LEAVE(ZT_ERROR_INVALID_NULL_POINTER);
    if (!(qgroups[l->ordinal].flags & ZT_QUEUE_GROUP_COMPUTE))
        LEAVE(ZT_ERROR_INVALID_ARGUMENT); /* a copy engine runs no kernels */
    if (!k->group || !g->x || g->y != 1 || g->z != 1 || k->set != (1u << k->proto->nargs) - 1)
        LEAVE(ZT_ERROR_INVALID_ARGUMENT); /* group size and every argument first */
    struct op *o = new_op(Q_KERNEL);
    if (!o)
        LEAVE(ZT_ERROR_OUT_OF_HOST_MEMORY);
    o->k = k->proto;
    snprintf(o->kname, sizeof o->kname, "%s", k->name);
    memcpy(o->args, k->args, sizeof o->args); /* the values at append time, as the driver takes them */
    o->group = k->group;
    o->groups = g->x;
    zt_result r = append(h, o, ev, nwait, waits);
    LEAVE(r);
}
