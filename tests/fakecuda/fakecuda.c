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
 * Kernels are C versions of kernels.cu's, found by name in the PTX image the library loads.
 * It models none of a GPU's speed: nothing measured with it means anything. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

enum {
    OK = 0,
    E_INVALID_VALUE = 1,
    E_OUT_OF_MEMORY = 2,
    E_NOT_INITIALIZED = 3,
    E_INVALID_DEVICE = 101,
    E_INVALID_IMAGE = 200,
    E_INVALID_CONTEXT = 201,
    E_INVALID_HANDLE = 400,
    E_NOT_FOUND = 500,
    E_NOT_READY = 600,
    E_ILLEGAL_ADDRESS = 700,
    E_LAUNCH_OUT_OF_RESOURCES = 701,
    E_ALREADY_REGISTERED = 712,
    E_NOT_REGISTERED = 713,
};

#define API __attribute__((visibility("default")))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int inited;
static int sticky; /* an illegal address in a kernel or copy poisons the context, as on a GPU */
static struct ctx { int refs; } primary, other; /* other: one context made with cuCtxCreate */
static __thread struct ctx *current;

/* ---- memory ---- */
enum { R_DEVICE = 1, R_IMPORTED, R_HOSTALLOC, R_REGISTERED };
#define MAX_RANGES 1024
static struct range {
    char *addr;  /* what the application sees (device: PROT_NONE) */
    char *alias; /* device: the same pages, readable and writable; host: addr */
    size_t len;
    int kind, fd;
} ranges[MAX_RANGES];
static int nranges;

static struct range *find(const void *p) {
    for (int i = 0; i < nranges; i++)
        if ((uintptr_t)p - (uintptr_t)ranges[i].addr < ranges[i].len)
            return &ranges[i];
    return NULL;
}

static struct range *add(char *addr, char *alias, size_t len, int kind, int fd) {
    if (nranges == MAX_RANGES)
        return NULL;
    ranges[nranges] = (struct range){addr, alias, len, kind, fd};
    return &ranges[nranges++];
}

static void drop(struct range *r) { *r = ranges[--nranges]; }

/* Where the bytes [p, p+n) are for the CPU: device memory through its alias, other memory as is (kernels: only
 * page-locked host memory). NULL: an illegal address. */
static char *xlate(const void *p, size_t n, int kernel) {
    struct range *r = find(p);
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
    /* FAKECUDA_HOST_VISIBLE=1: the device address maps the same pages, for test programs that read their symmetric
     * objects directly (tests/common/devheap.h); the library itself is held to the strict mode by every other test */
    const char *vis = getenv("FAKECUDA_HOST_VISIBLE");
    if (vis && *vis == '1' &&
        mmap(d, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) != d) {
        munmap(a, len);
        munmap(d, len);
        return -1;
    }
    *dev = d;
    *alias = a;
    return 0;
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
    struct event *ev;
    struct op *next;
};
#define STREAM_MAGIC 0x5354524du
struct stream {
    unsigned magic;
    struct ctx *ctx; /* used while another context is current: invalid handle, as the driver says */
    struct op *head, *tail;
};
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
        char *d = xlate(o->dst, o->n, 0);
        const char *s = xlate(o->src, o->n, 0);
        if (!d || !s)
            sticky = E_ILLEGAL_ADDRESS;
        else
            memmove(d, s, o->n);
        break;
    }
    case Q_SET: {
        char *d = xlate(o->dst, o->n, 0);
        if (!d)
            sticky = E_ILLEGAL_ADDRESS;
        else
            memset(d, o->byte, o->n);
        break;
    }
    case Q_COPY2D: {
        char *d = xlate(o->dst, (o->height - 1) * o->dpitch + o->n, 0);
        const char *s = xlate(o->src, (o->height - 1) * o->spitch + o->n, 0);
        if (!d || !s) {
            sticky = E_ILLEGAL_ADDRESS;
            break;
        }
        for (size_t r = 0; r < o->height; r++)
            memmove(d + r * o->dpitch, s + r * o->spitch, o->n);
        break;
    }
    case Q_KERNEL: {
        int rc = o->k->run(o->k, o->params, (unsigned)o->n, (unsigned)o->dpitch);
        if (rc)
            sticky = rc;
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
        run_op(o);
        int last = o == until;
        free(o);
        if (last)
            break;
    }
}

