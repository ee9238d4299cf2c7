/* runtime.c - the CPU emulation's stand-in for the CUDA runtime calls GPU programs make: device memory (the emulated
 * GPU's, which the library knows as device memory), streams (a thread each, its operations in order, the legacy
 * default stream ordered against the others as CUDA orders it), events, host functions, stream capture into graphs,
 * and the per-thread last error. Every call returns a cudaError_t value. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "device/emu/emu.h"
#include "gpu/gtl.h"
#include "state.h"

/* cudaError_t values the emulation returns */
enum {
    E_OK = 0,
    E_INVALID_VALUE = 1,
    E_MEMORY = 2,
    E_INVALID_CONFIG = 9,
    E_INVALID_DEVICE_FUNCTION = 98,
    E_INVALID_DEVICE = 101,
    E_INVALID_HANDLE = 400,
    E_NOT_READY = 600,
    E_COOP_TOO_LARGE = 720,
    E_CAPTURE_UNSUPPORTED = 900,
};

int shmemi_emu_program;
static __thread int last_error;

int gshmem_emu_set_error(int err) {
    if (err)
        last_error = err;
    return err;
}

int gshmem_emu_last_error(int peek) {
    int e = last_error;
    if (!peek)
        last_error = 0;
    return e;
}

void shmemi_emu_fatal(const char *what, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (shmemi_rt.init_state == 1)
        shmemi_fatal(what, "(emulated GPU) %s", msg);
    fprintf(stderr, "gshmem: %s (emulated GPU): %s\n", what, msg);
    fflush(stderr);
    _Exit(1);
}

void gshmem_emu_trap(const char *what) { shmemi_emu_fatal("a kernel", "%s", what ? what : "__trap()"); }

void gshmem_emu_peer_atomic(const void *p) {
    if (!shmemi_gtl_emu_native_amo(p))
        shmemi_emu_fatal("a kernel",
                         "a system-scope atomic on %p, memory of another PE's GPU linked to this PE's without native "
                         "atomics (SHMEM_TEST_GPU_P2P=noatomics): on such a link a GPU's atomic is not atomic; the "
                         "device library sends those through the proxy",
                         p);
}

int gshmem_emu_program(int abi) {
    if (abi != GSHMEM_EMU_ABI_VERSION)
        shmemi_emu_fatal("start-up",
                         "this program was built for emulation interface %d, the library speaks %d: rebuild it with "
                         "this gshmem's oshcc --emulate-gpu",
                         abi, GSHMEM_EMU_ABI_VERSION);
    shmemi_emu_program = 1;
    shmemi_gtl_emu_kernels = 1;
    char err[768];
    if (shmemi_rt.init_state == 0 && shmemi_env_read(err, sizeof err)) { /* the emulation's own settings, too */
        fprintf(stderr, "gshmem: %s\n", err);
        exit(1);
    }
    return 1;
}

/* ---- memory ---- */
int gshmem_emu_malloc(void **p, size_t n, int kind) {
    if (!p)
        return gshmem_emu_set_error(E_INVALID_VALUE);
    if (kind == GSHMEM_EMU_MEM_HOST) {
        if (posix_memalign(p, 4096, n ? n : 1))
            return gshmem_emu_set_error(E_MEMORY);
        return E_OK;
    }
    if (shmemi_gtl_emu_user_alloc(n ? n : 1, p))
        return gshmem_emu_set_error(E_MEMORY);
    return E_OK;
}

int gshmem_emu_free(void *p, int kind) {
    if (!p)
        return E_OK;
    if (kind == GSHMEM_EMU_MEM_HOST) {
        free(p);
        return E_OK;
    }
    gshmem_emu_device_synchronize(); /* as cudaFree: kernels still using it finish first */
    if (shmemi_gtl_emu_user_free(p))
        return gshmem_emu_set_error(E_INVALID_VALUE);
    return E_OK;
}

