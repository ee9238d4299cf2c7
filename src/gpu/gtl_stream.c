/* gtl_stream.c - the streams, event pool and waited-for work that the CUDA and HIP backends share (gtl_stream.h). */
#include "gpu/gtl_stream.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gtl.h"
#include "gpu/gtl_kernels.h"
#include "state.h"

int gtls_open(struct gtl_streams *s, const struct gtl_stream_ops *op) {
    memset(s, 0, sizeof *s);
    s->op = op;
    int r = op->stream_create(&s->stream);
    if (!r && (r = op->stream_create(&s->astream)) != 0) {
        op->stream_destroy(s->stream);
        s->stream = NULL;
    }
    return r;
}

void gtls_close(struct gtl_streams *s) {
    if (!s->op)
        return;
    if (s->stream)
        s->op->stream_destroy(s->stream);
    if (s->astream)
        s->op->stream_destroy(s->astream);
    s->stream = s->astream = NULL;
    while (s->ev_nfree)
        s->op->event_destroy(s->ev_free[--s->ev_nfree]);
}

void gtls_lock(struct gtl_streams *s) { shmemi_spin_lock(&s->lock); }
void gtls_unlock(struct gtl_streams *s) { shmemi_spin_unlock(&s->lock); }

/* the end of work queued on the synchronous stream under the lock (r: the queueing's result) */
static int wait_unlock(struct gtl_streams *s, int r) {
    if (!r)
        r = s->op->sync(s->stream);
    gtls_unlock(s);
    return r ? -1 : 0;
}

/* A copy of n <= cutover bytes as a kernel (under the lock): its launch costs less than a copy engine's start, and
 * host data up to GTLS_INLINE_MAX bytes needs no DMA at all. -1: not a case for a kernel (the copy engine's); else
 * the API's result (its codes are positive). */
static int small_copy(struct gtl_streams *s, void *dst, const void *src, size_t n) {
    int sd = s->op->on_device(src), dd = s->op->on_device(dst);
    unsigned long long len = n;
    if (!sd && dd) { /* host to GPU: the data inside the launch */
        if (n > GTLS_INLINE_MAX)
            return -1;
        struct {
            unsigned char b[GTLS_INLINE_MAX];
        } data;
        memcpy(data.b, src, n);
        void *d = dst, *args[] = {&d, &len, &data};
        return gtls_run_locked(s, s->inline_fn[n > 64], 1, n < 128 ? (unsigned)n : 128, args);
    }
    if (!sd || (!dd && n > GTLS_BOUNCE_SIZE))
        return -1;
    void *d = dd ? dst : (void *)s->bounce, *from = (void *)(uintptr_t)src, *args[] = {&d, &from, &len};
    unsigned threads = n < 256 ? (unsigned)n : 256, blocks = (unsigned)((n + 4095) / 4096);
    int r = gtls_run_locked(s, s->copy_fn, blocks > 64 ? 64 : blocks, threads, args);
    if (!r && !dd)
        memcpy(dst, s->bounce, n);
    return r;
}

int gtls_copy(struct gtl_streams *s, void *dst, const void *src, size_t n) {
    gtls_lock(s);
    if (n && n <= s->cutover && !shmemi_gtl_no_sm) { /* (the proxy's copies take the copy engine: no SM) */
        int r = small_copy(s, dst, src, n);
        if (r != -1) {
            gtls_unlock(s);
            return r ? -1 : 0;
        }
    }
    return wait_unlock(s, s->op->copy(dst, src, n, s->stream));
}

/* the copy on the pipelines' stream, then an event (from the pool) that completes with it: the ticket */
int gtls_copy_start(struct gtl_streams *s, void *dst, const void *src, size_t n, void **ticket) {
    gtls_lock(s);
    void *ev = s->ev_nfree ? s->ev_free[--s->ev_nfree] : NULL;
    int r = ev ? 0 : s->op->event_create(&ev);
    if (!r)
        r = s->op->copy(dst, src, n, s->astream);
    if (!r)
        r = s->op->event_record(ev, s->astream);
    if (r && ev)
        s->op->event_destroy(ev);
    gtls_unlock(s);
    if (r)
        return -1;
    *ticket = ev;
    return 0;
}

