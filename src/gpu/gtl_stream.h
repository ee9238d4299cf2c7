/* gtl_stream.h - what the CUDA and HIP backends do alike. Both APIs queue work on streams and mark it with events, in
 * calls of the same shape under other names and types; each backend fills a struct gtl_stream_ops with thin calls of
 * its own API, and the code here keeps the streams, their lock, the pool of events that serve as pipeline tickets,
 * and the waited-for copies and kernel launches over them. (Level Zero's command lists are another shape.) */
#ifndef GSHMEM_GPU_GTL_STREAM_H
#define GSHMEM_GPU_GTL_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "shmemi.h"

/* Every call returns 0 on success, else the API's error code; event_query returns not_ready for work still queued.
 * The calls whose signatures are already these (streams and events are pointers, results ints in both APIs) are the
 * API's own functions; the rest are a line each in the backend. */
struct gtl_stream_ops {
    int (*copy)(void *dst, const void *src, size_t n, void *stream);
    int (*copy2d)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, void *stream);
    int (*memset)(void *dst, int byte, size_t n, void *stream);
    int (*sync)(void *stream);
    int (*launch)(void *fn, unsigned blocks, unsigned threads, void *stream, void **args);
    int (*event_create)(void **ev);
    int (*event_record)(void *ev, void *stream);
    int (*event_query)(void *ev);
    int (*event_sync)(void *ev);
    int (*event_destroy)(void *ev);
    int (*stream_create)(void **stream);
    int (*stream_destroy)(void *stream);
    int (*on_device)(const void *p); /* 1: p is device memory (of any device) */
    int (*device_sync)(void);        /* the whole device's work (the context's, every stream), from any thread */
    int not_ready;                   /* the API's "not ready" code */
};

#define GTLS_EV_POOL 64
/* Small copies as kernels (SHMEM_GPU_COPY_CUTOVER): the launch carries host data up to GTLS_INLINE_MAX bytes (under
 * the launch's 4 KiB of parameters); GPU data bound for the host goes through a bounce buffer of GTLS_BOUNCE_SIZE
 * bytes, page-locked and mapped */
#define GTLS_INLINE_MAX 3968
#define GTLS_BOUNCE_SIZE ((size_t)64 << 10)
struct gtl_streams {
    const struct gtl_stream_ops *op;
    void *stream;  /* synchronous work: one copy or kernel at a time, under lock, waited for */
    void *astream; /* pipelines' copies (copy_start): a synchronous copy never waits for them */
    int lock;      /* held across a stream synchronization (milliseconds at worst): waiters yield after a spin */
    void *ev_free[GTLS_EV_POOL];
    int ev_nfree;
    /* set by the backend after gtls_open when its kernels loaded (cutover 0: every copy on the copy engine):
     * kernels.cu's gshmemi_put_inline64/4k, gshmemi_copy_sm, and the bounce buffer, which the backend frees */
    size_t cutover;
    void *inline_fn[2], *copy_fn;
    unsigned char *bounce;
};

/* both streams; on failure the API's error, nothing left created */
SHMEMI_HIDDEN int gtls_open(struct gtl_streams *s, const struct gtl_stream_ops *op);
SHMEMI_HIDDEN void gtls_close(struct gtl_streams *s);
SHMEMI_HIDDEN void gtls_lock(struct gtl_streams *s);
SHMEMI_HIDDEN void gtls_unlock(struct gtl_streams *s);

/* The backend table's operations (0, or -1 on failure). Copies are waited for: OpenSHMEM's blocking routines promise
 * the source is reusable and (for gets) the data there when they return. gtls_copy runs those of up to cutover bytes
 * as kernels where it can. */
SHMEMI_HIDDEN int gtls_copy(struct gtl_streams *s, void *dst, const void *src, size_t n);
SHMEMI_HIDDEN int gtls_copy_start(struct gtl_streams *s, void *dst, const void *src, size_t n, void **ticket);
SHMEMI_HIDDEN int gtls_copy_end(struct gtl_streams *s, void *ticket, int wait); /* 1: not yet */
SHMEMI_HIDDEN int gtls_memset(struct gtl_streams *s, void *dst, int byte, size_t n);
SHMEMI_HIDDEN int gtls_copy2d(struct gtl_streams *s, void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height);

/* A kernel on the synchronous stream, waited for: gtls_run_locked with the lock held by the caller, returning the
 * API's result; gtls_run taking the lock, returning 0 or -1. */
SHMEMI_HIDDEN int gtls_run_locked(struct gtl_streams *s, void *fn, unsigned blocks, unsigned threads, void **args);
SHMEMI_HIDDEN int gtls_run(struct gtl_streams *s, void *fn, unsigned blocks, unsigned threads, void **args);

/* kernels.cu's atomic kernel amo_fn[size == 8] on p, its old value through the pinned, mapped word out */
SHMEMI_HIDDEN int gtls_amo(struct gtl_streams *s, void *const amo_fn[2], unsigned long long *out, void *p, int op,
                           uint64_t value, uint64_t cond, size_t size, uint64_t *old);
/* kernels.cu's reduction kernel fn over count elements: acc[i] = acc[i] op in[i]; 0, or 1 when it failed */
SHMEMI_HIDDEN int gtls_reduce(struct gtl_streams *s, void *fn, void *acc, const void *in, size_t count);

/* The backend's idle (gtl.h): device_sync on a thread of its own, waited for up to wait_s seconds; a thread left
 * waiting past them is abandoned (what asks ends the job then) */
SHMEMI_HIDDEN int gtls_idle(struct gtl_streams *s, int wait_s);

/* Backend table entries that put back the application's current device (or context) on the way out: `done` is the
 * backend's function that does it. */
#define GTLS_ENTRY(done, ret, name, params, args)                                                                      \
    static ret name##_e params {                                                                                       \
        ret r = name args;                                                                                             \
        done();                                                                                                        \
        return r;                                                                                                      \
    }
#define GTLS_ENTRY_VOID(done, name, params, args)                                                                      \
    static void name##_e params {                                                                                      \
        name args;                                                                                                     \
        done();                                                                                                        \
    }

#endif
