/* gtl_emu.c - SHMEM_GPU=emulate: a stand-in GPU for testing the device paths on machines without one. "Device
 * memory" is shared memory whose addresses the CPU may not touch (mapped PROT_NONE, as a real device pointer faults
 * on the CPU), so a library path that loads or stores device memory directly crashes here as it would on a GPU; the
 * backend's copies and atomics reach the bytes through a second, hidden mapping. IPC is the shared-memory name.
 * SHMEM_GPU=emulate-visible maps the device addresses readable and writable too, so that unchanged host test programs
 * (tests/common/devheap.h) can check their own symmetric objects after moving them into the device heap. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gtl.h"
#include "state.h"

#define MAX_RANGES 1024
static struct emu_range {
    char *dev;   /* the address users and the library see; PROT_NONE */
    char *alias; /* the same pages, readable and writable: only this file uses it */
    size_t len;
    int own;
    int gpu;       /* the emulated GPU it is memory of (SHMEM_TEST_GPU_P2P) */
    char name[96]; /* own ranges until every peer has imported them */
} ranges[MAX_RANGES];
/* SHMEM_TEST_GPU_P2P: one emulated GPU per PE of the node (this PE's is my_gpu, of ngpus), and what links them */
enum { LINKS_SHARED, LINKS_ALL, LINKS_NOATOMICS, LINKS_NONE };
static int links, my_gpu, ngpus = 1;
static int nranges, seq;
static int host_visible; /* SHMEM_GPU=emulate-visible, or a program whose kernels run on the CPU (src/device/emu) */
static int coherent;     /* SHMEM_GPU=emulate-coherent: an APU, whose GPU memory the CPU reaches like host memory */
int shmemi_gtl_emu_kernels;
/* (abi.h: the emulated kernels' system-scope atomics ask first while this is set) */
__attribute__((visibility("default"))) int gshmem_emu_atomics_checked;
static int emu_lock;

static void lock(void) { shmemi_spin_lock(&emu_lock); }
static void unlock(void) { shmemi_spin_unlock(&emu_lock); }

static struct emu_range *find(const void *p) {
    for (int i = 0; i < nranges; i++)
        if ((uintptr_t)p - (uintptr_t)ranges[i].dev < ranges[i].len)
            return &ranges[i];
    return NULL;
}

/* Host pointers pass through; device pointers become their alias. NULL if [p, p+n) leaves its range. */
static char *xlate(const void *p, size_t n) {
    lock();
    struct emu_range *r = find(p);
    char *a = NULL;
    if (!r)
        a = (char *)(uintptr_t)p;
    else if (n <= r->len - (size_t)((const char *)p - r->dev))
        a = r->alias + ((const char *)p - r->dev);
    unlock();
    return a;
}

static int emu_init(int local_rank, int nlocal, char *desc, size_t desclen, char *why, size_t whylen) {
    const char *l = shmemi_env.test_gpu_p2p;
    links = !*l                       ? LINKS_SHARED
            : !strcmp(l, "all")       ? LINKS_ALL
            : !strcmp(l, "noatomics") ? LINKS_NOATOMICS
            : !strcmp(l, "none")      ? LINKS_NONE
                                      : -1;
    if (links < 0) {
        snprintf(why, whylen, "SHMEM_TEST_GPU_P2P=%s: not one of all, noatomics, none (or empty)", l);
        return -1;
    }
    my_gpu = links == LINKS_SHARED ? 0 : local_rank;
    ngpus = links == LINKS_SHARED ? 1 : nlocal;
    gshmem_emu_atomics_checked = links == LINKS_NOATOMICS;
    coherent = !strcmp(shmemi_env.gpu, "emulate-coherent");
    host_visible = !strcmp(shmemi_env.gpu, "emulate-visible") || shmemi_gtl_emu_kernels || coherent;
    snprintf(desc, desclen, "emulated GPU in host shared memory (testing only%s), shared by %d PE%s of this node",
             shmemi_gtl_emu_kernels ? "; kernels run on the CPU"
             : coherent             ? "; an APU: the CPU reaches it coherently"
             : host_visible         ? "; the CPU may touch it"
                                    : "",
             nlocal, nlocal == 1 ? "" : "s");
    return 0;
}

