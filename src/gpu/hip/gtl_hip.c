/* gtl_hip.c - the HIP (AMD GPU) backend of the GPU transport layer. It loads the HIP runtime (libamdhip64) at run
 * time through one list of symbols, so one build of gshmem runs with or without an AMD GPU and needs no ROCm headers.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gpu/gtl.h"
#include "gpu/gtl_kernels.h"
#include "gpu/gtl_stream.h"
#include "state.h"

/* The few runtime API types used, declared here so the build needs no HIP headers (values from ROCm 5.2's
 * hip_runtime_api.h; hipDeviceAttribute_t is numbered stably since ROCm 5.0, error codes repeat CUDA's). */
typedef int hipError_t;
typedef int hipDevice_t;
typedef void *hipStream_t, *hipEvent_t, *hipModule_t, *hipFunction_t;
typedef struct {
    char reserved[64];
} hipIpcMemHandle_t;
/* hipPointerAttribute_t (the same layout in ROCm 5 and 6; room to spare in case a later one grows) */
typedef struct {
    int memoryType;
    int device;
    void *devicePointer, *hostPointer;
    int isManaged;
    unsigned allocationFlags;
    char spare[64];
} hipPointerAttribute_t;
#define hipSuccess 0
#define hipErrorNotReady 600
#define hipMemcpyDefault 4
#define hipStreamNonBlocking 1
#define hipEventDisableTiming 2
#define hipHostMallocPortable 1
#define hipHostMallocMapped 2
#define hipHostMallocCoherent 0x40000000
#define hipDeviceMallocFinegrained 1
#define hipHostRegisterPortable 1
#define hipHostRegisterMapped 2
#define hipDeviceAttributeIntegrated 16
#define hipDeviceAttributePageableMemoryAccess 65
#define hipDevP2PAttrNativeAtomicSupported 2 /* (HIP numbers these from 0, CUDA from 1) */
/* hipMemoryTypeDevice: 1 up to ROCm 5, 2 from ROCm 6 (which put hipMemoryTypeUnregistered first) */
#define HIP_MEMTYPE_DEVICE(version) ((version) >= 60000000 ? 2 : 1)
/* hipIpcMemLazyEnablePeerAccess: 0 up to ROCm 5, 0x01 from ROCm 6; hipIpcOpenMemHandle refuses any flags but the
 * value its own runtime was built with, so the runtime's version picks it */
#define HIP_IPC_LAZY_PEER(version) ((version) >= 60000000 ? 1u : 0u)

