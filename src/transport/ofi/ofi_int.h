/* ofi_int.h - the contract between the files of the libfabric transport (src/transport/ofi/ofi_*.c): the state they
 * share, the types of endpoints and messages, and the internal functions each file offers the others. */
#ifndef GSHMEM_OFI_INT_H
#define GSHMEM_OFI_INT_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "transport/ofi/ofi.h"

/* libfabric is loaded only when a job needs the network: linking it would load its providers' libraries into every
 * program, and one of them (PSM's libinfinipath) installs SIGINT/SIGTERM handlers at load time, which breaks
 * oshrun's signal forwarding for jobs that never touch the network. The few exported functions used here are looked
 * up; everything else in the libfabric API is inline calls through the objects' operation tables. */
struct shmemt_ofi_lf {
    void *dl;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
};
SHMEMI_HIDDEN extern struct shmemt_ofi_lf shmemt_ofi_lf;
#define fi_getinfo(...) shmemt_ofi_lf.getinfo(__VA_ARGS__)
#define fi_freeinfo(i) shmemt_ofi_lf.freeinfo(i)
#define fi_dupinfo(i) shmemt_ofi_lf.dupinfo(i)
#define fi_allocinfo() shmemt_ofi_lf.dupinfo(NULL)
#define fi_fabric(...) shmemt_ofi_lf.fabric(__VA_ARGS__)
#define fi_strerror(e) shmemt_ofi_lf.strerror(e)

#define OFI_VERSION FI_VERSION(1, 17)
#define NSEG (SHMEMI_MAX_SEGS + 1) /* user segments, then the control block */
#define ADDR_MAX 56

struct ofi_ep {
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fid_cntr *cntr; /* counts every completed operation posted on ep (writes, reads, atomics) */
    uint64_t posted;       /* operations posted (atomic: threads may share an endpoint) */
    uint64_t done;         /* a value of `posted` at which every operation was seen complete (see all_done) */
    uint64_t errs_seen;
    /* Writes and non-fetching atomics count as complete when the provider has taken them (rxm over tcp counts an
     * injected write at once), not when they landed. Quiet therefore reads one word back from every PE written
     * since the last quiet: on an ordered connection (FI_ORDER_RMA_RAW) the read returns after the writes landed. */
    unsigned char *dirty; /* [n_pes] */
    /* A non-fetching atomic (or a signal) was sent since the last quiet. The target applies it after the fabric has
     * placed writes that follow it (our atomic messages wait for a thread to take them off the queue; rxm's native
     * ones likewise), and libfabric orders atomics against atomics and writes against writes, not the two together:
     * so a fence after one is a quiet. */
    uint32_t amo_pending;
    /* Small puts that a quiet soon follows ask the provider for delivery completion (see small_put_delivered). */
    uint32_t small_puts; /* small puts since the last quiet (atomic: threads may share an endpoint) */
    int deliver;         /* small puts go out delivery-complete, awaited by the counter, not marked dirty */
    /* send buffers of put-with-signal messages past the inject size (allocated at first use): their completions
     * come to this endpoint's queue, so only driving it frees them */
    struct am_sbuf *sbufs;
    uint32_t snext;
    int *dirty_list, ndirty;
    pthread_mutex_t dirty_lock;
    /* Held through a quiet. Threads share an endpoint, and one thread's quiet takes every PE off the dirty list, the
     * marks of other threads' writes included: a quiet that finds the list empty must still wait until the flushes of
     * the quiet in progress are answered. For the same reason writes and atomics are marked after they are posted
     * (mark_dirty): a mark another thread's quiet takes is then one of an operation its flush follows. */
    pthread_mutex_t quiet_lock;
    uint64_t sink;
    /* FI_MR_LOCAL: registrations of the local buffers of non-blocking transfers, closed by the next quiet (under
     * dirty_lock) */
    struct fid_mr **tmp;
    int ntmp, tmpcap;
};

/* A blocking operation waited for through its own completion (see wait_op): one progress call per turn of the wait
 * loop, where the completion counter would take two (reading a counter drives the provider too). */