int gtls_copy_end(struct gtl_streams *s, void *ticket, int wait) {
    int r = wait ? s->op->event_sync(ticket) : s->op->event_query(ticket);
    if (r == s->op->not_ready)
        return 1;
    gtls_lock(s);
    if (s->ev_nfree < GTLS_EV_POOL && !r) /* an event that failed is not used again */
        s->ev_free[s->ev_nfree++] = ticket;
    else
        s->op->event_destroy(ticket);
    gtls_unlock(s);
    return r ? -1 : 0;
}

int gtls_memset(struct gtl_streams *s, void *dst, int byte, size_t n) {
    gtls_lock(s);
    return wait_unlock(s, s->op->memset(dst, byte, n, s->stream));
}

int gtls_copy2d(struct gtl_streams *s, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                size_t height) {
    gtls_lock(s);
    return wait_unlock(s, s->op->copy2d(dst, dpitch, src, spitch, width, height, s->stream));
}

int gtls_run_locked(struct gtl_streams *s, void *fn, unsigned blocks, unsigned threads, void **args) {
    int r = s->op->launch(fn, blocks, threads, s->stream, args);
    return r ? r : s->op->sync(s->stream);
}

int gtls_run(struct gtl_streams *s, void *fn, unsigned blocks, unsigned threads, void **args) {
    gtls_lock(s);
    int r = gtls_run_locked(s, fn, blocks, threads, args);
    gtls_unlock(s);
    return r ? -1 : 0;
}

/* One thread runs the atomic (kernels.cu's gshmemi_amo32/64 and their op codes, gtl_kernels.h); the old value comes
 * back through `out`, read under the lock since every atomic shares it. */
int gtls_amo(struct gtl_streams *s, void *const amo_fn[2], unsigned long long *out, void *p, int op, uint64_t value,
             uint64_t cond, size_t size, uint64_t *old) {
    if (op == SHMEMI_AMO_INC || op == SHMEMI_AMO_FETCH_INC)
        value = 1;
    int k = gtlk_amo_code(op);
    unsigned v32 = (unsigned)value, c32 = (unsigned)cond;
    void *pp = p;
    unsigned long long *o = out;
    void *args64[] = {&pp, &k, &value, &cond, &o};
    void *args32[] = {&pp, &k, &v32, &c32, &o};
    gtls_lock(s);
    int r = gtls_run_locked(s, amo_fn[size == 8], 1, 1, size == 8 ? args64 : args32);
    uint64_t v = *(volatile unsigned long long *)out;
    gtls_unlock(s);
    if (r)
        return -1;
    *old = size == 8 ? v : (uint32_t)v;
    return 0;
}

int gtls_reduce(struct gtl_streams *s, void *fn, void *acc, const void *in, size_t count) {
    unsigned long long n = count;
    unsigned threads = 256, blocks = (unsigned)((count + threads - 1) / threads);
    if (blocks > 4096)
        blocks = 4096; /* the kernel strides over the rest */
    void *a = acc, *b = (void *)(uintptr_t)in, *args[] = {&a, &b, &n};
    return gtls_run(s, fn, blocks, threads, args) ? 1 : 0;
}

/* The driver's device-wide synchronization blocks with no time limit and cannot be called off: it runs on a thread of
 * its own, and a wait that gives up leaves it there, its record freed by whichever of the two is last. */
struct idle_wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int (*sync)(void);
    int done, rc, abandoned;
};

static void *idle_main(void *arg) {
    struct idle_wait *w = arg;
    int rc = w->sync();
    pthread_mutex_lock(&w->mu);
    w->rc = rc;
    w->done = 1;
    int gone = w->abandoned;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (gone)
        free(w);
    return NULL;
}

int gtls_idle(struct gtl_streams *s, int wait_s) {
    if (!s->op || !s->op->device_sync)
        return -1;
    struct idle_wait *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->sync = s->op->device_sync;
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int e = pthread_create(&t, &a, idle_main, w);
    pthread_attr_destroy(&a);
    if (e) {
        free(w);
        return -1;
    }
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end); /* (the clock a default condition variable waits on) */
    end.tv_sec += wait_s;
    pthread_mutex_lock(&w->mu);
    while (!w->done)
        if (wait_s < 0)
            pthread_cond_wait(&w->cv, &w->mu);
        else if (pthread_cond_timedwait(&w->cv, &w->mu, &end) == ETIMEDOUT)
            break;
    int done = w->done;
    w->abandoned = !done;
    pthread_mutex_unlock(&w->mu);
    if (!done)
        return 1;
    free(w);
    return 0; /* (a failed kernel's error: it ended too, and the copies that report it follow) */
}
