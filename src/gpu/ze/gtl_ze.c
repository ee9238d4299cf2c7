/* gtl_ze.c - the Intel Level Zero backend of the GPU transport layer. It loads the loader (libze_loader.so.1) at run
 * time, so one build of gshmem runs with or without an Intel GPU and links against no Level Zero library. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gpu/gtl.h"
#include "gpu/gtl_kernels.h"
#include "gpu/ze/ze_types.h"
#include "state.h"

static struct {
#define X(sym, args, field) zt_result(*field) args;
    ZE_SYMBOLS(X)
#undef X
    zt_result (*pci_props)(zt_device, zt_pci_ext_properties *); /* the PCI extension, where the driver has it */
    zt_result (*import_ptr)(zt_driver, void *, size_t);         /* Intel's page-locking of existing host memory */
    zt_result (*release_ptr)(zt_driver, void *);
} ze;

#ifdef GSHMEM_HAVE_ZE_SPIRV
#include "ze_base_spv.h" /* generated: gshmemi_ze_spirv[], kernels.cl without fp64 */
#include "ze_fp64_spv.h" /* generated: gshmemi_ze_spirv_fp64[], its double reductions */
#endif

static void *lib;
static zt_driver drv;
static zt_device dev;
static int dev_index;
static zt_context ctx;
/* Immediate command lists: synchronous copies (copy engine), pipelines' copies (copy_start; a list of their own so
 * a synchronous copy never waits behind them), kernels (a compute engine). */
static zt_cmdlist clist, alist, klist;
/* Event pools of NEV events, made as the pipelines need them (NPOOL at most). The first pool's event 0 marks the end of
 * each synchronous operation (under the lock); the others are pipeline tickets. */
#define NEV 128
#define NPOOL 32
static zt_pool pools[NPOOL];
static int npools;
static zt_event events[NPOOL * NEV], ev_free[NPOOL * NEV];
static int ev_nfree;
static int list_lock;
static int coherent;
static zt_module mod, mod64;
static zt_kernel amo_k[2];
static zt_kernel red_k[SHMEMI_OP_PROD + 1][GTLK_NONE];
static uint32_t red_group[SHMEMI_OP_PROD + 1][GTLK_NONE];
static uint64_t *amo_out; /* host allocation: where the atomic kernel leaves the old value */
static int ptracer_set;

/* Level Zero 1.x has no error-string call: the codes gshmem may meet, named as in ze_api.h */
static const char *errstr(zt_result r) {
    static const struct {
        zt_result r;
        const char *s;
    } names[] = {
        {ZT_NOT_READY, "ZE_RESULT_NOT_READY"},
        {ZT_ERROR_DEVICE_LOST, "ZE_RESULT_ERROR_DEVICE_LOST"},
        {ZT_ERROR_OUT_OF_HOST_MEMORY, "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY"},
        {ZT_ERROR_OUT_OF_DEVICE_MEMORY, "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"},
        {ZT_ERROR_MODULE_BUILD_FAILURE, "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE"},
        {ZT_ERROR_INSUFFICIENT_PERMISSIONS, "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS"},
        {ZT_ERROR_NOT_AVAILABLE, "ZE_RESULT_ERROR_NOT_AVAILABLE"},
        {ZT_ERROR_UNINITIALIZED, "ZE_RESULT_ERROR_UNINITIALIZED"},
        {ZT_ERROR_UNSUPPORTED_VERSION, "ZE_RESULT_ERROR_UNSUPPORTED_VERSION"},
        {ZT_ERROR_UNSUPPORTED_FEATURE, "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE"},
        {ZT_ERROR_INVALID_ARGUMENT, "ZE_RESULT_ERROR_INVALID_ARGUMENT"},
        {ZT_ERROR_INVALID_NULL_HANDLE, "ZE_RESULT_ERROR_INVALID_NULL_HANDLE"},
        {ZT_ERROR_HANDLE_OBJECT_IN_USE, "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE"},
        {ZT_ERROR_INVALID_NULL_POINTER, "ZE_RESULT_ERROR_INVALID_NULL_POINTER"},
        {ZT_ERROR_INVALID_SIZE, "ZE_RESULT_ERROR_INVALID_SIZE"},
        {ZT_ERROR_UNSUPPORTED_SIZE, "ZE_RESULT_ERROR_UNSUPPORTED_SIZE"},
        {ZT_ERROR_UNSUPPORTED_ALIGNMENT, "ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT"},
        {ZT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, "ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT"},
        {ZT_ERROR_INVALID_ENUMERATION, "ZE_RESULT_ERROR_INVALID_ENUMERATION"},
        {ZT_ERROR_INVALID_NATIVE_BINARY, "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY"},
        {ZT_ERROR_INVALID_KERNEL_NAME, "ZE_RESULT_ERROR_INVALID_KERNEL_NAME"},
        {ZT_ERROR_INVALID_GROUP_SIZE_DIMENSION, "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION"},
        {ZT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX, "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX"},
        {ZT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE, "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE"},
        {ZT_ERROR_UNKNOWN, "ZE_RESULT_ERROR_UNKNOWN"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].r == r)
            return names[i].s;
    static char buf[32];
    snprintf(buf, sizeof buf, "ze_result_t 0x%x", (unsigned)r);
    return buf;
}