/* name in the runtime, parameter list, our field (every entry point returns hipError_t, but hipGetErrorString) */
#define HIP_SYMBOLS(X)                                                                                                 \
    X("hipInit", (unsigned), init)                                                                                     \
    X("hipRuntimeGetVersion", (int *), runtime_version)                                                                \
    X("hipGetDeviceCount", (int *), device_count)                                                                      \
    X("hipGetDevice", (int *), get_device)                                                                             \
    X("hipSetDevice", (int), set_device)                                                                               \
    X("hipDeviceSynchronize", (void), device_sync)                                                                     \
    X("hipDeviceGetPCIBusId", (char *, int, int), device_busid)                                                        \
    X("hipDeviceGetName", (char *, int, hipDevice_t), device_name)                                                     \
    X("hipDeviceTotalMem", (size_t *, hipDevice_t), device_mem)                                                        \
    X("hipDeviceGetAttribute", (int *, int, int), device_attr)                                                         \
    X("hipDeviceGetByPCIBusId", (int *, const char *), device_by_busid)                                                \
    X("hipDeviceCanAccessPeer", (int *, int, int), can_access_peer)                                                    \
    X("hipDeviceGetP2PAttribute", (int *, int, int, int), p2p_attr)                                                    \
    X("hipStreamCreateWithFlags", (hipStream_t *, unsigned), stream_create)                                            \
    X("hipStreamDestroy", (hipStream_t), stream_destroy)                                                               \
    X("hipStreamSynchronize", (hipStream_t), stream_sync)                                                              \
    X("hipEventCreateWithFlags", (hipEvent_t *, unsigned), event_create)                                               \
    X("hipEventDestroy", (hipEvent_t), event_destroy)                                                                  \
    X("hipEventRecord", (hipEvent_t, hipStream_t), event_record)                                                       \
    X("hipEventQuery", (hipEvent_t), event_query)                                                                      \
    X("hipEventSynchronize", (hipEvent_t), event_sync)                                                                 \
    X("hipExtMallocWithFlags", (void **, size_t, unsigned), mem_alloc)                                                 \
    X("hipFree", (void *), mem_free)                                                                                   \
    X("hipHostMalloc", (void **, size_t, unsigned), host_alloc)                                                        \
    X("hipHostFree", (void *), host_free)                                                                              \
    X("hipHostRegister", (void *, size_t, unsigned), host_register)                                                    \
    X("hipHostUnregister", (void *), host_unregister)                                                                  \
    X("hipMemcpyAsync", (void *, const void *, size_t, int, hipStream_t), memcpy_async)                                \
    X("hipMemcpy2DAsync", (void *, size_t, const void *, size_t, size_t, size_t, int, hipStream_t), memcpy2d_async)    \
    X("hipMemsetAsync", (void *, int, size_t, hipStream_t), memset_async)                                              \
    X("hipPointerGetAttributes", (hipPointerAttribute_t *, const void *), ptr_attrs)                                   \
    X("hipMemGetAddressRange", (void **, size_t *, void *), addr_range)                                                \
    X("hipIpcGetMemHandle", (hipIpcMemHandle_t *, void *), ipc_get)                                                    \
    X("hipIpcOpenMemHandle", (void **, hipIpcMemHandle_t, unsigned), ipc_open)                                         \
    X("hipIpcCloseMemHandle", (void *), ipc_close)                                                                     \
    X("hipModuleLoadData", (hipModule_t *, const void *), module_load)                                                 \
    X("hipModuleUnload", (hipModule_t), module_unload)                                                                 \
    X("hipModuleGetFunction", (hipFunction_t *, hipModule_t, const char *), module_function)                           \
    X("hipModuleLaunchKernel",                                                                                         \
      (hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, hipStream_t, void **,      \
       void **),                                                                                                       \
      launch)

static struct {
#define X(sym, args, field) hipError_t(*field) args;
    HIP_SYMBOLS(X)
#undef X
    const char *(*error_string)(hipError_t);
} hip;

static void *lib;
static int dev, ndev, version, memtype_device, is_coherent;
static unsigned ipc_open_flags;
static struct gtl_stream_ops ops; /* the runtime's calls for gtl_stream.c, filled once the runtime is loaded */
static struct gtl_streams gs;
static hipModule_t mod;
static hipFunction_t amo_fn[2];
static hipFunction_t red_fn[SHMEMI_OP_PROD + 1][GTLK_NONE];
static unsigned long long *amo_out; /* pinned, mapped: where the atomic kernel leaves the old value */
static char nokern[200];            /* why there are no kernels ("" when there are) */

#ifdef GSHMEM_HAVE_HIP_KERNELS
#include "kernels_hip.h" /* generated: gshmemi_kernels_hip[], a bundle of code objects for GSHMEM_HIP_ARCHS_STR */
#endif

static const char *errstr(hipError_t r) {
    const char *s = hip.error_string ? hip.error_string(r) : NULL;
    return s ? s : "unknown HIP error";
}

/* The current device is per thread in the runtime, and the application may make another one current (hipSetDevice)
 * between our calls. Each entry point makes ours current if it is not, and puts the application's back on the way
 * out (ENTRY below), so the application's later calls on that thread still reach its own device. */
static __thread int displaced = -1;
static int use_dev(void) {
    int cur = -1;
    if (SHMEMI_LIKELY(hip.get_device(&cur) == hipSuccess && cur == dev))
        return 0;
    if (hip.set_device(dev) != hipSuccess)
        return -1;
    displaced = cur;
    return 0;
}
static void done_dev(void) {
    if (SHMEMI_UNLIKELY(displaced >= 0)) {
        hip.set_device(displaced);
        displaced = -1;
    }
}