/* ---- streams ---- */
enum { OP_KERNEL, OP_COPY, OP_SET, OP_RECORD, OP_WAIT, OP_HOST, OP_ALLOC, OP_FREE };
struct emu_event {
    uint64_t recorded, done; /* records enqueued, records done */
    int dev;                 /* the device current when it was created */
    double t_ms;             /* when the last record ran */
    int dead;
    unsigned flags; /* as created: HIP's elapsed time refuses events without timing */
};
struct emu_stream;
struct dep {
    struct emu_stream *s;
    uint64_t upto;
};
struct op {
    struct op *next;
    int kind;
    struct shmemi_emu_kernel k;
    void *dst;
    const void *src;
    size_t n;
    int value;
    struct emu_event *ev;
    uint64_t ev_target;
    void (*fn)(void *);
    void *arg;
    struct dep *deps; /* the legacy default stream: operations this one waits for on other streams */
    int ndeps;
};
struct emu_graph {
    struct op *head, *tail;
    int refs; /* the graph and its instantiations */
};
struct emu_stream {
    struct op *head, *tail;
    uint64_t enq, done;
    int started, blocking, dead;
    int dev; /* the device current when it was created (the legacy stream: every device's) */
    pthread_t thr;
    struct emu_pool *pool;
    struct emu_graph *capture;
    struct emu_stream *next_all;
};

/* One lock and one condition for the whole emulated device: streams, events and their waiters (few and coarse) */
static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dev_cond = PTHREAD_COND_INITIALIZER;
static struct emu_stream legacy = {.blocking = 1};
static struct emu_stream *all_streams = &legacy;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static struct emu_stream *stream_of(void *s) { return s ? (struct emu_stream *)s : &legacy; }

/* Devices: a process sees SHMEM_EMU_GPUS emulated GPUs, as a PE on an 8-GPU node sees eight, so programs that pick
 * theirs by node rank (cudaSetDevice(mype_node)) run unchanged. They are one memory and one set of SMs; what tells
 * them apart is CUDA's rules for streams and events, which bind to the device current when they are created: a
 * kernel launched into another device's stream, an event recorded into another device's stream, and the time
 * between two devices' events are refused (cudaErrorInvalidResourceHandle), while copies, waits and queries cross
 * devices. HIP runs a launch on its stream's device instead, so a HIP program (gshmem_emu_rules) is not refused. */
static __thread int cur_dev; /* as CUDA's: each host thread's own */
static int hip_rules;
int gshmem_emu_rules(int hip) {
    hip_rules = hip;
    return 1;
}
static int stream_dev(void *stream) { return stream ? ((struct emu_stream *)stream)->dev : cur_dev; }

static void run_op(struct emu_stream *s, struct op *o) {
    switch (o->kind) {
    case OP_KERNEL:
        shmemi_emu_run_kernel(&s->pool, &o->k);
        if (o->k.release)
            o->k.release(o->k.closure);
        break;
    case OP_COPY: memmove(o->dst, o->src, o->n); break;
    case OP_SET: memset(o->dst, o->value, o->n); break;
    case OP_HOST: o->fn(o->arg); break;
    case OP_ALLOC: /* from here on in stream order the allocation may be used */
        if (mprotect(o->dst, o->n, PROT_READ | PROT_WRITE))
            shmemi_emu_fatal("cudaMallocAsync", "cannot open %zu bytes at %p: %s", o->n, o->dst, strerror(errno));
        break;
    case OP_FREE:
        if (shmemi_gtl_emu_user_free(o->dst))
            shmemi_emu_fatal("cudaFreeAsync", "%p is not an emulated GPU allocation (or was freed already)", o->dst);
        break;
    case OP_RECORD:
        pthread_mutex_lock(&dev_lock);
        o->ev->t_ms = now_ms();
        if (o->ev->done < o->ev_target)
            o->ev->done = o->ev_target;
        pthread_cond_broadcast(&dev_cond);
        pthread_mutex_unlock(&dev_lock);
        break;
    case OP_WAIT:
        pthread_mutex_lock(&dev_lock);
        while (o->ev->done < o->ev_target)
            pthread_cond_wait(&dev_cond, &dev_lock);
        pthread_mutex_unlock(&dev_lock);
        break;
    }
}

