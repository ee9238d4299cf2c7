/* fakegpu.c - the machinery of the stand-in GPU drivers (see fakegpu.h): strict where the real drivers are, and
 * stricter where that finds bugs sooner. Device memory is shared memory mapped twice: PROT_NONE where the
 * application sees it (a host load or store faults, as on a discrete GPU) and readable through a hidden alias the
 * fake's copies and kernels use. Work queued on a stream runs only when it is synchronized. Kernels are C versions
 * of src/gpu/cuda/kernels.cu's, with the parameter layout the compilers give them. */
#define _GNU_SOURCE
#include "fakegpu.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

pthread_mutex_t fg_mu = PTHREAD_MUTEX_INITIALIZER;
int fg_sticky;
int fg_host_visible;
int (*fg_atomic_rule)(const struct fg_range *r, const void *owner);
static const void *running; /* the owner (context, device) of the stream whose work is running */
int fg_dev;
int fg_p2p;
static int running_dev; /* the device whose queued work runs now (a kernel's) */

void fg_p2p_setup(const char *env_name) {
    const char *v = getenv(env_name);
    fg_p2p = !v || !*v || !strcmp(v, "1") ? FG_P2P_ALL : !strcmp(v, "noatomics") ? FG_P2P_NO_ATOMICS : FG_P2P_NONE;
    if (v && *v && strcmp(v, "1") && strcmp(v, "0") && strcmp(v, "noatomics"))
        fprintf(stderr, "fakegpu: %s=%s: not 1, 0 or noatomics; taken as 0 (no peer access)\n", env_name, v);
}
int fg_p2p_access(int a, int b) { return a == b || fg_p2p != FG_P2P_NONE; }
int fg_p2p_atomics(int a, int b) { return a == b || fg_p2p == FG_P2P_ALL; }

/* ---- memory ---- */
#define MAX_RANGES 1024
static struct fg_range ranges[MAX_RANGES];
static int nranges;

struct fg_range *fg_find(const void *p) {
    for (int i = 0; i < nranges; i++)
        if ((uintptr_t)p - (uintptr_t)ranges[i].addr < ranges[i].len)
            return &ranges[i];
    return NULL;
}

static struct fg_range *add(char *addr, char *alias, size_t len, int kind, int fd) {
    if (nranges == MAX_RANGES)
        return NULL;
    ranges[nranges] = (struct fg_range){addr, alias, len, kind, fd, fg_dev, 0};
    return &ranges[nranges++];
}

static void drop(struct fg_range *r) { *r = ranges[--nranges]; }

char *fg_xlate(const void *p, size_t n, int kernel) {
    struct fg_range *r = fg_find(p);
    if (!r)
        return kernel ? NULL : (char *)(uintptr_t)p;
    if (n > r->len - (size_t)((const char *)p - r->addr))
        return NULL;
    return r->alias + ((const char *)p - r->addr);
}

/* device pointers 2 MiB-aligned, as cuMemAlloc gives large allocations */
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
    /* host-visible (FAKECUDA_HOST_VISIBLE=1 and the like): the device address maps the same pages, for test programs
     * that read their symmetric objects directly (tests/common/devheap.h), and for coherent APUs; the library itself
     * is held to the strict mode by every other test */
    if (fg_host_visible && mmap(d, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) != d) {
        munmap(a, len);
        munmap(d, len);
        return -1;
    }
    *dev = d;
    *alias = a;
    return 0;
}

int fg_mem_alloc(size_t size, void **p) {
    if (!size)
        return FG_INVALID_VALUE;
    size_t len = (size + 4095) & ~(size_t)4095;
    int fd = memfd_create("fakegpu", MFD_CLOEXEC);
    char *dev, *alias;
    if (fd < 0 || ftruncate(fd, (off_t)len) || map_views(fd, len, &dev, &alias)) {
        if (fd >= 0)
            close(fd);
        return FG_OUT_OF_MEMORY;
    }
    if (!add(dev, alias, len, FG_DEVICE, fd)) {
        munmap(dev, len);
        munmap(alias, len);
        close(fd);
        return FG_OUT_OF_MEMORY;
    }
    *p = dev;
    return FG_OK;
}