/* Held across the wait for an operation, which may last milliseconds: a waiting thread yields after a short spin. */
static void lock(void) { shmemi_spin_lock(&list_lock); }
static void unlock(void) { shmemi_spin_unlock(&list_lock); }

/* everything init made, in reverse; the loader is closed last */
static void teardown(void) {
    for (int o = 0; o <= SHMEMI_OP_PROD; o++)
        for (int t = 0; t < GTLK_NONE; t++)
            if (red_k[o][t])
                ze.kernel_destroy(red_k[o][t]);
    memset(red_k, 0, sizeof red_k);
    memset(red_group, 0, sizeof red_group);
    for (int i = 0; i < 2; i++)
        if (amo_k[i])
            ze.kernel_destroy(amo_k[i]);
    amo_k[0] = amo_k[1] = NULL;
    if (mod64)
        ze.module_destroy(mod64);
    if (mod)
        ze.module_destroy(mod);
    mod = mod64 = NULL;
    if (amo_out)
        ze.mem_free(ctx, amo_out);
    amo_out = NULL;
    for (int i = 0; i < NPOOL * NEV; i++)
        if (events[i])
            ze.event_destroy(events[i]);
    memset(events, 0, sizeof events);
    ev_nfree = 0;
    for (int i = 0; i < npools; i++)
        ze.pool_destroy(pools[i]);
    npools = 0;
    zt_cmdlist *lists[] = {&clist, &alist, &klist};
    for (int i = 0; i < 3; i++)
        if (*lists[i])
            ze.list_destroy(*lists[i]);
    clist = alist = klist = NULL;
    if (ctx)
        ze.context_destroy(ctx);
    ctx = NULL;
    drv = dev = NULL;
    coherent = 0;
    if (lib)
        dlclose(lib);
    lib = NULL;
    memset(&ze, 0, sizeof ze);
}

static int has_extension(zt_driver d, const char *name) {
    uint32_t n = 0;
    if (ze.driver_ext(d, &n, NULL) != ZT_SUCCESS || !n)
        return 0;
    zt_driver_extension_properties *p = calloc(n, sizeof *p);
    int found = 0;
    if (p && ze.driver_ext(d, &n, p) == ZT_SUCCESS)
        for (uint32_t i = 0; i < n && !found; i++)
            found = !strncmp(p[i].name, name, sizeof p[i].name);
    free(p);
    return found;
}

/* The first driver with a GPU, and its GPUs (at most max). 0 when none. */
#define MAX_DEV 64
static zt_device zdevs[MAX_DEV]; /* the GPUs, and their PCI addresses (or names by order), for peer queries */
static char zbus[MAX_DEV][32];
static uint32_t zn;
static uint32_t gpus(zt_device *devs, uint32_t max) {
    uint32_t nd = 0;
    if (ze.driver_get(&nd, NULL) != ZT_SUCCESS || !nd)
        return 0;
    zt_driver drivers[16];
    nd = nd > 16 ? 16 : nd;
    if (ze.driver_get(&nd, drivers) != ZT_SUCCESS)
        return 0;
    for (uint32_t d = 0; d < nd; d++) {
        uint32_t n = 0, got = 0;
        zt_device all[MAX_DEV];
        if (ze.device_get(drivers[d], &n, NULL) != ZT_SUCCESS || !n)
            continue;
        n = n > MAX_DEV ? MAX_DEV : n;
        if (ze.device_get(drivers[d], &n, all) != ZT_SUCCESS)
            continue;
        for (uint32_t i = 0; i < n && got < max; i++) {
            zt_device_properties p = {.stype = ZT_STYPE_DEVICE_PROPERTIES};
            if (ze.device_props(all[i], &p) == ZT_SUCCESS && p.type == ZT_DEVICE_TYPE_GPU)
                devs[got++] = all[i];
        }
        if (got) {
            drv = drivers[d];
            return got;
        }
    }
    return 0;
}

/* Another pool of NEV events, its events free (but the first pool's event 0); under the lock after init. A pool
 * left half made keeps the events made: teardown destroys them. */