static CUresult enqueue(void *stream, struct op *o) {
    struct stream *s = stream;
    if (!s || s->magic != STREAM_MAGIC || s->ctx != current) {
        free(o);
        return E_INVALID_HANDLE; /* the library never uses the legacy default stream */
    }
    o->next = NULL;
    if (s->tail)
        s->tail->next = o;
    else
        s->head = o;
    s->tail = o;
    return OK;
}

static struct op *new_op(int kind) {
    struct op *o = calloc(1, sizeof *o);
    if (o)
        o->kind = kind;
    return o;
}

/* every call that needs the driver initialized and a context current in this thread */
#define ENTER()                                                                                                        \
    pthread_mutex_lock(&mu);                                                                                           \
    CUresult rc_ = !inited ? E_NOT_INITIALIZED : !current || !current->refs ? E_INVALID_CONTEXT : sticky;              \
    if (rc_) {                                                                                                         \
        pthread_mutex_unlock(&mu);                                                                                     \
        return rc_;                                                                                                    \
    }
#define LEAVE(rc)                                                                                                      \
    do {                                                                                                               \
        CUresult r_ = (rc);                                                                                            \
        pthread_mutex_unlock(&mu);                                                                                     \
        return r_;                                                                                                     \
    } while (0)

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
        return E_INVALID_VALUE; /* one thread does the atomic: more would apply it several times */
    size_t sz = wide ? 8 : 4;
    char *a = xlate(ptr, sz, 1);
    unsigned long long *out = (unsigned long long *)xlate(outp, 8, 1);
    if (!a || !out || ((uintptr_t)ptr & (sz - 1)))
        return E_ILLEGAL_ADDRESS;
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
        default: return E_INVALID_VALUE;                                                                               \
        }                                                                                                              \
    } while (0)
    if (wide)
        AMO(uint64_t);
    else
        AMO(uint32_t);
    *out = old; /* the kernel writes all 8 bytes (do_amo returns the word's type, widened) */
    return OK;
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
        return E_INVALID_VALUE;
    rest += strlen(onames[op]) + 1;
    for (int i = 0; i < 12; i++)
        if (!strcmp(rest, tnames[i]))
            t = i;
    if (t < 0)
        return E_INVALID_VALUE;
    void *ap, *bp;
    unsigned long long n;
    memcpy(&ap, p, 8);
    memcpy(&bp, p + 8, 8);
    memcpy(&n, p + 16, 8);
    char *A = xlate(ap, n * tsizes[t], 1);
    const char *B = xlate(bp, n * tsizes[t], 1);
    if (!A || !B)
        return E_ILLEGAL_ADDRESS;
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
    return OK;
}

/* small copies (SHMEM_GPU_COPY_CUTOVER): put_inline*(dst, n, struct of bytes), copy_sm(dst, src, n) */
static int k_put_inline(const struct kern *k, const unsigned char *p, unsigned grid, unsigned block) {
    void *dp;
    unsigned long long n;
    memcpy(&dp, p, 8);
    memcpy(&n, p + 8, 8);
    if (grid != 1 || n > k->size[2])
        return E_INVALID_VALUE; /* one block; the data is no longer than the launch carries */
    char *d = xlate(dp, n, 1);
    if (!d)
        return E_ILLEGAL_ADDRESS;
    memcpy(d, p + 16, n);
    return OK;
}

static int k_copy_sm(const struct kern *k, const unsigned char *p, unsigned grid, unsigned block) {
    (void)k;
    void *dp, *sp;
    unsigned long long n;
    memcpy(&dp, p, 8);
    memcpy(&sp, p + 8, 8);
    memcpy(&n, p + 16, 8);
    char *d = xlate(dp, n, 1);
    const char *s = xlate(sp, n, 1);
    if (!d || !s)
        return E_ILLEGAL_ADDRESS;
    memmove(d, s, n);
    return OK;
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

/* ---- the API ---- */
API CUresult cuInit(unsigned flags) {
    if (flags)
        return E_INVALID_VALUE;
    pthread_mutex_lock(&mu);
    inited = 1;
    pthread_mutex_unlock(&mu);
    return OK;
}

API CUresult cuDriverGetVersion(int *v) {
    if (!v)
        return E_INVALID_VALUE;
    *v = 12040;
    return OK;
}

API CUresult cuDeviceGetCount(int *n) {
    if (!inited)
        return E_NOT_INITIALIZED;
    *n = 1;
    return OK;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (!inited)
        return E_NOT_INITIALIZED;
    if (ordinal != 0)
        return E_INVALID_DEVICE;
    *d = 0;
    return OK;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    if (!inited)
        return E_NOT_INITIALIZED;
    if (d != 0 || len <= 0)
        return d ? E_INVALID_DEVICE : E_INVALID_VALUE;
    snprintf(name, (size_t)len, "gshmem fake CUDA device (testing only)");
    return OK;
}

API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
    if (!inited)
        return E_NOT_INITIALIZED;
    if (d != 0)
        return E_INVALID_DEVICE;
    *bytes = (size_t)16 << 30;
    return OK;
}

API CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) {
    if (!inited)
        return E_NOT_INITIALIZED;
    if (d != 0)
        return E_INVALID_DEVICE;
    pthread_mutex_lock(&mu);
    primary.refs++;
    pthread_mutex_unlock(&mu);
    *ctx = &primary;
    return OK;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    if (d != 0)
        return E_INVALID_DEVICE;
    pthread_mutex_lock(&mu);
    CUresult r = primary.refs > 0 ? (primary.refs--, OK) : E_INVALID_CONTEXT;
    pthread_mutex_unlock(&mu);
    return r;
}

API CUresult cuCtxGetCurrent(void **ctx) {
    if (!inited)
        return E_NOT_INITIALIZED;
    *ctx = current;
    return OK;
}

API CUresult cuCtxSetCurrent(void *ctx) {
    if (!inited)
        return E_NOT_INITIALIZED;
    if (ctx && ((ctx != &primary && ctx != &other) || !((struct ctx *)ctx)->refs))
        return E_INVALID_CONTEXT;
    current = ctx;
    return OK;
}

/* one more context on the device, made current (an application's own, or the runtime's after cudaSetDevice) */
API CUresult cuCtxCreate_v2(void **ctx, unsigned flags, CUdevice d) {
    if (!inited)
        return E_NOT_INITIALIZED;
    if (d != 0)
        return E_INVALID_DEVICE;
    pthread_mutex_lock(&mu);
    CUresult r = other.refs ? E_OUT_OF_MEMORY : OK; /* one at a time is all the tests need */
    if (r == OK) {
        other.refs = 1;
        current = &other;
        *ctx = &other;
    }
    pthread_mutex_unlock(&mu);
    (void)flags;
    return r;
}

API CUresult cuCtxDestroy_v2(void *ctx) {
    if (!inited)
        return E_NOT_INITIALIZED;
    if (ctx != &other || !other.refs)
        return E_INVALID_CONTEXT;
    other.refs = 0;
    if (current == &other)
        current = NULL;
    return OK;
}

API CUresult cuCtxGetDevice(CUdevice *d) {
    if (!inited)
        return E_NOT_INITIALIZED;
    if (!current)
        return E_INVALID_CONTEXT;
    *d = 0;
    return OK;
}

API CUresult cuStreamCreate(void **s, unsigned flags) {
    ENTER();
    struct stream *st = calloc(1, sizeof *st);
    if (!st)
        LEAVE(E_OUT_OF_MEMORY);
    st->magic = STREAM_MAGIC;
    st->ctx = current;
    *s = st;
    (void)flags;
    LEAVE(OK);
}

API CUresult cuStreamDestroy_v2(void *stream) {
    ENTER();
    struct stream *s = stream;
    if (!s || s->magic != STREAM_MAGIC)
        LEAVE(E_INVALID_HANDLE);
    drain(s, NULL); /* queued work still completes */
    s->magic = 0;
    free(s);
    LEAVE(OK);
}

API CUresult cuStreamSynchronize(void *stream) {
    ENTER();
    struct stream *s = stream;
    if (!s || s->magic != STREAM_MAGIC || s->ctx != current)
        LEAVE(E_INVALID_HANDLE);
    drain(s, NULL);
    LEAVE(sticky);
}

API CUresult cuEventCreate(void **ev, unsigned flags) {
    ENTER();
    struct event *e = calloc(1, sizeof *e);
    if (!e)
        LEAVE(E_OUT_OF_MEMORY);
    e->magic = EVENT_MAGIC;
    *ev = e;
    (void)flags;
    LEAVE(OK);
}