struct op_done {
    struct fi_context fc; /* first: the completion's op_context points here */
    uint32_t left;
    uint32_t heap; /* a send buffer of one send (see am_get), given back on completion: SBUF_MALLOC or SBUF_POOL */
};
enum { SBUF_MALLOC = 1, SBUF_POOL };

/* ---- atomics as messages, for providers without fabric atomics (net in libfabric 1.17) ----
 * The initiator sends the operation; whichever thread of the target drives the provider (a waiter, a blocked call,
 * or the progress thread) applies it with a CPU atomic and, for fetching ones, sends the old value back. Every
 * atomic on a word is then a CPU atomic on its owner, so mapped peers and the PE itself keep using CPU atomics too.
 * Messages from one peer are applied in arrival order (one thread at a time, under am_lock), and the provider
 * delivers a message after the writes posted before it (FI_ORDER_SAW): a flush message answered by a peer means
 * everything sent to it before has landed, which is what quiet needs. */
enum { AM_POST, AM_FETCH, AM_FLUSH, AM_REPLY, AM_PUTSIG, AM_PUT, AM_GET, AM_GOT };
/* AM_PUTSIG (a put and its signal as one message, the data after the header): seg and off place the data, token is
 * its length; the signal is op (SHMEMI_AMO_SET or ADD) of value on the word at offset cond of segment `size`.
 * AM_PUT: the same without the signal. AM_GET asks for cond bytes at off of segment seg; the answer, AM_GOT, carries
 * them to address `value` of the asker and counts down its am_slot at token. */
struct am_msg {
    uint8_t kind, op, size, seg;
    int32_t from;
    uint64_t off, value, cond, token;
};
/* A put of up to shmemt_ofi.am_data (AM_DATA, or less where the provider's messages are shorter) bytes and its signal
 * travel as one message: by fi_inject up to the provider's inject size, else from a send buffer (am_sbuf). Two
 * messages (a write, then the signal) cost 1.25-2.2x OSHMEM's broadcast at 512 B-4 KiB; with 4 KiB messages, 8 KiB
 * put-with-signal took 14-16 us over net, with 16 KiB ones 9 us (2 PEs, 2 cores). */
#define AM_DATA 16384
struct am_rbuf {
    struct fi_context fc; /* first: the completion's op_context points here */
    struct am_msg m;
    char data[AM_DATA];
};
/* Send buffers for messages past the inject size, taken in turn; one is free again when its send completed. */
#define AM_NSEND 32
struct am_sbuf {
    struct op_done d;  /* first: the completion's op_context points here; d.left = 1 while in use */
    struct fid_mr *mr; /* with mr_local: its registration (the ring's or the pool's, or its own if malloc'd) */
    struct am_msg m;
    char data[AM_DATA];
};
struct am_slot { /* on the initiator's stack until every reply came */
    uint32_t left;
    uint64_t result;
};
#define AM_NBUF 128 /* 2 MiB */

/* A loop waiting on the provider (a post it keeps refusing with -FI_EAGAIN, a completion that does not come) that
 * goes on for SHMEM_OFI_STALL_TIMEOUT seconds ends the job with a message instead of hanging: a provider that
 * cannot reach a peer (udp;ofi_rxd here never sends anything) or a peer gone wrong. It warns once after 10 s. Every
 * peer serves requests within milliseconds when it has a progress thread, so the default (-1) waits 120 s then, and
 * forever without one (a peer outside the library serves nothing until it calls in). The clock is read every 256
 * turns only. */
struct stall {
    uint64_t t0;
    uint32_t n;
    int warned;
    int fds_checked;
};

/* ---- local buffers, for providers that need them registered (FI_MR_LOCAL: verbs, efa) ----
 * The segments are registered for local use as well, and found by address; message buffers are registered when they
 * are made. Anything else (a private buffer, a word on the stack) goes through a buffer of the calling thread's
 * (`scratch`: operands of atomics, the quiet's read-back, blocking transfers of up to SCRATCH bytes) or is registered
 * for the one transfer: closed when a blocking one returns, by the next quiet for a non-blocking one. With
 * SHMEM_OFI_MR_LOCAL=1 a provider that does not need it takes the same paths (that is how they are tested here). */