static void unload(void) {
    if (lib)
        dlclose(lib);
    lib = NULL;
    memset(&hip, 0, sizeof hip);
}

static int busid(int i, char *id, int len) { return hip.device_busid(id, len, i) != hipSuccess; }

/* Device ordinal for this PE when the application chose none. The runtime has no "no device yet": every thread
 * starts on device 0, so a current device other than 0 is the application's choice, and 0 is taken as none (an
 * application that chose 0 on purpose and gets another device still works, through peer access). */
static int pick(int n, int local_rank, int nlocal) {
    int cur = 0;
    if (hip.get_device(&cur) == hipSuccess && cur > 0 && cur < n)
        return cur;
    return shmemi_gtl_pick_busid(n, busid, local_rank, nlocal);
}

/* gtl_stream.c's calls that differ from the runtime's in their arguments */
static int op_copy(void *dst, const void *src, size_t n, void *st) {
    return hip.memcpy_async(dst, src, n, hipMemcpyDefault, st);
}
static int op_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, void *st) {
    return hip.memcpy2d_async(dst, dpitch, src, spitch, width, height, hipMemcpyDefault, st);
}
static int op_launch(void *fn, unsigned blocks, unsigned threads, void *st, void **args) {
    return hip.launch(fn, blocks, 1, 1, threads, 1, 1, 0, st, args, NULL);
}
static int op_event_create(void **ev) { return hip.event_create(ev, hipEventDisableTiming); }
static int op_stream_create(void **st) { return hip.stream_create(st, hipStreamNonBlocking); }
/* (on the thread gtls_idle starts: our device made current there) */
static int op_device_sync(void) { return use_dev() ? -1 : hip.device_sync(); }
static int op_on_device(const void *p) {
    hipPointerAttribute_t a;
    memset(&a, 0, sizeof a);
    return hip.ptr_attrs(&a, p) == hipSuccess && a.memoryType == memtype_device;
}

/* The embedded code objects (one per architecture, bundled): the runtime takes the one for this GPU. Without one,
 * nokern says why; atomics on device memory then fail naming the fix, and reductions run on the host. */
static void load_kernels(void) {
    mod = NULL;
#ifdef GSHMEM_HAVE_HIP_KERNELS
    hipError_t r;
    const char *step = "hipModuleLoadData";
    if ((r = hip.module_load(&mod, gshmemi_kernels_hip)) != hipSuccess) {
        snprintf(nokern, sizeof nokern,
                 "no embedded code object fits this GPU (kernels built for " GSHMEM_HIP_ARCHS_STR
                 "; hipModuleLoadData: %s)",
                 errstr(r));
        mod = NULL;
    } else if ((step = "hipModuleGetFunction", r = hip.module_function(&amo_fn[0], mod, "gshmemi_amo32")) !=
                   hipSuccess ||
               (r = hip.module_function(&amo_fn[1], mod, "gshmemi_amo64")) != hipSuccess ||
               (step = "hipHostMalloc",
                r = hip.host_alloc((void **)&amo_out, 64, hipHostMallocPortable | hipHostMallocMapped)) != hipSuccess) {
        snprintf(nokern, sizeof nokern, "the embedded kernels do not load (%s: %s)", step, errstr(r));
        hip.module_unload(mod);
        mod = NULL;
        amo_fn[0] = amo_fn[1] = NULL;
    }
    /* small copies as kernels (gtl_stream.c), else every copy on the copy engine */
    gs.cutover = mod ? shmemi_env.gpu_copy_cutover : 0;
    if (gs.cutover && (hip.module_function(&gs.inline_fn[0], mod, "gshmemi_put_inline64") != hipSuccess ||
                       hip.module_function(&gs.inline_fn[1], mod, "gshmemi_put_inline4k") != hipSuccess ||
                       hip.module_function(&gs.copy_fn, mod, "gshmemi_copy_sm") != hipSuccess ||
                       hip.host_alloc((void **)&gs.bounce, GTLS_BOUNCE_SIZE,
                                      hipHostMallocPortable | hipHostMallocMapped) != hipSuccess))
        gs.cutover = 0;
#else
    snprintf(nokern, sizeof nokern, "built without hipcc");
#endif
    if (!mod)
        shmemi_debug("HIP: no atomic or reduction kernels: %s", nokern);
}

