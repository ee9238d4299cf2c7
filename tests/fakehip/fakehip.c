/* fakehip.c - a stand-in HIP runtime (libamdhip64.so) for testing gshmem's HIP backend on machines without an AMD
 * GPU: it exports the runtime API entry points gtl_hip.c loads, over tests/fakegpu's machinery (device memory the CPU
 * cannot touch, work on a stream done only when synchronized, IPC handles that open only in another process, C
 * versions of the kernels). What is HIP's here:
 *  - the current device is per thread and starts at 0; FAKEHIP_DEVICES=n gives n devices (bus ids 0000:C1:00.0 on);
 *  - hipModuleLoadData takes a clang offload bundle (hipcc --genco) or a bare AMD GPU code object and keeps the code
 *    object for the fake's architecture (FAKEHIP_ARCH, gfx90a unless set): none is hipErrorNoBinaryForGpu, as on a
 *    GPU the library was not built for; a kernel is found by its descriptor symbol (<name>.kd) in that object;
 *  - the runtime's version is FAKEHIP_VERSION (HIP_VERSION's numbering, 6.2 unless set): from 6.0 on, pointer
 *    queries number memory types as ROCm 6 does and call unknown memory unregistered rather than an error, and
 *    hipIpcOpenMemHandle takes only flags 0x01 (hipIpcMemLazyEnablePeerAccess became 0x01 in ROCm 6.0's headers;
 *    it was 0, and the runtime compares with its own header's value: clr's hip_memory.cpp);
 *  - memory kinds, as AMD's "Coherence control" page and clr's hip_memory.cpp define them: hipMalloc and
 *    hipExtMallocWithFlags(hipDeviceMallocDefault) give coarse-grained memory, coherent with other devices and the
 *    host only at synchronization (kernel and copy boundaries; each device works on it in its own L2 cache);
 *    hipDeviceMallocFinegrained (0x1) fine-grained memory, coherent while kernels run; hipDeviceMallocUncached
 *    (0x3, taken by the runtime from 5.6: 5.5's header has it, its runtime refuses it) and hipDeviceMallocContiguous
 *    (0x4, from 6.2) uncached memory; any other flag, or a flag of a later version, is hipErrorInvalidValue
 *    (hipMallocSignalMemory, 0x2, is not modelled: refused). Each allocation remembers its device and kind, and an
 *    IPC handle carries them to the importer. The rule checked: a kernel's atomic on coarse-grained memory of another
 *    device fails the kernel (hipErrorIllegalAddress, sticky) with a line on stderr, where real hardware would
 *    silently lose updates (AMD's "Hardware atomics operation support": a system-scope atomic on coarse-grained
 *    memory is downgraded to device scope, so two devices' atomics do not meet); on the device that owns it, or on
 *    fine-grained or uncached memory, it is atomic. Not checkable here, and not modelled: a kernel spinning on
 *    memory another device or the host writes (the fake runs only gshmem's own kernels, none of which spins);
 *  - hipHostMalloc: the flags of every version (Portable 0x1, Mapped 0x2, WriteCombined 0x4, NumaUser 0x20000000,
 *    Coherent 0x40000000, NonCoherent 0x80000000); Coherent with NonCoherent is hipErrorInvalidValue, as in the
 *    runtime, and so is an unknown bit (the runtime ignores those: refused here to catch a wrong constant). Whether
 *    the memory is coherent is the runtime's rule (HIP programming manual, "Coherency Controls"): not if
 *    NonCoherent; else if no flags, Coherent, Mapped or NumaUser; else only with HIP_HOST_COHERENT=1. It is
 *    recorded, and a kernel's atomic on non-coherent host memory fails as above (gshmem never runs one);
 *  - FAKEHIP_COHERENT=1: an APU (MI300A) whose device memory the CPU reaches at the same addresses (integrated,
 *    pageable memory access); FAKEHIP_COHERENT=claim: a device whose attributes say so but whose memory the CPU
 *    cannot touch (a driver that lies, for the library's touch probe); FAKEHIP_HOST_VISIBLE=1 only lets test
 *    programs read their GPU-heap objects;
 *  - FAKEHIP_P2P=1|0|noatomics: what every pair of devices may do with the other's memory (tests/fakegpu).
 * It models none of a GPU's speed: nothing measured with it means anything. */
#define _GNU_SOURCE
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakegpu.h"