#define SCRATCH 65536
struct scratch {
    char *buf;
    struct fid_mr *mr;
    void *desc;
    uint64_t gen;
    struct scratch *next;
};

struct shmemt_ofi_state {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct ofi_ep ep0;
    fi_addr_t *addr;         /* [n_pes] */
    struct fid_mr *mr[NSEG]; /* this PE's registrations */
    uint64_t *key[NSEG];     /* [n_pes] peers' keys */
    uint64_t *base[NSEG];    /* [n_pes] peers' remote addresses of offset 0 */
    size_t max_msg, inject;  /* transfer limits */
    int ordered;             /* RMA and atomics to one peer are applied in order (read-after-write included) */
    int amo_ok[2][SHMEMI_AMO_XOR + 1]; /* [size==8][op]: native; else emulated with compare-and-swap */
    int am;                            /* no fabric atomics: atomics are messages applied by the target (see am_*) */
    int hmem;          /* the provider registers GPU memory (FI_HMEM): asked for with the CUDA backend */
    uint64_t gpu_ok;   /* bit si: every PE registered its GPU segment si (peers reach it over the net) */
    int stage;         /* a GPU segment not registered (no FI_HMEM) is reached by messages its owner applies (staged) */
    int mr_local;      /* the provider needs every local buffer of a transfer registered (FI_MR_LOCAL: verbs, efa) */
    void *lbase[NSEG]; /* with mr_local: the host segments registered for local use too, by address */
    size_t llen[NSEG];
    uint64_t tmp_key;        /* requested keys of registrations for one transfer (providers without FI_MR_PROV_KEY) */
    struct fid_mr *am_mr;    /* with mr_local: the receive buffers' registration */
    struct am_rbuf *am_bufs; /* receive buffers of messages: with atomics as messages, or for staging */
    size_t am_inline;        /* data bytes a put-with-signal message may carry through fi_inject */
    size_t am_data;          /* data bytes a message may carry (AM_DATA, or less on a provider with short messages) */
    /* am_lock: one thread at a time takes messages off the queue and applies them, in order. Only ever tried (a
     * thread that finds it taken leaves the queue to its holder), so a flag does: a mutex's lock and unlock were 4% of
     * the polling of a fetch-add loop. */
    uint32_t am_lock;
    pthread_t progress;
    int progress_on, wait_fd, stop_pipe[2];
    int sleep_queue; /* the progress thread looks at and sleeps on a queue of its own (see own_queue_fd) */
    char desc[160];
};
/* (ofi_init.c) */
SHMEMI_HIDDEN extern struct shmemt_ofi_state shmemt_ofi;

/* what each PE tells the others at connect: its endpoint's address, its segments' keys and bases */
struct ofi_card {
    uint32_t addrlen, pad;
    char addr[ADDR_MAX];
    uint64_t key[NSEG], base[NSEG];
    uint64_t gpu_ok; /* bit si: GPU segment si registered */
    int64_t pid;
};

/* ---- ofi_init.c ---- */
/* For the message of a call that failed with rc (a libfabric or errno code, either sign): when it is EMFILE, the
 * process is out of file descriptors (the tcp provider's sockets, one per peer reached), and this writes into buf
 * what to do: the limits and about how many descriptors the job needs. Returns buf ("" for any other rc). */
SHMEMI_HIDDEN const char *shmemt_ofi_fd_hint(int rc, char *buf, size_t len);
/* 1 when this process can open no more file descriptors (at its `ulimit -n`) */
SHMEMI_HIDDEN int shmemt_ofi_fds_exhausted(void);