static void unmap(struct fg_range *r) {
    munmap(r->addr, r->len);
    munmap(r->alias, r->len);
    if (r->fd >= 0)
        close(r->fd);
    drop(r);
}

int fg_mem_free(void *p) {
    struct fg_range *r = fg_find(p);
    if (!r || r->kind != FG_DEVICE || r->addr != (char *)p)
        return FG_INVALID_VALUE;
    unmap(r);
    return FG_OK;
}

static int overlaps_host(const char *p, size_t n) {
    for (int i = 0; i < nranges; i++)
        if ((ranges[i].kind == FG_HOSTALLOC || ranges[i].kind == FG_REGISTERED) && p < ranges[i].addr + ranges[i].len &&
            ranges[i].addr < p + n)
            return 1;
    return 0;
}

int fg_host_alloc(size_t size, void **pp) {
    size_t len = (size + 4095) & ~(size_t)4095;
    char *p = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    if (p == MAP_FAILED)
        return FG_OUT_OF_MEMORY;
    if (!add(p, p, len, FG_HOSTALLOC, -1)) {
        munmap(p, len);
        return FG_OUT_OF_MEMORY;
    }
    *pp = p;
    return FG_OK;
}

int fg_host_free(void *p) {
    struct fg_range *r = fg_find(p);
    if (!r || r->kind != FG_HOSTALLOC || r->addr != p)
        return FG_INVALID_VALUE;
    munmap(r->addr, r->len);
    drop(r);
    return FG_OK;
}

/* every page of [p, p+n) is mapped: mincore fails (ENOMEM) on a range with a hole; asked 256 MiB at a time, since
 * the library pins whole heaps (SHMEM_GPU_PIN_HOST) and a call per page costs seconds of system time there */
static int mapped(const void *p, size_t n) {
    static unsigned char vec[65536];
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, end = (uintptr_t)p + n;
    while (a < end) {
        size_t len = end - a < sizeof vec * 4096 ? end - a : sizeof vec * 4096;
        if (mincore((void *)a, len, vec))
            return 0;
        a += len;
    }
    return 1;
}

int fg_host_register(void *p, size_t size) {
    if (overlaps_host(p, size))
        return FG_ALREADY_REGISTERED;
    if (!p || !size || fg_find(p) || !mapped(p, size))
        return FG_INVALID_VALUE;
    if (!add(p, p, size, FG_REGISTERED, -1))
        return FG_OUT_OF_MEMORY;
    return FG_OK;
}

int fg_host_unregister(void *p) {
    struct fg_range *r = fg_find(p);
    if (!r || r->kind != FG_REGISTERED || r->addr != p)
        return FG_NOT_REGISTERED;
    int rc = mapped(r->addr, r->len) ? FG_OK : FG_INVALID_VALUE; /* unmapped before it was unregistered */
    drop(r);
    return rc;
}

/* the handle names the exporting process's memfd, which another process opens through /proc */
struct ipc {
    char magic[8];
    int pid, fd;
    size_t len;
    int dev; /* the exporter's record of the memory (struct fg_range) */
    unsigned attr;
};
_Static_assert(sizeof(struct ipc) <= 32, "fakeze carries 32 bytes of fakegpu's handle");

int fg_ipc_get(void *p, unsigned char h[64], const char *magic) {
    struct fg_range *r = fg_find(p);
    if (!r || r->kind != FG_DEVICE)
        return FG_INVALID_VALUE;
    struct ipc m = {{0}, (int)getpid(), r->fd, r->len, r->dev, r->attr};
    memcpy(m.magic, magic, sizeof m.magic);
    memset(h, 0, 64);
    memcpy(h, &m, sizeof m);
    return FG_OK;
}