static zt_result add_pool(const char **step) {
    if (npools == NPOOL) {
        *step = "every pipeline event in use, in the most pools there may be";
        return ZT_ERROR_OUT_OF_HOST_MEMORY;
    }
    zt_event_pool_desc pd = {.stype = ZT_STYPE_EVENT_POOL_DESC, .flags = ZT_EVENT_POOL_FLAG_HOST_VISIBLE, .count = NEV};
    zt_result r;
    *step = "zeEventPoolCreate";
    if ((r = ze.pool_create(ctx, &pd, 1, &dev, &pools[npools])) != ZT_SUCCESS)
        return r;
    zt_event *ev = events + npools * NEV;
    npools++;
    *step = "zeEventCreate";
    for (uint32_t i = 0; i < NEV; i++) {
        zt_event_desc ed = {.stype = ZT_STYPE_EVENT_DESC,
                            .index = i,
                            .signal = ZT_EVENT_SCOPE_FLAG_HOST,
                            .wait = ZT_EVENT_SCOPE_FLAG_HOST};
        if ((r = ze.event_create(pools[npools - 1], &ed, &ev[i])) != ZT_SUCCESS)
            return r;
        if (ev != events || i)
            ev_free[ev_nfree++] = ev[i];
    }
    return ZT_SUCCESS;
}

/* ordinal of a queue group with all of `want` and none of `avoid` (-1: none) */
static int queue_group(const zt_queue_group_properties *g, uint32_t n, uint32_t want, uint32_t avoid) {
    for (uint32_t i = 0; i < n; i++)
        if ((g[i].flags & want) == want && !(g[i].flags & avoid))
            return (int)i;
    return -1;
}

static zt_result make_list(int ordinal, uint32_t index, zt_cmdlist *l) {
    zt_queue_desc q = {
        .stype = ZT_STYPE_QUEUE_DESC, .ordinal = (uint32_t)ordinal, .index = index, .mode = ZT_QUEUE_MODE_ASYNCHRONOUS};
    return ze.list_create(ctx, dev, &q, l);
}

/* The embedded SPIR-V: atomics and most reductions; the double ones from a module of their own (a GPU without fp64
 * cannot load it). Returns what is missing, or NULL. */
static const char *load_kernels(void) {
#ifdef GSHMEM_HAVE_ZE_SPIRV
    static char err[160];
    zt_module_desc m = {.stype = ZT_STYPE_MODULE_DESC,
                        .format = ZT_MODULE_FORMAT_IL_SPIRV,
                        .inputSize = sizeof gshmemi_ze_spirv - 1, /* EmbedText adds a NUL */
                        .pInputModule = gshmemi_ze_spirv,
                        .pBuildFlags = ""};
    zt_result r;
    const char *step = "zeModuleCreate (the embedded SPIR-V)";
    zt_kernel_desc k32 = {.stype = ZT_STYPE_KERNEL_DESC, .pKernelName = "gshmemi_amo32"};
    zt_kernel_desc k64 = {.stype = ZT_STYPE_KERNEL_DESC, .pKernelName = "gshmemi_amo64"};
    zt_host_mem_alloc_desc h = {.stype = ZT_STYPE_HOST_MEM_ALLOC_DESC};
    if ((r = ze.module_create(ctx, dev, &m, &mod, NULL)) != ZT_SUCCESS ||
        (step = "zeKernelCreate", r = ze.kernel_create(mod, &k32, &amo_k[0])) != ZT_SUCCESS ||
        (r = ze.kernel_create(mod, &k64, &amo_k[1])) != ZT_SUCCESS ||
        (r = ze.kernel_group(amo_k[0], 1, 1, 1)) != ZT_SUCCESS ||
        (r = ze.kernel_group(amo_k[1], 1, 1, 1)) != ZT_SUCCESS ||
        (step = "zeMemAllocHost", r = ze.mem_alloc_host(ctx, &h, 64, 64, (void **)&amo_out)) != ZT_SUCCESS) {
        snprintf(err, sizeof err, "no atomic or reduction kernels (%s: %s)", step, errstr(r));
        for (int i = 0; i < 2; i++)
            if (amo_k[i])
                ze.kernel_destroy(amo_k[i]);
        amo_k[0] = amo_k[1] = NULL;
        if (mod)
            ze.module_destroy(mod);
        mod = NULL;
        amo_out = NULL;
        return err;
    }
    m.inputSize = sizeof gshmemi_ze_spirv_fp64 - 1;
    m.pInputModule = gshmemi_ze_spirv_fp64;
    if ((r = ze.module_create(ctx, dev, &m, &mod64, NULL)) != ZT_SUCCESS) {
        shmemi_debug("Level Zero: no double-precision reduction kernels (%s): those reduce on the host", errstr(r));
        mod64 = NULL;
    }
    return NULL;
#else
    return "no atomic or reduction kernels (built without llvm-spirv-14: install it and rebuild)";
#endif
}

static int ze_init(int local_rank, int nlocal, char *desc, size_t desclen, char *why, size_t whylen) {
    lib = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, whylen, "no Level Zero loader (libze_loader.so.1 cannot be loaded: %s)", dlerror());
        return -1;
    }