API CUresult cuEventDestroy_v2(void *ev) {
    ENTER();
    struct event *e = ev;
    if (!e || e->magic != EVENT_MAGIC)
        LEAVE(E_INVALID_HANDLE);
    if (e->pending) /* the stream still refers to it: let it get there first */
        drain(e->s, NULL);
    e->magic = 0;
    free(e);
    LEAVE(OK);
}

API CUresult cuEventRecord(void *ev, void *stream) {
    ENTER();
    struct event *e = ev;
    if (!e || e->magic != EVENT_MAGIC)
        LEAVE(E_INVALID_HANDLE);
    if (e->pending) /* re-recorded before reached: the earlier record is overtaken */
        drain(e->s, NULL);
    struct op *o = new_op(Q_EVENT);
    if (!o)
        LEAVE(E_OUT_OF_MEMORY);
    o->ev = e;
    CUresult r = enqueue(stream, o);
    if (!r) {
        e->pending = 1;
        e->queried = 0;
        e->s = stream;
    }
    LEAVE(r);
}

static struct op *event_op(struct event *e) {
    for (struct op *o = e->s->head; o; o = o->next)
        if (o->kind == Q_EVENT && o->ev == e)
            return o;
    return NULL;
}

API CUresult cuEventQuery(void *ev) {
    ENTER();
    struct event *e = ev;
    if (!e || e->magic != EVENT_MAGIC)
        LEAVE(E_INVALID_HANDLE);
    if (e->pending && !e->queried) {
        e->queried = 1;
        LEAVE(E_NOT_READY);
    }
    if (e->pending)
        drain(e->s, event_op(e));
    LEAVE(sticky);
}

API CUresult cuEventSynchronize(void *ev) {
    ENTER();
    struct event *e = ev;
    if (!e || e->magic != EVENT_MAGIC)
        LEAVE(E_INVALID_HANDLE);
    if (e->pending)
        drain(e->s, event_op(e));
    LEAVE(sticky);
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size) {
    ENTER();
    if (!size)
        LEAVE(E_INVALID_VALUE);
    size_t len = (size + 4095) & ~(size_t)4095;
    int fd = memfd_create("fakecuda", MFD_CLOEXEC);
    char *dev, *alias;
    if (fd < 0 || ftruncate(fd, (off_t)len) || map_views(fd, len, &dev, &alias)) {
        if (fd >= 0)
            close(fd);
        LEAVE(E_OUT_OF_MEMORY);
    }
    if (!add(dev, alias, len, R_DEVICE, fd)) {
        munmap(dev, len);
        munmap(alias, len);
        close(fd);
        LEAVE(E_OUT_OF_MEMORY);
    }
    *p = (CUdeviceptr)(uintptr_t)dev;
    LEAVE(OK);
}

static void unmap(struct range *r) {
    munmap(r->addr, r->len);
    munmap(r->alias, r->len);
    if (r->fd >= 0)
        close(r->fd);
    drop(r);
}

API CUresult cuMemFree_v2(CUdeviceptr p) {
    ENTER();
    struct range *r = find((void *)(uintptr_t)p);
    if (!r || r->kind != R_DEVICE || r->addr != (char *)(uintptr_t)p)
        LEAVE(E_INVALID_VALUE);
    unmap(r);
    LEAVE(OK);
}

static int overlaps_host(const char *p, size_t n) {
    for (int i = 0; i < nranges; i++)
        if ((ranges[i].kind == R_HOSTALLOC || ranges[i].kind == R_REGISTERED) && p < ranges[i].addr + ranges[i].len &&
            ranges[i].addr < p + n)
            return 1;
    return 0;
}

API CUresult cuMemHostAlloc(void **pp, size_t size, unsigned flags) {
    ENTER();
    (void)flags;
    size_t len = (size + 4095) & ~(size_t)4095;
    char *p = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    if (p == MAP_FAILED)
        LEAVE(E_OUT_OF_MEMORY);
    if (!add(p, p, len, R_HOSTALLOC, -1)) {
        munmap(p, len);
        LEAVE(E_OUT_OF_MEMORY);
    }
    *pp = p;
    LEAVE(OK);
}

API CUresult cuMemFreeHost(void *p) {
    ENTER();
    struct range *r = find(p);
    if (!r || r->kind != R_HOSTALLOC || r->addr != p)
        LEAVE(E_INVALID_VALUE);
    munmap(r->addr, r->len);
    drop(r);
    LEAVE(OK);
}