typedef int hipError_t;
typedef struct {
    char reserved[64];
} hipIpcMemHandle_t;
typedef struct {
    int memoryType;
    int device;
    void *devicePointer, *hostPointer;
    int isManaged;
    unsigned allocationFlags;
} hipPointerAttribute_t;

#define API __attribute__((visibility("default")))

#define MAX_DEVICES 8
static struct device { int id; } devices[MAX_DEVICES];
static int ndevices, version, coherent, host_coherent_env;
/* what fg_range.attr says about a HIP allocation (see the comment at the top) */
enum { FH_COARSE = 1, FH_FINE, FH_UNCACHED, FH_HOST_COHERENT, FH_HOST_NONCOHERENT };
static const char *arch;
static __thread int current; /* the thread's device */

/* A kernel's atomic meets another device's (or the host's) only where the memory is coherent while kernels run */
static int atomic_rule(const struct fg_range *r, const void *owner) {
    int runner = (int)((const struct device *)owner - devices);
    const char *what = NULL;
    if (r && r->attr == FH_COARSE && r->dev != runner)
        what = "coarse-grained memory of another device (hipMalloc, or hipExtMallocWithFlags without "
               "hipDeviceMallocFinegrained or hipDeviceMallocUncached)";
    else if (r && r->attr == FH_HOST_NONCOHERENT)
        what = "non-coherent host memory (hipHostMalloc without hipHostMallocCoherent or hipHostMallocMapped)";
    if (!what)
        return FG_OK;
    fprintf(stderr,
            "fakehip: a kernel on device %d ran an atomic on %s: on an AMD GPU it is not atomic with the accesses of "
            "the memory's other users, which see it only at synchronization\n",
            runner, what);
    return FG_ILLEGAL_ADDRESS;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void setup(void) {
    const char *s = getenv("FAKEHIP_DEVICES");
    ndevices = s ? atoi(s) : 1;
    if (ndevices < 0 || ndevices > MAX_DEVICES)
        ndevices = 1;
    for (int i = 0; i < MAX_DEVICES; i++)
        devices[i].id = i;
    s = getenv("FAKEHIP_VERSION");
    version = s ? atoi(s) : 60200000;
    s = getenv("FAKEHIP_COHERENT");
    int claim = s && !strcmp(s, "claim");
    coherent = (s && *s == '1') || claim;
    fg_host_visible = coherent && !claim;
    s = getenv("FAKEHIP_HOST_VISIBLE");
    fg_host_visible |= s && *s == '1';
    arch = getenv("FAKEHIP_ARCH");
    if (!arch || !*arch)
        arch = "gfx90a";
    s = getenv("HIP_HOST_COHERENT"); /* the runtime's own setting (0 unless set) */
    host_coherent_env = s && atoi(s) == 1;
    fg_atomic_rule = atomic_rule;
    fg_p2p_setup("FAKEHIP_P2P");
}

/* the runtime initializes itself on first use; a device must exist; a poisoned device fails every call */
#define ENTER()                                                                                                        \
    pthread_once(&once, setup);                                                                                        \
    pthread_mutex_lock(&fg_mu);                                                                                        \
    hipError_t rc_ = !ndevices ? FG_NO_DEVICE : fg_sticky;                                                             \
    if (rc_) {                                                                                                         \
        pthread_mutex_unlock(&fg_mu);                                                                                  \
        return rc_;                                                                                                    \
    }                                                                                                                  \
    fg_dev = current;
#define LEAVE(rc)                                                                                                      \
    do {                                                                                                               \
        hipError_t r_ = (rc);                                                                                          \
        pthread_mutex_unlock(&fg_mu);                                                                                  \
        return r_;                                                                                                     \
    } while (0)
#define OWNER (&devices[current])

/* ---- devices ---- */
API hipError_t hipInit(unsigned flags) {
    pthread_once(&once, setup);
    return flags ? FG_INVALID_VALUE : ndevices ? FG_OK : FG_NO_DEVICE;
}

API hipError_t hipRuntimeGetVersion(int *v) {
    pthread_once(&once, setup);
    if (!v)
        return FG_INVALID_VALUE;
    *v = version;
    return FG_OK;
}

API hipError_t hipGetDeviceCount(int *n) {
    pthread_once(&once, setup);
    if (!n)
        return FG_INVALID_VALUE;
    *n = ndevices;
    return ndevices ? FG_OK : FG_NO_DEVICE;
}

API hipError_t hipGetDevice(int *d) {
    ENTER();
    if (!d)
        LEAVE(FG_INVALID_VALUE);
    *d = current;
    LEAVE(FG_OK);
}

API hipError_t hipSetDevice(int d) {
    ENTER();
    if (d < 0 || d >= ndevices)
        LEAVE(FG_INVALID_DEVICE);
    current = d;
    LEAVE(FG_OK);
}

API hipError_t hipDeviceGetPCIBusId(char *id, int len, int d) {
    ENTER();
    if (d < 0 || d >= ndevices)
        LEAVE(FG_INVALID_DEVICE);
    if (!id || len <= 0)
        LEAVE(FG_INVALID_VALUE);
    snprintf(id, (size_t)len, "0000:%02X:00.0", 0xc1 + d); /* upper-case hex, as the runtime writes it */
    LEAVE(FG_OK);
}

API hipError_t hipDeviceGetByPCIBusId(int *d, const char *id) {
    ENTER();
    unsigned bus = 0;
    if (!d || !id)
        LEAVE(FG_INVALID_VALUE);
    if (sscanf(id, "0000:%x:00.0", &bus) != 1 || bus < 0xc1 || (int)(bus - 0xc1) >= ndevices)
        LEAVE(FG_INVALID_DEVICE);
    *d = (int)(bus - 0xc1);
    LEAVE(FG_OK);
}

/* "Returns 0 if deviceId == peerDeviceId": a device is not its own peer */
API hipError_t hipDeviceCanAccessPeer(int *can, int d, int peer) {
    ENTER();
    if (d < 0 || d >= ndevices || peer < 0 || peer >= ndevices)
        LEAVE(FG_INVALID_DEVICE);
    if (!can)
        LEAVE(FG_INVALID_VALUE);
    *can = d != peer && fg_p2p_access(d, peer);
    LEAVE(FG_OK);
}

/* hipDevP2PAttr: 0 performance rank, 1 access supported, 2 native atomics, 3 array access; one device is no link */
API hipError_t hipDeviceGetP2PAttribute(int *v, int attr, int a, int b) {
    ENTER();
    if (a < 0 || a >= ndevices || b < 0 || b >= ndevices || a == b)
        LEAVE(FG_INVALID_DEVICE);
    if (!v || attr < 0 || attr > 3)
        LEAVE(FG_INVALID_VALUE);
    *v = attr == 0 ? 0 : attr == 2 ? fg_p2p_atomics(a, b) : fg_p2p_access(a, b);
    LEAVE(FG_OK);
}

API hipError_t hipDeviceGetName(char *name, int len, int d) {
    ENTER();
    if (d < 0 || d >= ndevices)
        LEAVE(FG_INVALID_DEVICE);
    if (!name || len <= 0)
        LEAVE(FG_INVALID_VALUE);
    snprintf(name, (size_t)len, "gshmem fake AMD GPU %s%s (testing only)", arch, coherent ? " APU" : "");
    LEAVE(FG_OK);
}

API hipError_t hipDeviceTotalMem(size_t *bytes, int d) {
    ENTER();
    if (d < 0 || d >= ndevices)
        LEAVE(FG_INVALID_DEVICE);
    *bytes = (size_t)64 << 30;
    LEAVE(FG_OK);
}

API hipError_t hipDeviceGetAttribute(int *v, int attr, int d) {
    ENTER();
    if (d < 0 || d >= ndevices)
        LEAVE(FG_INVALID_DEVICE);
    switch (attr) {
    case 16: /* hipDeviceAttributeIntegrated */
    case 65: /* hipDeviceAttributePageableMemoryAccess */
    case 66: /* hipDeviceAttributePageableMemoryAccessUsesHostPageTables */ *v = coherent; break;
    default: LEAVE(FG_INVALID_VALUE); /* not modelled: a caller that needs more must say so here */
    }
    LEAVE(FG_OK);
}

/* ---- streams and events (a stream is its device's: used from another device it is an invalid handle) ---- */
API hipError_t hipStreamCreateWithFlags(void **s, unsigned flags) {
    ENTER();
    if (flags > 1)
        LEAVE(FG_INVALID_VALUE);
    LEAVE(fg_stream_create(OWNER, s));
}

API hipError_t hipStreamDestroy(void *s) {
    ENTER();
    LEAVE(fg_stream_destroy(s));
}

API hipError_t hipStreamSynchronize(void *s) {
    ENTER();
    LEAVE(fg_stream_sync(s, OWNER));
}

/* every stream of the calling thread's current device, and what else it runs (fg_device_sync) */
API hipError_t hipDeviceSynchronize(void) {
    ENTER();
    LEAVE(fg_device_sync(OWNER));
}

API hipError_t hipEventCreateWithFlags(void **ev, unsigned flags) {
    ENTER();
    (void)flags;
    LEAVE(fg_event_create(ev));
}

API hipError_t hipEventDestroy(void *ev) {
    ENTER();
    LEAVE(fg_event_destroy(ev));
}

API hipError_t hipEventRecord(void *ev, void *s) {
    ENTER();
    LEAVE(fg_event_record(ev, s, OWNER));
}

API hipError_t hipEventQuery(void *ev) {
    ENTER();
    LEAVE(fg_event_query(ev));
}

API hipError_t hipEventSynchronize(void *ev) {
    ENTER();
    LEAVE(fg_event_sync(ev));
}

/* ---- memory ---- */
/* device memory of the current device, of the given kind */
static hipError_t dev_alloc(void **p, size_t size, unsigned kind) {
    hipError_t r = fg_mem_alloc(size, p);
    if (!r) {
        struct fg_range *g = fg_find(*p);
        g->dev = current;
        g->attr = kind;
    }
    return r;
}

API hipError_t hipMalloc(void **p, size_t size) {
    ENTER();
    if (!p)
        LEAVE(FG_INVALID_VALUE);
    LEAVE(dev_alloc(p, size, FH_COARSE));
}

API hipError_t hipExtMallocWithFlags(void **p, size_t size, unsigned flags) {
    ENTER();
    unsigned kind;
    if (!p)
        LEAVE(FG_INVALID_VALUE);
    switch (flags) {                 /* one value, not a set of bits: the runtime compares flags with each */
    case 0: kind = FH_COARSE; break; /* hipDeviceMallocDefault */
    case 1: kind = FH_FINE; break;   /* hipDeviceMallocFinegrained */
    case 3: kind = FH_UNCACHED; break;
    case 4: kind = FH_UNCACHED; break;
    default: LEAVE(FG_INVALID_VALUE);
    }
    if ((flags == 3 && version < 50600000) || (flags == 4 && version < 60200000))
        LEAVE(FG_INVALID_VALUE); /* hipDeviceMallocUncached from 5.6, hipDeviceMallocContiguous from 6.2 */
    LEAVE(dev_alloc(p, size, kind));
}

API hipError_t hipFree(void *p) {
    ENTER();
    LEAVE(p ? fg_mem_free(p) : FG_OK);
}

API hipError_t hipHostMalloc(void **p, size_t size, unsigned flags) {
    ENTER();
    const unsigned portable = 0x1, mapped = 0x2, wc = 0x4, numa = 0x20000000, coh = 0x40000000, noncoh = 0x80000000;
    if (!p || (flags & ~(portable | mapped | wc | numa | coh | noncoh)) || (flags & (coh | noncoh)) == (coh | noncoh))
        LEAVE(FG_INVALID_VALUE);
    int is_coherent = !(flags & noncoh) && (!flags || (flags & (coh | mapped | numa)) || host_coherent_env);
    hipError_t r = fg_host_alloc(size, p);
    if (!r)
        fg_find(*p)->attr = is_coherent ? FH_HOST_COHERENT : FH_HOST_NONCOHERENT;
    LEAVE(r);
}

API hipError_t hipHostFree(void *p) {
    ENTER();
    LEAVE(fg_host_free(p));
}

API hipError_t hipHostRegister(void *p, size_t size, unsigned flags) {
    ENTER();
    if (flags & ~0xfu)
        LEAVE(FG_INVALID_VALUE);
    LEAVE(fg_host_register(p, size));
}

API hipError_t hipHostUnregister(void *p) {
    ENTER();
    LEAVE(fg_host_unregister(p));
}

API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *s) {
    ENTER();
    if (kind != 4) /* gshmem passes hipMemcpyDefault: the runtime tells the sides apart */
        LEAVE(FG_INVALID_VALUE);
    LEAVE(fg_copy_async(dst, src, n, s, OWNER));
}

API hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                                int kind, void *s) {
    ENTER();
    if (kind != 4)
        LEAVE(FG_INVALID_VALUE);
    LEAVE(fg_copy2d_async(dst, dpitch, src, spitch, width, height, s, OWNER));
}

API hipError_t hipMemsetAsync(void *dst, int byte, size_t n, void *s) {
    ENTER();
    LEAVE(fg_memset_async(dst, byte, n, s, OWNER));
}

API hipError_t hipPointerGetAttributes(hipPointerAttribute_t *a, const void *p) {
    ENTER();
    int v6 = version >= 60000000;
    struct fg_range *r = fg_find(p);
    if (!a)
        LEAVE(FG_INVALID_VALUE);
    memset(a, 0, sizeof *a);
    if (!r) {
        /* ROCm 5: an error; ROCm 6: hipMemoryTypeUnregistered */
        LEAVE(v6 ? FG_OK : FG_INVALID_VALUE);
    }
    int dev = r->kind == FG_DEVICE || r->kind == FG_IMPORTED;
    a->memoryType = dev ? (v6 ? 2 : 1) : (v6 ? 1 : 0);
    a->device = current;
    a->devicePointer = (void *)(uintptr_t)p;
    a->hostPointer = dev ? NULL : (void *)(uintptr_t)p;
    LEAVE(FG_OK);
}