static void *stream_main(void *arg) {
    struct emu_stream *s = arg;
    pthread_mutex_lock(&dev_lock);
    for (;;) {
        while (!s->head)
            pthread_cond_wait(&dev_cond, &dev_lock);
        struct op *o = s->head;
        for (int i = 0; i < o->ndeps; i++) /* the legacy stream waits for what other streams had before it */
            while (o->deps[i].s->done < o->deps[i].upto)
                pthread_cond_wait(&dev_cond, &dev_lock);
        pthread_mutex_unlock(&dev_lock);
        run_op(s, o);
        pthread_mutex_lock(&dev_lock);
        s->head = o->next;
        if (!s->head)
            s->tail = NULL;
        s->done++;
        free(o->deps);
        free(o);
        pthread_cond_broadcast(&dev_cond);
    }
    return NULL;
}

static struct op *op_copy(const struct op *o) {
    struct op *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *o;
    c->next = NULL;
    c->deps = NULL;
    c->ndeps = 0;
    return c;
}

/* Queues a copy of *o on s (or appends it to s's capture); 0 or a cudaError_t value. Called with dev_lock held. */
static int enqueue_locked(struct emu_stream *s, const struct op *o) {
    if (s->dead)
        return E_INVALID_HANDLE;
    struct op *c = op_copy(o);
    if (!c)
        return E_MEMORY;
    if (s->capture) {
        if (c->kind == OP_KERNEL)
            c->k.release = NULL; /* the graph owns the closure: released when the graph is destroyed */
        if (s->capture->tail)
            s->capture->tail->next = c;
        else
            s->capture->head = c;
        s->capture->tail = c;
        if (o->kind == OP_KERNEL && o->k.release) {
            /* keep the release for the graph: an op of its own that only releases (never run) */
            struct op *r = op_copy(o);
            if (r) {
                r->kind = -1;
                s->capture->tail->next = r;
                s->capture->tail = r;
            }
        }
        return E_OK;
    }
    /* the legacy stream runs after what blocking streams hold now; blocking streams after what it holds now */
    int n = 0;
    for (struct emu_stream *x = all_streams; x; x = x->next_all)
        n += x != s && x->blocking && !x->dead;
    if (s->blocking && n) {
        c->deps = calloc((size_t)n, sizeof *c->deps);
        for (struct emu_stream *x = all_streams; x && c->deps; x = x->next_all)
            if (x != s && x->blocking && !x->dead && (s == &legacy || x == &legacy) && x->enq > x->done)
                c->deps[c->ndeps++] = (struct dep){x, x->enq};
    }
    if (!s->started) {
        int e = pthread_create(&s->thr, NULL, stream_main, s);
        if (e) {
            free(c->deps);
            free(c);
            return E_MEMORY;
        }
        pthread_detach(s->thr);
        s->started = 1;
    }
    if (s->tail)
        s->tail->next = c;
    else
        s->head = c;
    s->tail = c;
    s->enq++;
    pthread_cond_broadcast(&dev_cond);
    return E_OK;
}

static int enqueue(void *stream, const struct op *o) {
    pthread_mutex_lock(&dev_lock);
    int e = enqueue_locked(stream_of(stream), o);
    pthread_mutex_unlock(&dev_lock);
    return e;
}

/* Waits until s has run everything queued so far. */
static int sync_stream(struct emu_stream *s) {
    pthread_mutex_lock(&dev_lock);
    if (s->capture) {
        pthread_mutex_unlock(&dev_lock);
        return E_CAPTURE_UNSUPPORTED;
    }
    uint64_t target = s->enq;
    while (s->done < target)
        pthread_cond_wait(&dev_cond, &dev_lock);
    pthread_mutex_unlock(&dev_lock);
    return E_OK;
}