static int mapped(const void *p, size_t n) {
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095, end = (uintptr_t)p + n;
    unsigned char v;
    for (; a < end; a += 4096)
        if (mincore((void *)a, 4096, &v))
            return 0;
    return 1;
}

API CUresult cuMemHostRegister_v2(void *p, size_t size, unsigned flags) {
    ENTER();
    (void)flags;
    if (overlaps_host(p, size))
        LEAVE(E_ALREADY_REGISTERED);
    if (!p || !size || find(p) || !mapped(p, size))
        LEAVE(E_INVALID_VALUE);
    if (!add(p, p, size, R_REGISTERED, -1))
        LEAVE(E_OUT_OF_MEMORY);
    LEAVE(OK);
}

API CUresult cuMemHostUnregister(void *p) {
    ENTER();
    struct range *r = find(p);
    if (!r || r->kind != R_REGISTERED || r->addr != p)
        LEAVE(E_NOT_REGISTERED);
    CUresult rc = mapped(r->addr, r->len) ? OK : E_INVALID_VALUE; /* unmapped before it was unregistered */
    drop(r);
    LEAVE(rc);
}

API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, void *stream) {
    ENTER();
    struct op *o = new_op(Q_COPY);
    if (!o)
        LEAVE(E_OUT_OF_MEMORY);
    o->dst = (void *)(uintptr_t)dst;
    o->src = (const void *)(uintptr_t)src;
    o->n = n;
    LEAVE(enqueue(stream, o));
}

API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *m, void *stream) {
    ENTER();
    if (m->srcMemoryType != 4 || m->dstMemoryType != 4 || m->srcXInBytes || m->srcY || m->dstXInBytes || m->dstY ||
        m->srcPitch < m->WidthInBytes || m->dstPitch < m->WidthInBytes || !m->Height)
        LEAVE(E_INVALID_VALUE); /* gshmem passes unified pointers with the offsets folded in */
    struct op *o = new_op(Q_COPY2D);
    if (!o)
        LEAVE(E_OUT_OF_MEMORY);
    o->dst = (void *)(uintptr_t)m->dstDevice;
    o->src = (const void *)(uintptr_t)m->srcDevice;
    o->n = m->WidthInBytes;
    o->height = m->Height;
    o->dpitch = m->dstPitch;
    o->spitch = m->srcPitch;
    LEAVE(enqueue(stream, o));
}

API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char byte, size_t n, void *stream) {
    ENTER();
    struct range *r = find((void *)(uintptr_t)dst);
    if (!r || (r->kind != R_DEVICE && r->kind != R_IMPORTED))
        LEAVE(E_INVALID_VALUE);
    struct op *o = new_op(Q_SET);
    if (!o)
        LEAVE(E_OUT_OF_MEMORY);
    o->dst = (void *)(uintptr_t)dst;
    o->n = n;
    o->byte = byte;
    LEAVE(enqueue(stream, o));
}

API CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr ptr) {
    ENTER();
    struct range *r = find((void *)(uintptr_t)ptr);
    if (!r)
        LEAVE(E_INVALID_VALUE); /* memory the driver does not know */
    int dev = r->kind == R_DEVICE || r->kind == R_IMPORTED;
    switch (attr) {
    case 2: *(unsigned *)data = dev ? 2 : 1; break; /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE: device or host */
    case 11: *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)r->addr; break; /* RANGE_START_ADDR */
    case 12: *(size_t *)data = r->len; break;                               /* RANGE_SIZE */
    default: LEAVE(E_INVALID_VALUE);
    }
    LEAVE(OK);
}

API CUresult cuPointerSetAttribute(const void *value, int attr, CUdeviceptr ptr) {
    ENTER();
    struct range *r = find((void *)(uintptr_t)ptr);
    if (attr != 6 || !r || r->kind != R_DEVICE || !value) /* only SYNC_MEMOPS, on device memory */
        LEAVE(E_INVALID_VALUE);
    LEAVE(OK);
}

struct ipc {
    char magic[8];
    int pid, fd;
    size_t len;
};