static int emu_coherent(void) { return coherent; }

/* whether this PE's emulated GPU may update memory of GPU g atomically (as the real link would) */
static int atomics_to(int g) { return g == my_gpu || links == LINKS_SHARED || links == LINKS_ALL; }

static int emu_busid(int i, char *id, size_t len) {
    if (i >= ngpus)
        return -1;
    snprintf(id, len, "0000:%02x:00.0", 0xe0 + (i < 0 ? my_gpu : i) % 32);
    return 0;
}

static int emu_p2p(const char *from, const char *to) {
    unsigned a = 0, b = 0;
    if (sscanf(from, "0000:%x:00.0", &a) != 1 || sscanf(to, "0000:%x:00.0", &b) != 1 || a < 0xe0 || b < 0xe0 ||
        (int)(a - 0xe0) >= ngpus || (int)(b - 0xe0) >= ngpus)
        return -1;
    if (a == b || links == LINKS_ALL || links == LINKS_SHARED)
        return GTL_P2P_ACCESS | GTL_P2P_ATOMICS;
    return links == LINKS_NOATOMICS ? GTL_P2P_ACCESS : 0;
}

static int emu_share(struct gtl_share *sh) {
    *sh = (struct gtl_share){-1, 0, 0}; /* PEs' kernels run as CPU threads at once: no GPU's sharing to tell */
    return 0;
}

/* the emulated GPU's streams and kernels are the device library's (src/device/emu), which waits for them itself */
static int emu_idle(int wait_s) {
    (void)wait_s;
    return -1;
}

int shmemi_gtl_emu_native_amo(const void *p) {
    lock();
    struct emu_range *r = find(p);
    int ok = !r || atomics_to(r->gpu);
    unlock();
    return ok;
}

/* Host ranges registered (host_register): the emulated GPU needs no pinning, but it checks what a real driver
 * requires: page-aligned ranges, each unregistered once, while still mapped, and none left at finalize. */
#define MAX_PINNED 256
static struct {
    void *p;
    size_t len;
} pinned[MAX_PINNED];
static int npinned;

static void emu_fini(void) {
    gshmem_emu_atomics_checked = 0;
    if (npinned)
        shmemi_fatal("shmem_finalize (emulated GPU)",
                     "%d host range(s) registered with the GPU are still registered at finalize (the first at %p, "
                     "%zu bytes): a library bug",
                     npinned, pinned[0].p, pinned[0].len);
}

static int emu_host_register(void *p, size_t size) {
    unsigned char v;
    if (((uintptr_t)p | size) & (shmemi_rt.page - 1) || !size || mincore(p, shmemi_rt.page, &v))
        return -1;
    lock();
    if (npinned == MAX_PINNED) { /* (under the lock: two threads could both find the last entry free) */
        unlock();
        return -1;
    }
    for (int i = 0; i < npinned; i++)
        if ((char *)p < (char *)pinned[i].p + pinned[i].len && (char *)pinned[i].p < (char *)p + size) {
            unlock();
            return -1; /* overlaps a registered range: CUDA refuses that too */
        }
    pinned[npinned].p = p;
    pinned[npinned++].len = size;
    unlock();
    return 0;
}

static int emu_host_unregister(void *p) {
    unsigned char v;
    int found = -1;
    lock();
    for (int i = 0; i < npinned && found < 0; i++)
        if (pinned[i].p == p)
            found = i;
    if (found >= 0)
        pinned[found] = pinned[--npinned];
    unlock();
    if (found < 0 || mincore(p, shmemi_rt.page, &v)) /* not registered, or unmapped before it was unregistered */
        return -1;
    return 0;
}