/* ---- ofi_progress.c: driving the provider, completions, waits, the progress thread ---- */
SHMEMI_HIDDEN __attribute__((noreturn)) void shmemt_ofi_fatal(const char *what, int rc);
SHMEMI_HIDDEN void shmemt_ofi_check_errors(struct ofi_ep *e, int cq_says);
SHMEMI_HIDDEN int shmemt_ofi_drive(struct ofi_ep *e);
SHMEMI_HIDDEN int shmemt_ofi_all_done(struct ofi_ep *e);
SHMEMI_HIDDEN void shmemt_ofi_stall_check(struct stall *s, const char *what, int pe, int refused);
SHMEMI_HIDDEN void shmemt_ofi_wait_posted(struct ofi_ep *e);
SHMEMI_HIDDEN void shmemt_ofi_wait_op(struct ofi_ep *e, struct op_done *d);
SHMEMI_HIDDEN void shmemt_ofi_ticks_start(void);
SHMEMI_HIDDEN int shmemt_ofi_progress_start(void);
SHMEMI_HIDDEN void shmemt_ofi_progress_stop(void);

/* ---- ofi_mr.c: registration of the segments and of local buffers (FI_MR_LOCAL) ---- */
SHMEMI_HIDDEN extern uint64_t shmemt_ofi_net_gen; /* raised by each init: a scratch buffer of an earlier one is gone */
SHMEMI_HIDDEN void shmemt_ofi_lrec_add(const void *p, size_t len, struct fid_mr *mr);
SHMEMI_HIDDEN void shmemt_ofi_lclose(struct fid_mr *mr);
SHMEMI_HIDDEN void shmemt_ofi_lcheck(const void *p, size_t len, void *desc, const char *what);
SHMEMI_HIDDEN struct fid_mr *shmemt_ofi_lreg(void *p, size_t len, uint64_t access, const char *fn);
SHMEMI_HIDDEN struct scratch *shmemt_ofi_scratch(void);
SHMEMI_HIDDEN void shmemt_ofi_scratch_close_all(void);
SHMEMI_HIDDEN int shmemt_ofi_seg_desc(const void *p, size_t len, void **desc);
SHMEMI_HIDDEN void shmemt_ofi_defer_close(struct ofi_ep *e, struct fid_mr *mr);
SHMEMI_HIDDEN void shmemt_ofi_wait_release(struct ofi_ep *e);
/* This PE's segments (user segments, the control block) registered for remote access, keys and bases in *mine; 0 or
 * -1 with a message in err. */
SHMEMI_HIDDEN int shmemt_ofi_mr_segs_open(const struct fi_info *i, struct ofi_card *mine, char *err, size_t errlen);
/* Peers' keys and bases, from the cards of all n PEs; 0 or -1 with a message in err. */
SHMEMI_HIDDEN int shmemt_ofi_mr_segs_keys(const struct ofi_card *all, int n, char *err, size_t errlen);
SHMEMI_HIDDEN void shmemt_ofi_mr_segs_close(void);

/* ---- ofi_ep.c: endpoints, and the private ones of contexts ---- */
SHMEMI_HIDDEN int shmemt_ofi_ep_open(struct ofi_ep *e, int wait_fd, char *err, size_t errlen);
SHMEMI_HIDDEN void shmemt_ofi_ep_close(struct ofi_ep *e);
/* closes the endpoints of contexts the program did not destroy (finalize) */
SHMEMI_HIDDEN void shmemt_ofi_ctx_eps_close(void);

/* ---- ofi_rma.c: puts, gets, quiet and fence, collectives' traffic, probes ---- */
SHMEMI_HIDDEN void shmemt_ofi_quiet_ep(struct ofi_ep *e);
/* a peer's slot for liveness probes (see ofi_rma.c) */
#define PROBE_MAX 64
enum { PROBE_IDLE, PROBE_REFUSED, PROBE_FLYING };
struct probe {
    struct op_done d; /* first: left is 1 while the read is in flight */
    int state;
    uint64_t since; /* CLOCK_MONOTONIC ns of the first try of the read now asked for */
    _Alignas(8) unsigned char buf[PROBE_MAX];
};
SHMEMI_HIDDEN extern struct probe *shmemt_ofi_probes;     /* [n_pes] */
SHMEMI_HIDDEN extern struct fid_mr *shmemt_ofi_probes_mr; /* with mr_local */