int fg_ipc_open(const unsigned char h[64], const char *magic, void **p) {
    struct ipc m;
    memcpy(&m, h, sizeof m);
    if (memcmp(m.magic, magic, sizeof m.magic))
        return FG_INVALID_VALUE;
    if (m.pid == (int)getpid())
        return FG_INVALID_CONTEXT; /* a process cannot open its own handles */
    if (!fg_p2p_access(fg_dev, m.dev))
        return FG_PEER_ACCESS_UNSUPPORTED; /* (as cuIpcOpenMemHandle says: "peer access is not supported between
                                            * these two devices") */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", m.pid, m.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    char *dev, *alias;
    if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size != m.len || map_views(fd, m.len, &dev, &alias)) {
        if (fd >= 0)
            close(fd);
        return FG_INVALID_HANDLE;
    }
    close(fd);
    struct fg_range *r = add(dev, alias, m.len, FG_IMPORTED, -1);
    if (!r) {
        munmap(dev, m.len);
        munmap(alias, m.len);
        return FG_OUT_OF_MEMORY;
    }
    r->dev = m.dev;
    r->attr = m.attr;
    *p = dev;
    return FG_OK;
}

int fg_ipc_close(void *p) {
    struct fg_range *r = fg_find(p);
    if (!r || r->kind != FG_IMPORTED || r->addr != (char *)p)
        return FG_INVALID_VALUE;
    unmap(r);
    return FG_OK;
}

/* ---- streams, events, queued work ---- */
struct kern;
enum { Q_COPY, Q_SET, Q_COPY2D, Q_KERNEL, Q_EVENT };
struct op {
    int kind;
    void *dst;
    const void *src;
    size_t n, dpitch, spitch, height;
    int byte;
    const struct kern *k;
    unsigned char params[4096];
    int dev; /* the device that queued it */
    struct event *ev;
    struct op *next;
};
#define STREAM_MAGIC 0x5354524du
struct stream {
    unsigned magic;
    const void *owner; /* its context or device: used while another is current, an invalid handle */
    struct op *head, *tail;
    struct stream *next_all; /* every stream alive, for a device-wide synchronization */
};
static struct stream *all_streams;
#define EVENT_MAGIC 0x45564e54u
struct event {
    unsigned magic;
    int pending; /* recorded, not yet reached */
    int queried; /* queried once while pending: the next query lets the stream get there */
    struct stream *s;
};

struct kern {
    const char *name;
    int nparams;
    size_t size[5];
    int (*run)(const struct kern *k, const unsigned char *params, unsigned grid, unsigned block);
};

static void run_op(struct op *o) {
    switch (o->kind) {
    case Q_COPY: {
        char *d = fg_xlate(o->dst, o->n, 0);
        const char *s = fg_xlate(o->src, o->n, 0);
        if (!d || !s)
            fg_sticky = FG_ILLEGAL_ADDRESS;
        else
            memmove(d, s, o->n);
        break;
    }
    case Q_SET: {
        char *d = fg_xlate(o->dst, o->n, 0);
        if (!d)
            fg_sticky = FG_ILLEGAL_ADDRESS;
        else
            memset(d, o->byte, o->n);
        break;
    }
    case Q_COPY2D: {
        char *d = fg_xlate(o->dst, (o->height - 1) * o->dpitch + o->n, 0);
        const char *s = fg_xlate(o->src, (o->height - 1) * o->spitch + o->n, 0);
        if (!d || !s) {
            fg_sticky = FG_ILLEGAL_ADDRESS;
            break;
        }
        for (size_t r = 0; r < o->height; r++)
            memmove(d + r * o->dpitch, s + r * o->spitch, o->n);
        break;
    }
    case Q_KERNEL: {
        running_dev = o->dev;
        int rc = o->k->run(o->k, o->params, (unsigned)o->n, (unsigned)o->dpitch);
        if (rc)
            fg_sticky = rc;
        break;
    }
    case Q_EVENT: o->ev->pending = 0; break;
    }
}

/* runs the stream's queue up to and including `until` (all of it when NULL) */
static void drain(struct stream *s, struct op *until) {
    while (s->head) {
        struct op *o = s->head;
        s->head = o->next;
        if (!s->head)
            s->tail = NULL;
        running = s->owner;
        run_op(o);
        int last = o == until;
        free(o);
        if (last)
            break;
    }
}