/* Both views of the object behind fd: an aligned PROT_NONE reservation for the device address, and the alias. */
static int map_views(int fd, size_t len, struct emu_range *r) {
    size_t align = 2u << 20;
    char *res = mmap(NULL, len + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED)
        return -1;
    char *dev = (char *)(((uintptr_t)res + align - 1) & ~(uintptr_t)(align - 1));
    if (dev > res)
        munmap(res, (size_t)(dev - res));
    munmap(dev + len, (size_t)(res + len + align - (dev + len)));
    char *alias = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (alias == MAP_FAILED) {
        munmap(dev, len);
        return -1;
    }
    /* SHMEM_GPU=emulate-visible: the device address maps the same pages, for the CPU of test programs */
    if (host_visible && mmap(dev, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) != dev) {
        munmap(alias, len);
        munmap(dev, len);
        return -1;
    }
    r->dev = dev;
    r->alias = alias;
    r->len = len;
    return 0;
}

static struct emu_range *add_range(void) {
    lock();
    struct emu_range *r = nranges < MAX_RANGES ? &ranges[nranges++] : NULL;
    if (r)
        memset(r, 0, sizeof *r);
    unlock();
    return r;
}

static void drop_range(struct emu_range *r) {
    lock();
    *r = ranges[--nranges];
    unlock();
}

static int emu_alloc(size_t size, void **ptr) {
    size_t len = (size + 4095) & ~(size_t)4095;
    struct emu_range *r = add_range();
    if (!r)
        return -1;
    snprintf(r->name, sizeof r->name, "/gshmem-%s-%d-gpuemu%d", shmemi_rt.jobid, shmemi_rt.my_pe, seq++);
    int fd = shm_open(r->name, O_CREAT | O_EXCL | O_RDWR, S_IRUSR | S_IWUSR);
    if (fd < 0 || ftruncate(fd, (off_t)len) || map_views(fd, len, r)) {
        if (fd >= 0) {
            close(fd);
            shm_unlink(r->name);
        }
        drop_range(r);
        return -1;
    }
    close(fd);
    r->own = 1;
    r->gpu = my_gpu;
    *ptr = r->dev;
    return 0;
}

static void unmap_range(const void *p) {
    lock();
    struct emu_range *r = find(p);
    struct emu_range copy = r ? *r : (struct emu_range){0};
    if (r)
        *r = ranges[--nranges];
    unlock();
    if (!copy.dev)
        return;
    if (copy.own && copy.name[0])
        shm_unlink(copy.name);
    munmap(copy.alias, copy.len);
    munmap(copy.dev, copy.len);
}

static void emu_free(void *ptr, size_t size) {
    (void)size;
    unmap_range(ptr);
}

static int emu_query(const void *p, uintptr_t *base, size_t *size) {
    lock();
    struct emu_range *r = find(p);
    if (r) {
        *base = (uintptr_t)r->dev;
        *size = r->len;
    }
    unlock();
    return r ? GTL_MEM_DEVICE : GTL_MEM_HOST;
}

/* cudaMalloc of a program built for the emulation (src/device/emu): device memory its CPU-run kernels and its host
 * code both reach at one address, known to the library as device memory; usable before shmem_init. */
int shmemi_gtl_emu_user_alloc(size_t size, void **ptr) {
    size_t len = (size + 4095) & ~(size_t)4095;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    struct emu_range *r = add_range();
    if (!r) {
        munmap(m, len);
        return -1;
    }
    lock();
    r->dev = r->alias = m;
    r->len = len;
    r->gpu = my_gpu;
    unlock();
    *ptr = m;
    return 0;
}

int shmemi_gtl_emu_user_free(void *ptr) {
    lock();
    struct emu_range *r = find(ptr);
    int ok = r && r->dev == ptr && r->alias == r->dev && !r->own;
    struct emu_range copy = ok ? *r : (struct emu_range){0};
    if (ok)
        *r = ranges[--nranges];
    unlock();
    if (!ok)
        return -1;
    shmemi_gtl_forget(copy.dev);
    munmap(copy.dev, copy.len);
    return 0;
}

