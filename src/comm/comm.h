/* comm.h - the communication layer: RMA, atomics, put-with-signal and waits on symmetric memory, whichever way the
 * peer is reached (mapped: loads, stores, copies; else the network transport); the back-off waiter every blocking
 * routine uses; and the job's liveness (a PE that left early). The generated typed API forwards here. */
#ifndef GSHMEM_COMM_H
#define GSHMEM_COMM_H

#include "state.h"

/* ---- RMA (nbytes = nelems * element size; fn = public routine name for error messages) ---- */
SHMEMI_HIDDEN void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn);
/* single element: value points at `size` bytes */
SHMEMI_HIDDEN void shmemi_p(shmem_ctx_t ctx, void *dest, const void *value, size_t size, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_g(shmem_ctx_t ctx, void *out, const void *src, size_t size, int pe, const char *fn);
/* strided: dst/sst strides in elements */
SHMEMI_HIDDEN void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                               size_t nelems, size_t elemsize, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                               size_t nelems, size_t elemsize, int pe, const char *fn);
/* blocked strided (1.6 ibput/ibget): nblocks blocks of bsize elements, strides in elements */
SHMEMI_HIDDEN void shmemi_ibput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                size_t bsize, size_t nblocks, size_t elemsize, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_ibget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                size_t bsize, size_t nblocks, size_t elemsize, int pe, const char *fn);

/* ---- put with signal ---- */
SHMEMI_HIDDEN void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                                     uint64_t signal, int sig_op, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_put_signal_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, const char *fn);

/* ---- atomics: value/cond hold the operand bits zero-extended to 64; returns the fetched bits ---- */
SHMEMI_HIDDEN uint64_t shmemi_amo(shmem_ctx_t ctx, int op, void *dest, uint64_t value, uint64_t cond, size_t size,
                                  int pe, const char *fn);
/* non-blocking fetching atomics: the fetched value is stored to `fetch` (size bytes) */
SHMEMI_HIDDEN void shmemi_amo_nbi(shmem_ctx_t ctx, int op, void *fetch, void *dest, uint64_t value, uint64_t cond,
                                  size_t size, int pe, const char *fn);

/* ---- point-to-point synchronization on a local symmetric variable of type dtype ---- */
/* value points at one element of dtype */
SHMEMI_HIDDEN void shmemi_wait_until(void *ivar, int cmp, const void *value, int dtype, const char *fn);
SHMEMI_HIDDEN int shmemi_test(void *ivar, int cmp, const void *value, int dtype, const char *fn);
/* mode: enum shmemi_wait_mode; block: 1 wait, 0 test; values: one element (vec=0) or nelems elements (vec=1);
 * status may be NULL; indices used by SOME. Returns: ALL -> 1 if satisfied (test) ; ANY -> index or SIZE_MAX;
 * SOME -> number of indices written. */
SHMEMI_HIDDEN size_t shmemi_wait_set(int mode, int block, void *ivars, size_t nelems, const int *status,
                                     size_t *indices, int cmp, const void *values, int vec, int dtype, const char *fn);

/* Back-off wait: spin, then yield, then sleep on this PE's bell until a peer's write rings it (with a timeout as a
 * safety net for wake-ups that race with going to sleep). */
struct shmemi_waiter {
    unsigned long iter;
    unsigned long turns; /* calls, never reset by the network's traffic as iter is: when the job counts it blocked */
    int sleeping;
    uint32_t seq;
    unsigned sleeps;
    const void *addr; /* the symmetric bytes waited on, or NULL for internal waits */
    size_t len;
    int driving;                           /* counted as driving the network provider (see shmemi_ofi_driving) */
    const char *fn;                        /* the routine waiting, for the message when the wait can never end */
    int blocked;                           /* counted in this PE's life.blocked */
    uint64_t next_scan, scan_sum, scan_t0; /* shmemi_life_tick's look at the job */
};
SHMEMI_HIDDEN void shmemi_waiter_pause(struct shmemi_waiter *w); /* spin/yield phases; sets up sleeping */
SHMEMI_HIDDEN void shmemi_waiter_sleep(struct shmemi_waiter *w); /* futex wait on bell (after re-check) */
SHMEMI_HIDDEN void shmemi_waiter_done(struct shmemi_waiter *w);

/* Waits until cond holds; fn names the routine for the message if the wait can never end (a PE left the job). */
#define SHMEMI_WAIT_FOR(cond, who) SHMEMI_WAIT_FOR_VAR(cond, NULL, 0, who)
#define SHMEMI_WAIT_FOR_VAR(cond, var, varlen, who)                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            struct shmemi_waiter w_ = {.addr = (var), .len = (varlen), .fn = (who)};                                   \
            for (;;) {                                                                                                 \
                shmemi_waiter_pause(&w_);                                                                              \
                if (cond)                                                                                              \
                    break;                                                                                             \
                if (w_.sleeping)                                                                                       \
                    shmemi_waiter_sleep(&w_);                                                                          \
            }                                                                                                          \
            shmemi_waiter_done(&w_);                                                                                   \
        }                                                                                                              \
    } while (0)

/* ---- leaving the job (liveness.c; the exit hook is runtime/exit.c) ----
 * A PE that ends without shmem_finalize: with a non-zero status the job is torn down at once; with status 0 it
 * finalizes at exit in a step of its own (never a barrier of the program's) and says so to every PE. A wait that
 * runs long counts its thread as blocked; once some PE has left that way, blocked waiters look at the whole job, and
 * when no PE can run any more (every one blocked, or gone into finalize) and it stays so, the job ends with a
 * message naming the PE that left and the routine the others wait in. Blocked waiters also read the state of the PEs
 * they reach over the network, without waiting for the answers: one silent for SHMEM_OFI_STALL_TIMEOUT is lost (a
 * link or node down) and ends the job, named with its address. */
/* GONE is never written: a reader's word for a PE whose process no longer exists */
enum shmemi_life_state { SHMEMI_LIFE_RUNNING, SHMEMI_LIFE_FINALIZING, SHMEMI_LIFE_LEFT, SHMEMI_LIFE_GONE };
/* From a waiter's slow path: marks it blocked, and checks the job once a PE has left. */
SHMEMI_HIDDEN void shmemi_life_tick(struct shmemi_waiter *w);
SHMEMI_HIDDEN void shmemi_life_unblock(struct shmemi_waiter *w);
/* At each shmem_init, before anything waits */
SHMEMI_HIDDEN void shmemi_liveness_init(void);
/* Finalize's synchronization: every PE enters it, from shmem_finalize or at exit (implicit = 1), and none leaves
 * before all have entered. Distinct from every barrier the program can call. */
SHMEMI_HIDDEN void shmemi_finalize_sync(int implicit);

/* ---- GPU memory: a buffer of this PE (symmetric or, with device awareness, local) in GPU memory? ---- */
SHMEMI_HIDDEN int shmemi_dev_local_slow(const void *p);
static inline int shmemi_dev_local(const void *p) { return SHMEMI_UNLIKELY(shmemi_rt.gpu) && shmemi_dev_local_slow(p); }

#endif