static int enqueue(void *stream, const void *owner, struct op *o) {
    struct stream *s = stream;
    if (!s || s->magic != STREAM_MAGIC || s->owner != owner) {
        free(o);
        return FG_INVALID_HANDLE; /* the library never uses the legacy default stream */
    }
    o->next = NULL;
    if (s->tail)
        s->tail->next = o;
    else
        s->head = o;
    s->tail = o;
    return FG_OK;
}

static struct op *new_op(int kind) {
    struct op *o = calloc(1, sizeof *o);
    if (o)
        o->kind = kind;
    return o;
}

int fg_stream_create(const void *owner, void **s) {
    struct stream *st = calloc(1, sizeof *st);
    if (!st)
        return FG_OUT_OF_MEMORY;
    st->magic = STREAM_MAGIC;
    st->owner = owner;
    st->next_all = all_streams;
    all_streams = st;
    *s = st;
    return FG_OK;
}

int fg_stream_destroy(void *stream) {
    struct stream *s = stream;
    if (!s || s->magic != STREAM_MAGIC)
        return FG_INVALID_HANDLE;
    drain(s, NULL); /* queued work still completes */
    for (struct stream **pp = &all_streams; *pp; pp = &(*pp)->next_all)
        if (*pp == s) {
            *pp = s->next_all;
            break;
        }
    s->magic = 0;
    free(s);
    return FG_OK;
}

int fg_stream_sync(void *stream, const void *owner) {
    struct stream *s = stream;
    if (!s || s->magic != STREAM_MAGIC || s->owner != owner)
        return FG_INVALID_HANDLE;
    drain(s, NULL);
    return fg_sticky;
}

/* A test's stand-in for a kernel of the application's: it "runs" from fakegpu_app_kernel(1) to fakegpu_app_kernel(0),
 * the program playing it meanwhile (writing the request ring, as proxy_nosm does); a device-wide synchronization waits
 * for it, as the drivers' wait for a running kernel. */
static int app_kernels;
static pthread_cond_t app_cv = PTHREAD_COND_INITIALIZER;
__attribute__((visibility("default"))) void fakegpu_app_kernel(int on) {
    pthread_mutex_lock(&fg_mu);
    app_kernels += on ? 1 : -1;
    pthread_cond_broadcast(&app_cv);
    pthread_mutex_unlock(&fg_mu);
}

int fg_device_sync(const void *owner) {
    for (struct stream *s = all_streams; s; s = s->next_all)
        if (s->owner == owner)
            drain(s, NULL);
    while (app_kernels) /* (fg_mu is let go meanwhile: other threads' calls go on, as they do while a GPU works) */
        pthread_cond_wait(&app_cv, &fg_mu);
    return fg_sticky;
}

int fg_event_create(void **ev) {
    struct event *e = calloc(1, sizeof *e);
    if (!e)
        return FG_OUT_OF_MEMORY;
    e->magic = EVENT_MAGIC;
    *ev = e;
    return FG_OK;
}

int fg_event_destroy(void *ev) {
    struct event *e = ev;
    if (!e || e->magic != EVENT_MAGIC)
        return FG_INVALID_HANDLE;
    if (e->pending) /* the stream still refers to it: let it get there first */
        drain(e->s, NULL);
    e->magic = 0;
    free(e);
    return FG_OK;
}

int fg_event_record(void *ev, void *stream, const void *owner) {
    struct event *e = ev;
    if (!e || e->magic != EVENT_MAGIC)
        return FG_INVALID_HANDLE;
    if (e->pending) /* re-recorded before reached: the earlier record is overtaken */
        drain(e->s, NULL);
    struct op *o = new_op(Q_EVENT);
    if (!o)
        return FG_OUT_OF_MEMORY;
    o->ev = e;
    int r = enqueue(stream, owner, o);
    if (!r) {
        e->pending = 1;
        e->queried = 0;
        e->s = stream;
    }
    return r;
}