int gshmem_emu_launch(struct gshmem_emu_dim3 grid, struct gshmem_emu_dim3 block, size_t shmem, void *stream,
                      void (*fn)(void *), void *closure, void (*release)(void *)) {
    return gshmem_emu_launch_ex(grid, block, shmem, stream, fn, closure, release, 0);
}

int gshmem_emu_launch_ex(struct gshmem_emu_dim3 grid, struct gshmem_emu_dim3 block, size_t shmem, void *stream,
                         void (*fn)(void *), void *closure, void (*release)(void *), unsigned flags) {
    unsigned long long nt = (unsigned long long)block.x * block.y * block.z;
    int e = E_OK;
    if (!grid.x || !grid.y || !grid.z || !nt || nt > 1024 || block.z > 64 || grid.y > 65535 || grid.z > 65535)
        e = E_INVALID_CONFIG;
    else if (!hip_rules && stream_dev(stream) != cur_dev)
        e = E_INVALID_HANDLE;
    else if ((flags & GSHMEM_EMU_LAUNCH_COOPERATIVE) &&
             (unsigned long long)grid.x * grid.y * grid.z > shmemi_emu_coop_max((unsigned)nt))
        e = E_COOP_TOO_LARGE; /* its blocks could not all be resident, as grid_group::sync needs */
    if (e) {
        if (release)
            release(closure);
        return gshmem_emu_set_error(e);
    }
    struct op o = {.kind = OP_KERNEL,
                   .k = {grid, block, shmem, fn, closure, release, !!(flags & GSHMEM_EMU_LAUNCH_COOPERATIVE)}};
    e = enqueue(stream, &o);
    if (e && release)
        release(closure);
    return gshmem_emu_set_error(e);
}

int gshmem_emu_coop_max_blocks(unsigned nthreads) { return nthreads ? (int)shmemi_emu_coop_max(nthreads) : 0; }

/* ---- stream-ordered allocation: the pages are there at once but open only when the stream reaches the
 * allocation (a use before it faults, as it may on a GPU); the free unmaps them when the stream reaches it ---- */
int gshmem_emu_malloc_async(void **p, size_t n, void *stream) {
    if (!p)
        return gshmem_emu_set_error(E_INVALID_VALUE);
    int capturing = 0;
    gshmem_emu_capture_status(stream, &capturing);
    if (capturing) /* a graph's memory nodes are not emulated */
        return gshmem_emu_set_error(E_CAPTURE_UNSUPPORTED);
    void *m = NULL;
    size_t len = ((n ? n : 1) + 4095) & ~(size_t)4095;
    if (shmemi_gtl_emu_user_alloc(len, &m))
        return gshmem_emu_set_error(E_MEMORY);
    mprotect(m, len, PROT_NONE);
    struct op o = {.kind = OP_ALLOC, .dst = m, .n = len};
    int e = enqueue(stream, &o);
    if (e) {
        shmemi_gtl_emu_user_free(m);
        return gshmem_emu_set_error(e);
    }
    *p = m;
    return E_OK;
}

int gshmem_emu_free_async(void *p, void *stream) {
    if (!p)
        return E_OK;
    int capturing = 0;
    gshmem_emu_capture_status(stream, &capturing);
    if (capturing)
        return gshmem_emu_set_error(E_CAPTURE_UNSUPPORTED);
    struct op o = {.kind = OP_FREE, .dst = p};
    return gshmem_emu_set_error(enqueue(stream, &o));
}

int gshmem_emu_memcpy(void *dst, const void *src, size_t n, void *stream, int async) {
    if (!n)
        return E_OK;
    if (!dst || !src)
        return gshmem_emu_set_error(E_INVALID_VALUE);
    struct op o = {.kind = OP_COPY, .dst = dst, .src = src, .n = n};
    int e = enqueue(stream, &o);
    if (!e && !async)
        e = sync_stream(stream_of(stream));
    return gshmem_emu_set_error(e);
}