API CUresult cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr p) {
    ENTER();
    struct range *r = find((void *)(uintptr_t)p);
    if (!r || r->kind != R_DEVICE)
        LEAVE(E_INVALID_VALUE);
    struct ipc m = {"FAKECU1", (int)getpid(), r->fd, r->len};
    memset(h, 0, sizeof *h);
    memcpy(h->reserved, &m, sizeof m);
    LEAVE(OK);
}

API CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *p, CUipcMemHandle h, unsigned flags) {
    ENTER();
    struct ipc m;
    memcpy(&m, h.reserved, sizeof m);
    if (memcmp(m.magic, "FAKECU1", 8) || flags != 1)
        LEAVE(E_INVALID_VALUE);
    if (m.pid == (int)getpid())
        LEAVE(E_INVALID_CONTEXT); /* a process cannot open its own handles */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", m.pid, m.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    char *dev, *alias;
    if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size != m.len || map_views(fd, m.len, &dev, &alias)) {
        if (fd >= 0)
            close(fd);
        LEAVE(E_INVALID_HANDLE);
    }
    close(fd);
    if (!add(dev, alias, m.len, R_IMPORTED, -1)) {
        munmap(dev, m.len);
        munmap(alias, m.len);
        LEAVE(E_OUT_OF_MEMORY);
    }
    *p = (CUdeviceptr)(uintptr_t)dev;
    LEAVE(OK);
}

API CUresult cuIpcCloseMemHandle(CUdeviceptr p) {
    ENTER();
    struct range *r = find((void *)(uintptr_t)p);
    if (!r || r->kind != R_IMPORTED || r->addr != (char *)(uintptr_t)p)
        LEAVE(E_INVALID_VALUE);
    unmap(r);
    LEAVE(OK);
}

API CUresult cuModuleLoadData(void **mod, const void *image) {
    ENTER();
    if (!image || !strstr(image, ".entry"))
        LEAVE(E_INVALID_IMAGE);
    char *copy = strdup(image);
    if (!copy)
        LEAVE(E_OUT_OF_MEMORY);
    *mod = copy;
    LEAVE(OK);
}

API CUresult cuModuleUnload(void *mod) {
    ENTER();
    if (!mod)
        LEAVE(E_INVALID_VALUE);
    free(mod);
    LEAVE(OK);
}

/* a kernel the image defines and the fake implements */
API CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
    ENTER();
    char entry[96];
    snprintf(entry, sizeof entry, ".entry %s(", name);
    if (!mod || !strstr(mod, entry))
        LEAVE(E_NOT_FOUND);
    for (int i = 0; i < nfuncs; i++)
        if (!strcmp(funcs[i].name, name)) {
            *fn = &funcs[i];
            LEAVE(OK);
        }
    if (nfuncs == MAX_FUNCS)
        LEAVE(E_OUT_OF_MEMORY);
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
        LEAVE(E_NOT_FOUND); /* in the image, but the fake has no C version of it */
    f->k = (struct kern){f->name, protos[k].nparams, {0}, protos[k].run};
    memcpy(f->k.size, protos[k].size, sizeof f->k.size);
    memcpy(f->align, protos[k].align, sizeof f->align);
    nfuncs++;
    *fn = f;
    LEAVE(OK);
}

API CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shmem, void *stream, void **params, void **extra) {
    ENTER();
    struct func *f = fn;
    if (!f || f < funcs || f >= funcs + nfuncs || !params || extra || shmem)
        LEAVE(E_INVALID_VALUE);
    if (!gx || !gy || !gz || !bx || !by || !bz || gy != 1 || gz != 1 || by != 1 || bz != 1 || bx > 1024 ||
        gx > 0x7fffffffu)
        LEAVE(E_INVALID_VALUE);
    struct op *o = new_op(Q_KERNEL);
    if (!o)
        LEAVE(E_OUT_OF_MEMORY);
    o->k = &f->k;
    o->n = gx;
    o->dpitch = bx;
    size_t off = 0; /* the arguments' values are taken now, as the driver does */
    for (int i = 0; i < f->k.nparams; i++) {
        size_t sz = f->k.size[i];
        off = (off + f->align[i] - 1) & ~(f->align[i] - 1);
        if (!params[i] || off + sz > sizeof o->params) {
            free(o);
            LEAVE(E_INVALID_VALUE);
        }
        memcpy(o->params + off, params[i], sz);
        off += sz;
    }
    LEAVE(enqueue(stream, o));
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
            return OK;
        }
    *s = NULL;
    return E_INVALID_VALUE;
}