API hipError_t hipMemGetAddressRange(void **base, size_t *size, void *p) {
    ENTER();
    struct fg_range *r = fg_find(p);
    if (!r || (r->kind != FG_DEVICE && r->kind != FG_IMPORTED))
        LEAVE(FG_NOT_FOUND);
    if (base)
        *base = r->addr;
    if (size)
        *size = r->len;
    LEAVE(FG_OK);
}

API hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *h, void *p) {
    ENTER();
    struct fg_range *r = fg_find(p);
    if (!h || !r || r->addr != p) /* the start of an allocation */
        LEAVE(FG_INVALID_VALUE);
    LEAVE(fg_ipc_get(p, (unsigned char *)h->reserved, "FAKEHIP"));
}

API hipError_t hipIpcOpenMemHandle(void **p, hipIpcMemHandle_t h, unsigned flags) {
    ENTER();
    /* the runtime takes only its own header's hipIpcMemLazyEnablePeerAccess: 0 up to ROCm 5, 0x01 from ROCm 6.0 */
    if (!p || flags != (version >= 60000000 ? 1u : 0u))
        LEAVE(FG_INVALID_VALUE);
    LEAVE(fg_ipc_open((const unsigned char *)h.reserved, "FAKEHIP", p));
}

API hipError_t hipIpcCloseMemHandle(void *p) {
    ENTER();
    LEAVE(fg_ipc_close(p));
}