int gshmem_emu_memset(void *dst, int value, size_t n, void *stream, int async) {
    if (!n)
        return E_OK;
    struct op o = {.kind = OP_SET, .dst = dst, .value = value, .n = n};
    int e = enqueue(stream, &o);
    if (!e && !async)
        e = sync_stream(stream_of(stream));
    return gshmem_emu_set_error(e);
}

int gshmem_emu_stream_create(void **stream, unsigned flags) {
    struct emu_stream *s = calloc(1, sizeof *s);
    if (!s || !stream)
        return gshmem_emu_set_error(s ? E_INVALID_VALUE : E_MEMORY);
    s->blocking = !(flags & 1); /* cudaStreamNonBlocking */
    s->dev = cur_dev;
    pthread_mutex_lock(&dev_lock);
    s->next_all = all_streams;
    all_streams = s;
    pthread_mutex_unlock(&dev_lock);
    *stream = s;
    return E_OK;
}

int gshmem_emu_stream_destroy(void *stream) {
    if (!stream)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    struct emu_stream *s = stream;
    /* as CUDA: queued work still runs; the handle is dead at once (the object stays: its thread may still run) */
    pthread_mutex_lock(&dev_lock);
    s->dead = 1;
    pthread_mutex_unlock(&dev_lock);
    return E_OK;
}

int gshmem_emu_stream_synchronize(void *stream) { return gshmem_emu_set_error(sync_stream(stream_of(stream))); }

int gshmem_emu_stream_query(void *stream) {
    struct emu_stream *s = stream_of(stream);
    pthread_mutex_lock(&dev_lock);
    int busy = s->done < s->enq;
    pthread_mutex_unlock(&dev_lock);
    return busy ? E_NOT_READY : E_OK;
}

int gshmem_emu_device_synchronize(void) {
    pthread_mutex_lock(&dev_lock);
    for (struct emu_stream *s = all_streams; s; s = s->next_all) {
        uint64_t target = s->enq;
        while (s->done < target)
            pthread_cond_wait(&dev_cond, &dev_lock);
    }
    pthread_mutex_unlock(&dev_lock);
    return E_OK;
}

static int device_busy_locked(void) {
    for (struct emu_stream *s = all_streams; s; s = s->next_all)
        if (s->done < s->enq)
            return 1;
    return 0;
}

int shmemi_emu_idle_wait(int wait_s) {
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end); /* (the clock dev_cond waits on) */
    end.tv_sec += wait_s;
    pthread_mutex_lock(&dev_lock);
    int busy;
    while ((busy = device_busy_locked()))
        if (wait_s < 0)
            pthread_cond_wait(&dev_cond, &dev_lock);
        else if (pthread_cond_timedwait(&dev_cond, &dev_lock, &end) == ETIMEDOUT)
            break;
    if (busy)
        busy = device_busy_locked();
    pthread_mutex_unlock(&dev_lock);
    return busy ? -1 : 0;
}

int gshmem_emu_host_func(void *stream, void (*fn)(void *), void *arg) {
    if (!fn)
        return gshmem_emu_set_error(E_INVALID_VALUE);
    struct op o = {.kind = OP_HOST, .fn = fn, .arg = arg};
    return gshmem_emu_set_error(enqueue(stream, &o));
}

/* ---- events ---- */
int gshmem_emu_event_create(void **event, unsigned flags) {
    struct emu_event *e = calloc(1, sizeof *e);
    if (!e || !event) {
        free(e);
        return gshmem_emu_set_error(e ? E_INVALID_VALUE : E_MEMORY);
    }
    e->flags = flags;
    e->dev = cur_dev;
    *event = e;
    return E_OK;
}