/* ---- ofi_amo.c: atomics ---- */
enum { K_WRITE, K_FETCH, K_CSWAP };
/* what each AMO is in libfabric terms */
SHMEMI_HIDDEN extern const struct ofi_amo_map {
    int kind;
    enum fi_op op;
} shmemt_ofi_amo_map[SHMEMI_AMO_XOR + 1];

/* ---- ofi_am.c: messages (atomics as messages, put-with-signal messages, staged GPU data) ---- */
/* Receive buffers of answers (to this PE's fetching atomics and gets), posted again by the next drive instead of
 * before the waiting caller sees its answer: posting one is a provider call on the caller's path, and the next drive
 * comes after the caller's next request went out. Under am_lock. */
#define AM_LATER 16
SHMEMI_HIDDEN extern struct am_rbuf *shmemt_ofi_am_later[AM_LATER];
SHMEMI_HIDDEN extern int shmemt_ofi_am_nlater;
SHMEMI_HIDDEN extern size_t shmemt_ofi_am_bufs_bytes;
SHMEMI_HIDDEN void shmemt_ofi_am_post_later(void);
SHMEMI_HIDDEN void shmemt_ofi_am_handle(struct ofi_ep *e, struct am_rbuf *b);
SHMEMI_HIDDEN void shmemt_ofi_am_send(struct ofi_ep *e, int pe, const struct am_msg *m, int in_handler);
SHMEMI_HIDDEN void shmemt_ofi_am_send_putsig(struct ofi_ep *e, int pe, const struct am_msg *m, const void *src,
                                             size_t len);
SHMEMI_HIDDEN int shmemt_ofi_am_post(struct ofi_ep *e, struct am_rbuf *b);
SHMEMI_HIDDEN struct shmemi_seg *shmemt_ofi_am_seg(int si);
SHMEMI_HIDDEN void shmemt_ofi_sbuf_free(void *b);
SHMEMI_HIDDEN void shmemt_ofi_am_wait_for(struct ofi_ep *e, struct am_slot *slot, uint32_t most);
SHMEMI_HIDDEN void shmemt_ofi_am_wait(struct ofi_ep *e, struct am_slot *slot);
SHMEMI_HIDDEN void *shmemt_ofi_pages_alloc(size_t bytes, size_t *rounded);
SHMEMI_HIDDEN int shmemt_ofi_am_setup(const struct fi_info *i, char *err, size_t errlen);

/* ---- ofi_stage.c: GPU segments the provider did not register, reached through their owners' host memory ---- */
/* Staged puts into GPU memory whose copies are still queued on the GPU (see am_putsig); under am_lock */
SHMEMI_HIDDEN extern int shmemt_ofi_am_nfly;
SHMEMI_HIDDEN void shmemt_ofi_am_fly_reap(struct ofi_ep *e, int wait);
SHMEMI_HIDDEN int shmemt_ofi_am_put_gpu(struct ofi_ep *e, struct am_rbuf *b);
SHMEMI_HIDDEN int shmemt_ofi_am_get_gpu(const struct am_msg *m);
SHMEMI_HIDDEN void shmemt_ofi_am_get(struct ofi_ep *e, const struct am_msg *m);
SHMEMI_HIDDEN void shmemt_ofi_am_got(const struct am_rbuf *b);
SHMEMI_HIDDEN void shmemt_ofi_get_sbuf_put(void *b);
SHMEMI_HIDDEN void shmemt_ofi_staged_put(struct ofi_ep *e, struct shmemi_seg *s, size_t off, const void *src,
                                         size_t len, int pe);
SHMEMI_HIDDEN void shmemt_ofi_staged_get(struct ofi_ep *e, struct shmemi_seg *s, size_t off, void *dst, size_t len,
                                         int pe);
SHMEMI_HIDDEN void shmemt_ofi_stage_pin(void);
SHMEMI_HIDDEN void shmemt_ofi_stage_unpin(void);