/* ---- code objects and kernels ---- */
struct module {
    size_t size;
    unsigned char elf[]; /* the code object for this device's architecture */
};

/* EF_AMDGPU_MACH of the architectures a bare code object may be for (bundles name theirs) */
static int mach_of(const char *a) {
    static const struct {
        const char *name;
        int mach;
    } t[] = {{"gfx906", 0x2f}, {"gfx908", 0x30}, {"gfx90a", 0x3f},
             {"gfx940", 0x40}, {"gfx942", 0x4c}, {"gfx1100", 0x41}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(t[i].name, a))
            return t[i].mach;
    return -1;
}

static int is_amdgpu_elf(const unsigned char *p, size_t n) {
    const Elf64_Ehdr *e = (const void *)p;
    return n >= sizeof *e && !memcmp(p, ELFMAG, SELFMAG) && p[EI_CLASS] == ELFCLASS64 && e->e_machine == 224;
}

/* "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-": the processor after "--", before any feature */
static int triple_fits(const char *t, size_t len) {
    const char *p = memmem(t, len, "--", 2);
    if (!p || strncmp(t, "hip", 3))
        return 0;
    p += 2;
    size_t al = strlen(arch);
    return (size_t)(t + len - p) >= al && !strncmp(p, arch, al) && (p + al == t + len || p[al] == ':');
}