int gshmem_emu_event_info(void *event, unsigned *flags, int *recorded) {
    struct emu_event *ev = event;
    if (!ev || ev->dead)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    pthread_mutex_lock(&dev_lock);
    *flags = ev->flags;
    *recorded = ev->recorded > 0;
    pthread_mutex_unlock(&dev_lock);
    return E_OK;
}

int gshmem_emu_event_destroy(void *event) {
    if (!event)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    ((struct emu_event *)event)->dead = 1; /* (kept: a queued record or wait may still name it) */
    return E_OK;
}

int gshmem_emu_event_record(void *event, void *stream) {
    struct emu_event *ev = event;
    if (!ev || ev->dead || (!hip_rules && ev->dev != stream_dev(stream)))
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    pthread_mutex_lock(&dev_lock);
    struct op o = {.kind = OP_RECORD, .ev = ev, .ev_target = ev->recorded + 1};
    int e = enqueue_locked(stream_of(stream), &o);
    if (!e && !stream_of(stream)->capture)
        ev->recorded++;
    pthread_mutex_unlock(&dev_lock);
    return gshmem_emu_set_error(e);
}

int gshmem_emu_stream_wait_event(void *stream, void *event) {
    struct emu_event *ev = event;
    if (!ev || ev->dead)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    pthread_mutex_lock(&dev_lock);
    struct op o = {.kind = OP_WAIT, .ev = ev, .ev_target = ev->recorded};
    int e = enqueue_locked(stream_of(stream), &o);
    pthread_mutex_unlock(&dev_lock);
    return gshmem_emu_set_error(e);
}

int gshmem_emu_event_synchronize(void *event) {
    struct emu_event *ev = event;
    if (!ev)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    pthread_mutex_lock(&dev_lock);
    while (ev->done < ev->recorded)
        pthread_cond_wait(&dev_cond, &dev_lock);
    pthread_mutex_unlock(&dev_lock);
    return E_OK;
}

int gshmem_emu_event_query(void *event) {
    struct emu_event *ev = event;
    if (!ev)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    pthread_mutex_lock(&dev_lock);
    int busy = ev->done < ev->recorded;
    pthread_mutex_unlock(&dev_lock);
    return busy ? E_NOT_READY : E_OK;
}

int gshmem_emu_event_elapsed(float *ms, void *start, void *end) {
    struct emu_event *a = start, *b = end;
    if (!ms || !a || !b)
        return gshmem_emu_set_error(E_INVALID_VALUE);
    if (!hip_rules && a->dev != b->dev)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    pthread_mutex_lock(&dev_lock);
    int ready = a->done && b->done && a->done >= a->recorded && b->done >= b->recorded;
    double d = b->t_ms - a->t_ms;
    pthread_mutex_unlock(&dev_lock);
    if (!ready)
        return gshmem_emu_set_error(E_NOT_READY);
    *ms = (float)d;
    return E_OK;
}

/* ---- devices ---- */
/* (before shmem_init has read the environment: the default) */
static int n_gpus(void) { return shmemi_env.emu_gpus ? (int)shmemi_env.emu_gpus : 8; }
int gshmem_emu_set_device(int device) {
    if (device < 0 || device >= n_gpus())
        return gshmem_emu_set_error(E_INVALID_DEVICE);
    cur_dev = device;
    return E_OK;
}
int gshmem_emu_get_device(int *device) {
    if (device)
        *device = cur_dev;
    return E_OK;
}
int gshmem_emu_device_count(int *count) {
    if (count)
        *count = n_gpus();
    return E_OK;
}
/* ---- kernels' attributes: the dynamic shared memory each may have beyond the default (cudaFuncSetAttribute) ---- */
#define FUNC_ATTRS 256
static struct {
    const void *fn;
    size_t max_dyn;
} func_attrs[FUNC_ATTRS];
static int nfunc_attrs;
static pthread_mutex_t func_lock = PTHREAD_MUTEX_INITIALIZER;