static int emu_ipc_export(void *base, size_t size, struct gtl_ipc *h) {
    (void)size;
    lock();
    struct emu_range *r = find(base);
    int ok = r && r->own && r->name[0] && strlen(r->name) < sizeof h->bytes - 1;
    if (ok) { /* the name, then the GPU it is memory of in the last byte */
        memset(h, 0, sizeof *h);
        memcpy(h->bytes, r->name, strlen(r->name));
        h->bytes[sizeof h->bytes - 1] = (unsigned char)r->gpu;
    }
    unlock();
    return ok ? 0 : -1;
}

static int emu_ipc_import(const struct gtl_ipc *h, size_t size, void **ptr) {
    char name[GTL_IPC_SIZE];
    memcpy(name, h->bytes, GTL_IPC_SIZE - 1);
    name[GTL_IPC_SIZE - 1] = '\0';
    int gpu = h->bytes[GTL_IPC_SIZE - 1];
    if (gpu != my_gpu && links == LINKS_NONE)
        return -1; /* no peer access between the two GPUs: the driver cannot map it (CUDA: PEER_ACCESS_UNSUPPORTED) */
    size_t len = (size + 4095) & ~(size_t)4095;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return -1;
    struct emu_range *r = add_range();
    int rc = r ? map_views(fd, len, r) : -1;
    close(fd);
    if (rc) {
        if (r)
            drop_range(r);
        return -1;
    }
    r->gpu = gpu;
    *ptr = r->dev;
    return 0;
}

static void emu_ipc_close(void *ptr, size_t size) {
    (void)size;
    unmap_range(ptr);
}

static void emu_ipc_done(void *base) {
    lock();
    struct emu_range *r = find(base);
    if (r && r->own && r->name[0]) {
        shm_unlink(r->name);
        r->name[0] = '\0';
    }
    unlock();
}

static int emu_copy(void *dst, const void *src, size_t n) {
    char *d = xlate(dst, n);
    const char *s = xlate(src, n);
    if (!d || !s)
        return -1;
    memmove(d, s, n);
    return 0;
}

/* The emulated GPU copies at once: a ticket is only a token (pipelines' ordering is checked by tests/fakecuda,
 * whose copies wait until synchronized). */
static int emu_copy_start(void *dst, const void *src, size_t n, void **ticket) {
    static char done;
    *ticket = &done;
    return emu_copy(dst, src, n);
}

static int emu_copy_end(void *ticket, int wait) {
    (void)ticket;
    (void)wait;
    return 0;
}

static int emu_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height) {
    char *d = xlate(dst, (height - 1) * dpitch + width);
    const char *s = xlate(src, (height - 1) * spitch + width);
    if (!d || !s)
        return -1;
    for (size_t r = 0; r < height; r++)
        memmove(d + r * dpitch, s + r * spitch, width);
    return 0;
}

/* ---- the SMs: a GPU runs a kernel's block only on a free SM, and the library's own kernels are no exception ---- */
static pthread_mutex_t sm_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sm_free = PTHREAD_COND_INITIALIZER;
static int sm_busy;

int shmemi_emu_sm_take(int wait_s) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += wait_s;
    pthread_mutex_lock(&sm_lock);
    while (sm_busy >= (int)shmemi_env.emu_sms)
        if (wait_s < 0)
            pthread_cond_wait(&sm_free, &sm_lock);
        else if (pthread_cond_timedwait(&sm_free, &sm_lock, &until) == ETIMEDOUT &&
                 sm_busy >= (int)shmemi_env.emu_sms) {
            pthread_mutex_unlock(&sm_lock);
            return -1;
        }
    sm_busy++;
    pthread_mutex_unlock(&sm_lock);
    return 0;
}

void shmemi_emu_sm_give(void) {
    pthread_mutex_lock(&sm_lock);
    sm_busy--;
    pthread_cond_signal(&sm_free);
    pthread_mutex_unlock(&sm_lock);
}