#define X(sym, args, field)                                                                                            \
    if (!(*(void **)&ze.field = dlsym(lib, sym))) {                                                                    \
        snprintf(why, whylen, "the Level Zero loader lacks %s (too old?)", sym);                                       \
        teardown();                                                                                                    \
        return -1;                                                                                                     \
    }
    ZE_SYMBOLS(X)
#undef X
    zt_result r = ze.init(ZT_INIT_FLAG_GPU_ONLY);
    zt_device devs[MAX_DEV];
    uint32_t n = r == ZT_SUCCESS ? gpus(devs, MAX_DEV) : 0;
    if (!n) {
        snprintf(why, whylen, "%s%s",
                 r != ZT_SUCCESS ? "zeInit: " : "the Level Zero loader sees no GPU (no driver, or no device)",
                 r != ZT_SUCCESS ? errstr(r) : "");
        if (r != ZT_SUCCESS && strlen(why) + 40 < whylen)
            strcat(why, " (no Level Zero GPU driver installed?)");
        teardown();
        return -1;
    }
    /* the device nearest this PE's cores when the driver gives PCI addresses, else round robin */
    char(*bus)[32] = zbus;
    const char *busid[MAX_DEV];
    int have_pci = has_extension(drv, ZT_PCI_PROPERTIES_EXT_NAME) &&
                   (*(void **)&ze.pci_props = dlsym(lib, "zeDevicePciGetPropertiesExt")) != NULL;
    for (uint32_t i = 0; i < n; i++) {
        zt_pci_ext_properties p = {.stype = ZT_STYPE_PCI_EXT_PROPERTIES};
        busid[i] = NULL;
        zdevs[i] = devs[i];
        /* without PCI addresses the driver's order names the device (the same in every process of the node) */
        snprintf(bus[i], sizeof bus[i], "ze-gpu-%u", i);
        if (have_pci && ze.pci_props(devs[i], &p) == ZT_SUCCESS) {
            snprintf(bus[i], sizeof bus[i], "%04x:%02x:%02x.%x", p.domain & 0xffff, p.bus & 0xff, p.device & 0x1f,
                     p.function & 7);
            busid[i] = bus[i];
        }
    }
    zn = n;
    dev_index = shmemi_gtl_pick_device((int)n, have_pci ? busid : NULL, local_rank, nlocal);
    dev = devs[dev_index];
    zt_context_desc cd = {.stype = ZT_STYPE_CONTEXT_DESC};
    zt_queue_group_properties groups[16];
    uint32_t ng = 0;
    const char *step = "zeContextCreate";
    if ((r = ze.context_create(drv, &cd, &ctx)) != ZT_SUCCESS ||
        (step = "zeDeviceGetCommandQueueGroupProperties", r = ze.queue_groups(dev, &ng, NULL)) != ZT_SUCCESS) {
        snprintf(why, whylen, "%s: %s", step, errstr(r));
        teardown();
        return -1;
    }
    ng = ng > 16 ? 16 : ng;
    for (uint32_t i = 0; i < ng; i++)
        groups[i] = (zt_queue_group_properties){.stype = ZT_STYPE_QUEUE_GROUP_PROPERTIES};
    r = ze.queue_groups(dev, &ng, groups);
    /* copies on a copy engine (a group that copies and does not compute: the blitter), else on any that copies */
    int cg = queue_group(groups, ng, ZT_QUEUE_GROUP_COPY, ZT_QUEUE_GROUP_COMPUTE), blitter = cg >= 0;
    if (cg < 0)
        cg = queue_group(groups, ng, ZT_QUEUE_GROUP_COPY, 0);
    int kg = queue_group(groups, ng, ZT_QUEUE_GROUP_COMPUTE, 0);
    if (r != ZT_SUCCESS || cg < 0 || kg < 0) {
        snprintf(why, whylen, "the device has no %s engine%s%s", cg < 0 ? "copy" : "compute", r ? ": " : "",
                 r ? errstr(r) : "");
        teardown();
        return -1;
    }
    if ((step = "zeCommandListCreateImmediate", r = make_list(cg, 0, &clist)) != ZT_SUCCESS ||
        (r = make_list(cg, groups[cg].numQueues > 1, &alist)) != ZT_SUCCESS ||
        (r = make_list(kg, 0, &klist)) != ZT_SUCCESS || (r = add_pool(&step)) != ZT_SUCCESS) {
        snprintf(why, whylen, "%s: %s", step, errstr(r));
        teardown();
        return -1;
    }
    void *f = NULL;
    if (ze.driver_ext_fn(drv, "zexDriverImportExternalPointer", &f) == ZT_SUCCESS && f) {
        *(void **)&ze.import_ptr = f;
        f = NULL;
        if (ze.driver_ext_fn(drv, "zexDriverReleaseImportedPointer", &f) != ZT_SUCCESS || !f)
            ze.import_ptr = NULL; /* pinning what cannot be unpinned would leak */
        *(void **)&ze.release_ptr = f;
    }
    const char *nokern = load_kernels();
    if (nokern)
        shmemi_debug("Level Zero: %s", nokern);
    zt_device_properties p = {.stype = ZT_STYPE_DEVICE_PROPERTIES};
    zt_memory_access_properties ap = {.stype = ZT_STYPE_MEMORY_ACCESS_PROPERTIES};
    zt_device_memory_properties mp[4];
    uint32_t nm = 4, api = 0;
    for (int i = 0; i < 4; i++)
        mp[i] = (zt_device_memory_properties){.stype = ZT_STYPE_DEVICE_MEMORY_PROPERTIES};
    ze.device_props(dev, &p);
    uint64_t mem = 0;
    if (ze.device_mem_props(dev, &nm, mp) == ZT_SUCCESS)
        for (uint32_t i = 0; i < nm && i < 4; i++)
            mem += mp[i].totalSize;
    ze.api_version(drv, &api);
    /* An integrated GPU shares the host's memory; the CPU reaches its allocations coherently where the device and
     * the host may both update memory atomically at once (CONCURRENT_ATOMIC on host and shared allocations). */
    const uint32_t ca = ZT_ACCESS_CAP_CONCURRENT_ATOMIC;
    coherent = (p.flags & ZT_DEVICE_PROPERTY_FLAG_INTEGRATED) && ze.device_access_props(dev, &ap) == ZT_SUCCESS &&
               (ap.hostAllocCapabilities & ca) && (ap.sharedSingleDeviceAllocCapabilities & ca);
    p.name[sizeof p.name - 1] = 0;
    snprintf(desc, desclen,
             "%s (device %d of %u, %llu GiB%s), Level Zero API %u.%u, copies on %s, shared by %d PE%s of this "
             "node%s%s%s",
             p.name, dev_index, n, (unsigned long long)(mem >> 30),
             coherent ? ", integrated: the CPU reaches its memory" : "", api >> 16, api & 0xffff,
             blitter ? "a copy engine" : "a compute engine (no copy engine)", nlocal, nlocal == 1 ? "" : "s",
             nokern ? "; " : "", nokern ? nokern : "",
             !nokern && !mod64 ? "; double reductions on the host (no fp64)" : "");
    return 0;
}