int gshmem_emu_func_attr(const void *fn, int attr, int value) {
    if (!fn)
        return gshmem_emu_set_error(E_INVALID_DEVICE_FUNCTION);
    switch (attr) {
    case 8: /* cudaFuncAttributeMaxDynamicSharedMemorySize: with the kernel's static part, at most the opt-in */
        if (value < 0 || (size_t)value > GSHMEM_EMU_SHMEM_OPTIN)
            return gshmem_emu_set_error(E_INVALID_VALUE);
        break;
    case 9: /* cudaFuncAttributePreferredSharedMemoryCarveout: a percentage, or -1 for the default */
        return value < -1 || value > 100 ? gshmem_emu_set_error(E_INVALID_VALUE) : E_OK;
    case 11: /* the required cluster's width, height, depth: checked at launch on a GPU; no clusters here */
    case 12:
    case 13: return value < 0 ? gshmem_emu_set_error(E_INVALID_VALUE) : E_OK;
    case 14: /* cudaFuncAttributeNonPortableClusterSizeAllowed: 0 or 1 */
        return value != 0 && value != 1 ? gshmem_emu_set_error(E_INVALID_VALUE) : E_OK;
    case 15: /* cudaFuncAttributeClusterSchedulingPolicyPreference: a cudaClusterSchedulingPolicy (0-2) */
        return value < 0 || value > 2 ? gshmem_emu_set_error(E_INVALID_VALUE) : E_OK;
    default: /* cudaFuncAttributeClusterDimMustBeSet is read-only; the rest are not attributes */
        return gshmem_emu_set_error(E_INVALID_VALUE);
    }
    pthread_mutex_lock(&func_lock);
    int i = 0;
    while (i < nfunc_attrs && func_attrs[i].fn != fn)
        i++;
    int e = E_OK;
    if (i < nfunc_attrs || nfunc_attrs < FUNC_ATTRS) {
        func_attrs[i].fn = fn;
        func_attrs[i].max_dyn = (size_t)value;
        if (i == nfunc_attrs)
            __atomic_store_n(&nfunc_attrs, nfunc_attrs + 1, __ATOMIC_RELEASE);
    } else {
        e = E_MEMORY; /* (more kernels with attributes than the emulation keeps) */
    }
    pthread_mutex_unlock(&func_lock);
    return gshmem_emu_set_error(e);
}

int gshmem_emu_func_shmem(const void *fn, size_t shmem) {
    if (shmem <= GSHMEM_EMU_SHMEM_DEFAULT && !__atomic_load_n(&nfunc_attrs, __ATOMIC_ACQUIRE))
        return E_OK;                         /* (no kernel's limit was changed: the default holds) */
    size_t limit = GSHMEM_EMU_SHMEM_DEFAULT; /* or what was set for this kernel, lower or higher */
    pthread_mutex_lock(&func_lock);
    for (int i = 0; i < nfunc_attrs; i++)
        if (func_attrs[i].fn == fn)
            limit = func_attrs[i].max_dyn;
    pthread_mutex_unlock(&func_lock);
    return shmem <= limit ? E_OK : gshmem_emu_set_error(E_INVALID_VALUE);
}

/* (before shmem_init has read the environment: the default) */
int gshmem_emu_sm_count(void) { return shmemi_env.emu_sms ? (int)shmemi_env.emu_sms : 32; }

/* ---- capture and graphs ---- */
int gshmem_emu_capture_begin(void *stream) {
    struct emu_stream *s = stream_of(stream);
    if (s == &legacy) /* CUDA refuses to capture the legacy stream */
        return gshmem_emu_set_error(E_CAPTURE_UNSUPPORTED);
    struct emu_graph *g = calloc(1, sizeof *g);
    if (!g)
        return gshmem_emu_set_error(E_MEMORY);
    pthread_mutex_lock(&dev_lock);
    int e = s->capture ? E_INVALID_VALUE : E_OK;
    if (!e)
        s->capture = g;
    pthread_mutex_unlock(&dev_lock);
    if (e)
        free(g);
    return gshmem_emu_set_error(e);
}