static struct op *event_op(struct event *e) {
    for (struct op *o = e->s->head; o; o = o->next)
        if (o->kind == Q_EVENT && o->ev == e)
            return o;
    return NULL;
}

int fg_event_query(void *ev) {
    struct event *e = ev;
    if (!e || e->magic != EVENT_MAGIC)
        return FG_INVALID_HANDLE;
    if (e->pending && !e->queried) {
        e->queried = 1;
        return FG_NOT_READY;
    }
    if (e->pending)
        drain(e->s, event_op(e));
    return fg_sticky;
}

int fg_event_sync(void *ev) {
    struct event *e = ev;
    if (!e || e->magic != EVENT_MAGIC)
        return FG_INVALID_HANDLE;
    if (e->pending)
        drain(e->s, event_op(e));
    return fg_sticky;
}

int fg_copy_async(void *dst, const void *src, size_t n, void *s, const void *owner) {
    struct op *o = new_op(Q_COPY);
    if (!o)
        return FG_OUT_OF_MEMORY;
    o->dst = dst;
    o->src = src;
    o->n = n;
    return enqueue(s, owner, o);
}

int fg_copy2d_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, void *s,
                    const void *owner) {
    if (spitch < width || dpitch < width || !height)
        return FG_INVALID_VALUE;
    struct op *o = new_op(Q_COPY2D);
    if (!o)
        return FG_OUT_OF_MEMORY;
    o->dst = dst;
    o->src = src;
    o->n = width;
    o->height = height;
    o->dpitch = dpitch;
    o->spitch = spitch;
    return enqueue(s, owner, o);
}

int fg_memset_async(void *dst, int byte, size_t n, void *s, const void *owner) {
    struct fg_range *r = fg_find(dst);
    if (!r || (r->kind != FG_DEVICE && r->kind != FG_IMPORTED))
        return FG_INVALID_VALUE;
    struct op *o = new_op(Q_SET);
    if (!o)
        return FG_OUT_OF_MEMORY;
    o->dst = dst;
    o->n = n;
    o->byte = byte;
    return enqueue(s, owner, o);
}