/* ---- ofi_regions.c: the shm provider's /dev/shm regions ---- */
SHMEMI_HIDDEN extern int *shmemt_ofi_peer_pids;
SHMEMI_HIDDEN extern int shmemt_ofi_npeer_pids;
SHMEMI_HIDDEN void shmemt_ofi_regions_note(void);
SHMEMI_HIDDEN void shmemt_ofi_regions_guard(void);
SHMEMI_HIDDEN void shmemt_ofi_regions_unguard(void);

/* ---- small helpers of the hot paths ---- */
static inline int seg_index(const struct shmemi_seg *s) {
    return s == &shmemi_rt.internal ? SHMEMI_MAX_SEGS : (int)(s - shmemi_rt.segs);
}

static inline struct ofi_ep *ep_of(shmem_ctx_t ctx) {
    if (ctx && ctx != SHMEM_CTX_DEFAULT && ctx->net)
        return ctx->net;
    return &shmemt_ofi.ep0;
}

/* after the operation is posted (see quiet_lock) */
static inline void mark_dirty(struct ofi_ep *e, int pe) {
    if (__atomic_load_n(&e->dirty[pe], __ATOMIC_RELAXED))
        return;
    pthread_mutex_lock(&e->dirty_lock);
    if (!e->dirty[pe]) {
        __atomic_store_n(&e->dirty[pe], 1, __ATOMIC_RELAXED); /* (read without the lock above) */
        e->dirty_list[e->ndirty++] = pe;
    }
    pthread_mutex_unlock(&e->dirty_lock);
}

/* whether [p, p+n) lies within [b, b+len) */
static inline int covers(const void *b, size_t len, const void *p, size_t n) {
    const char *c = p, *o = b;
    return o && c >= o && (size_t)(c - o) <= len && n <= len - (size_t)(c - o);
}

/* Drives e from a wait loop (turn n of it). While a thread of this PE waits, the progress thread stands down, so one
 * waiting on a private context's endpoint drives endpoint 0 too, every few turns: peers' requests and new connections
 * arrive there, its own endpoints' included (rxm connects a private endpoint to endpoint 0 of the target, this PE's
 * own for an operation on itself, and waits for that endpoint to accept). */
static inline void drive_waiting(struct ofi_ep *e, unsigned long n) {
    shmemt_ofi_drive(e);
    if (e != &shmemt_ofi.ep0 && !(n & 3))
        shmemt_ofi_drive(&shmemt_ofi.ep0);
}

/* A blocked call's wait loop: spin, then yield, then nap (peers may need this CPU, e.g. PEs oversubscribed). */
static inline void backoff(unsigned long *spins) {
    if (++*spins <= 64)
        return;
    if (*spins < 4096) {
        sched_yield();
    } else {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

static inline uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int am_ours(const void *ctx) {
    const struct am_rbuf *b = ctx;
    return b >= shmemt_ofi.am_bufs && b < shmemt_ofi.am_bufs + AM_NBUF;
}

static inline int staged(const struct shmemi_seg *s) {
    return SHMEMI_UNLIKELY(s->kind == SHMEMI_MEM_DEVICE) && !((shmemt_ofi.gpu_ok >> seg_index(s)) & 1);
}

/* Posts with retry: a full transmit queue (-FI_EAGAIN) drains by driving progress. */
#define POST(e, call, what)                                                                                            \
    do {                                                                                                               \
        ssize_t rc_;                                                                                                   \
        unsigned long n_ = 0;                                                                                          \
        struct stall st_ = {0};                                                                                        \
        __atomic_fetch_add(&(e)->posted, 1, __ATOMIC_SEQ_CST); /* before: see wait_posted */                           \
        while ((rc_ = (call)) == -FI_EAGAIN) {                                                                         \
            drive_waiting(e, n_);                                                                                      \
            if (++n_ > 64)                                                                                             \
                sched_yield();                                                                                         \
            shmemt_ofi_stall_check(&st_, what, -1, 1);                                                                 \
        }                                                                                                              \
        if (rc_)                                                                                                       \
            shmemt_ofi_fatal(what, (int)rc_);                                                                          \
    } while (0)

#endif