API hipError_t hipModuleLoadData(void **mod, const void *image) {
    ENTER();
    const unsigned char *img = image;
    const unsigned char *elf = NULL;
    size_t size = 0;
    if (!img || !mod)
        LEAVE(FG_INVALID_VALUE);
    if (!memcmp(img, "__CLANG_OFFLOAD_BUNDLE__", 24)) {
        uint64_t n, off = 32;
        memcpy(&n, img + 24, 8);
        for (uint64_t i = 0; i < n && i < 64; i++) {
            uint64_t o, sz, tl;
            memcpy(&o, img + off, 8);
            memcpy(&sz, img + off + 8, 8);
            memcpy(&tl, img + off + 16, 8);
            if (tl > 256)
                LEAVE(FG_INVALID_IMAGE);
            if (sz && triple_fits((const char *)img + off + 24, tl) && is_amdgpu_elf(img + o, sz)) {
                elf = img + o;
                size = sz;
            }
            off += 24 + tl;
        }
        if (!elf)
            LEAVE(FG_NO_BINARY_FOR_GPU);
    } else if (is_amdgpu_elf(img, 64)) {
        if ((int)(((const Elf64_Ehdr *)image)->e_flags & 0xff) != mach_of(arch))
            LEAVE(FG_NO_BINARY_FOR_GPU);
        const Elf64_Ehdr *e = image; /* a bare object: its size is where its section headers end */
        elf = img;
        size = e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
    } else {
        LEAVE(FG_INVALID_IMAGE);
    }
    struct module *m = malloc(sizeof *m + size);
    if (!m)
        LEAVE(FG_OUT_OF_MEMORY);
    m->size = size;
    memcpy(m->elf, elf, size);
    *mod = m;
    LEAVE(FG_OK);
}

API hipError_t hipModuleUnload(void *mod) {
    ENTER();
    if (!mod)
        LEAVE(FG_INVALID_HANDLE);
    free(mod);
    LEAVE(FG_OK);
}

/* whether the code object defines kernel `name`: its descriptor <name>.kd in the dynamic symbol table */
static int defines(const struct module *m, const char *name) {
    const Elf64_Ehdr *e = (const void *)m->elf;
    if (e->e_shoff + (size_t)e->e_shnum * sizeof(Elf64_Shdr) > m->size)
        return 0;
    const Elf64_Shdr *sh = (const void *)(m->elf + e->e_shoff);
    char want[128];
    snprintf(want, sizeof want, "%s.kd", name);
    for (int i = 0; i < e->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= e->e_shnum)
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > m->size || str->sh_offset + str->sh_size > m->size)
            return 0;
        const Elf64_Sym *sym = (const void *)(m->elf + sh[i].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++)
            if (sym[k].st_name < str->sh_size &&
                !strncmp((const char *)m->elf + str->sh_offset + sym[k].st_name, want, str->sh_size - sym[k].st_name))
                return 1;
    }
    return 0;
}

API hipError_t hipModuleGetFunction(void **fn, void *mod, const char *name) {
    ENTER();
    if (!mod || !fn || !name)
        LEAVE(FG_INVALID_VALUE);
    if (!defines(mod, name))
        LEAVE(FG_NOT_FOUND);
    LEAVE(fg_function(name, fn));
}

API hipError_t hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                     unsigned bz, unsigned shmem, void *s, void **params, void **extra) {
    ENTER();
    LEAVE(fg_launch(fn, gx, gy, gz, bx, by, bz, shmem, s, OWNER, params, extra));
}

static const struct {
    int code;
    const char *name;
} names[] = {
    {0, "hipSuccess"},
    {1, "hipErrorInvalidValue"},
    {2, "hipErrorOutOfMemory"},
    {3, "hipErrorNotInitialized"},
    {100, "hipErrorNoDevice"},
    {101, "hipErrorInvalidDevice"},
    {200, "hipErrorInvalidImage"},
    {201, "hipErrorInvalidContext"},
    {209, "hipErrorNoBinaryForGpu"},
    {217, "hipErrorPeerAccessUnsupported"},
    {400, "hipErrorInvalidHandle"},
    {500, "hipErrorNotFound"},
    {600, "hipErrorNotReady"},
    {700, "hipErrorIllegalAddress"},
    {712, "hipErrorHostMemoryAlreadyRegistered"},
    {713, "hipErrorHostMemoryNotRegistered"},
};

API const char *hipGetErrorString(hipError_t r) {
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == r)
            return names[i].name;
    return "hipErrorUnknown";
}