static int hip_init(int local_rank, int nlocal, char *desc, size_t desclen, char *why, size_t whylen) {
    static const char *const names[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
    const char *err = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        if (!(lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) && i == 0)
            err = dlerror();
    if (!lib) {
        snprintf(why, whylen, "no HIP runtime (libamdhip64.so cannot be loaded: %s)", err);
        return -1;
    }
#define X(sym, args, field)                                                                                            \
    if (!(*(void **)&hip.field = dlsym(lib, sym))) {                                                                   \
        snprintf(why, whylen, "the HIP runtime lacks %s (too old?)", sym);                                             \
        unload();                                                                                                      \
        return -1;                                                                                                     \
    }
    HIP_SYMBOLS(X)
#undef X
    if (!(*(void **)&hip.error_string = dlsym(lib, "hipGetErrorString"))) {
        snprintf(why, whylen, "the HIP runtime lacks hipGetErrorString (too old?)");
        unload();
        return -1;
    }
    const char *step = "hipInit";
    hipError_t r = hip.init(0);
    int n = 0;
    if (r == hipSuccess)
        step = "hipGetDeviceCount", r = hip.device_count(&n);
    if (r != hipSuccess || n == 0) {
        /* the runtime reaches AMD GPUs through the amdgpu kernel driver's /dev/kfd: say when that is missing */
        snprintf(why, whylen, "the HIP runtime sees no AMD GPU (%s: %s%s)", step,
                 r != hipSuccess ? errstr(r) : "0 devices",
                 access("/dev/kfd", R_OK | W_OK) ? "; no /dev/kfd: no amdgpu driver" : "");
        unload();
        return -1;
    }
    ndev = n;
    hip.runtime_version(&version);
    memtype_device = HIP_MEMTYPE_DEVICE(version);
    ipc_open_flags = HIP_IPC_LAZY_PEER(version);
    dev = pick(n, local_rank, nlocal);
    displaced = -1;
    ops = (struct gtl_stream_ops){.copy = op_copy,
                                  .copy2d = op_copy2d,
                                  .memset = hip.memset_async,
                                  .sync = hip.stream_sync,
                                  .launch = op_launch,
                                  .event_create = op_event_create,
                                  .event_record = hip.event_record,
                                  .event_query = hip.event_query,
                                  .event_sync = hip.event_sync,
                                  .event_destroy = hip.event_destroy,
                                  .stream_create = op_stream_create,
                                  .stream_destroy = hip.stream_destroy,
                                  .on_device = op_on_device,
                                  .device_sync = op_device_sync,
                                  .not_ready = hipErrorNotReady};
    int opened = 0;
    if ((r = hip.set_device(dev)) != hipSuccess || (opened = 1, r = gtls_open(&gs, &ops)) != hipSuccess) {
        snprintf(why, whylen, "cannot %s: %s", opened ? "create a stream" : "open the device", errstr(r));
        unload();
        return -1;
    }
    /* An APU whose GPU uses the CPU's page tables (MI300A): the CPU reaches device memory at the same addresses,
     * coherently. A discrete GPU, or an integrated one that cannot say so, takes the copy engine (always correct). */
    int integrated = 0, pageable = 0;
    is_coherent = hip.device_attr(&integrated, hipDeviceAttributeIntegrated, dev) == hipSuccess && integrated &&
                  hip.device_attr(&pageable, hipDeviceAttributePageableMemoryAccess, dev) == hipSuccess && pageable;
    nokern[0] = 0;
    load_kernels();
    char name[128] = "?";
    size_t mem = 0;
    hip.device_name(name, sizeof name, dev);
    hip.device_mem(&mem, dev);
    char cut[64] = "";
    if (gs.cutover)
        snprintf(cut, sizeof cut, "; copies up to %zu B as kernels", gs.cutover);
    snprintf(desc, desclen, "%s (device %d of %d, %zu GiB), HIP runtime %d.%d, shared by %d PE%s of this node%s%s%s%s",
             name, dev, n, mem >> 30, version / 10000000, version / 100000 % 100, nlocal, nlocal == 1 ? "" : "s",
             is_coherent ? "; coherent with the CPU (APU)" : "",
             mod ? "" : "; no atomic or reduction kernels: ", mod ? "" : nokern, cut);
    return 0;
}

static void hip_fini(void) {
    if (!lib)
        return;
    use_dev();
    if (gs.bounce)
        hip.host_free(gs.bounce);
    gs.bounce = NULL;
    gs.cutover = 0;
    gtls_close(&gs);
    if (amo_out)
        hip.host_free(amo_out);
    amo_out = NULL;
    amo_fn[0] = amo_fn[1] = NULL;
    memset(red_fn, 0, sizeof red_fn);
    if (mod)
        hip.module_unload(mod);
    mod = NULL;
    /* the runtime stays loaded: unloading it under an application's live HIP runtime is not safe */
}

/* Fine-grained: peers on other GPUs update the GPU heap with atomics and kernels spin on words other GPUs and the
 * proxy write, while kernels run. hipMalloc's coarse-grained memory is coherent only at kernel and copy boundaries
 * (each GPU works on it in its own L2 cache), so two GPUs' atomics on one word would lose updates. Uncached memory
 * (hipDeviceMallocUncached, from ROCm 5.6) would also do, at a cost to every kernel reading the heap: rocSHMEM
 * went back from it to fine-grained by default. */
static int hip_alloc(size_t size, void **ptr) {
    return use_dev() || hip.mem_alloc(ptr, size, hipDeviceMallocFinegrained) != hipSuccess ? -1 : 0;
}

static void hip_free(void *ptr, size_t size) {
    (void)size;
    if (!use_dev())
        hip.mem_free(ptr);
}

static int hip_query(const void *p, uintptr_t *base, size_t *size) {
    hipPointerAttribute_t a;
    memset(&a, 0, sizeof a);
    /* unknown memory is an error up to ROCm 5 and hipMemoryTypeUnregistered from ROCm 6: host memory either way */
    if (use_dev() || hip.ptr_attrs(&a, p) != hipSuccess || a.memoryType != memtype_device)
        return GTL_MEM_HOST;
    void *b = NULL;
    size_t s = 0;
    if (hip.addr_range(&b, &s, (void *)(uintptr_t)p) == hipSuccess) {
        *base = (uintptr_t)b;
        *size = s;
    }
    return GTL_MEM_DEVICE;
}

static int hip_ipc_export(void *base, size_t size, struct gtl_ipc *h) {
    (void)size;
    hipIpcMemHandle_t m;
    if (use_dev() || hip.ipc_get(&m, base) != hipSuccess)
        return -1;
    memcpy(h->bytes, &m, sizeof m);
    return 0;
}

static int hip_ipc_import(const struct gtl_ipc *h, size_t size, void **ptr) {
    (void)size;
    hipIpcMemHandle_t m;
    memcpy(&m, h->bytes, sizeof m);
    return use_dev() || hip.ipc_open(ptr, m, ipc_open_flags) != hipSuccess ? -1 : 0;
}

static void hip_ipc_close(void *ptr, size_t size) {
    (void)size;
    if (!use_dev())
        hip.ipc_close(ptr);
}

static void hip_ipc_done(void *base) { (void)base; }

static int hip_copy(void *dst, const void *src, size_t n) { return use_dev() ? -1 : gtls_copy(&gs, dst, src, n); }

static int hip_copy_start(void *dst, const void *src, size_t n, void **ticket) {
    return use_dev() ? -1 : gtls_copy_start(&gs, dst, src, n, ticket);
}

static int hip_copy_end(void *ticket, int wait) { return use_dev() ? -1 : gtls_copy_end(&gs, ticket, wait); }

static int hip_memset(void *dst, int byte, size_t n) { return use_dev() ? -1 : gtls_memset(&gs, dst, byte, n); }

static int hip_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height) {
    return use_dev() ? -1 : gtls_copy2d(&gs, dst, dpitch, src, spitch, width, height);
}