/* ---- kernels: kernels.cu's, in C ---- */
static int k_amo(const struct kern *k, const unsigned char *p, unsigned grid, unsigned block) {
    int wide = k->size[2] == 8;
    void *ptr, *outp;
    int op;
    uint64_t v = 0, c = 0;
    memcpy(&ptr, p, 8);
    memcpy(&op, p + 8, 4);
    if (wide) {
        memcpy(&v, p + 16, 8);
        memcpy(&c, p + 24, 8);
        memcpy(&outp, p + 32, 8);
    } else {
        uint32_t v32, c32;
        memcpy(&v32, p + 12, 4);
        memcpy(&c32, p + 16, 4);
        v = v32;
        c = c32;
        memcpy(&outp, p + 24, 8);
    }
    if (grid != 1 || block != 1)
        return FG_INVALID_VALUE; /* one thread does the atomic: more would apply it several times */
    size_t sz = wide ? 8 : 4;
    char *a = fg_xlate(ptr, sz, 1);
    unsigned long long *out = (unsigned long long *)fg_xlate(outp, 8, 1);
    if (!a || !out || ((uintptr_t)ptr & (sz - 1)))
        return FG_ILLEGAL_ADDRESS;
    struct fg_range *r = fg_find(ptr);
    if (r && !fg_p2p_atomics(running_dev, r->dev)) {
        fprintf(stderr,
                "fakegpu: an atomic kernel of device %d on memory of device %d (%p), whose link has no native "
                "atomics: a real GPU would not do it atomically; the fake stops it\n",
                running_dev, r->dev, ptr);
        return FG_ILLEGAL_ADDRESS;
    }
    int rc = fg_atomic_rule ? fg_atomic_rule(fg_find(ptr), running) : FG_OK;
    if (rc)
        return rc;
    uint64_t old = 0;
#define AMO(T)                                                                                                         \
    do {                                                                                                               \
        T *w = (T *)(void *)a, tv = (T)v, tc = (T)c;                                                                   \
        switch (op) {                                                                                                  \
        case 0: old = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;                                                     \
        case 1: __atomic_store_n(w, tv, __ATOMIC_SEQ_CST); break;                                                      \
        case 2: old = __atomic_exchange_n(w, tv, __ATOMIC_SEQ_CST); break;                                             \
        case 3:                                                                                                        \
            __atomic_compare_exchange_n(w, &tc, tv, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                            \
            old = tc;                                                                                                  \
            break;                                                                                                     \
        case 4: old = __atomic_fetch_add(w, tv, __ATOMIC_SEQ_CST); break;                                              \
        case 5: old = __atomic_fetch_and(w, tv, __ATOMIC_SEQ_CST); break;                                              \
        case 6: old = __atomic_fetch_or(w, tv, __ATOMIC_SEQ_CST); break;                                               \
        case 7: old = __atomic_fetch_xor(w, tv, __ATOMIC_SEQ_CST); break;                                              \
        default: return FG_INVALID_VALUE;                                                                              \
        }                                                                                                              \
    } while (0)
    if (wide)
        AMO(uint64_t);
    else
        AMO(uint32_t);
    *out = old; /* the kernel writes all 8 bytes (do_amo returns the word's type, widened) */
    return FG_OK;
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

/* the reduction kernel's name says op and type: gshmemi_red_<op>_<type> */
static int k_red(const struct kern *k, const unsigned char *p, unsigned grid, unsigned block) {
    (void)grid;
    (void)block;
    int op = -1, t = -1;
    const char *rest = k->name + strlen("gshmemi_red_");
    for (int i = 0; i < 7; i++)
        if (!strncmp(rest, onames[i], strlen(onames[i])) && rest[strlen(onames[i])] == '_')
            op = i;
    if (op < 0)
        return FG_INVALID_VALUE;
    rest += strlen(onames[op]) + 1;
    for (int i = 0; i < 12; i++)
        if (!strcmp(rest, tnames[i]))
            t = i;
    if (t < 0)
        return FG_INVALID_VALUE;
    void *ap, *bp;
    unsigned long long n;
    memcpy(&ap, p, 8);
    memcpy(&bp, p + 8, 8);
    memcpy(&n, p + 16, 8);
    char *A = fg_xlate(ap, n * tsizes[t], 1);
    const char *B = fg_xlate(bp, n * tsizes[t], 1);
    if (!A || !B)
        return FG_ILLEGAL_ADDRESS;
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
    return FG_OK;
}

/* small copies (SHMEM_GPU_COPY_CUTOVER): put_inline*(dst, n, struct of bytes), copy_sm(dst, src, n) */
static int k_put_inline(const struct kern *k, const unsigned char *p, unsigned grid, unsigned block) {
    (void)block;
    void *dp;
    unsigned long long n;
    memcpy(&dp, p, 8);
    memcpy(&n, p + 8, 8);
    if (grid != 1 || n > k->size[2])
        return FG_INVALID_VALUE; /* one block; the data is no longer than the launch carries */
    char *d = fg_xlate(dp, n, 1);
    if (!d)
        return FG_ILLEGAL_ADDRESS;
    memcpy(d, p + 16, n);
    return FG_OK;
}

static int k_copy_sm(const struct kern *k, const unsigned char *p, unsigned grid, unsigned block) {
    (void)k, (void)grid, (void)block;
    void *dp, *sp;
    unsigned long long n;
    memcpy(&dp, p, 8);
    memcpy(&sp, p + 8, 8);
    memcpy(&n, p + 16, 8);
    char *d = fg_xlate(dp, n, 1);
    const char *s = fg_xlate(sp, n, 1);
    if (!d || !s)
        return FG_ILLEGAL_ADDRESS;
    memmove(d, s, n);
    return FG_OK;
}

/* each kernel's parameters, in order: size and alignment (the driver copies each at launch, as laid out in the PTX) */
static const struct {
    const char *name; /* a prefix when it ends in '_' */
    int (*run)(const struct kern *, const unsigned char *, unsigned, unsigned);
    int nparams;
    size_t size[5], align[5];
} protos[] = {
    {"gshmemi_amo32", k_amo, 5, {8, 4, 4, 4, 8}, {8, 4, 4, 4, 8}},
    {"gshmemi_amo64", k_amo, 5, {8, 4, 8, 8, 8}, {8, 4, 8, 8, 8}},
    {"gshmemi_red_", k_red, 3, {8, 8, 8}, {8, 8, 8}},
    {"gshmemi_put_inline64", k_put_inline, 3, {8, 8, 64}, {8, 8, 8}},
    {"gshmemi_put_inline4k", k_put_inline, 3, {8, 8, 3968}, {8, 8, 8}},
    {"gshmemi_copy_sm", k_copy_sm, 3, {8, 8, 8}, {8, 8, 8}},
};

struct func {
    struct kern k;
    size_t align[5];
    char name[64];
};
#define MAX_FUNCS 256
static struct func funcs[MAX_FUNCS];
static int nfuncs;

int fg_function(const char *name, void **fn) {
    for (int i = 0; i < nfuncs; i++)
        if (!strcmp(funcs[i].name, name)) {
            *fn = &funcs[i];
            return FG_OK;
        }
    if (nfuncs == MAX_FUNCS)
        return FG_OUT_OF_MEMORY;
    struct func *f = &funcs[nfuncs];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    size_t k = 0, np = sizeof protos / sizeof protos[0];
    for (; k < np; k++) {
        size_t len = strlen(protos[k].name);
        if (protos[k].name[len - 1] == '_' ? !strncmp(name, protos[k].name, len) : !strcmp(name, protos[k].name))
            break;
    }
    if (k == np)
        return FG_NOT_FOUND; /* in the image, but the fake has no C version of it */
    f->k = (struct kern){f->name, protos[k].nparams, {0}, protos[k].run};
    memcpy(f->k.size, protos[k].size, sizeof f->k.size);
    memcpy(f->align, protos[k].align, sizeof f->align);
    nfuncs++;
    *fn = f;
    return FG_OK;
}

/* A test's stand-in for a kernel that holds every SM (and waits): while it is on, no other kernel can start. A GPU
 * would queue the launch and never run it; the fake refuses it, saying why, so the test fails instead of hanging.
 * (Copies, memsets and events need no SM: they go on.) */
static int sms_held;
__attribute__((visibility("default"))) void fakegpu_hold_sms(int on) {
    pthread_mutex_lock(&fg_mu);
    sms_held = on;
    pthread_mutex_unlock(&fg_mu);
}

int fg_launch(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
              void *stream, const void *owner, void **params, void **extra) {
    struct func *f = fn;
    if (sms_held) {
        fprintf(stderr, "fake GPU: kernel %s launched while a kernel holds every SM: on a GPU it would never start\n",
                f && f >= funcs && f < funcs + nfuncs ? f->name : "?");
        return FG_LAUNCH_FAILED;
    }
    if (!f || f < funcs || f >= funcs + nfuncs || !params || extra || shmem)
        return FG_INVALID_VALUE;
    if (!gx || !gy || !gz || !bx || !by || !bz || gy != 1 || gz != 1 || by != 1 || bz != 1 || bx > 1024 ||
        gx > 0x7fffffffu)
        return FG_INVALID_VALUE;
    struct op *o = new_op(Q_KERNEL);
    if (!o)
        return FG_OUT_OF_MEMORY;
    o->k = &f->k;
    o->n = gx;
    o->dpitch = bx;
    o->dev = fg_dev;
    size_t off = 0; /* the arguments' values are taken now, as the drivers do */
    for (int i = 0; i < f->k.nparams; i++) {
        size_t sz = f->k.size[i];
        off = (off + f->align[i] - 1) & ~(f->align[i] - 1);
        if (!params[i] || off + sz > sizeof o->params) {
            free(o);
            return FG_INVALID_VALUE;
        }
        memcpy(o->params + off, params[i], sz);
        off += sz;
    }
    return enqueue(stream, owner, o);
}