int gshmem_emu_capture_end(void *stream, void **graph) {
    struct emu_stream *s = stream_of(stream);
    pthread_mutex_lock(&dev_lock);
    struct emu_graph *g = s->capture;
    s->capture = NULL;
    pthread_mutex_unlock(&dev_lock);
    if (!g || !graph)
        return gshmem_emu_set_error(E_INVALID_VALUE);
    g->refs = 1;
    *graph = g;
    return E_OK;
}

int gshmem_emu_capture_status(void *stream, int *capturing) {
    struct emu_stream *s = stream_of(stream);
    pthread_mutex_lock(&dev_lock);
    *capturing = s->capture != NULL;
    pthread_mutex_unlock(&dev_lock);
    return E_OK;
}

int gshmem_emu_graph_launch(void *graph, void *stream) {
    struct emu_graph *g = graph;
    if (!g)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    pthread_mutex_lock(&dev_lock);
    int e = E_OK;
    for (struct op *o = g->head; o && !e; o = o->next) {
        if (o->kind < 0)
            continue;
        struct op c = *o;
        if (c.kind == OP_RECORD) { /* each launch records the event anew */
            c.ev_target = ++c.ev->recorded;
        }
        e = enqueue_locked(stream_of(stream), &c);
    }
    pthread_mutex_unlock(&dev_lock);
    return gshmem_emu_set_error(e);
}

int gshmem_emu_graph_retain(void *graph) {
    struct emu_graph *g = graph;
    if (!g)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    __atomic_fetch_add(&g->refs, 1, __ATOMIC_RELAXED);
    return E_OK;
}

int gshmem_emu_graph_destroy(void *graph) {
    struct emu_graph *g = graph;
    if (!g)
        return gshmem_emu_set_error(E_INVALID_HANDLE);
    if (__atomic_sub_fetch(&g->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return E_OK;
    gshmem_emu_device_synchronize(); /* launches of it may still run */
    for (struct op *o = g->head, *n; o; o = n) {
        n = o->next;
        if (o->kind < 0 && o->k.release)
            o->k.release(o->k.closure);
        free(o);
    }
    free(g);
    return E_OK;
}

/* The graph's nodes are its captured operations, in order (the release-only entries are not nodes; a captured event
 * record or wait is one here, where CUDA makes nodes of them only with its External flags). As CUDA: NULL nodes asks
 * for the count; otherwise *count entries are filled, those past the last node with NULL, and *count becomes the
 * number of nodes returned. */
int gshmem_emu_graph_nodes(void *graph, void **nodes, size_t *count) {
    struct emu_graph *g = graph;
    if (!g || !count)
        return gshmem_emu_set_error(E_INVALID_VALUE);
    size_t n = 0;
    for (struct op *o = g->head; o; o = o->next) {
        if (o->kind < 0)
            continue;
        if (nodes && n < *count)
            nodes[n] = o;
        n++;
    }
    if (nodes) {
        for (size_t i = n; i < *count; i++)
            nodes[i] = NULL;
        if (n > *count)
            n = *count;
    }
    *count = n;
    return E_OK;
}

int gshmem_emu_node_type(void *node, int *type) {
    struct op *o = node;
    if (!o || !type || o->kind < 0)
        return gshmem_emu_set_error(E_INVALID_VALUE);
    /* cudaGraphNodeType values */
    static const int types[] = {[OP_KERNEL] = 0, [OP_COPY] = 1,   [OP_SET] = 2,    [OP_HOST] = 3,
                                [OP_WAIT] = 6,   [OP_RECORD] = 7, [OP_ALLOC] = 10, [OP_FREE] = 11};
    *type = types[o->kind];
    return E_OK;
}