static int hip_amo(void *p, int op, uint64_t value, uint64_t cond, size_t size, uint64_t *old) {
    hipFunction_t f = amo_fn[size == 8];
    if (!f) /* every caller would end the job with a less helpful message */
        shmemi_fatal("shmem atomic on AMD GPU memory",
                     "this needs gshmem's HIP kernels, and there are none for this GPU (%s): rebuild gshmem with "
                     "hipcc, naming this GPU's architecture (rocminfo's gfx name) in GSHMEM_HIP_ARCHS, or keep the "
                     "objects of atomics in host memory",
                     nokern);
    return use_dev() ? -1 : gtls_amo(&gs, amo_fn, amo_out, p, op, value, cond, size, old);
}

static int hip_reduce(int op, int dt, void *acc, const void *in, size_t count) {
    int t = gtlk_type(op, dt);
    char name[64];
    if (!mod || gtlk_red_name(op, t, name, sizeof name) || use_dev())
        return -1;
    hipFunction_t *f = &red_fn[op][t];
    if (!*f && hip.module_function(f, mod, name) != hipSuccess) {
        *f = NULL;
        return -1;
    }
    return count ? gtls_reduce(&gs, *f, acc, in, count) : 0; /* 0 elements: the caller asked whether there is one */
}

/* Pinned for every device (portable) and mapped, so the application's own copies and kernels reach it too. */
static int hip_host_register(void *p, size_t size) {
    return use_dev() || hip.host_register(p, size, hipHostRegisterPortable | hipHostRegisterMapped) != hipSuccess ? -1
                                                                                                                  : 0;
}