/* one of the library's kernels (a block of one thread) on the emulated GPU, when kernels run on it at all */
#define LIB_KERNEL_WAIT_S 10
static void lib_kernel_begin(const char *what) {
    if (shmemi_gtl_emu_kernels && shmemi_emu_sm_take(LIB_KERNEL_WAIT_S))
        shmemi_fatal(what,
                     "(emulated GPU) the library's kernel waited %d s for a free SM: running kernels hold all %d "
                     "(SHMEM_EMU_SMS); on a GPU this hangs, e.g. when a kernel that fills the GPU waits for this "
                     "operation",
                     LIB_KERNEL_WAIT_S, (int)shmemi_env.emu_sms);
}
static void lib_kernel_end(void) {
    if (shmemi_gtl_emu_kernels)
        shmemi_emu_sm_give();
}

/* the emulated GPU's reduction kernel: the host's, on the aliases; long double is refused, as on a GPU */
static int emu_reduce(int op, int dt, void *acc, const void *in, size_t count) {
    if (dt == SHMEMI_DT_LONGDOUBLE)
        return -1;
    if (!count)
        return 0; /* the caller asked whether there is a kernel */
    size_t n = count * shmemi_dtype_size(dt);
    char *a = xlate(acc, n);
    const char *b = xlate(in, n);
    if (!a || !b || a == acc || b == in) /* both must be (emulated) device memory */
        return 1;
    lib_kernel_begin("a reduction on GPU memory");
    shmemi_reduce_apply(op, dt, a, b, count);
    lib_kernel_end();
    return 0;
}

static int emu_memset(void *dst, int byte, size_t n) {
    char *d = xlate(dst, n);
    if (!d)
        return -1;
    memset(d, byte, n);
    return 0;
}

static int emu_amo(void *p, int op, uint64_t value, uint64_t cond, size_t size, uint64_t *old) {
    lock();
    struct emu_range *r = find(p);
    char *a = r && atomics_to(r->gpu) ? r->alias + ((char *)p - r->dev) : NULL;
    unlock();
    if (!a) /* (also: another GPU's memory over a link without native atomics, where it would not be atomic) */
        return -1;
    lib_kernel_begin("an atomic on GPU memory");
    *old = shmemi_amo_cpu(a, op, value, cond, size);
    lib_kernel_end();
    return 0;
}

/* the network writes the emulated GPU's memory through its alias, as a provider with FI_HMEM would the GPU's */
static int emu_net_addr(void *base, void **addr, int *device) {
    char *a = xlate(base, 1);
    if (!a || a == base)
        return -1;
    *addr = a;
    *device = 0;
    return 0;
}

static int emu_host_alloc(size_t size, void **ptr) {
    *ptr = calloc(1, size);
    return *ptr ? 0 : -1;
}

static void emu_host_free(void *ptr) { free(ptr); }

const struct gtl_backend shmemi_gtl_emu = {
    .name = "emulate",
    .net_iface = 0,
    .init = emu_init,
    .fini = emu_fini,
    .alloc = emu_alloc,
    .free = emu_free,
    .query = emu_query,
    .ipc_export = emu_ipc_export,
    .ipc_import = emu_ipc_import,
    .ipc_close = emu_ipc_close,
    .ipc_done = emu_ipc_done,
    .copy = emu_copy,
    .copy_start = emu_copy_start,
    .copy_end = emu_copy_end,
    .memset = emu_memset,
    .amo = emu_amo,
    .copy2d = emu_copy2d,
    .reduce = emu_reduce,
    .net_addr = emu_net_addr,
    .host_register = emu_host_register,
    .host_unregister = emu_host_unregister,
    .host_alloc = emu_host_alloc,
    .host_free = emu_host_free,
    .coherent = emu_coherent,
    .busid = emu_busid,
    .p2p = emu_p2p,
    .share = emu_share,
    .idle = emu_idle,
};