static void ze_fini(void) {
    if (lib)
        teardown();
}

static int ze_alloc(size_t size, void **ptr) {
    zt_device_mem_alloc_desc d = {.stype = ZT_STYPE_DEVICE_MEM_ALLOC_DESC};
    return ze.mem_alloc_device(ctx, &d, size, 0, dev, ptr) == ZT_SUCCESS ? 0 : -1;
}

static void ze_free(void *ptr, size_t size) {
    (void)size;
    ze.mem_free(ctx, ptr);
}

static int ze_query(const void *p, uintptr_t *base, size_t *size) {
    zt_memory_allocation_properties m = {.stype = ZT_STYPE_MEMORY_ALLOCATION_PROPERTIES};
    zt_device d = NULL;
    /* host, shared (migrating, the CPU may touch it) and unknown memory are the CPU's */
    if (ze.mem_props(ctx, p, &m, &d) != ZT_SUCCESS || m.type != ZT_MEMORY_TYPE_DEVICE)
        return GTL_MEM_HOST;
    void *b = NULL;
    size_t s = 0;
    if (ze.mem_range(ctx, p, &b, &s) == ZT_SUCCESS) {
        *base = (uintptr_t)b;
        *size = s;
    }
    return GTL_MEM_DEVICE;
}

/* ---- IPC ----
 * A Level Zero IPC handle carries a file descriptor (a dma-buf) that is valid only in the exporting process: the
 * importer must make its own copy of that descriptor first. It does so with pidfd_getfd (Linux 5.6), which needs the
 * right to ptrace the exporter; under Yama (ptrace_scope 1) the exporter grants it with PR_SET_PTRACER. The driver
 * (Intel's compute-runtime, the Level Zero GPU driver on Linux) keeps the descriptor in the handle's first 8 bytes,
 * as MPICH's and UCX's Level Zero transports also rely on; gshmem's 64-byte handle keeps the driver's first 56 bytes
 * (the rest must be zero) and adds the exporter's pid. */
#define IPC_KEEP 56
struct ze_ipc {
    char handle[IPC_KEEP];
    int32_t pid;
    char tag[4];
};
_Static_assert(sizeof(struct ze_ipc) == GTL_IPC_SIZE, "the Level Zero handle and pid fill gtl_ipc");