static int hip_host_unregister(void *p) { return use_dev() || hip.host_unregister(p) != hipSuccess ? -1 : 0; }

/* The request ring: kernels and the proxy use it at once, so it must be coherent while kernels run. Mapped memory has
 * been coherent in every runtime so far (HIP_HOST_COHERENT, 0 by default, decides only for memory with neither flag),
 * but hipHostMallocCoherent is the flag the API promises it for. */
static int hip_host_alloc_sz(size_t size, void **ptr) {
    if (use_dev() ||
        hip.host_alloc(ptr, size, hipHostMallocPortable | hipHostMallocMapped | hipHostMallocCoherent) != hipSuccess)
        return -1;
    memset(*ptr, 0, size);
    return 0;
}

static void hip_host_free(void *ptr) {
    if (!use_dev())
        hip.host_free(ptr);
}

static int hip_net_addr(void *base, void **addr, int *device) {
    *addr = base;
    *device = dev;
    return 0;
}

static int hip_coherent(void) { return is_coherent; }

/* every entry point that may make our device current puts back the one it displaced (see use_dev) */
#define ENTRY(...) GTLS_ENTRY(done_dev, __VA_ARGS__)
#define ENTRY_VOID(...) GTLS_ENTRY_VOID(done_dev, __VA_ARGS__)
ENTRY_VOID(hip_fini, (void), ())
ENTRY(int, hip_alloc, (size_t size, void **ptr), (size, ptr))
ENTRY_VOID(hip_free, (void *ptr, size_t size), (ptr, size))
ENTRY(int, hip_query, (const void *p, uintptr_t *base, size_t *size), (p, base, size))
ENTRY(int, hip_ipc_export, (void *base, size_t size, struct gtl_ipc *h), (base, size, h))
ENTRY(int, hip_ipc_import, (const struct gtl_ipc *h, size_t size, void **ptr), (h, size, ptr))
ENTRY_VOID(hip_ipc_close, (void *ptr, size_t size), (ptr, size))
ENTRY(int, hip_copy, (void *dst, const void *src, size_t n), (dst, src, n))
ENTRY(int, hip_copy_start, (void *dst, const void *src, size_t n, void **ticket), (dst, src, n, ticket))
ENTRY(int, hip_copy_end, (void *ticket, int wait), (ticket, wait))
ENTRY(int, hip_memset, (void *dst, int byte, size_t n), (dst, byte, n))
ENTRY(int, hip_amo, (void *p, int op, uint64_t value, uint64_t cond, size_t size, uint64_t *old),
      (p, op, value, cond, size, old))