static int ze_ipc_export(void *base, size_t size, struct gtl_ipc *h) {
    (void)size;
    zt_ipc_handle zh;
    memset(&zh, 0, sizeof zh);
    zt_result r = ze.ipc_get(ctx, base, &zh);
    if (r != ZT_SUCCESS) {
        shmemi_debug("Level Zero: zeMemGetIpcHandle: %s", errstr(r));
        return -1;
    }
    for (int i = IPC_KEEP; i < ZT_IPC_HANDLE_SIZE; i++)
        if (zh.data[i]) {
            shmemi_debug("Level Zero: this driver's IPC handles use all %d bytes: not shareable here",
                         ZT_IPC_HANDLE_SIZE);
            return -1;
        }
    /* peers copy our descriptors with pidfd_getfd: under Yama they need our leave (harmless where Yama is off) */
    if (!__atomic_exchange_n(&ptracer_set, 1, __ATOMIC_ACQ_REL))
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    struct ze_ipc m = {.pid = (int32_t)getpid(), .tag = {'g', 'z', 'e', '1'}};
    memcpy(m.handle, zh.data, IPC_KEEP);
    memcpy(h->bytes, &m, sizeof m);
    return 0;
}

static int ze_ipc_import(const struct gtl_ipc *h, size_t size, void **ptr) {
    (void)size;
    struct ze_ipc m;
    memcpy(&m, h->bytes, sizeof m);
    uint64_t theirs;
    memcpy(&theirs, m.handle, sizeof theirs);
    if (memcmp(m.tag, "gze1", 4) || theirs > 0x7fffffff)
        return -1;
    int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)m.pid, 0);
    int fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, (int)theirs, 0);
    int err = errno;
    if (pidfd >= 0)
        close(pidfd);
    if (fd < 0) {
        shmemi_debug("Level Zero: cannot copy PE process %d's IPC descriptor %d (pidfd_%s: %s)", m.pid, (int)theirs,
                     pidfd < 0 ? "open" : "getfd", strerror(err));
        return -1;
    }
    zt_ipc_handle zh;
    memset(&zh, 0, sizeof zh);
    memcpy(zh.data, m.handle, IPC_KEEP);
    uint64_t ours = (uint64_t)fd;
    memcpy(zh.data, &ours, sizeof ours);
    zt_result r = ze.ipc_open(ctx, dev, zh, 0, ptr);
    close(fd); /* the driver imported the memory; the descriptor is not needed any more */
    if (r != ZT_SUCCESS) {
        shmemi_debug("Level Zero: zeMemOpenIpcHandle: %s", errstr(r));
        return -1;
    }
    return 0;
}

static void ze_ipc_close(void *ptr, size_t size) {
    (void)size;
    ze.ipc_close(ctx, ptr);
}

/* the exporter's descriptor stays with its allocation until zeMemFree: nothing to give back earlier */
static void ze_ipc_done(void *base) { (void)base; }

/* ---- copies, fills, kernels: appended with event 0 as their end, which is waited for and reset (under the lock) */
static zt_result finish(zt_result r) {
    if (r == ZT_SUCCESS)
        r = ze.event_sync(events[0], UINT64_MAX);
    zt_result r2 = ze.event_reset(events[0]);
    return r != ZT_SUCCESS ? r : r2;
}

static int ze_copy(void *dst, const void *src, size_t n) {
    lock();
    zt_result r = finish(ze.append_copy(clist, dst, src, n, events[0], 0, NULL));
    unlock();
    if (r != ZT_SUCCESS)
        shmemi_debug("Level Zero: copy of %zu bytes: %s", n, errstr(r));
    return r == ZT_SUCCESS ? 0 : -1;
}

static int ze_copy_start(void *dst, const void *src, size_t n, void **ticket) {
    lock();
    const char *step = "";
    zt_result r = ev_nfree ? ZT_SUCCESS : add_pool(&step); /* every ticket out: another pool */
    zt_event ev = ev_nfree ? ev_free[--ev_nfree] : NULL;
    if (ev &&
        (step = "zeCommandListAppendMemoryCopy", r = ze.append_copy(alist, dst, src, n, ev, 0, NULL)) != ZT_SUCCESS)
        ev_free[ev_nfree++] = ev;
    unlock();
    if (r != ZT_SUCCESS) {
        shmemi_debug("Level Zero: queueing a copy of %zu bytes: %s: %s", n, step, errstr(r));
        return -1;
    }
    *ticket = ev;
    return 0;
}

static int ze_copy_end(void *ticket, int wait) {
    zt_result r = wait ? ze.event_sync(ticket, UINT64_MAX) : ze.event_query(ticket);
    if (r == ZT_NOT_READY)
        return 1;
    lock();
    zt_result r2 = ze.event_reset(ticket);
    ev_free[ev_nfree++] = ticket; /* a failed copy's event is reset and used again */
    unlock();
    return r == ZT_SUCCESS && r2 == ZT_SUCCESS ? 0 : -1;
}