ENTRY(int, hip_copy2d, (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height),
      (dst, dpitch, src, spitch, width, height))
ENTRY(int, hip_reduce, (int op, int dt, void *acc, const void *in, size_t count), (op, dt, acc, in, count))
ENTRY(int, hip_host_register, (void *p, size_t size), (p, size))
ENTRY(int, hip_host_unregister, (void *p), (p))
ENTRY(int, hip_host_alloc_sz, (size_t size, void **ptr), (size, ptr))
ENTRY_VOID(hip_host_free, (void *ptr), (ptr))

/* hip_init makes the chosen device current in the initializing thread and leaves it so (as the CUDA backend leaves
 * its context): a program that set none expects the device gshmem opened. */
/* ---- the node's other GPUs: peer access as hipDeviceCanAccessPeer says, native atomics as the link's attribute
 * says (xGMI has them, PCIe mostly not); a device not found by bus id is hidden from this process (HIP_VISIBLE_DEVICES,
 * ROCR_VISIBLE_DEVICES) ---- */
static int hip_busid(int i, char *id, size_t len) {
    if (!lib)
        return -1;
    return i < 0 ? busid(dev, id, (int)len) : i >= ndev ? -1 : busid(i, id, (int)len);
}

static int hip_p2p(const char *from, const char *to) {
    int a, b, can = 0, atom = 0;
    if (!lib || hip.device_by_busid(&a, from) != hipSuccess || hip.device_by_busid(&b, to) != hipSuccess)
        return -1;
    if (a == b)
        return GTL_P2P_ACCESS | GTL_P2P_ATOMICS;
    if (hip.can_access_peer(&can, a, b) != hipSuccess || !can)
        return 0;
    if (hip.p2p_attr(&atom, hipDevP2PAttrNativeAtomicSupported, a, b) != hipSuccess)
        atom = 0;
    return GTL_P2P_ACCESS | (atom ? GTL_P2P_ATOMICS : 0);
}

static int hip_idle(int wait_s) { return lib ? gtls_idle(&gs, wait_s) : -1; }

/* the HIP runtime does not say how the GPU is shared between processes, nor what share each has */
static int hip_share(struct gtl_share *sh) {
    *sh = (struct gtl_share){-1, 0, 0};
    return 0;
}

const struct gtl_backend shmemi_gtl_hip = {
    .name = "hip",
    .net_iface = 2, /* FI_HMEM_ROCR */
    .init = hip_init,
    .fini = hip_fini_e,
    .alloc = hip_alloc_e,
    .free = hip_free_e,
    .query = hip_query_e,
    .ipc_export = hip_ipc_export_e,
    .ipc_import = hip_ipc_import_e,
    .ipc_close = hip_ipc_close_e,
    .ipc_done = hip_ipc_done,
    .copy = hip_copy_e,
    .copy_start = hip_copy_start_e,
    .copy_end = hip_copy_end_e,
    .memset = hip_memset_e,
    .amo = hip_amo_e,
    .copy2d = hip_copy2d_e,
    .reduce = hip_reduce_e,
    .net_addr = hip_net_addr,
    .host_register = hip_host_register_e,
    .host_unregister = hip_host_unregister_e,
    .host_alloc = hip_host_alloc_sz_e,
    .host_free = hip_host_free_e,
    .coherent = hip_coherent,
    .busid = hip_busid,
    .p2p = hip_p2p,
    .share = hip_share,
    .idle = hip_idle,
};