static int ze_memset(void *dst, int byte, size_t n) {
    unsigned char b = (unsigned char)byte;
    lock();
    zt_result r = finish(ze.append_fill(clist, dst, &b, 1, n, events[0], 0, NULL));
    unlock();
    return r == ZT_SUCCESS ? 0 : -1;
}

static int ze_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height) {
    /* the region call takes 32-bit sizes: anything larger goes row by row (gtl.c does that on -1) */
    if (width > UINT32_MAX || height > UINT32_MAX || dpitch > UINT32_MAX || spitch > UINT32_MAX ||
        dpitch * height > UINT32_MAX || spitch * height > UINT32_MAX)
        return -1;
    zt_copy_region reg = {0, 0, 0, (uint32_t)width, (uint32_t)height, 1};
    lock();
    zt_result r =
        finish(ze.append_copy_region(clist, dst, &reg, (uint32_t)dpitch, (uint32_t)(dpitch * height), src, &reg,
                                     (uint32_t)spitch, (uint32_t)(spitch * height), events[0], 0, NULL));
    unlock();
    return r == ZT_SUCCESS ? 0 : -1;
}

static int ze_amo(void *p, int op, uint64_t value, uint64_t cond, size_t size, uint64_t *old) {
    zt_kernel k = amo_k[size == 8];
    if (!k) {
        static int said;
        if (!__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
            fprintf(stderr, "gshmem: atomics on Intel GPU memory need the Level Zero kernels, which this build of "
                            "gshmem lacks: install Debian's llvm-spirv-14 (with clang-14) and rebuild gshmem\n");
        return -1;
    }
    if (op == SHMEMI_AMO_INC || op == SHMEMI_AMO_FETCH_INC)
        value = 1;
    int c = gtlk_amo_code(op);
    uint32_t v32 = (uint32_t)value, c32 = (uint32_t)cond;
    size_t vs = size == 8 ? 8 : 4;
    lock();
    zt_group_count one = {1, 1, 1};
    zt_result r;
    if ((r = ze.kernel_arg(k, 0, sizeof p, &p)) != ZT_SUCCESS ||
        (r = ze.kernel_arg(k, 1, sizeof c, &c)) != ZT_SUCCESS ||
        (r = ze.kernel_arg(k, 2, vs, size == 8 ? (void *)&value : (void *)&v32)) != ZT_SUCCESS ||
        (r = ze.kernel_arg(k, 3, vs, size == 8 ? (void *)&cond : (void *)&c32)) != ZT_SUCCESS ||
        (r = ze.kernel_arg(k, 4, sizeof amo_out, &amo_out)) != ZT_SUCCESS)
        ;
    else
        r = finish(ze.append_launch(klist, k, &one, events[0], 0, NULL));
    uint64_t v = *(volatile uint64_t *)amo_out;
    unlock();
    if (r != ZT_SUCCESS) {
        shmemi_debug("Level Zero: atomic kernel: %s", errstr(r));
        return -1;
    }
    *old = size == 8 ? v : (uint32_t)v;
    return 0;
}

/* ---- reductions ---- */
static int ze_reduce(int op, int dt, void *acc, const void *in, size_t count) {
    int t = gtlk_type(op, dt);
    if (!mod || t == GTLK_NONE || op < 0 || op > SHMEMI_OP_PROD)
        return -1;
    zt_module m = t == GTLK_F64 || t == GTLK_C64 ? mod64 : mod;
    if (!m)
        return -1;
    lock();
    zt_kernel *k = &red_k[op][t];
    if (!*k) {
        char name[64];
        gtlk_red_name(op, t, name, sizeof name); /* (op and t were checked above) */
        zt_kernel_desc kd = {.stype = ZT_STYPE_KERNEL_DESC, .pKernelName = name};
        uint32_t gx = 0, gy = 0, gz = 0;
        if (ze.kernel_create(m, &kd, k) != ZT_SUCCESS) {
            *k = NULL;
            unlock();
            return -1;
        }
        /* the group size the driver suggests for a large reduction; the kernel strides over what is left */
        if (ze.kernel_suggest(*k, 1u << 20, 1, 1, &gx, &gy, &gz) != ZT_SUCCESS || !gx ||
            ze.kernel_group(*k, gx, 1, 1) != ZT_SUCCESS) {
            ze.kernel_destroy(*k);
            *k = NULL;
            unlock();
            return -1;
        }
        red_group[op][t] = gx;
    }
    if (!count) {
        unlock();
        return 0; /* the caller asked whether there is a kernel */
    }
    uint64_t n = count;
    uint32_t gx = red_group[op][t];
    uint64_t groups = (count + gx - 1) / gx;
    zt_group_count gc = {groups > 4096 ? 4096 : (uint32_t)groups, 1, 1};
    zt_result r;
    if ((r = ze.kernel_arg(*k, 0, sizeof acc, &acc)) == ZT_SUCCESS &&
        (r = ze.kernel_arg(*k, 1, sizeof in, &in)) == ZT_SUCCESS && (r = ze.kernel_arg(*k, 2, 8, &n)) == ZT_SUCCESS)
        r = finish(ze.append_launch(klist, *k, &gc, events[0], 0, NULL));
    unlock();
    if (r != ZT_SUCCESS)
        shmemi_debug("Level Zero: reduction kernel: %s", errstr(r));
    return r == ZT_SUCCESS ? 0 : 1;
}

/* Level Zero itself cannot page-lock memory it did not allocate; Intel's driver can (zexDriverImportExternalPointer).
 * Without it, SHMEMI_GTL_NO_PIN: staging buffers then stay pageable (slower copies), and SHMEM_GPU_PIN_HOST=1 says
 * it cannot. */
static int ze_host_register(void *p, size_t size) {
    if (!ze.import_ptr)
        return SHMEMI_GTL_NO_PIN;
    return ze.import_ptr(drv, p, size) == ZT_SUCCESS ? 0 : -1;
}

static int ze_host_unregister(void *p) { return ze.release_ptr && ze.release_ptr(drv, p) == ZT_SUCCESS ? 0 : -1; }

static int ze_host_alloc(size_t size, void **ptr) {
    zt_host_mem_alloc_desc h = {.stype = ZT_STYPE_HOST_MEM_ALLOC_DESC};
    if (ze.mem_alloc_host(ctx, &h, size, 0, ptr) != ZT_SUCCESS)
        return -1;
    memset(*ptr, 0, size);
    return 0;
}

static void ze_host_free(void *ptr) { ze.mem_free(ctx, ptr); }

static int ze_net_addr(void *base, void **addr, int *device) {
    *addr = base;
    *device = dev_index;
    return 0;
}

static int ze_coherent(void) { return coherent; }

/* ---- the node's other GPUs: peer access and atomics as zeDeviceGetP2PProperties says (access also needs
 * zeDeviceCanAccessPeer); a device not among this process's is hidden from it (ZE_AFFINITY_MASK) ---- */
static int ze_busid(int i, char *id, size_t len) {
    if (!lib || i >= (int)zn)
        return -1;
    snprintf(id, len, "%s", zbus[i < 0 ? dev_index : i]);
    return 0;
}

static int ze_find(const char *id) {
    for (uint32_t i = 0; i < zn; i++)
        if (!strcmp(zbus[i], id))
            return (int)i;
    return -1;
}

static int ze_p2p(const char *from, const char *to) {
    int a = ze_find(from), b = ze_find(to);
    uint8_t can = 0;
    zt_device_p2p_properties p = {.stype = ZT_STYPE_DEVICE_P2P_PROPERTIES};
    if (a < 0 || b < 0)
        return -1;
    if (a == b)
        return GTL_P2P_ACCESS | GTL_P2P_ATOMICS;
    if (ze.can_access_peer(zdevs[a], zdevs[b], &can) != ZT_SUCCESS || !can ||
        ze.p2p_props(zdevs[a], zdevs[b], &p) != ZT_SUCCESS || !(p.flags & ZT_DEVICE_P2P_PROPERTY_FLAG_ACCESS))
        return 0;
    return GTL_P2P_ACCESS | (p.flags & ZT_DEVICE_P2P_PROPERTY_FLAG_ATOMICS ? GTL_P2P_ATOMICS : 0);
}

/* Level Zero does not say how the GPU is shared between processes, nor what share each has */
static int ze_share(struct gtl_share *sh) {
    *sh = (struct gtl_share){-1, 0, 0};
    return 0;
}

/* Level Zero has no wait for all of a device's work (only per command queue, and the application's are not ours) */
static int ze_idle(int wait_s) {
    (void)wait_s;
    return -1;
}

const struct gtl_backend shmemi_gtl_ze = {
    .name = "ze",
    .net_iface = 3, /* FI_HMEM_ZE */
    .init = ze_init,
    .fini = ze_fini,
    .alloc = ze_alloc,
    .free = ze_free,
    .query = ze_query,
    .ipc_export = ze_ipc_export,
    .ipc_import = ze_ipc_import,
    .ipc_close = ze_ipc_close,
    .ipc_done = ze_ipc_done,
    .copy = ze_copy,
    .copy_start = ze_copy_start,
    .copy_end = ze_copy_end,
    .memset = ze_memset,
    .amo = ze_amo,
    .copy2d = ze_copy2d,
    .reduce = ze_reduce,
    .net_addr = ze_net_addr,
    .host_register = ze_host_register,
    .host_unregister = ze_host_unregister,
    .host_alloc = ze_host_alloc,
    .host_free = ze_host_free,
    .coherent = ze_coherent,
    .busid = ze_busid,
    .p2p = ze_p2p,
    .share = ze_share,
    .idle = ze_idle,
};
