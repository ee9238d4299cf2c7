
/* ofi.c - the libfabric transport (see ofi.h for the design in brief and docs/transport.md for the reasons). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <dlfcn.h>

#include "bootstrap/bootstrap.h"
#include "gpu/gtl.h"
#include "transport/ofi/ofi.h"

/* libfabric is loaded only when a job needs the network: linking it would load its providers' libraries into every
 * program, and one of them (PSM's libinfinipath) installs SIGINT/SIGTERM handlers at load time, which breaks
 * oshrun's signal forwarding for jobs that never touch the network. The few exported functions used here are looked
 * up; everything else in the libfabric API is inline calls through the objects' operation tables. */
static struct {
    void *dl;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
} lf;
#define fi_getinfo(...) lf.getinfo(__VA_ARGS__)
#define fi_freeinfo(i) lf.freeinfo(i)
#define fi_dupinfo(i) lf.dupinfo(i)
#define fi_allocinfo() lf.dupinfo(NULL)
#define fi_fabric(...) lf.fabric(__VA_ARGS__)
#define fi_strerror(e) lf.strerror(e)

static int load_libfabric(char *err, size_t errlen) {
    if (lf.dl)
        return 0;
    void *dl = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        snprintf(err, errlen,
                 "libfabric transport: cannot load libfabric.so.1 (%s); install libfabric (Debian: libfabric1), or run "
                 "every PE on one node",
                 dlerror());
        return -1;
    }
    *(void **)&lf.getinfo = dlsym(dl, "fi_getinfo");
    *(void **)&lf.freeinfo = dlsym(dl, "fi_freeinfo");
    *(void **)&lf.dupinfo = dlsym(dl, "fi_dupinfo");
    *(void **)&lf.fabric = dlsym(dl, "fi_fabric");
    *(void **)&lf.strerror = dlsym(dl, "fi_strerror");
    if (!lf.getinfo || !lf.freeinfo || !lf.dupinfo || !lf.fabric || !lf.strerror) {
        snprintf(err, errlen, "libfabric transport: libfabric.so.1 lacks fi_getinfo/fi_fabric/...: too old?");
        dlclose(dl);
        return -1;
    }
    lf.dl = dl;
    return 0;
}

#define OFI_VERSION FI_VERSION(1, 17)
#define NSEG (SHMEMI_MAX_SEGS + 1) /* user segments, then the control block */
#define ADDR_MAX 56

int shmemi_ofi_up;

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

static struct {
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
} net = {.wait_fd = -1, .stop_pipe = {-1, -1}};

/* Threads of this PE that are driving the provider themselves (blocked in an operation or spinning in a wait). The
 * progress thread stands down while there are any: on a machine with few cores, two threads fighting over the
 * endpoint lock cost more than either one alone (get latency 26 us with both, 13 us with one). It also stays down
 * while they come and go quickly (a loop of blocking gets leaves the library for a few microseconds between them):
 * waking it after every call cost 30-70% of the latency. `epoch` counts starts, so the progress thread can tell.
 *
 * While one stretch of driving goes on for long (a PE waiting in a barrier or for a flag while peers read from it),
 * the progress thread leaves altogether and `absent` says so; whoever stops driving last starts it again (see
 * respawn), so a PE outside the library always has one. A process with a second thread pays on every system call:
 * the kernel counts references on each file it touches once the descriptor table is shared (epoll_wait 100-140 ns
 * alone, 155-195 ns with a sleeping thread beside it, here), and a network round trip makes several such calls. */
static uint32_t drivers, parked, handoff, absent;
static uint64_t epoch;

static void *progress_main(void *arg);

static void wake_progress(void) {
    if (__atomic_load_n(&parked, __ATOMIC_SEQ_CST))
        syscall(SYS_futex, &drivers, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Called by the thread that brought `drivers` to 0: if the progress thread left, bring it back before this PE goes
 * back to its own work (a few tens of microseconds, once per long stretch of driving). The exchange on `absent` makes
 * sure one thread does it, and pairs with the departing thread's own claim (see leave). */
static void respawn(void) {
    uint32_t one = 1;
    if (SHMEMI_LIKELY(!__atomic_load_n(&absent, __ATOMIC_SEQ_CST)) ||
        !__atomic_compare_exchange_n(&absent, &one, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return;
    pthread_join(net.progress, NULL); /* it has returned, or is returning */
    shmemi_debug("progress thread started again: this PE stops driving the provider");
    if ((errno = pthread_create(&net.progress, NULL, progress_main, NULL)))
        shmemi_fatal("shmem (libfabric transport)",
                     "cannot start the progress thread again: %s (peers' operations on this PE would wait for it "
                     "to call the library; SHMEM_OFI_PROGRESS_THREAD=0 runs without one from the start)",
                     strerror(errno));
}

void shmemi_ofi_driving(int how) {
    switch (how) {
    case SHMEMI_DRIVE_START:
        __atomic_fetch_add(&drivers, 1, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&epoch, 1, __ATOMIC_RELAXED);
        return;
    case SHMEMI_DRIVE_HANDOFF:
        __atomic_store_n(&handoff, 1, __ATOMIC_SEQ_CST);
        if (__atomic_sub_fetch(&drivers, 1, __ATOMIC_SEQ_CST) == 0) {
            wake_progress();
            respawn();
        }
        return;
    default:
        if (__atomic_sub_fetch(&drivers, 1, __ATOMIC_SEQ_CST) == 0)
            respawn();
    }
}

static inline int seg_index(const struct shmemi_seg *s) {
    return s == &shmemi_rt.internal ? SHMEMI_MAX_SEGS : (int)(s - shmemi_rt.segs);
}

static __attribute__((noreturn)) void ofi_fatal(const char *what, int rc) {
    shmemi_fatal(what, "libfabric error %d (%s) on provider %s", rc, fi_strerror(rc < 0 ? -rc : rc),
                 net.info ? net.info->fabric_attr->prov_name : "?");
}

static inline struct ofi_ep *ep_of(shmem_ctx_t ctx) {
    if (ctx && ctx != SHMEM_CTX_DEFAULT && ctx->net)
        return ctx->net;
    return &net.ep0;
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

/* ---- completion ---- */
/* A failed operation raises the counter's error count; `cq_says` when the queue itself reports an error entry. */
static void check_errors(struct ofi_ep *e, int cq_says) {
    uint64_t errs = fi_cntr_readerr(e->cntr);
    if (SHMEMI_LIKELY(errs == e->errs_seen && !cq_says))
        return;
    struct fi_cq_err_entry ce = {0};
    char buf[256] = "";
    if (fi_cq_readerr(e->cq, &ce, 0) > 0)
        fi_cq_strerror(e->cq, ce.prov_errno, ce.err_data, buf, sizeof buf);
    shmemi_fatal("shmem (libfabric transport)",
                 "a network operation failed on provider %s: %s%s%s (a peer may have exited, or a transfer exceeded "
                 "what the provider allows)",
                 net.info->fabric_attr->prov_name, ce.err ? fi_strerror(ce.err) : "error counter raised",
                 *buf ? ": " : "", buf);
}

struct am_rbuf;
static void am_handle(struct ofi_ep *e, struct am_rbuf *b);
/* Receive buffers of answers (to this PE's fetching atomics and gets), posted again by the next drive instead of
 * before the waiting caller sees its answer: posting one is a provider call on the caller's path, and the next drive
 * comes after the caller's next request went out. Under am_lock. */
#define AM_LATER 16
static struct am_rbuf *am_later[AM_LATER];
static int am_nlater;
static void am_post_later(void);
/* Staged puts into GPU memory whose copies are still queued on the GPU (see am_putsig); under am_lock */
static int am_nfly;
static void am_fly_reap(struct ofi_ep *e, int wait);
static int am_ours(const void *ctx);
enum { K_WRITE, K_FETCH, K_CSWAP };

/* A blocking operation waited for through its own completion (see wait_op): one progress call per turn of the wait
 * loop, where the completion counter would take two (reading a counter drives the provider too). */
struct op_done {
    struct fi_context fc; /* first: the completion's op_context points here */
    uint32_t left;
    uint32_t heap; /* a send buffer of one send (see am_get), given back on completion: SBUF_MALLOC or SBUF_POOL */
};
enum { SBUF_MALLOC = 1, SBUF_POOL };
static void get_sbuf_put(void *b);
static void sbuf_free(void *b);

static void op_completed(void *ctx) {
    struct op_done *d = ctx;
    if (d && d->heap == SBUF_POOL)
        get_sbuf_put(d);
    else if (d && d->heap)
        sbuf_free(d);
    else if (d)
        __atomic_sub_fetch(&d->left, 1, __ATOMIC_RELEASE);
}

/* Drives the provider once; returns how many completions it took off the queue (atomic messages included). */
static int drive(struct ofi_ep *e) {
    struct fi_cq_entry ent[8];
    if (!net.am_bufs) {
        ssize_t n = fi_cq_read(e->cq, ent, 8);
        for (ssize_t i = 0; i < n; i++)
            op_completed(ent[i].op_context);
        if (n == -FI_EAVAIL)
            check_errors(e, 1);
        return n > 0 ? (int)n : 0;
    }
    if (__atomic_load_n(&net.am_lock, __ATOMIC_RELAXED) || __atomic_exchange_n(&net.am_lock, 1, __ATOMIC_ACQUIRE))
        return 0; /* another thread is applying messages, in order: let it */
    if (am_nlater)
        am_post_later();
    ssize_t n = fi_cq_read(e->cq, ent, 8);
    for (ssize_t i = 0; i < n; i++)
        if (am_ours(ent[i].op_context))
            am_handle(e, (struct am_rbuf *)ent[i].op_context);
        else
            op_completed(ent[i].op_context);
    if (am_nfly)
        am_fly_reap(e, 0);
    __atomic_store_n(&net.am_lock, 0, __ATOMIC_RELEASE);
    if (n == -FI_EAVAIL)
        check_errors(e, 1);
    return n > 0 ? (int)n : 0;
}

/* Drives e from a wait loop (turn n of it). While a thread of this PE waits, the progress thread stands down, so one
 * waiting on a private context's endpoint drives endpoint 0 too, every few turns: peers' requests and new connections
 * arrive there, its own endpoints' included (rxm connects a private endpoint to endpoint 0 of the target, this PE's
 * own for an operation on itself, and waits for that endpoint to accept). */
static inline void drive_waiting(struct ofi_ep *e, unsigned long n) {
    drive(e);
    if (e != &net.ep0 && !(n & 3))
        drive(&net.ep0);
}

/* Waits until every operation posted on e so far has completed (remote completion: delivery-complete semantics).
 * Completions come out of order, so with threads sharing the endpoint "counter >= what was posted when I began" could
 * count a later operation of another thread in place of mine. Instead: `posted` is raised before each post, and all is
 * complete when the counter reaches it with no post in between (the counter can never run ahead of it). */
static int all_done(struct ofi_ep *e) {
    uint64_t p1 = __atomic_load_n(&e->posted, __ATOMIC_ACQUIRE);
    if (p1 == __atomic_load_n(&e->done, __ATOMIC_ACQUIRE)) /* nothing posted since all was last seen complete */
        return 1;
    uint64_t c = fi_cntr_read(e->cntr);
    uint64_t p2 = __atomic_load_n(&e->posted, __ATOMIC_ACQUIRE);
    if (c < p1 || p1 != p2)
        return 0;
    uint64_t d = __atomic_load_n(&e->done, __ATOMIC_RELAXED);
    while (d < p1 && !__atomic_compare_exchange_n(&e->done, &d, p1, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
    return 1;
}

/* A blocked call's wait loop: spin, then yield, then nap (peers may need this CPU, e.g. PEs oversubscribed). */
static void backoff(unsigned long *spins) {
    if (++*spins <= 64)
        return;
    if (*spins < 4096) {
        sched_yield();
    } else {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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
};

static int stall_limit(void) {
    int s = shmemi_env.ofi_stall_timeout;
    return s >= 0 ? s : shmemi_env.ofi_progress ? 120 : 0;
}

static void stall_check(struct stall *s, const char *what, int pe, int refused) {
    if (SHMEMI_LIKELY(++s->n & 255))
        return;
    int limit = stall_limit();
    if (!limit)
        return;
    uint64_t t = mono_ns();
    if (!s->t0) {
        s->t0 = t;
        return;
    }
    uint64_t secs = (t - s->t0) / 1000000000u;
    char whom[48] = "";
    if (pe >= 0)
        snprintf(whom, sizeof whom, " (PE %d)", pe);
    const char *why = refused ? "the provider refuses every new operation (-FI_EAGAIN)"
                              : "an operation on the network has not completed";
    if (secs >= (uint64_t)limit)
        shmemi_fatal(
            "shmem (libfabric transport)",
            "%s: no progress for %d s on libfabric provider %s%s: %s. A peer may have stopped or be unreachable "
            "from here, or the provider does not work on this network (pick another with "
            "SHMEM_OFI_PROVIDER); SHMEM_OFI_STALL_TIMEOUT sets this limit in seconds (0: wait forever)",
            what, limit, net.info->fabric_attr->prov_name, whom, why);
    if (secs >= 10 && limit > 10 && !s->warned) {
        s->warned = 1;
        fprintf(stderr,
                "gshmem: PE %d: shmem (libfabric transport): %s: no progress for 10 s on libfabric provider %s%s: %s; "
                "still waiting (the job "
                "stops after %d s: SHMEM_OFI_STALL_TIMEOUT)\n",
                shmemi_rt.my_pe, what, net.info->fabric_attr->prov_name, whom, why, limit);
    }
}

static void wait_posted(struct ofi_ep *e) {
    unsigned long spins = 0;
    if (all_done(e))
        return;
    struct stall st = {0};
    shmemi_ofi_driving(SHMEMI_DRIVE_START);
    while (!all_done(e)) {
        if ((spins & 63) == 63) /* (reading the error count drives the provider again: not every turn) */
            check_errors(e, 0);
        drive_waiting(e, spins);
        backoff(&spins);
        stall_check(&st, "waiting for transfers to complete", -1, 0);
    }
    shmemi_ofi_driving(SHMEMI_DRIVE_STOP);
}

static void wait_op(struct ofi_ep *e, struct op_done *d) {
    unsigned long spins = 0;
    if (!__atomic_load_n(&d->left, __ATOMIC_ACQUIRE))
        return;
    struct stall st = {0};
    shmemi_ofi_driving(SHMEMI_DRIVE_START);
    while (__atomic_load_n(&d->left, __ATOMIC_ACQUIRE)) {
        drive_waiting(e, spins); /* (a failed operation leaves an error entry on the queue: drive reports it) */
        backoff(&spins);
        stall_check(&st, "waiting for a transfer to complete", -1, 0);
    }
    shmemi_ofi_driving(SHMEMI_DRIVE_STOP);
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
            stall_check(&st_, what, -1, 1);                                                                            \
        }                                                                                                              \
        if (rc_)                                                                                                       \
            ofi_fatal(what, (int)rc_);                                                                                 \
    } while (0)

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
static __thread struct scratch *my_scratch;
static struct scratch *all_scratch; /* every thread's, to close at finalize (the structures themselves stay) */
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t net_gen; /* raised by each init: a scratch buffer of an earlier one is gone */

/* With SHMEM_OFI_MR_LOCAL=1 every transfer is checked as a provider that needs it would check it: each local buffer
 * lies in a live registration, whose descriptor goes with it (software providers ignore descriptors, so nothing else
 * here would notice one missing). */
/* whether [p, p+n) lies within [b, b+len) */
static inline int covers(const void *b, size_t len, const void *p, size_t n) {
    const char *c = p, *o = b;
    return o && c >= o && (size_t)(c - o) <= len && n <= len - (size_t)(c - o);
}

static struct lrec {
    const char *p;
    size_t len;
    struct fid_mr *mr;
} * lrecs;
static int nlrecs, lrecs_cap;
static pthread_mutex_t lrecs_lock = PTHREAD_MUTEX_INITIALIZER;

static void lrec_add(const void *p, size_t len, struct fid_mr *mr) {
    if (!shmemi_env.ofi_mr_local)
        return;
    pthread_mutex_lock(&lrecs_lock);
    if (nlrecs == lrecs_cap) {
        int cap = lrecs_cap ? 2 * lrecs_cap : 64;
        struct lrec *r = realloc(lrecs, (size_t)cap * sizeof *r);
        if (!r)
            shmemi_fatal("shmem (libfabric transport)", "out of memory for SHMEM_OFI_MR_LOCAL's checks");
        lrecs = r;
        lrecs_cap = cap;
    }
    lrecs[nlrecs++] = (struct lrec){p, len, mr};
    pthread_mutex_unlock(&lrecs_lock);
}

static void lclose(struct fid_mr *mr) {
    if (shmemi_env.ofi_mr_local) {
        pthread_mutex_lock(&lrecs_lock);
        for (int k = 0; k < nlrecs; k++)
            if (lrecs[k].mr == mr) {
                lrecs[k] = lrecs[--nlrecs];
                break;
            }
        pthread_mutex_unlock(&lrecs_lock);
    }
    fi_close(&mr->fid);
}

static void lcheck(const void *p, size_t len, void *desc, const char *what) {
    if (!shmemi_env.ofi_mr_local)
        return;
    int ok = 0;
    pthread_mutex_lock(&lrecs_lock);
    for (int k = 0; k < nlrecs && !ok; k++)
        ok = covers(lrecs[k].p, lrecs[k].len, p, len) && fi_mr_desc(lrecs[k].mr) == desc;
    pthread_mutex_unlock(&lrecs_lock);
    if (!ok)
        shmemi_fatal(what,
                     "internal error: a local buffer (%p, %zu bytes) goes to the provider without a registration and "
                     "its descriptor; a provider that needs them (FI_MR_LOCAL) would fail here",
                     p, len);
}

static struct fid_mr *lreg(void *p, size_t len, uint64_t access, const char *fn) {
    struct fid_mr *mr;
    uint64_t key = __atomic_fetch_add(&net.tmp_key, 1, __ATOMIC_RELAXED);
    int rc = fi_mr_reg(net.domain, p, len, access, 0, key, 0, &mr, NULL);
    if (rc)
        shmemi_fatal(fn,
                     "cannot register a local buffer of %zu bytes with provider %s, which needs it (FI_MR_LOCAL): %s "
                     "(a symmetric buffer needs no registration of its own)",
                     len, net.info->fabric_attr->prov_name, fi_strerror(-rc));
    lrec_add(p, len, mr);
    return mr;
}

static struct scratch *scratch(void) {
    struct scratch *s = my_scratch;
    if (SHMEMI_LIKELY(s && s->gen == net_gen))
        return s;
    int fresh = !s;
    if (fresh && !(s = calloc(1, sizeof *s)))
        shmemi_fatal("shmem (libfabric transport)", "out of memory for a thread's registered buffer");
    if (posix_memalign((void **)&s->buf, 4096, SCRATCH))
        shmemi_fatal("shmem (libfabric transport)", "out of memory for a thread's registered buffer");
    s->mr = lreg(s->buf, SCRATCH, FI_READ | FI_WRITE, "shmem (libfabric transport)");
    s->desc = fi_mr_desc(s->mr);
    pthread_mutex_lock(&scratch_lock);
    s->gen = net_gen;
    if (fresh) {
        s->next = all_scratch;
        all_scratch = s;
    }
    pthread_mutex_unlock(&scratch_lock);
    my_scratch = s;
    return s;
}

static void scratch_close_all(void) {
    pthread_mutex_lock(&scratch_lock);
    for (struct scratch *s = all_scratch; s; s = s->next)
        if (s->gen == net_gen && s->mr) {
            lclose(s->mr);
            free(s->buf);
            s->mr = NULL;
            s->buf = NULL;
            s->gen = 0;
        }
    pthread_mutex_unlock(&scratch_lock);
}

/* Whether [p, p+len) lies in a segment registered for local use; *desc is then its descriptor. */
static int seg_desc(const void *p, size_t len, void **desc) {
    for (int si = 0; si < NSEG; si++) {
        if (covers(net.lbase[si], net.llen[si], p, len)) {
            *desc = fi_mr_desc(net.mr[si]);
            return 1;
        }
    }
    return 0;
}

/* A registration for one non-blocking transfer just posted on e: closed by the next quiet. */
static void defer_close(struct ofi_ep *e, struct fid_mr *mr) {
    pthread_mutex_lock(&e->dirty_lock);
    if (e->ntmp == e->tmpcap) {
        int cap = e->tmpcap ? 2 * e->tmpcap : 16;
        struct fid_mr **t = realloc(e->tmp, (size_t)cap * sizeof *t);
        if (!t)
            shmemi_fatal("shmem (libfabric transport)", "out of memory for registrations of local buffers");
        e->tmp = t;
        e->tmpcap = cap;
    }
    e->tmp[e->ntmp] = mr;
    __atomic_store_n(&e->ntmp, e->ntmp + 1, __ATOMIC_RELAXED); /* (wait_release reads it without the lock) */
    pthread_mutex_unlock(&e->dirty_lock);
}

/* wait_posted, then closes the registrations deferred before it began (their transfers were posted before). */
static void wait_release(struct ofi_ep *e) {
    if (SHMEMI_LIKELY(!__atomic_load_n(&e->ntmp, __ATOMIC_RELAXED))) {
        wait_posted(e);
        return;
    }
    pthread_mutex_lock(&e->dirty_lock);
    struct fid_mr **t = e->tmp;
    int n = e->ntmp;
    e->tmp = NULL;
    __atomic_store_n(&e->ntmp, 0, __ATOMIC_RELAXED);
    e->tmpcap = 0;
    pthread_mutex_unlock(&e->dirty_lock);
    wait_posted(e);
    for (int k = 0; k < n; k++)
        lclose(t[k]);
    free(t);
}

/* what each AMO is in libfabric terms */
static const struct {
    int kind;
    enum fi_op op;
} amo_map[SHMEMI_AMO_XOR + 1] = {
    [SHMEMI_AMO_FETCH] = {K_FETCH, FI_ATOMIC_READ}, [SHMEMI_AMO_SET] = {K_WRITE, FI_ATOMIC_WRITE},
    [SHMEMI_AMO_SWAP] = {K_FETCH, FI_ATOMIC_WRITE}, [SHMEMI_AMO_CSWAP] = {K_CSWAP, FI_CSWAP},
    [SHMEMI_AMO_FETCH_INC] = {K_FETCH, FI_SUM},     [SHMEMI_AMO_INC] = {K_WRITE, FI_SUM},
    [SHMEMI_AMO_FETCH_ADD] = {K_FETCH, FI_SUM},     [SHMEMI_AMO_ADD] = {K_WRITE, FI_SUM},
    [SHMEMI_AMO_FETCH_AND] = {K_FETCH, FI_BAND},    [SHMEMI_AMO_AND] = {K_WRITE, FI_BAND},
    [SHMEMI_AMO_FETCH_OR] = {K_FETCH, FI_BOR},      [SHMEMI_AMO_OR] = {K_WRITE, FI_BOR},
    [SHMEMI_AMO_FETCH_XOR] = {K_FETCH, FI_BXOR},    [SHMEMI_AMO_XOR] = {K_WRITE, FI_BXOR},
};

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
/* A put of up to net.am_data (AM_DATA, or less where the provider's messages are shorter) bytes and its signal
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

static int am_ours(const void *ctx) {
    const struct am_rbuf *b = ctx;
    return b >= net.am_bufs && b < net.am_bufs + AM_NBUF;
}

static void am_send_len(struct ofi_ep *e, int pe, const struct am_msg *m, size_t len, int in_handler) {
    ssize_t rc;
    unsigned long n = 0;
    struct stall st = {0};
    while ((rc = fi_inject(e->ep, m, len, net.addr[pe])) == -FI_EAGAIN) {
        if (in_handler)
            (void)fi_cntr_read(e->cntr); /* progress without taking messages (we hold am_lock) */
        else
            drive_waiting(e, n);
        if (++n > 64)
            sched_yield();
        stall_check(&st, "fi_inject (atomic message)", pe, 1);
    }
    if (rc)
        ofi_fatal("fi_inject (atomic message)", (int)rc);
}

static void am_send(struct ofi_ep *e, int pe, const struct am_msg *m, int in_handler) {
    am_send_len(e, pe, m, sizeof *m, in_handler);
}

static void sbuf_free(void *b) {
    struct am_sbuf *sb = b;
    if (sb->mr)
        lclose(sb->mr);
    free(sb);
}

static int am_post(struct ofi_ep *e, struct am_rbuf *b) {
    struct iovec iov = {.iov_base = &b->m, .iov_len = sizeof b->m + sizeof b->data};
    void *desc = net.am_mr ? fi_mr_desc(net.am_mr) : NULL;
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = &b->fc};
    if (SHMEMI_UNLIKELY(net.mr_local))
        lcheck(iov.iov_base, iov.iov_len, desc, "shmem (libfabric transport, receive buffers)");
    ssize_t rc;
    struct stall st = {0};
    while ((rc = fi_recvmsg(e->ep, &msg, FI_COMPLETION)) == -FI_EAGAIN) {
        (void)fi_cntr_read(e->cntr);
        stall_check(&st, "fi_recvmsg (receive buffers)", -1, 1);
    }
    return (int)rc;
}

static struct shmemi_seg *am_seg(int si) {
    return si == SHMEMI_MAX_SEGS ? &shmemi_rt.internal : si < shmemi_rt.nsegs ? &shmemi_rt.segs[si] : NULL;
}

/* A peer's atomic on this PE's GPU memory, sent as a message (the provider has no atomics of its own on it): a
 * kernel of ours runs it, so it needs a free SM on this PE's GPU even when the thread serving it is the proxy, which
 * otherwise never launches one (docs/device.md: with such a provider, a kernel that holds every SM must not wait for
 * a peer's atomic on its GPU memory). */
static uint64_t peer_gpu_amo(void *p, int op, uint64_t value, uint64_t cond, size_t size, const char *fn) {
    int saved = shmemi_gtl_no_sm;
    shmemi_gtl_no_sm = 0;
    uint64_t r = shmemi_gtl_amo(p, op, value, cond, size, fn);
    shmemi_gtl_no_sm = saved;
    return r;
}

static void am_putsig(const struct am_rbuf *b) {
    const struct am_msg *m = &b->m;
    int put = m->kind == AM_PUT;
    struct shmemi_seg *sg = am_seg(m->seg), *ss = put ? sg : am_seg(m->size);
    if (!sg || !ss || m->token > AM_DATA || m->off + m->token > sg->map_size ||
        (!put && ((m->cond & 7) || m->cond + 8 > ss->map_size || (m->op != SHMEMI_AMO_SET && m->op != SHMEMI_AMO_ADD))))
        shmemi_fatal("shmem (libfabric transport)", "malformed put message from PE %d", (int)m->from);
    const char *fn =
        put ? "shmem_put (libfabric transport, staged GPU data)" : "shmem_put_signal (libfabric transport)";
    if (sg->kind == SHMEMI_MEM_DEVICE)
        shmemi_gtl_copy((char *)sg->base + m->off, b->data, m->token, fn);
    else
        memcpy((char *)sg->base + m->off, b->data, m->token);
    if (put) {
        shmemi_wake_after_traffic();
        return;
    }
    uint64_t *sig = (uint64_t *)(void *)((char *)ss->base + m->cond);
    if (ss->kind == SHMEMI_MEM_DEVICE)
        peer_gpu_amo(sig, m->op, m->value, 0, 8, fn);
    else if (m->op == SHMEMI_AMO_SET)
        __atomic_store_n(sig, m->value, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(sig, m->value, __ATOMIC_RELEASE);
    shmemi_wake_after_traffic();
}

/* Sends a put-with-signal message: header m, then len bytes of data. The data is copied, so src may be reused at
 * once. */
static void am_send_putsig(struct ofi_ep *e, int pe, const struct am_msg *m, const void *src, size_t len) {
    if (len <= net.am_inline) {
        struct {
            struct am_msg m;
            char data[AM_DATA];
        } b;
        b.m = *m;
        memcpy(b.data, src, len);
        am_send_len(e, pe, &b.m, sizeof b.m + len, 0);
        return;
    }
    /* a free send buffer: the next in turn, once its previous send completed (another thread may take it first) */
    struct am_sbuf *sb, *ring = __atomic_load_n(&e->sbufs, __ATOMIC_ACQUIRE);
    unsigned long spins = 0;
    struct stall st = {0};
    if (!ring) { /* first use: threads sharing the endpoint may race; one allocation wins */
        struct am_sbuf *fresh = calloc(AM_NSEND, sizeof *fresh);
        if (!fresh)
            shmemi_fatal("shmem_put_signal (libfabric transport)", "out of memory for send buffers");
        struct fid_mr *mr = net.mr_local ? lreg(fresh, AM_NSEND * sizeof *fresh, FI_SEND, "shmem_put_signal") : NULL;
        for (int k = 0; k < AM_NSEND; k++)
            fresh[k].mr = mr;
        if (__atomic_compare_exchange_n(&e->sbufs, &ring, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            ring = fresh;
        } else {
            if (mr)
                lclose(mr);
            free(fresh);
        }
    }
    for (;;) {
        sb = &ring[__atomic_fetch_add(&e->snext, 1, __ATOMIC_RELAXED) % AM_NSEND];
        uint32_t free_ = 0;
        if (__atomic_compare_exchange_n(&sb->d.left, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            break;
        drive_waiting(e, spins);
        backoff(&spins);
        stall_check(&st, "waiting for a send buffer", pe, 0);
    }
    sb->m = *m;
    memcpy(sb->data, src, len);
    struct iovec iov = {.iov_base = &sb->m, .iov_len = sizeof sb->m + len};
    void *desc = sb->mr ? fi_mr_desc(sb->mr) : NULL;
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = net.addr[pe], .context = &sb->d.fc};
    if (SHMEMI_UNLIKELY(net.mr_local))
        lcheck(iov.iov_base, iov.iov_len, desc, "shmem_put_signal (libfabric transport)");
    ssize_t rc;
    spins = 0;
    st = (struct stall){0};
    while ((rc = fi_sendmsg(e->ep, &msg, FI_COMPLETION | FI_INJECT_COMPLETE)) == -FI_EAGAIN) {
        drive_waiting(e, spins);
        backoff(&spins);
        stall_check(&st, "fi_sendmsg (put with signal)", pe, 1);
    }
    if (rc)
        ofi_fatal("fi_sendmsg (put with signal)", (int)rc);
}

static void am_serve(struct ofi_ep *e, struct am_msg m) {
    if (m.kind == AM_REPLY) {
        struct am_slot *slot = (struct am_slot *)(uintptr_t)m.token;
        slot->result = m.value;
        __atomic_sub_fetch(&slot->left, 1, __ATOMIC_RELEASE);
        return;
    }
    struct am_msg r = {.kind = AM_REPLY, .token = m.token, .from = (int32_t)shmemi_rt.my_pe};
    if (m.from < 0 || m.from >= shmemi_rt.n_pes)
        shmemi_fatal("shmem (libfabric transport)", "malformed atomic message (from PE %d)", (int)m.from);
    if (m.kind != AM_FLUSH) {
        struct shmemi_seg *sg = am_seg(m.seg);
        if (!sg || (m.size != 4 && m.size != 8) || m.off + m.size > sg->map_size || m.op > SHMEMI_AMO_XOR)
            shmemi_fatal("shmem (libfabric transport)", "malformed atomic message from PE %d", (int)m.from);
        void *p = (char *)sg->base + m.off;
        r.value = sg->kind == SHMEMI_MEM_DEVICE
                      ? peer_gpu_amo(p, m.op, m.value, m.cond, m.size, "shmem atomic (libfabric transport)")
                      : shmemi_amo_cpu(p, m.op, m.value, m.cond, m.size);
        if (m.op != SHMEMI_AMO_FETCH) /* wakes a sleeper only if the word it watches changed, as for fabric data */
            shmemi_wake_after_traffic();
        if (m.kind == AM_POST)
            return;
    }
    am_send(e, m.from, &r, 1);
}

/* Send buffers of staged gets' answers: from a pool pinned for the GPU driver (a copy out of GPU memory into pinned
 * memory is one DMA; into pageable memory the driver copies through a pinned buffer of its own), else allocated for
 * the one send. Taken and given back under am_lock (am_get and op_completed run in drive). */
#define GET_POOL 64
static struct am_sbuf *get_pool, *get_free[GET_POOL];
static int get_nfree;
static size_t get_pool_bytes;

static struct am_sbuf *get_sbuf_take(void) {
    struct am_sbuf *sb = get_nfree ? get_free[--get_nfree] : malloc(sizeof *sb);
    if (!sb)
        shmemi_fatal("shmem_get (libfabric transport, staged GPU data)", "out of memory for a send buffer");
    sb->d.heap = sb >= get_pool && sb < get_pool + GET_POOL ? SBUF_POOL : SBUF_MALLOC;
    if (sb->d.heap == SBUF_MALLOC)
        sb->mr =
            net.mr_local ? lreg(sb, sizeof *sb, FI_SEND, "shmem_get (libfabric transport, staged GPU data)") : NULL;
    return sb;
}

static void get_sbuf_put(void *b) { get_free[get_nfree++] = b; }

/* Sends the answer of a staged get (data in sb, copied out of the segment) to PE `to`. */
static void am_get_send(struct ofi_ep *e, struct am_sbuf *sb, int to) {
    struct iovec iov = {.iov_base = &sb->m, .iov_len = sizeof sb->m + sb->m.cond};
    void *desc = sb->mr ? fi_mr_desc(sb->mr) : NULL;
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = net.addr[to], .context = &sb->d.fc};
    if (SHMEMI_UNLIKELY(net.mr_local))
        lcheck(iov.iov_base, iov.iov_len, desc, "shmem_get (libfabric transport, staged GPU data)");
    ssize_t rc;
    unsigned long n = 0;
    struct stall st = {0};
    while ((rc = fi_sendmsg(e->ep, &msg, FI_COMPLETION)) == -FI_EAGAIN) {
        (void)fi_cntr_read(e->cntr); /* progress without taking messages (we hold am_lock) */
        if (++n > 64)
            sched_yield();
        stall_check(&st, "fi_sendmsg (staged get answer)", to, 1);
    }
    if (rc)
        ofi_fatal("fi_sendmsg (staged get)", (int)rc);
}

static void am_fly_push(struct ofi_ep *e, struct am_rbuf *b, struct am_sbuf *sb, int to, void *dst, const void *src,
                        size_t len);

/* AM_GET on the owner of a staged GPU segment: the data is copied out into a send buffer of its own, given back when
 * the send completes (this runs under am_lock, where waiting for a buffer of the ring could wait for completions
 * only this thread would take off the queue). Out of GPU memory the copy is queued (see am_fly) and the answer sent
 * when it is done, so the next requests are taken meanwhile. */
static void am_get(struct ofi_ep *e, const struct am_msg *m) {
    struct shmemi_seg *sg = am_seg(m->seg);
    if (!sg || m->cond > AM_DATA || m->off + m->cond > sg->map_size || m->from < 0 || m->from >= shmemi_rt.n_pes)
        shmemi_fatal("shmem (libfabric transport)", "malformed get message from PE %d", (int)m->from);
    struct am_sbuf *sb = get_sbuf_take();
    sb->m = (struct am_msg){
        .kind = AM_GOT, .from = (int32_t)shmemi_rt.my_pe, .value = m->value, .cond = m->cond, .token = m->token};
    if (sg->kind == SHMEMI_MEM_DEVICE) {
        am_fly_push(e, NULL, sb, (int)m->from, sb->data, (char *)sg->base + m->off, m->cond);
        return;
    }
    memcpy(sb->data, (char *)sg->base + m->off, m->cond);
    am_get_send(e, sb, (int)m->from);
}

static void am_got(const struct am_rbuf *b) {
    if (b->m.cond > AM_DATA)
        shmemi_fatal("shmem (libfabric transport)", "malformed get answer from PE %d", (int)b->m.from);
    memcpy((void *)(uintptr_t)b->m.value, b->data, b->m.cond);
    __atomic_sub_fetch(&((struct am_slot *)(uintptr_t)b->m.token)->left, 1, __ATOMIC_RELEASE);
}

/* Staged data moved by queued GPU copies (am_fly): a put's copy into GPU memory, after which its receive buffer is
 * posted again, and a get's copy out of it, after which the answer is sent. The owner takes the next messages while
 * the GPU copies instead of waiting for each 16 KiB. Copies are queued in order, gets' behind the puts before them;
 * every other message waits for all queued copies first (am_handle), so a flush, a signal or an atomic after puts
 * finds their data in place. Under am_lock. */
#define AM_FLY 64 /* receive buffers held: half of AM_NBUF */
static struct am_fly {
    struct am_rbuf *b;  /* a put's receive buffer, or NULL */
    struct am_sbuf *sb; /* a get's answer, or NULL */
    int to;             /* (the get's asker) */
    void *ticket;
} am_fly[AM_FLY];
static int am_fly_head;

static void am_fly_push(struct ofi_ep *e, struct am_rbuf *b, struct am_sbuf *sb, int to, void *dst, const void *src,
                        size_t len) {
    if (am_nfly == AM_FLY) /* the oldest one first */
        am_fly_reap(e, 2);
    void *t = shmemi_gtl_copy_start(dst, src, len, "shmem (libfabric transport, staged GPU data)");
    am_fly[(am_fly_head + am_nfly++) % AM_FLY] = (struct am_fly){b, sb, to, t};
}

static int am_put_gpu(struct ofi_ep *e, struct am_rbuf *b) {
    const struct am_msg *m = &b->m;
    struct shmemi_seg *sg = am_seg(m->seg);
    if (m->kind != AM_PUT || !sg || sg->kind != SHMEMI_MEM_DEVICE || m->token > AM_DATA ||
        m->off + m->token > sg->map_size)
        return 0; /* (malformed ones are reported by am_putsig) */
    am_fly_push(e, b, NULL, 0, (char *)sg->base + m->off, b->data, m->token);
    return 1;
}

/* Finishes the staged copies that are done: wait 0 only those done now, 1 all (waiting), 2 the oldest (waiting).
 * With e NULL (finalize) nothing is posted or sent. */
static void am_fly_reap(struct ofi_ep *e, int wait) {
    int reaped = 0;
    while (am_nfly) {
        struct am_fly f = am_fly[am_fly_head];
        if (shmemi_gtl_copy_end(f.ticket, wait != 0, "shmem (libfabric transport, staged GPU data)"))
            break; /* not yet, nor the ones queued after it */
        am_fly_head = (am_fly_head + 1) % AM_FLY;
        am_nfly--;
        if (f.b) {
            reaped = 1;
            int rc = e ? am_post(&net.ep0, f.b) : 0; /* (every receive buffer is endpoint 0's) */
            if (rc)
                ofi_fatal("fi_recvmsg (atomic messages)", rc);
        } else if (e) {
            am_get_send(&net.ep0, f.sb, f.to);
        } else if (f.sb->d.heap == SBUF_POOL) {
            get_sbuf_put(f.sb);
        } else {
            sbuf_free(f.sb);
        }
        if (wait == 2)
            break;
    }
    if (reaped)
        shmemi_wake_after_traffic();
}

/* a get of GPU data: its copy may queue behind the ones already queued */
static int am_get_gpu(const struct am_msg *m) {
    struct shmemi_seg *sg = m->kind == AM_GET ? am_seg(m->seg) : NULL;
    return sg && sg->kind == SHMEMI_MEM_DEVICE;
}

static void am_handle(struct ofi_ep *e, struct am_rbuf *b) {
    int answer = b->m.kind == AM_GOT || b->m.kind == AM_REPLY;
    if (am_put_gpu(e, b))
        return;
    if (am_nfly && !am_get_gpu(&b->m))
        am_fly_reap(e, 1);
    if (b->m.kind == AM_PUTSIG || b->m.kind == AM_PUT)
        am_putsig(b);
    else if (b->m.kind == AM_GET)
        am_get(e, &b->m);
    else if (b->m.kind == AM_GOT)
        am_got(b);
    else
        am_serve(e, b->m); /* the answer first: posting the buffer again is off the peer's critical path */
    if (answer && am_nlater < AM_LATER) {
        am_later[am_nlater++] = b;
        return;
    }
    int rc = am_post(e, b);
    if (rc)
        ofi_fatal("fi_recvmsg (atomic messages)", rc);
}

static void am_post_later(void) {
    while (am_nlater) {
        int rc = am_post(&net.ep0, am_later[--am_nlater]); /* (every receive buffer is endpoint 0's) */
        if (rc)
            ofi_fatal("fi_recvmsg (atomic messages)", rc);
    }
}

/* Waits until at most `most` answers are still to come. */
static void am_wait_for(struct ofi_ep *e, struct am_slot *slot, uint32_t most) {
    unsigned long spins = 0;
    if (__atomic_load_n(&slot->left, __ATOMIC_ACQUIRE) <= most)
        return;
    struct stall st = {0};
    shmemi_ofi_driving(SHMEMI_DRIVE_START);
    while (__atomic_load_n(&slot->left, __ATOMIC_ACQUIRE) > most) {
        drive(&net.ep0); /* replies come to endpoint 0, whichever endpoint sent the request */
        if (e != &net.ep0)
            drive(e);
        if ((spins & 63) == 63)
            check_errors(e, 0);
        backoff(&spins);
        stall_check(&st, "waiting for a peer's answer", -1, 0);
    }
    shmemi_ofi_driving(SHMEMI_DRIVE_STOP);
}

static void am_wait(struct ofi_ep *e, struct am_slot *slot) { am_wait_for(e, slot, 0); }

static uint64_t am_amo(struct ofi_ep *e, int op, int si, size_t off, uint64_t value, uint64_t cond, size_t size,
                       int pe) {
    struct am_slot slot = {.left = 1};
    int fetch = amo_map[op].kind != K_WRITE;
    struct am_msg m = {.kind = fetch ? AM_FETCH : AM_POST,
                       .op = (uint8_t)op,
                       .size = (uint8_t)size,
                       .seg = (uint8_t)si,
                       .from = (int32_t)shmemi_rt.my_pe,
                       .off = off,
                       .value = value,
                       .cond = cond,
                       .token = (uint64_t)(uintptr_t)&slot};
    am_send(e, pe, &m, 0);
    if (!fetch) {
        mark_dirty(e, pe); /* applied by the next flush */
        __atomic_store_n(&e->amo_pending, 1, __ATOMIC_RELAXED);
        return 0;
    }
    am_wait(e, &slot);
    return slot.result;
}

/* How quiet learns that a put landed. By default a small put is injected and counts as complete once sent (net and
 * rxm raise the counter of an injected write at transmit), so quiet sends one more message to each PE written (a
 * read-back or a flush) and waits for its answer: put + quiet was 1.6x a get (15.7 against 9.5 us over net). Asked
 * for delivery completion, the provider answers the write itself once the data is in the target's memory, and quiet
 * only waits for the counter: put + quiet then costs a get. Yet that answer is traffic the target sends and the
 * initiator takes on every put, which doubled a p/wait_until ping-pong (4.7 -> 10.7 us). So a small put asks for it
 * only while quiets come soon after puts: a quiet that finds at most DELIVER_PUTS small puts since the previous one
 * turns it on, more than LEAVE_PUTS small puts without a quiet turn it off. Both kinds are correct (the other kind is
 * marked dirty and flushed); the choice only moves the cost. */
#define DELIVER_PUTS 4
#define LEAVE_PUTS 16

static int small_put_delivered(struct ofi_ep *e, const void *src, size_t len, int pe, uint64_t raddr, uint64_t key) {
    uint32_t k = __atomic_add_fetch(&e->small_puts, 1, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&e->deliver, __ATOMIC_RELAXED))
        return 0;
    if (k > LEAVE_PUTS) {
        __atomic_store_n(&e->deliver, 0, __ATOMIC_RELAXED);
        return 0;
    }
    struct iovec iov = {.iov_base = (void *)(uintptr_t)src, .iov_len = len};
    struct fi_rma_iov rio = {.addr = raddr, .len = len, .key = key};
    void *desc = NULL; /* (injected: the provider copies the source before returning) */
    struct fi_msg_rma m = {
        .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = net.addr[pe], .rma_iov = &rio, .rma_iov_count = 1};
    POST(e, fi_writemsg(e->ep, &m, FI_INJECT | FI_DELIVERY_COMPLETE), "fi_writemsg (delivery-complete put)");
    return 1;
}

static void quiet_ep(struct ofi_ep *e) {
    int list[64], n;
    struct am_slot slot = {0};
    pthread_mutex_lock(&e->quiet_lock);
    uint32_t k = __atomic_exchange_n(&e->small_puts, 0, __ATOMIC_RELAXED);
    if (k) /* (a quiet after none says nothing about how puts are followed) */
        __atomic_store_n(&e->deliver, k <= DELIVER_PUTS, __ATOMIC_RELAXED);
    __atomic_store_n(&e->amo_pending, 0, __ATOMIC_RELAXED); /* (one sent from here on sets it again) */
    do {
        pthread_mutex_lock(&e->dirty_lock);
        n = e->ndirty < 64 ? e->ndirty : 64;
        e->ndirty -= n;
        memcpy(list, e->dirty_list + e->ndirty, (size_t)n * sizeof *list);
        for (int i = 0; i < n; i++)
            __atomic_store_n(&e->dirty[list[i]], 0, __ATOMIC_RELAXED); /* (mark_dirty reads it without the lock) */
        pthread_mutex_unlock(&e->dirty_lock);
        if (net.am || net.stage) { /* a flush answered means the writes and messages sent before it landed */
            __atomic_add_fetch(&slot.left, (uint32_t)n, __ATOMIC_SEQ_CST);
            struct am_msg m = {.kind = AM_FLUSH, .from = (int32_t)shmemi_rt.my_pe, .token = (uint64_t)(uintptr_t)&slot};
            for (int i = 0; i < n; i++)
                am_send(e, list[i], &m, 0);
            if (net.am)
                continue;
        }
        void *sink = &e->sink, *desc = NULL;
        if (SHMEMI_UNLIKELY(net.mr_local) && n) {
            struct scratch *sc = scratch();
            sink = sc->buf;
            desc = sc->desc;
            lcheck(sink, sizeof e->sink, desc, "shmem_quiet (libfabric transport)");
        }
        for (int i = 0; i < n; i++) /* read back the first word of the peer's control block */
            POST(e,
                 fi_read(e->ep, sink, sizeof e->sink, desc, net.addr[list[i]], net.base[SHMEMI_MAX_SEGS][list[i]],
                         net.key[SHMEMI_MAX_SEGS][list[i]], NULL),
                 "fi_read (quiet)");
    } while (n == 64);
    wait_release(e);
    am_wait(e, &slot);
    pthread_mutex_unlock(&e->quiet_lock);
}

/* ---- GPU segments the provider did not register (no FI_HMEM, or SHMEM_OFI_GPU_REGISTER=0) ----
 * Their owner moves the data with the GPU layer, through host memory: a put travels as messages of up to AM_DATA
 * bytes, sent back to back, that it copies in; a get as requests it answers with the data, AM_WINDOW of them
 * outstanding; an atomic as an atomic message. Messages from one PE are applied in order, and quiet flushes them. */
#define AM_WINDOW 32

static inline int staged(const struct shmemi_seg *s) {
    return SHMEMI_UNLIKELY(s->kind == SHMEMI_MEM_DEVICE) && !((net.gpu_ok >> seg_index(s)) & 1);
}

static void staged_put(struct ofi_ep *e, struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe) {
    for (size_t done = 0; done < len;) {
        size_t n = len - done < net.am_data ? len - done : net.am_data;
        struct am_msg m = {.kind = AM_PUT,
                           .seg = (uint8_t)seg_index(s),
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = off + done,
                           .token = n};
        am_send_putsig(e, pe, &m, (const char *)src + done, n);
        done += n;
    }
    mark_dirty(e, pe);
    __atomic_store_n(&e->amo_pending, 1, __ATOMIC_RELAXED); /* fence: a later write must not overtake these */
}

static void staged_get(struct ofi_ep *e, struct shmemi_seg *s, size_t off, void *dst, size_t len, int pe) {
    struct am_slot slot = {0};
    for (size_t done = 0; done < len;) {
        size_t n = len - done < net.am_data ? len - done : net.am_data;
        am_wait_for(e, &slot, AM_WINDOW - 1);
        __atomic_add_fetch(&slot.left, 1, __ATOMIC_SEQ_CST);
        struct am_msg m = {.kind = AM_GET,
                           .seg = (uint8_t)seg_index(s),
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = off + done,
                           .value = (uint64_t)(uintptr_t)((char *)dst + done),
                           .cond = n,
                           .token = (uint64_t)(uintptr_t)&slot};
        am_send(e, pe, &m, 0);
        done += n;
    }
    am_wait(e, &slot);
}

/* ---- RMA ---- */
static void put_ep(struct ofi_ep *e, struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe, int nbi) {
    int si = seg_index(s);
    uint64_t raddr = net.base[si][pe] + off, key = net.key[si][pe];
    if (len <= net.inject) {
        POST(e, fi_inject_write(e->ep, src, len, net.addr[pe], raddr, key), "fi_inject_write");
        return;
    }
    void *desc = NULL;
    struct fid_mr *tmp = NULL;
    if (SHMEMI_UNLIKELY(net.mr_local) && !seg_desc(src, len, &desc)) {
        if (!nbi && len <= SCRATCH) {
            struct scratch *sc = scratch();
            memcpy(sc->buf, src, len);
            src = sc->buf;
            desc = sc->desc;
        } else {
            tmp = lreg((void *)(uintptr_t)src, len, FI_WRITE, "shmem_put (libfabric transport)");
            desc = fi_mr_desc(tmp);
        }
    }
    if (SHMEMI_UNLIKELY(net.mr_local))
        lcheck(src, len, desc, "shmem_put (libfabric transport)");
    for (size_t done = 0; done < len;) {
        size_t n = len - done < net.max_msg ? len - done : net.max_msg;
        POST(e, fi_write(e->ep, (const char *)src + done, n, desc, net.addr[pe], raddr + done, key, NULL), "fi_write");
        done += n;
    }
    if (!nbi) /* the source may be reused when a blocking put returns */
        wait_posted(e);
    if (tmp && !nbi)
        lclose(tmp);
    else if (tmp)
        defer_close(e, tmp);
}

void shmemi_ofi_put(shmem_ctx_t ctx, struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe, int nbi) {
    struct ofi_ep *e = ep_of(ctx);
    if (staged(s)) {
        staged_put(e, s, off, src, len, pe);
        return;
    }
    if (len <= net.inject) {
        int si = seg_index(s);
        if (small_put_delivered(e, src, len, pe, net.base[si][pe] + off, net.key[si][pe]))
            return; /* awaited by quiet through the counter: not marked */
    }
    put_ep(e, s, off, src, len, pe, nbi);
    mark_dirty(e, pe);
}

/* Collective traffic: data, then a signal the receiver waits for (the data is not waited for in between: the
 * collective calls shmemi_ofi_coll_done before it reuses or returns its sources). The signal's arrival tells the
 * receiver that the data landed (the provider applies a PE's operations in order), and the sender never needs to know,
 * so neither is marked for the next quiet: a barrier after a reduction does not flush for it. On an unordered provider
 * the data is marked as usual and the signal quiets first. */
void shmemi_ofi_coll_put(struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe) {
    struct ofi_ep *e = &net.ep0;
    if (len <= net.inject) {
        put_ep(e, s, off, src, len, pe, 1);
        if (!net.ordered)
            mark_dirty(e, pe);
        return;
    }
    /* complete once the source may be reused (net acknowledges transmit- and delivery-complete writes alike): the
     * receiver learns of delivery from the signal */
    int si = seg_index(s);
    void *desc = NULL;
    struct fid_mr *tmp = NULL;
    if (SHMEMI_UNLIKELY(net.mr_local) && !seg_desc(src, len, &desc)) {
        tmp = lreg((void *)(uintptr_t)src, len, FI_WRITE, "shmem collective (libfabric transport)");
        desc = fi_mr_desc(tmp);
    }
    if (SHMEMI_UNLIKELY(net.mr_local))
        lcheck(src, len, desc, "shmem collective (libfabric transport)");
    for (size_t done = 0; done < len;) {
        size_t n = len - done < net.max_msg ? len - done : net.max_msg;
        struct iovec iov = {.iov_base = (char *)(uintptr_t)src + done, .iov_len = n};
        struct fi_rma_iov rio = {.addr = net.base[si][pe] + off + done, .len = n, .key = net.key[si][pe]};
        struct fi_msg_rma m = {
            .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = net.addr[pe], .rma_iov = &rio, .rma_iov_count = 1};
        POST(e, fi_writemsg(e->ep, &m, FI_INJECT_COMPLETE), "fi_writemsg (collective)");
        done += n;
    }
    if (tmp)
        defer_close(e, tmp); /* closed by shmemi_ofi_coll_done */
    if (!net.ordered)
        mark_dirty(e, pe);
}

void shmemi_ofi_coll_done(void) {
    if (shmemi_ofi_up)
        wait_release(&net.ep0);
}

void shmemi_ofi_coll_put_signal(struct shmemi_seg *s, size_t off, const void *src, size_t len, size_t sig, int pe) {
    if (net.am && net.ordered && len <= net.am_data) {
        struct am_msg m = {.kind = AM_PUTSIG,
                           .op = SHMEMI_AMO_ADD,
                           .size = SHMEMI_MAX_SEGS,
                           .seg = (uint8_t)seg_index(s),
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = off,
                           .value = 1,
                           .cond = sig,
                           .token = len};
        am_send_putsig(&net.ep0, pe, &m, src, len);
        return;
    }
    if (len)
        shmemi_ofi_coll_put(s, off, src, len, pe);
    shmemi_ofi_coll_signal(sig, pe);
}

void shmemi_ofi_coll_signal(size_t off, int pe) {
    struct ofi_ep *e = &net.ep0;
    if (!net.ordered)
        quiet_ep(e);
    if (net.am) {
        struct am_msg m = {.kind = AM_POST,
                           .op = SHMEMI_AMO_ADD,
                           .size = 8,
                           .seg = SHMEMI_MAX_SEGS,
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = off,
                           .value = 1};
        am_send(e, pe, &m, 0);
    } else if (net.amo_ok[1][SHMEMI_AMO_ADD] && net.inject >= 8) {
        uint64_t one = 1;
        POST(e,
             fi_inject_atomic(e->ep, &one, 1, net.addr[pe], net.base[SHMEMI_MAX_SEGS][pe] + off,
                              net.key[SHMEMI_MAX_SEGS][pe], FI_UINT64, FI_SUM),
             "fi_inject_atomic (collective signal)");
    } else {
        shmemi_ofi_amo(SHMEM_CTX_DEFAULT, SHMEMI_AMO_ADD, &shmemi_rt.internal, off, 1, 0, 8, pe);
    }
}

/* A get with FI_MR_LOCAL: into a registered destination, or through this thread's scratch buffer, or a registration
 * of the destination for the one transfer. */
static void get_local(struct ofi_ep *e, uint64_t raddr, uint64_t key, void *dst, size_t len, int pe, int nbi) {
    void *desc = NULL;
    char *out = dst;
    struct fid_mr *tmp = NULL;
    if (!seg_desc(dst, len, &desc)) {
        if (!nbi && len <= SCRATCH) {
            struct scratch *sc = scratch();
            out = sc->buf;
            desc = sc->desc;
        } else {
            tmp = lreg(dst, len, FI_READ, "shmem_get (libfabric transport)");
            desc = fi_mr_desc(tmp);
        }
    }
    lcheck(out, len, desc, "shmem_get (libfabric transport)");
    for (size_t done = 0; done < len;) {
        size_t n = len - done < net.max_msg ? len - done : net.max_msg;
        POST(e, fi_read(e->ep, out + done, n, desc, net.addr[pe], raddr + done, key, NULL), "fi_read");
        done += n;
    }
    if (nbi) {
        if (tmp)
            defer_close(e, tmp);
        return;
    }
    wait_posted(e);
    if (out != dst)
        memcpy(dst, out, len);
    if (tmp)
        lclose(tmp);
}

void shmemi_ofi_get(shmem_ctx_t ctx, struct shmemi_seg *s, size_t off, void *dst, size_t len, int pe, int nbi) {
    struct ofi_ep *e = ep_of(ctx);
    if (staged(s)) { /* (complete at return, nbi or not) */
        staged_get(e, s, off, dst, len, pe);
        return;
    }
    int si = seg_index(s);
    uint64_t raddr = net.base[si][pe] + off, key = net.key[si][pe];
    if (SHMEMI_UNLIKELY(net.mr_local)) {
        get_local(e, raddr, key, dst, len, pe, nbi);
        return;
    }
    if (!nbi && len <= net.max_msg) {
        struct op_done d = {.left = 1};
        struct iovec iov = {.iov_base = dst, .iov_len = len};
        struct fi_rma_iov rio = {.addr = raddr, .len = len, .key = key};
        struct fi_msg_rma m = {.msg_iov = &iov,
                               .iov_count = 1,
                               .addr = net.addr[pe],
                               .rma_iov = &rio,
                               .rma_iov_count = 1,
                               .context = &d.fc};
        POST(e, fi_readmsg(e->ep, &m, FI_COMPLETION), "fi_readmsg");
        wait_op(e, &d);
        return;
    }
    for (size_t done = 0; done < len;) {
        size_t n = len - done < net.max_msg ? len - done : net.max_msg;
        POST(e, fi_read(e->ep, (char *)dst + done, n, NULL, net.addr[pe], raddr + done, key, NULL), "fi_read");
        done += n;
    }
    if (!nbi)
        wait_posted(e);
}

/* ---- probes: reads no one waits for (comm/liveness.c asks whether PEs of other nodes still answer) ----
 * One slot per peer: a read in flight, or its answer. A slot is the provider's until its read completes, so it lives
 * here, not on the stack of the wait that posted it (that wait may well end first). A post is tried once per call,
 * never in a loop: a provider that refuses it (-FI_EAGAIN: no connection to a peer that is gone or unreachable) must
 * not hold up the wait, and the refusal counts as silence from the first try. Probes count among the posted
 * operations like any read: a quiet waits for one in flight (a round trip), and one that never completes stalls the
 * quiet until SHMEM_OFI_STALL_TIMEOUT, the limit liveness gives it too. */
#define PROBE_MAX 64
enum { PROBE_IDLE, PROBE_REFUSED, PROBE_FLYING };
struct probe {
    struct op_done d; /* first: left is 1 while the read is in flight */
    int state;
    uint64_t since; /* CLOCK_MONOTONIC ns of the first try of the read now asked for */
    _Alignas(8) unsigned char buf[PROBE_MAX];
};
static struct probe *probes;     /* [n_pes] */
static struct fid_mr *probes_mr; /* with mr_local */

int shmemi_ofi_probe_poll(int pe, void *out, size_t len, uint64_t *since) {
    struct probe *p = &probes[pe];
    if (p->state == PROBE_IDLE)
        return -1;
    *since = p->since;
    if (p->state == PROBE_REFUSED || __atomic_load_n(&p->d.left, __ATOMIC_ACQUIRE))
        return 0;
    memcpy(out, p->buf, len < PROBE_MAX ? len : PROBE_MAX);
    p->state = PROBE_IDLE;
    return 1;
}

int shmemi_ofi_probe_post(int pe, size_t off, size_t len) {
    struct probe *p = &probes[pe];
    struct ofi_ep *e = &net.ep0;
    if (p->state == PROBE_FLYING || len > PROBE_MAX)
        return 0;
    if (p->state == PROBE_IDLE)
        p->since = mono_ns();
    p->d = (struct op_done){.left = 1};
    struct iovec iov = {.iov_base = p->buf, .iov_len = len};
    void *desc = probes_mr ? fi_mr_desc(probes_mr) : NULL;
    if (net.mr_local)
        lcheck(p->buf, len, desc, "shmem (libfabric transport): a probe of a peer");
    struct fi_rma_iov rio = {
        .addr = net.base[SHMEMI_MAX_SEGS][pe] + off, .len = len, .key = net.key[SHMEMI_MAX_SEGS][pe]};
    struct fi_msg_rma m = {.msg_iov = &iov,
                           .desc = &desc,
                           .iov_count = 1,
                           .addr = net.addr[pe],
                           .rma_iov = &rio,
                           .rma_iov_count = 1,
                           .context = &p->d.fc};
    /* counted before the post as POST does (see all_done), and taken back if none was made: until then the counter
     * cannot reach `posted`, so no quiet takes the uncounted read for done */
    __atomic_fetch_add(&e->posted, 1, __ATOMIC_SEQ_CST);
    ssize_t rc = fi_readmsg(e->ep, &m, FI_COMPLETION);
    if (rc) {
        __atomic_fetch_sub(&e->posted, 1, __ATOMIC_SEQ_CST);
        p->state = PROBE_REFUSED;
        drive(e); /* (a refusal clears as the provider makes progress) */
        return 1;
    }
    p->state = PROBE_FLYING;
    return 1;
}

int shmemi_ofi_stall_limit(void) { return stall_limit(); }

const char *shmemi_ofi_peer_addr(int pe, char *buf, size_t len) {
    char raw[ADDR_MAX];
    size_t rawlen = sizeof raw, n = len;
    if (!shmemi_ofi_up || fi_av_lookup(net.av, net.addr[pe], raw, &rawlen) || rawlen > sizeof raw)
        snprintf(buf, len, "address unknown");
    else
        fi_av_straddr(net.av, raw, buf, &n);
    return buf;
}

/* ---- atomics ---- */

static uint64_t native_amo(struct ofi_ep *e, int op, int si, size_t off, uint64_t value, uint64_t cond, size_t size,
                           int pe) {
    enum fi_datatype dt = size == 8 ? FI_UINT64 : FI_UINT32;
    uint64_t raddr = net.base[si][pe] + off, key = net.key[si][pe];
    if (op == SHMEMI_AMO_INC || op == SHMEMI_AMO_FETCH_INC)
        value = 1;
    union word {
        uint64_t u64;
        uint32_t u32;
    } v, c, r = {0};
    if (size == 8) {
        v.u64 = value;
        c.u64 = cond;
    } else {
        v.u32 = (uint32_t)value;
        c.u32 = (uint32_t)cond;
    }
    union word *vp = &v, *cp = &c, *rp = &r; /* operands and result: on this stack, or registered (mr_local) */
    void *desc = NULL;
    if (SHMEMI_UNLIKELY(net.mr_local)) {
        struct scratch *sc = scratch();
        vp = (union word *)(void *)sc->buf;
        cp = vp + 1;
        rp = vp + 2;
        *vp = v;
        *cp = c;
        *rp = r;
        desc = sc->desc;
        lcheck(vp, 3 * sizeof *vp, desc, "shmem atomic (libfabric transport)");
    }
    switch (amo_map[op].kind) {
    case K_WRITE:
        if (size <= net.inject)
            POST(e, fi_inject_atomic(e->ep, &v, 1, net.addr[pe], raddr, key, dt, amo_map[op].op), "fi_inject_atomic");
        else {
            POST(e, fi_atomic(e->ep, vp, 1, desc, net.addr[pe], raddr, key, dt, amo_map[op].op, NULL), "fi_atomic");
            wait_posted(e); /* the operand lives on this stack */
        }
        mark_dirty(e, pe);
        __atomic_store_n(&e->amo_pending, 1, __ATOMIC_RELAXED);
        return 0;
    default: {
        /* Waited for through its own completion, as a blocking get is (one progress call per turn, not two) */
        struct op_done d = {.left = 1};
        struct fi_ioc in = {.addr = vp, .count = 1}, res = {.addr = rp, .count = 1}, cmp = {.addr = cp, .count = 1};
        struct fi_rma_ioc rio = {.addr = raddr, .count = 1, .key = key};
        struct fi_msg_atomic m = {.msg_iov = &in,
                                  .desc = &desc,
                                  .iov_count = 1,
                                  .addr = net.addr[pe],
                                  .rma_iov = &rio,
                                  .rma_iov_count = 1,
                                  .datatype = dt,
                                  .op = amo_map[op].op,
                                  .context = &d.fc};
        if (amo_map[op].kind == K_FETCH)
            POST(e, fi_fetch_atomicmsg(e->ep, &m, &res, &desc, 1, FI_COMPLETION), "fi_fetch_atomicmsg");
        else
            POST(e, fi_compare_atomicmsg(e->ep, &m, &cmp, &desc, 1, &res, &desc, 1, FI_COMPLETION),
                 "fi_compare_atomicmsg");
        wait_op(e, &d);
    }
    }
    return size == 8 ? rp->u64 : rp->u32;
}

static uint64_t apply(int op, uint64_t old, uint64_t value, size_t size) {
    uint64_t mask = size == 8 ? ~0ull : 0xffffffffull, r;
    switch (op) {
    case SHMEMI_AMO_SET:
    case SHMEMI_AMO_SWAP: r = value; break;
    case SHMEMI_AMO_INC:
    case SHMEMI_AMO_FETCH_INC: r = old + 1; break;
    case SHMEMI_AMO_ADD:
    case SHMEMI_AMO_FETCH_ADD: r = old + value; break;
    case SHMEMI_AMO_AND:
    case SHMEMI_AMO_FETCH_AND: r = old & value; break;
    case SHMEMI_AMO_OR:
    case SHMEMI_AMO_FETCH_OR: r = old | value; break;
    case SHMEMI_AMO_XOR:
    case SHMEMI_AMO_FETCH_XOR: r = old ^ value; break;
    default: r = old;
    }
    return r & mask;
}

uint64_t shmemi_ofi_amo(shmem_ctx_t ctx, int op, struct shmemi_seg *s, size_t off, uint64_t value, uint64_t cond,
                        size_t size, int pe) {
    struct ofi_ep *e = ep_of(ctx);
    int si = seg_index(s);
    if (net.am || staged(s))
        return am_amo(e, op, si, off, value, cond, size, pe);
    if (SHMEMI_LIKELY(net.amo_ok[size == 8][op]))
        return native_amo(e, op, si, off, value, cond, size, pe);
    /* emulation: read, then compare-and-swap until no other update came between (correct against any concurrent
     * atomic, native or emulated, since the provider applies each one atomically) */
    uint64_t old = net.amo_ok[size == 8][SHMEMI_AMO_FETCH] ? native_amo(e, SHMEMI_AMO_FETCH, si, off, 0, 0, size, pe)
                                                           : native_amo(e, SHMEMI_AMO_CSWAP, si, off, 0, 0, size, pe);
    for (;;) {
        if (op == SHMEMI_AMO_FETCH)
            return old;
        uint64_t seen = native_amo(e, SHMEMI_AMO_CSWAP, si, off, apply(op, old, value, size), old, size, pe);
        if (seen == old)
            return old;
        old = seen;
    }
}

void shmemi_ofi_put_signal(shmem_ctx_t ctx, struct shmemi_seg *ds, size_t doff, const void *src, size_t len,
                           struct shmemi_seg *ss, size_t soff, uint64_t signal, int sig_op, int pe) {
    struct ofi_ep *e = ep_of(ctx);
    if (net.am && net.ordered && len <= net.am_data) { /* one message; the target applies data and signal in turn */
        struct am_msg m = {.kind = AM_PUTSIG,
                           .op = sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD,
                           .size = (uint8_t)seg_index(ss),
                           .seg = (uint8_t)seg_index(ds),
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = doff,
                           .value = signal,
                           .cond = soff,
                           .token = len};
        am_send_putsig(e, pe, &m, src, len);
        mark_dirty(e, pe); /* applied by the next flush */
        __atomic_store_n(&e->amo_pending, 1, __ATOMIC_RELAXED);
        return;
    }
    if (len) {
        shmemi_ofi_put(ctx, ds, doff, src, len, pe, 1);
        /* delivered before the signal is sent, whatever the provider reorders: writes and messages (staged GPU
         * data or signal) are not ordered together where atomics are the fabric's */
        if (!net.ordered || (!net.am && staged(ds) != staged(ss)))
            quiet_ep(e);
    }
    shmemi_ofi_amo(ctx, sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD, ss, soff, signal, 0, 8, pe);
}

void shmemi_ofi_quiet(shmem_ctx_t ctx) { quiet_ep(ep_of(ctx)); }

void shmemi_ofi_fence(shmem_ctx_t ctx) {
    struct ofi_ep *e = ep_of(ctx);
    /* an ordered provider applies a PE's writes in order, and its atomics in order: nothing to do unless an atomic
     * may be overtaken by a write that follows it */
    if (!net.ordered || __atomic_load_n(&e->amo_pending, __ATOMIC_RELAXED)) {
        quiet_ep(e);
        return;
    }
    /* another thread's quiet may have taken this thread's atomic off amo_pending before flushing it: wait for it */
    pthread_mutex_lock(&e->quiet_lock);
    pthread_mutex_unlock(&e->quiet_lock);
}

/* A peer's get served here leaves no completion (nor, on net, a remote-read count), yet a waiter that serves a
 * stream of them should stay awake like one serving atomic messages: a progress call that did socket work takes
 * microseconds, an idle one a fraction of one (0.2 us here), so a slow call counts as work. With 1 us as the line,
 * a 2-PE get loop over net still found the serving PE's waiter gone to sleep now and then (served reads as quick as
 * 0.5-1 us); with 0.5 us everywhere, calls slowed by preemption kept waiters of oversubscribed PEs spinning (8 PEs
 * on 2 cores: a collective test took 83 s instead of 3 s). */
#define SERVED_NS 500
#define SERVED_NS_OVERSUBSCRIBED 1000

/* The timing reads the cycle counter where there is one: two clock_gettime calls were 8% of an idle progress call on
 * the target of a fetch-add loop (26-34 ns each here, the counter 11 ns). The counter's rate is learnt from the clock
 * over the first milliseconds after start-up (until then the clock times the calls); a rate that makes no sense
 * (a counter that is not constant) leaves the clock in charge. Only this heuristic depends on it. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TICKS 1
static inline uint64_t ticks(void) { return __rdtsc(); }
#else
#define HAVE_TICKS 0
static inline uint64_t ticks(void) { return 0; }
#endif
static struct {
    int64_t served;   /* the line in counter ticks; 0 while unknown (or the counter is unfit) */
    int done;         /* calibration finished (served may still be 0: unfit) */
    uint64_t ns0, t0; /* clock and counter at start-up */
} tick_cal;

static void ticks_start(void) {
    tick_cal.served = 0;
    tick_cal.done = !HAVE_TICKS;
    tick_cal.ns0 = mono_ns();
    tick_cal.t0 = ticks();
}

static int64_t served_ns(void) { return shmemi_rt.oversubscribed ? SERVED_NS_OVERSUBSCRIBED : SERVED_NS; }

/* Called with the clock's reading: after 2 ms, the counter's rate is known well enough (within 0.1%). */
static void ticks_learn(uint64_t ns) {
    uint64_t dn = ns - tick_cal.ns0;
    if (dn < 2000000)
        return;
    double per_ns = (double)(ticks() - tick_cal.t0) / (double)dn;
    if (per_ns > 0.2 && per_ns < 20) /* 0.2-20 GHz: a constant counter */
        __atomic_store_n(&tick_cal.served, (int64_t)(per_ns * (double)served_ns()), __ATOMIC_RELAXED);
    __atomic_store_n(&tick_cal.done, 1, __ATOMIC_RELEASE);
}

int shmemi_ofi_progress(void) {
    int64_t line = __atomic_load_n(&tick_cal.served, __ATOMIC_RELAXED);
    if (SHMEMI_LIKELY(line)) {
        uint64_t a = ticks();
        int n = drive(&net.ep0);
        return n ? n : (int64_t)(ticks() - a) > line; /* (a migration between the two reads counts as work once) */
    }
    uint64_t a = mono_ns();
    int n = drive(&net.ep0);
    if (n)
        return n;
    uint64_t b = mono_ns();
    if (!__atomic_load_n(&tick_cal.done, __ATOMIC_ACQUIRE))
        ticks_learn(b);
    return (int64_t)(b - a) > served_ns();
}

/* ---- the shm provider's /dev/shm regions ----
 * libfabric's shm provider keeps each endpoint in a /dev/shm region "<pid>:<n>:<n>" (16 MiB) that only closing the
 * endpoint removes. The provider's own clean-up on a signal is among the handlers put back below (signals_restore),
 * and a PE that ends the job (shmem_global_exit, a fatal error: _exit) or that the launcher stops (mpirun's and
 * srun's SIGTERM) never closes it. oshrun removes what its PEs leave; under other launchers each PE removes its own:
 * the names are read from /dev/shm when an endpoint opens, and removed on those ways out and on the signals whose
 * default action ends the process, where that action is still in place at start-up (a program's handler stays). */
#define REGIONS_MAX 16
static char regions[REGIONS_MAX][64];
static int nregions;
static pid_t regions_pid;
static const int region_sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE};
#define NREGION_SIGS (int)(sizeof region_sigs / sizeof region_sigs[0])
static struct sigaction region_prev[NREGION_SIGS];
static int region_guarded[NREGION_SIGS];

/* Peers on this machine (their pids, from the address exchange), for a PE on its way out: the regions of a peer that
 * is already gone (SIGKILL, the out-of-memory killer) have nobody else to remove them, and the launcher then stops the
 * rest of the job (mpirun's SIGTERM), so those that remain remove them. */
static int *peer_pids;
static int npeer_pids;

/* async-signal-safe: raw getdents64 and unlinkat, no allocation */
static void regions_sweep_dead_peers(void) {
    const int *pids = __atomic_load_n(&peer_pids, __ATOMIC_ACQUIRE);
    if (!pids)
        return;
    int dfd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    _Alignas(8) char buf[4096];
    long got;
    while ((got = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0)
        for (long off = 0; off < got;) {
            struct {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *de = (void *)(buf + off);
            off += de->reclen;
            /* "<pid>:<n>:<n>" of a peer that no longer exists */
            const char *c = de->name;
            long pid = 0;
            while (*c >= '0' && *c <= '9' && pid < INT_MAX / 10)
                pid = pid * 10 + (*c++ - '0');
            if (c == de->name || *c != ':')
                continue;
            int colons = 0, digits = 1;
            for (const char *d = c; *d; d++)
                colons += *d == ':', digits &= (*d == ':' || (*d >= '0' && *d <= '9'));
            int k = 0;
            while (k < npeer_pids && pids[k] != pid)
                k++;
            struct stat st;
            if (colons != 2 || !digits || k == npeer_pids || !(kill((pid_t)pid, 0) && errno == ESRCH) ||
                fstatat(dfd, de->name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
                continue;
            unlinkat(dfd, de->name, 0);
        }
    close(dfd);
}

static void regions_note(void) {
    char pre[24];
    int np = snprintf(pre, sizeof pre, "%d:", (int)getpid());
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    regions_pid = getpid();
    for (struct dirent *de; (de = readdir(d));) {
        struct stat st;
        char path[sizeof regions[0]];
        if (strncmp(de->d_name, pre, (size_t)np) || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
            !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
            snprintf(path, sizeof path, "/dev/shm/%s", de->d_name) >= (int)sizeof path)
            continue;
        int n = __atomic_load_n(&nregions, __ATOMIC_RELAXED), k = 0;
        while (k < n && strcmp(regions[k], path))
            k++;
        if (k == n && n < REGIONS_MAX) {
            memcpy(regions[n], path, sizeof path);
            __atomic_store_n(&nregions, n + 1, __ATOMIC_RELEASE); /* a signal handler may read the list meanwhile */
            shmemi_debug("libfabric transport: the provider keeps this endpoint in %s", path);
        }
    }
    closedir(d);
}

/* async-signal-safe; only in the process that opened them (not a child forked without exec) */
void shmemi_ofi_regions_unlink(void) {
    if (getpid() != regions_pid)
        return;
    int saved = errno;
    int n = __atomic_exchange_n(&nregions, 0, __ATOMIC_ACQ_REL);
    for (int k = 0; k < n; k++)
        unlink(regions[k]);
    regions_sweep_dead_peers();
    errno = saved;
}

static void regions_on_signal(int sig) {
    int saved = errno;
    shmemi_ofi_regions_unlink();
    for (int k = 0; k < NREGION_SIGS; k++)
        if (region_sigs[k] == sig)
            sigaction(sig, &region_prev[k], NULL);
    errno = saved;
    raise(sig); /* delivered on return (the signal is blocked in its handler), to the action that was in place */
}

static void regions_guard(void) {
    if (!__atomic_load_n(&nregions, __ATOMIC_ACQUIRE))
        return;
    struct sigaction sa = {.sa_handler = regions_on_signal};
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < NREGION_SIGS; k++) {
        struct sigaction now;
        if (region_guarded[k] || sigaction(region_sigs[k], NULL, &now) || now.sa_handler != SIG_DFL)
            continue;
        region_guarded[k] = !sigaction(region_sigs[k], &sa, &region_prev[k]);
    }
}

static void regions_unguard(void) {
    __atomic_store_n(&nregions, 0, __ATOMIC_RELEASE); /* closed with their endpoints */
    free(__atomic_exchange_n(&peer_pids, NULL, __ATOMIC_ACQ_REL));
    npeer_pids = 0;
    for (int k = 0; k < NREGION_SIGS; k++) {
        struct sigaction now;
        if (region_guarded[k] && !sigaction(region_sigs[k], NULL, &now) && now.sa_handler == regions_on_signal)
            sigaction(region_sigs[k], &region_prev[k], NULL);
        region_guarded[k] = 0;
    }
}

/* ---- endpoints ---- */
static int ep_open(struct ofi_ep *e, int wait_fd, char *err, size_t errlen) {
    struct fi_cq_attr cqa = {
        .format = FI_CQ_FORMAT_CONTEXT, .size = 128, .wait_obj = wait_fd ? FI_WAIT_FD : FI_WAIT_NONE};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    int rc;
    const char *what;
    if ((rc = fi_endpoint(net.domain, net.info, &e->ep, NULL))) {
        what = "fi_endpoint";
        goto fail;
    }
    if ((rc = fi_cq_open(net.domain, &cqa, &e->cq, NULL)) && wait_fd) {
        cqa.wait_obj = FI_WAIT_NONE; /* no wait descriptor: the progress thread polls instead */
        rc = fi_cq_open(net.domain, &cqa, &e->cq, NULL);
    }
    if (rc) {
        what = "fi_cq_open";
        goto fail;
    }
    if ((rc = fi_cntr_open(net.domain, &ca, &e->cntr, NULL))) {
        what = "fi_cntr_open";
        goto fail;
    }
    if ((rc = fi_ep_bind(e->ep, &net.av->fid, 0))) {
        what = "fi_ep_bind(av)";
        goto fail;
    }
    if ((rc = fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION))) {
        what = "fi_ep_bind(cq)";
        goto fail;
    }
    if ((rc = fi_ep_bind(e->ep, &e->cntr->fid, FI_WRITE | FI_READ))) {
        what = "fi_ep_bind(counter)";
        goto fail;
    }
    if ((rc = fi_enable(e->ep))) {
        what = "fi_enable";
        goto fail;
    }
    regions_note();
    e->posted = 0;
    e->amo_pending = 0;
    e->errs_seen = 0;
    e->ndirty = 0;
    e->dirty = calloc((size_t)shmemi_rt.n_pes, 1);
    e->dirty_list = calloc((size_t)shmemi_rt.n_pes, sizeof(int));
    pthread_mutex_init(&e->dirty_lock, NULL);
    pthread_mutex_init(&e->quiet_lock, NULL);
    if (!e->dirty || !e->dirty_list) {
        snprintf(err, errlen, "libfabric transport: out of memory");
        return -1;
    }
    return 0;
fail:
    snprintf(err, errlen, "libfabric transport: %s failed on provider %s: %s", what, net.info->fabric_attr->prov_name,
             fi_strerror(-rc));
    return -1;
}

static void ep_close(struct ofi_ep *e) {
    if (e->sbufs) { /* sends in flight read their buffers */
        for (int k = 0; k < AM_NSEND; k++)
            wait_op(e, &e->sbufs[k].d);
        if (e->sbufs[0].mr)
            lclose(e->sbufs[0].mr);
        free(e->sbufs);
    }
    if (e->ntmp) /* (after a quiet: nothing left in flight) */
        wait_release(e);
    free(e->tmp);
    free(e->dirty);
    free(e->dirty_list);
    if (e->ep)
        fi_close(&e->ep->fid);
    if (e->cntr)
        fi_close(&e->cntr->fid);
    if (e->cq)
        fi_close(&e->cq->fid);
    memset(e, 0, sizeof *e);
}

/* A SHMEM_CTX_PRIVATE context gets an endpoint of its own (its own completion queue and counter, no wait
 * descriptor: its one thread drives it while it waits, endpoint 0 too: see drive_waiting), so threads with private
 * contexts do not take turns on endpoint 0's lock. Peers do not know its address in advance; the provider learns it
 * at the first connection. Other contexts may be used by several threads at once and share endpoint 0.
 * By default not on rxm (tcp;ofi_rxm, verbs;ofi_rxm): there each endpoint is progressed apart, so a waiting thread
 * drives two, and private endpoints measured slower over tcp on 2 cores (fetch-add + put, 1-2 threads per PE:
 * 0.77-0.81x; puts with a quiet every 16, 1-4 threads: 0.85-0.89x), where over net they were 1.07-1.33x for puts.
 * SHMEM_OFI_CTX_ENDPOINTS=1 gives them there too. */
static pthread_mutex_t ctx_eps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ofi_ep *ctx_eps[64]; /* private endpoints alive (quiet_all and finalize reach them) */

void shmemi_ofi_ctx_create(struct gshmem_ctx *c) {
    c->net = NULL;
    if (!shmemi_ofi_up || !(c->options & SHMEM_CTX_PRIVATE) || !shmemi_env.ofi_ctx_ep ||
        (shmemi_env.ofi_ctx_ep < 0 && strstr(net.info->fabric_attr->prov_name, "ofi_rxm")))
        return;
    struct ofi_ep *e = calloc(1, sizeof *e);
    char err[256];
    if (!e)
        return;
    pthread_mutex_lock(&ctx_eps_lock);
    int slot = -1;
    for (int k = 0; k < 64 && slot < 0; k++)
        if (!ctx_eps[k])
            slot = k;
    if (slot < 0 || ep_open(e, 0, err, sizeof err)) {
        pthread_mutex_unlock(&ctx_eps_lock);
        shmemi_debug("private context shares endpoint 0: %s", slot < 0 ? "64 private endpoints in use" : err);
        ep_close(e);
        free(e);
        return;
    }
    ctx_eps[slot] = e;
    pthread_mutex_unlock(&ctx_eps_lock);
    c->net = e;
    shmemi_debug("private context: endpoint %d of its own", slot + 1);
}

static void ctx_ep_release(struct ofi_ep *e) {
    quiet_ep(e);
    ep_close(e);
    free(e);
}

void shmemi_ofi_ctx_destroy(struct gshmem_ctx *c) {
    struct ofi_ep *e = c->net;
    if (!e)
        return;
    c->net = NULL;
    pthread_mutex_lock(&ctx_eps_lock);
    for (int k = 0; k < 64; k++)
        if (ctx_eps[k] == e)
            ctx_eps[k] = NULL;
    pthread_mutex_unlock(&ctx_eps_lock);
    ctx_ep_release(e);
}

void shmemi_ofi_quiet_all(void) {
    if (!shmemi_ofi_up)
        return;
    quiet_ep(&net.ep0);
    pthread_mutex_lock(&ctx_eps_lock);
    for (int k = 0; k < 64; k++)
        if (ctx_eps[k])
            quiet_ep(ctx_eps[k]);
    pthread_mutex_unlock(&ctx_eps_lock);
}

/* ---- progress thread: asleep in poll() until traffic arrives, then drives the provider and wakes sleepers ---- */
#define HOT_NS 1000000u /* 1 ms */

/* How long nobody may have driven before the progress thread takes over from threads that stopped without handing
 * off, and how often it looks while they drive: LAZY_NS at first, doubling up to LAZY_MAX_NS while it keeps finding
 * them at it, back to LAZY_NS once it has taken over. This bounds the delay of a peer's get or atomic on a PE that
 * has just left the library for a long computation (1 ms after a short stretch of calls, 16 ms at most after a long
 * one). Each look is a thread wake-up, which on a small VM costs tens of microseconds of a core that a spinning PE
 * wanted: looking every 1 ms cost 4% of get latency over net, 2 PEs on 2 cores. */
#define LAZY_NS 1000000L
#define LAZY_MAX_NS 16000000L

/* A stretch of driving seen to last this long makes the progress thread leave until it ends (see `absent`); it looks
 * again when a stretch would reach it. Starting it again costs tens of microseconds, at most once per stretch: about
 * 1% of one this long. At 15 ms (and looks 1, 2, 4, 8, 16 ms apart) the thread stayed some 30 ms into a PE's wait
 * while a peer's fetch-adds kept it serving: 4 ms made those 3% faster and gets 4% (2 PEs over net, 21 interleaved
 * runs, median of paired ratios). */
#define LEAVE_NS 4000000L

/* The progress thread decides to leave while a thread of this PE drives. It says so first, then looks again: if the
 * driving stopped meanwhile, it takes its word back, unless the thread that stopped already took it (and is starting
 * a new progress thread). Sequentially consistent on both sides: one of the two sees the other. */
static int leave(uint64_t ep) {
    __atomic_store_n(&absent, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&drivers, __ATOMIC_SEQ_CST) && __atomic_load_n(&epoch, __ATOMIC_SEQ_CST) == ep)
        return 1;
    uint32_t one = 1;
    return !__atomic_compare_exchange_n(&absent, &one, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* net (libfabric 1.17): a completion queue with a wait descriptor nests the domain's socket epoll in its own, so every
 * packet arriving also wakes that descriptor: 1.7% of get latency here, paid while a thread of the PE drives too.
 * Endpoint 0's queue has none there; the progress thread opens a queue with one when it takes over, to look at and
 * sleep on, and closes it when it stands down. Returns the descriptor, or -1. */
static struct fid_cq *own_queue;

static int own_queue_fd(void) {
    struct fi_cq_attr a = {.format = FI_CQ_FORMAT_CONTEXT, .size = 1, .wait_obj = FI_WAIT_FD};
    int fd = -1;
    if (!own_queue && fi_cq_open(net.domain, &a, &own_queue, NULL))
        own_queue = NULL;
    if (own_queue && fi_control(&own_queue->fid, FI_GETWAIT, &fd))
        fd = -1;
    return fd;
}

static void own_queue_close(void) {
    if (own_queue)
        fi_close(&own_queue->fid);
    own_queue = NULL;
}

static void *progress_main(void *arg) {
    (void)arg;
    uint64_t hot_since = 0, seen = 0, stretch_since = 0;
    unsigned hot_polls = 0;
    long lazy = LAZY_NS;
    for (;;) {
        __atomic_store_n(&parked, 1, __ATOMIC_SEQ_CST);
        uint32_t d = __atomic_load_n(&drivers, __ATOMIC_SEQ_CST);
        uint64_t ep = __atomic_load_n(&epoch, __ATOMIC_SEQ_CST);
        int handed = !d && __atomic_exchange_n(&handoff, 0, __ATOMIC_SEQ_CST);
        if (d || (ep != seen && !handed)) {
            /* a thread of this PE drives the provider, or did so since the last look: stay out of its way */
            own_queue_close();
            uint64_t t = mono_ns();
            if (!d || ep != seen)
                stretch_since = t;
            else if (t - stretch_since >= LEAVE_NS && __atomic_load_n(&net.progress_on, __ATOMIC_ACQUIRE) &&
                     leave(ep)) {
                shmemi_debug("progress thread leaves: a thread of this PE has driven the provider for %.0f ms",
                             (double)(t - stretch_since) / 1e6);
                return NULL;
            }
            seen = ep;
            long nap = lazy, until_leave = (long)(stretch_since + LEAVE_NS - t);
            if (d && until_leave < nap)
                nap = until_leave > 100000 ? until_leave : 100000;
            struct timespec ts = {nap / 1000000000L, nap % 1000000000L};
            if (lazy < LAZY_MAX_NS)
                lazy *= 2;
            syscall(SYS_futex, &drivers, FUTEX_WAIT_PRIVATE, d, &ts, NULL, 0);
            __atomic_store_n(&parked, 0, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&net.progress_on, __ATOMIC_ACQUIRE) == 0)
                break;
            continue;
        }
        seen = ep;
        lazy = LAZY_NS;
        __atomic_store_n(&parked, 0, __ATOMIC_SEQ_CST);
        int fd = net.sleep_queue ? own_queue_fd() : net.wait_fd; /* (opened before driving: no traffic missed) */
        struct fid *f = net.sleep_queue ? (own_queue ? &own_queue->fid : NULL) : &net.ep0.cq->fid;
        int got = drive(&net.ep0);
        shmemi_wake_after_traffic();
        struct pollfd p[2] = {{.fd = net.stop_pipe[0], .events = POLLIN}, {.fd = fd, .events = POLLIN}};
        if (fd >= 0) {
            /* Hot window: for a while after traffic, keep polling (yielding between polls) instead of sleeping, so
             * a stream of gets or atomics from a peer is served without a thread wake-up per request (which costs
             * more than the network round trip on a small VM). Idle, the thread sleeps in poll(). */
            uint64_t t = mono_ns();
            if (got)
                hot_since = t;
            if (t - hot_since < HOT_NS) {
                /* completions show traffic; serving a peer's reads leaves none, so look at the descriptor too */
                if ((++hot_polls & 7) == 0 && poll(p, 2, 0) > 0) {
                    if (p[0].revents & POLLIN)
                        break;
                    hot_since = t;
                }
                sched_yield();
            } else if (fi_trywait(net.fabric, &f, 1) == FI_SUCCESS) {
                int r = poll(p, 2, 100);
                if (r > 0 && (p[0].revents & POLLIN))
                    break;
                if (r > 0)
                    hot_since = mono_ns();
            }
        } else {
            /* no wait descriptor from this provider: poll often enough for latency, rarely enough to stay idle */
            if (poll(p, 1, 0) > 0)
                break;
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
        if (__atomic_load_n(&net.progress_on, __ATOMIC_ACQUIRE) == 0)
            break;
    }
    own_queue_close();
    return NULL;
}

static int progress_start(void) {
    if (pipe(net.stop_pipe))
        return -1;
    net.progress_on = 1;
    if ((errno = pthread_create(&net.progress, NULL, progress_main, NULL))) {
        net.progress_on = 0;
        close(net.stop_pipe[0]);
        close(net.stop_pipe[1]);
        return -1;
    }
    return 0;
}

static void progress_stop(void) {
    __atomic_store_n(&net.progress_on, 0, __ATOMIC_RELEASE);
    ssize_t w = write(net.stop_pipe[1], "x", 1);
    (void)w;
    syscall(SYS_futex, &drivers, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0); /* parked: look now */
    pthread_join(net.progress, NULL);                                         /* (if it had left, it is joined here) */
    __atomic_store_n(&absent, 0, __ATOMIC_SEQ_CST);
    close(net.stop_pipe[0]);
    close(net.stop_pipe[1]);
}

/* ---- setup ---- */
static int queue_can_sleep(void) {
    struct fi_cq_attr a = {.format = FI_CQ_FORMAT_CONTEXT, .size = 1, .wait_obj = FI_WAIT_FD};
    struct fid_cq *q;
    int fd = -1;
    if (fi_cq_open(net.domain, &a, &q, NULL))
        return 0;
    int ok = fi_control(&q->fid, FI_GETWAIT, &fd) == 0 && fd >= 0;
    fi_close(&q->fid);
    return ok;
}

static struct fi_info *hints_for(uint64_t caps, const char *want, int mr_local) {
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = caps;
    h->mode = FI_CONTEXT;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | (mr_local ? FI_MR_LOCAL : 0);
    if (net.hmem) { /* only GPU segments are registered as GPU memory; local buffers stay host memory */
        h->caps |= FI_HMEM;
        h->domain_attr->mr_mode |= FI_MR_HMEM;
    }
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    h->tx_attr->msg_order = FI_ORDER_RMA_RAW | FI_ORDER_RMA_WAW | FI_ORDER_ATOMIC_RAW | FI_ORDER_ATOMIC_WAW;
    if (*want)
        h->fabric_attr->prov_name = strdup(want);
    if (*shmemi_env.ofi_domain)
        h->domain_attr->name = strdup(shmemi_env.ofi_domain);
    return h;
}

/* The provider's NICs (its domains): the one nearest this PE's cores (src/topo, from the NICs' PCI addresses),
 * spread over the PEs near the same ones, unless SHMEM_OFI_DOMAIN names one; recorded for SHMEM_INFO. */
static void pick_near_nic(void) {
    const char *prov = net.info->fabric_attr->prov_name;
    struct fi_info *cand[16];
    char ids[16][32];
    const char *busid[16], *names[16];
    int n = 0;
    for (struct fi_info *f = net.info; f && n < 16; f = f->next) {
        int seen = strcmp(f->fabric_attr->prov_name, prov) || !f->domain_attr->name;
        for (int k = 0; k < n && !seen; k++)
            seen = !strcmp(names[k], f->domain_attr->name);
        if (seen)
            continue;
        cand[n] = f;
        names[n] = f->domain_attr->name;
        busid[n] = NULL;
        if (f->nic && f->nic->bus_attr && f->nic->bus_attr->bus_type == FI_BUS_PCI) {
            const struct fi_pci_attr *a = &f->nic->bus_attr->attr.pci;
            snprintf(ids[n], sizeof ids[n], "%04x:%02x:%02x.%x", a->domain_id, a->bus_id, a->device_id, a->function_id);
            busid[n] = ids[n];
        }
        n++;
    }
    int known = 0;
    for (int i = 0; i < n; i++)
        known += busid[i] != NULL;
    if (n < 2 || !known) { /* (domains without a PCI address, e.g. tcp's interfaces: the provider's first, as before) */
        snprintf(shmemi_rt.place_nic, sizeof shmemi_rt.place_nic, "%s", n ? names[0] : prov);
        return;
    }
    int i = shmemi_pick_near(n, busid, names, "NIC");
    if (i > 0) {
        struct fi_info *pick = fi_dupinfo(cand[i]);
        if (pick) {
            fi_freeinfo(net.info);
            net.info = pick;
        }
    }
}

/* pick_provider without (mr_local 0: returns 1 when there is none) or with FI_MR_LOCAL allowed (mr_local 1: when none
 * fits, says which capability the named provider lacks and returns -1) */
static int pick_provider_as(const char *want, int mr_local, char *err, size_t errlen) {
    struct fi_info *h =
        hints_for(FI_RMA | FI_ATOMIC | FI_MSG | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, want, mr_local);
    if (!h)
        return snprintf(err, errlen, "libfabric transport: out of memory"), -1;
    int rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &net.info);
    if (rc == 0 && net.info) {
        net.ordered = 1;
    } else {
        h->tx_attr->msg_order = 0; /* an unordered provider works too: fence and put-with-signal then wait */
        rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &net.info);
    }
    if (rc || !net.info) { /* no fabric atomics: atomics become messages, which must follow the writes in order */
        h->caps &= ~(uint64_t)FI_ATOMIC;
        h->tx_attr->msg_order = FI_ORDER_RMA_RAW | FI_ORDER_RMA_WAW | FI_ORDER_SAW | FI_ORDER_SAS;
        rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, &net.info);
        if (rc == 0 && net.info)
            net.ordered = 1;
    }
    if (rc == 0 && net.info && *shmemi_env.ofi_domain) {
        /* layered providers (tcp;ofi_rxm) may not filter on the domain hint: pick it from the list */
        struct fi_info *pick = NULL;
        char names[256] = "";
        for (struct fi_info *f = net.info; f && !pick; f = f->next) {
            if (f->domain_attr->name && !strcmp(f->domain_attr->name, shmemi_env.ofi_domain))
                pick = fi_dupinfo(f);
            else if (f->domain_attr->name && !strstr(names, f->domain_attr->name) &&
                     strlen(names) + strlen(f->domain_attr->name) + 3 < sizeof names)
                strcat(strcat(names, " "), f->domain_attr->name);
        }
        fi_freeinfo(net.info);
        net.info = pick;
        if (!pick && !mr_local) {
            fi_freeinfo(h);
            return 1;
        }
        if (!pick) {
            snprintf(err, errlen, "libfabric transport: SHMEM_OFI_DOMAIN=%s is not a domain of provider %s (it has:%s)",
                     shmemi_env.ofi_domain, *want ? want : "(any)", names);
            fi_freeinfo(h);
            return -1;
        }
    }
    if (rc == 0 && net.info && !*shmemi_env.ofi_domain)
        pick_near_nic();
    if ((rc == 0 && net.info) || !mr_local) {
        fi_freeinfo(h);
        return rc == 0 && net.info ? 0 : 1;
    }
    const char *prov = *want ? want : "(any)";
    /* diagnose: which of the requirements fails? */
    struct {
        uint64_t caps;
        int rdm;
        const char *lack;
    } probe[] = {
        {0, 0, "is not available on this machine (see fi_info -l)"},
        {0, 1, "has no reliable datagram endpoints (FI_EP_RDM)"},
        {FI_RMA, 1, "has no one-sided transfers (FI_RMA) on reliable datagram endpoints"},
        {FI_RMA | FI_MSG, 1, "has neither fabric atomics (FI_ATOMIC) nor messages (FI_MSG)"},
    };
    const char *lack = "does not offer what gshmem needs (FI_EP_RDM, FI_RMA, FI_ATOMIC or ordered FI_MSG, memory "
                       "registration without FI_MR_ENDPOINT)";
    for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        struct fi_info *p = fi_allocinfo(), *got = NULL;
        if (!p)
            break;
        p->caps = probe[i].caps;
        if (probe[i].rdm)
            p->ep_attr->type = FI_EP_RDM;
        p->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_LOCAL;
        if (*want)
            p->fabric_attr->prov_name = strdup(want);
        if (*shmemi_env.ofi_domain)
            p->domain_attr->name = strdup(shmemi_env.ofi_domain);
        int r = fi_getinfo(OFI_VERSION, NULL, NULL, 0, p, &got);
        fi_freeinfo(p);
        if (got)
            fi_freeinfo(got);
        if (r || !got) {
            lack = probe[i].lack;
            break;
        }
    }
    snprintf(err, errlen,
             "libfabric transport: provider %s%s%s %s (libfabric error: %s); set SHMEM_OFI_PROVIDER to one that has "
             "them, e.g. tcp, or SHMEM_TRANSPORT=shm to run on one node",
             prov, *shmemi_env.ofi_domain ? " on domain " : "", shmemi_env.ofi_domain, lack, fi_strerror(-rc));
    fi_freeinfo(h);
    return -1;
}

/* Finds a provider: first one that leaves local buffers alone, else one that needs them registered (FI_MR_LOCAL:
 * verbs, efa). When none fits, says which capability the named provider lacks. */
static int pick_provider(const char *want, char *err, size_t errlen) {
    int rc = pick_provider_as(want, 0, err, errlen);
    return rc == 1 ? pick_provider_as(want, 1, err, errlen) : rc;
}

static void check_atomics(void) {
    for (int big = 0; big < 2; big++)
        for (int op = 0; op <= SHMEMI_AMO_XOR; op++) {
            enum fi_datatype dt = big ? FI_UINT64 : FI_UINT32;
            size_t count = 0;
            int rc;
            switch (amo_map[op].kind) {
            case K_WRITE: rc = fi_atomicvalid(net.ep0.ep, dt, amo_map[op].op, &count); break;
            case K_FETCH: rc = fi_fetch_atomicvalid(net.ep0.ep, dt, amo_map[op].op, &count); break;
            default: rc = fi_compare_atomicvalid(net.ep0.ep, dt, FI_CSWAP, &count);
            }
            net.amo_ok[big][op] = rc == 0 && count >= 1;
        }
}

/* Page-aligned memory (the GPU driver pins whole pages), or NULL. */
static void *pages_alloc(size_t bytes, size_t *rounded) {
    *rounded = (bytes + shmemi_rt.page - 1) & ~(shmemi_rt.page - 1);
    void *p = mmap(NULL, *rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static size_t am_bufs_bytes;
static int am_pinned, get_pool_pinned;

/* Staged GPU data goes through host buffers pinned for the GPU driver where it lets us: the receive buffers (puts
 * are copied from them into GPU memory) and the get answers' send buffers. Unpinned they still work, slower. */
static void stage_pin(void) {
    get_pool = pages_alloc(GET_POOL * sizeof *get_pool, &get_pool_bytes);
    struct fid_mr *mr = get_pool && net.mr_local ? lreg(get_pool, get_pool_bytes, FI_SEND, "shmem_init") : NULL;
    for (int k = 0; get_pool && k < GET_POOL; k++) {
        get_pool[k].mr = mr;
        get_free[get_nfree++] = &get_pool[k];
    }
    if (!shmemi_gtl || !shmemi_gtl->host_register)
        return;
    am_pinned = !shmemi_gtl->host_register(net.am_bufs, am_bufs_bytes);
    get_pool_pinned = get_pool && !shmemi_gtl->host_register(get_pool, get_pool_bytes);
    shmemi_debug("libfabric transport: staging buffers %spinned for the GPU (receive %zu B, get answers %zu B)",
                 am_pinned && get_pool_pinned ? "" : "NOT all ", am_bufs_bytes, get_pool_bytes);
}

static void stage_unpin(void) {
    if ((am_pinned && shmemi_gtl->host_unregister(net.am_bufs)) ||
        (get_pool_pinned && shmemi_gtl->host_unregister(get_pool)))
        shmemi_fatal("shmem_finalize", "the GPU driver (%s) cannot unpin the network's staging buffers",
                     shmemi_gtl->name);
    am_pinned = get_pool_pinned = 0;
    if (get_pool && get_pool[0].mr)
        lclose(get_pool[0].mr);
    if (get_pool)
        munmap(get_pool, get_pool_bytes);
    get_pool = NULL;
    get_nfree = 0;
}

/* Receive buffers and the rest of what messages need (atomics as messages, staged GPU data). */
static int am_setup(const struct fi_info *i, char *err, size_t errlen) {
    size_t max = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : SIZE_MAX;
    if (strstr(i->fabric_attr->prov_name, "ofi_rxm")) {
        /* rxm sends a message past its buffer size by rendezvous, whose completion may come after a later message's:
         * messages must be applied in the order sent (a quiet's flush after a staged put), so stay under it (less
         * rxm's header). Over tcp with FI_OFI_RXM_BUFFER_SIZE=4096 and 4 KiB messages, staged GPU puts landed after
         * the quiet that should have covered them. */
        const char *v = getenv("FI_OFI_RXM_BUFFER_SIZE");
        size_t buf = v && *v ? (size_t)strtoull(v, NULL, 0) : 16384; /* libfabric 1.17's default */
        buf = buf > 128 ? buf - 128 : 0;
        if (max > buf)
            max = buf;
    }
    if (max < sizeof(struct am_msg) + 64) {
        snprintf(err, errlen,
                 "libfabric transport: provider %s delivers messages in order only up to %zu bytes; %zu needed%s",
                 i->fabric_attr->prov_name, max, sizeof(struct am_msg) + 64,
                 strstr(i->fabric_attr->prov_name, "ofi_rxm") ? " (raise FI_OFI_RXM_BUFFER_SIZE)" : "");
        return -1;
    }
    net.am_data = max - sizeof(struct am_msg) < AM_DATA ? max - sizeof(struct am_msg) : AM_DATA;
    net.am_inline = i->tx_attr->inject_size - sizeof(struct am_msg);
    if (net.am_inline > net.am_data)
        net.am_inline = net.am_data;
    net.am_bufs = pages_alloc(AM_NBUF * sizeof *net.am_bufs, &am_bufs_bytes);
    if (!net.am_bufs) {
        snprintf(err, errlen, "libfabric transport: out of memory");
        return -1;
    }
    int rc;
    if (net.mr_local &&
        (rc = fi_mr_reg(net.domain, net.am_bufs, am_bufs_bytes, FI_RECV, 0, net.tmp_key++, 0, &net.am_mr, NULL))) {
        snprintf(err, errlen, "libfabric transport: cannot register receive buffers with provider %s: %s",
                 i->fabric_attr->prov_name, fi_strerror(-rc));
        return -1;
    }
    if (net.am_mr)
        lrec_add(net.am_bufs, am_bufs_bytes, net.am_mr);
    for (int k = 0; k < AM_NBUF; k++) {
        rc = am_post(&net.ep0, &net.am_bufs[k]);
        if (rc) {
            snprintf(err, errlen, "libfabric transport: cannot post receive buffers on provider %s: %s",
                     i->fabric_attr->prov_name, fi_strerror(-rc));
            return -1;
        }
    }
    return 0;
}

struct ofi_card {
    uint32_t addrlen, pad;
    char addr[ADDR_MAX];
    uint64_t key[NSEG], base[NSEG];
    uint64_t gpu_ok; /* bit si: GPU segment si registered */
    int64_t pid;
};

/* A GPU segment, registered as GPU memory (FI_HMEM) or, for a backend whose memory the network sees as host memory
 * (the emulated GPU), at the address the backend gives. Failure is not fatal: peers then cannot reach the segment
 * over the network, and an operation that tries stops with a message. Not registered when the network is up only for
 * node peers whose GPUs cannot map this one or update it atomically (shmemi_rt.net_for_gpu): their operations then
 * come as messages this PE applies with its own GPU, the one way their atomics stay atomic with its kernels'. */
static void reg_gpu_seg(struct shmemi_seg *s, int si, const struct fi_info *i, struct ofi_card *mine) {
    void *a;
    int devno = 0;
    if (!shmemi_gtl || !shmemi_env.ofi_gpu_register || shmemi_rt.net_for_gpu ||
        (shmemi_gtl->net_iface != FI_HMEM_SYSTEM && !net.hmem) || shmemi_gtl->net_addr(s->base, &a, &devno))
        return;
    struct iovec iov = {.iov_base = a, .iov_len = s->map_size};
    struct fi_mr_attr at = {.mr_iov = &iov,
                            .iov_count = 1,
                            .access = FI_REMOTE_READ | FI_REMOTE_WRITE,
                            .requested_key = (uint64_t)si + 1,
                            .iface = (enum fi_hmem_iface)shmemi_gtl->net_iface};
    at.device.cuda = devno;
    int rc = fi_mr_regattr(net.domain, &at, 0, &net.mr[si]);
    if (rc) {
        shmemi_debug(
            "libfabric transport: cannot register the %s with provider %s (%s): not reachable over the network",
            s->name, i->fabric_attr->prov_name, fi_strerror(-rc));
        net.mr[si] = NULL;
        return;
    }
    mine->key[si] = fi_mr_key(net.mr[si]);
    mine->base[si] = (i->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)a : 0;
    mine->gpu_ok |= 1ULL << si;
}

int shmemi_ofi_gpu_reachable(const struct shmemi_seg *s) {
    return shmemi_ofi_up && (((net.gpu_ok >> seg_index(s)) & 1) || net.stage);
}

/* Signal handlers are the program's. Debian's libfabric links the PSM providers' libraries, and the constructor of
 * libinfinipath (loaded with them) replaces the handlers of SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGINT and SIGTERM by
 * its own, which prints a backtrace and calls exit(): a program's own handlers were lost once the network transport
 * started, and a PE that oshrun told to stop (SIGTERM, when another PE failed) ran its atexit handlers, shmem_finalize
 * included, instead of stopping. What the provider libraries change while the transport starts is put back. */
#define SIG_KEPT 32 /* the standard signals; glibc keeps some of the real-time ones for itself */
static void signals_save(struct sigaction *saved) {
    for (int sig = 1; sig < SIG_KEPT; sig++)
        if (sigaction(sig, NULL, &saved[sig]))
            saved[sig].sa_handler = SIG_ERR; /* (no such signal: nothing to put back) */
}

static void signals_restore(const struct sigaction *saved) {
    for (int sig = 1; sig < SIG_KEPT; sig++) {
        struct sigaction now;
        if (saved[sig].sa_handler == SIG_ERR || sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &now))
            continue;
        if (now.sa_handler != saved[sig].sa_handler || now.sa_flags != saved[sig].sa_flags) {
            shmemi_debug("libfabric transport: signal %d's handler was changed by a provider library: put back", sig);
            sigaction(sig, &saved[sig], NULL);
        }
    }
}

static int ofi_open(char *err, size_t errlen);
static int ofi_connect(const void *cards, size_t stride, char *err, size_t errlen);
/* what this PE tells the others, from ofi_open to ofi_connect */
static struct ofi_card card;

size_t shmemi_ofi_card_bytes(void) { return sizeof card; }

void shmemi_ofi_card(void *out) { memcpy(out, &card, sizeof card); }

int shmemi_ofi_open(char *err, size_t errlen) {
    struct sigaction saved[SIG_KEPT];
    signals_save(saved);
    int rc = ofi_open(err, errlen);
    signals_restore(saved);
    return rc;
}

int shmemi_ofi_connect(const void *cards, size_t stride, char *err, size_t errlen) {
    struct sigaction saved[SIG_KEPT];
    signals_save(saved);
    int rc = ofi_connect(cards, stride, err, errlen);
    signals_restore(saved);
    if (rc == 0)
        regions_guard();
    return rc;
}

static int ofi_open(char *err, size_t errlen) {
    int n = shmemi_rt.n_pes, rc;
    memset(&card, 0, sizeof card);
    if (load_libfabric(err, errlen))
        return -1;
    ticks_start();
    /* GPU memory that the provider must register as such (CUDA): a provider with FI_HMEM if there is one, else
     * without (GPU segments are then out of the network's reach) */
    net.hmem = shmemi_rt.gpu && shmemi_gtl && shmemi_gtl->net_iface != FI_HMEM_SYSTEM && !shmemi_rt.net_for_gpu;
retry:
    if (net.hmem && pick_provider(shmemi_env.ofi_provider, err, errlen)) {
        shmemi_debug("libfabric transport: no provider with FI_HMEM (%s): GPU memory is not reachable over the network",
                     err);
        net.hmem = 0;
        net.info = NULL;
    }
    if (!net.info && pick_provider(shmemi_env.ofi_provider, err, errlen))
        return -1;
    if (!*shmemi_env.ofi_provider && !strcmp(net.info->fabric_attr->prov_name, "tcp;ofi_rxm")) {
        /* Left to choose, libfabric 1.17 puts rxm over tcp first, but its net provider is the faster way over TCP
         * (get 1.10x OSHMEM/UCX's latency vs 1.39x, fetch-add 1.11x vs 1.66x) and takes private endpoints: prefer
         * it when it serves the same need. SHMEM_OFI_PROVIDER=tcp still picks rxm. */
        struct fi_info *rxm = net.info;
        int rxm_ordered = net.ordered;
        char ignored[256];
        net.info = NULL;
        if (pick_provider("net", ignored, sizeof ignored) == 0) {
            fi_freeinfo(rxm);
        } else {
            net.info = rxm;
            net.ordered = rxm_ordered;
        }
    }
    struct fi_info *i = net.info;
    net.mr_local = (i->domain_attr->mr_mode & FI_MR_LOCAL) || shmemi_env.ofi_mr_local;
    net.tmp_key = (uint64_t)NSEG + 1; /* (the segments' requested keys are 1..NSEG) */
    net_gen++;
    net.max_msg = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : ((size_t)1 << 30);
    if (net.max_msg > ((size_t)1 << 30))
        net.max_msg = (size_t)1 << 30;
    net.inject = i->tx_attr->inject_size;
    if ((rc = fi_fabric(i->fabric_attr, &net.fabric, NULL)) || (rc = fi_domain(net.fabric, i, &net.domain, NULL))) {
        snprintf(err, errlen, "libfabric transport: cannot open provider %s: %s", i->fabric_attr->prov_name,
                 fi_strerror(-rc));
        return -1;
    }
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)n};
    if ((rc = fi_av_open(net.domain, &ava, &net.av, NULL))) {
        snprintf(err, errlen, "libfabric transport: fi_av_open: %s", fi_strerror(-rc));
        return -1;
    }
    net.sleep_queue = shmemi_env.ofi_progress && !strcmp(i->fabric_attr->prov_name, "net") && queue_can_sleep();
    if (ep_open(&net.ep0, shmemi_env.ofi_progress && !net.sleep_queue, err, errlen))
        return -1;
    if (i->caps & FI_ATOMIC)
        check_atomics();
    if (!net.amo_ok[0][SHMEMI_AMO_CSWAP] || !net.amo_ok[1][SHMEMI_AMO_CSWAP]) {
        /* no compare-and-swap to build the rest on (net in libfabric 1.17 lists FI_ATOMIC but implements none):
         * atomics as messages, if the provider sends them in order after the writes */
        uint64_t need = FI_ORDER_SAW | FI_ORDER_SAS;
        if ((!(i->caps & FI_MSG) || (i->tx_attr->msg_order & need) != need ||
             i->tx_attr->inject_size < sizeof(struct am_msg)) &&
            net.hmem) {
            /* FI_HMEM can cost a provider what it has without it (shm: atomics, inject): GPU memory then goes
             * through its owner (staged) on the provider as it is without FI_HMEM */
            shmemi_debug("libfabric transport: provider %s with FI_HMEM has no compare-and-swap nor ordered messages "
                         "with inject: trying again without FI_HMEM",
                         i->fabric_attr->prov_name);
            ep_close(&net.ep0);
            fi_close(&net.av->fid);
            fi_close(&net.domain->fid);
            fi_close(&net.fabric->fid);
            fi_freeinfo(net.info);
            net.av = NULL;
            net.domain = NULL;
            net.fabric = NULL;
            net.info = NULL;
            memset(net.amo_ok, 0, sizeof net.amo_ok);
            net.hmem = 0;
            goto retry;
        }
        if (!(i->caps & FI_MSG) || (i->tx_attr->msg_order & need) != need ||
            i->tx_attr->inject_size < sizeof(struct am_msg)) {
            snprintf(err, errlen,
                     "libfabric transport: provider %s has no compare-and-swap on 32- and 64-bit integers "
                     "(fi_compare_atomicvalid FI_CSWAP), nor messages delivered in order after writes (FI_MSG, "
                     "FI_ORDER_SAW, FI_ORDER_SAS, inject >= %zu B) to carry atomics; pick another with "
                     "SHMEM_OFI_PROVIDER",
                     i->fabric_attr->prov_name, sizeof(struct am_msg));
            return -1;
        }
        net.am = 1;
        if (am_setup(i, err, errlen))
            return -1;
    } else if (shmemi_rt.gpu && (i->caps & FI_MSG) && (i->tx_attr->msg_order & FI_ORDER_SAS) &&
               i->tx_attr->inject_size >= sizeof(struct am_msg)) {
        /* messages, should a GPU segment stay out of the provider's reach (see staged) */
        if (am_setup(i, err, errlen))
            return -1;
    }

    struct ofi_card *mine = &card;
    size_t alen = ADDR_MAX;
    if ((rc = fi_getname(&net.ep0.ep->fid, mine->addr, &alen))) {
        snprintf(err, errlen, "libfabric transport: fi_getname: %s (address longer than %d bytes?)", fi_strerror(-rc),
                 ADDR_MAX);
        return -1;
    }
    mine->addrlen = (uint32_t)alen;
    mine->pid = getpid();
    for (int si = 0; si < NSEG; si++) {
        struct shmemi_seg *s = si == SHMEMI_MAX_SEGS  ? &shmemi_rt.internal
                               : si < shmemi_rt.nsegs ? &shmemi_rt.segs[si]
                                                      : NULL;
        if (!s)
            continue;
        if (s->kind == SHMEMI_MEM_DEVICE) {
            reg_gpu_seg(s, si, i, mine);
            continue;
        }
        uint64_t local = net.mr_local ? FI_READ | FI_WRITE | FI_SEND | FI_RECV : 0;
        if ((rc = fi_mr_reg(net.domain, s->base, s->map_size, FI_REMOTE_READ | FI_REMOTE_WRITE | local, 0,
                            (uint64_t)si + 1, 0, &net.mr[si], NULL))) {
            snprintf(err, errlen, "libfabric transport: cannot register the %s (%zu bytes) with provider %s: %s",
                     s->name, s->map_size, i->fabric_attr->prov_name, fi_strerror(-rc));
            return -1;
        }
        mine->key[si] = fi_mr_key(net.mr[si]);
        mine->base[si] = (i->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)s->base : 0;
        if (net.mr_local) {
            net.lbase[si] = s->base;
            net.llen[si] = s->map_size;
            lrec_add(s->base, s->map_size, net.mr[si]);
        }
    }
    return 0;
}

/* cards: every PE's card, stride bytes apart, where shmem_init carried them in an exchange of its own; NULL: this
 * exchanges them (a job with GPUs opens the network after the segments' exchange) */
static int ofi_connect(const void *cards, size_t stride, char *err, size_t errlen) {
    int n = shmemi_rt.n_pes;
    struct fi_info *i = net.info;
    struct ofi_card *all = calloc((size_t)n, sizeof *all);
    net.addr = calloc((size_t)n, sizeof *net.addr);
    if (!all || !net.addr) {
        free(all);
        snprintf(err, errlen, "libfabric transport: out of memory");
        return -1;
    }
    if (cards) {
        for (int pe = 0; pe < n; pe++)
            memcpy(&all[pe], (const char *)cards + (size_t)pe * stride, sizeof *all);
    } else if (shmemb_allgather(&card, all, sizeof card)) {
        free(all);
        snprintf(err, errlen, "libfabric transport: bootstrap allgather of addresses failed");
        return -1;
    }
    for (int si = 0; si < NSEG; si++) {
        if (!net.mr[si])
            continue;
        net.key[si] = calloc((size_t)n, sizeof(uint64_t));
        net.base[si] = calloc((size_t)n, sizeof(uint64_t));
        if (!net.key[si] || !net.base[si]) {
            free(all);
            snprintf(err, errlen, "libfabric transport: out of memory");
            return -1;
        }
        for (int pe = 0; pe < n; pe++) {
            net.key[si][pe] = all[pe].key[si];
            net.base[si][pe] = all[pe].base[si];
        }
    }
    net.gpu_ok = ~0ULL;
    for (int pe = 0; pe < n; pe++)
        net.gpu_ok &= all[pe].gpu_ok;
    int *pids = calloc((size_t)n, sizeof *pids), np = 0;
    for (int pe = 0; pids && pe < n; pe++)
        if (pe != shmemi_rt.my_pe && shmemi_rt.same_host && shmemi_rt.same_host[pe] && all[pe].pid > 0)
            pids[np++] = (int)all[pe].pid;
    npeer_pids = np;
    __atomic_store_n(&peer_pids, pids, __ATOMIC_RELEASE);
    uint64_t gpu_segs = 0;
    for (int si = 0; si < shmemi_rt.nsegs && si < 64; si++)
        if (shmemi_rt.segs[si].kind == SHMEMI_MEM_DEVICE)
            gpu_segs |= 1ULL << si;
    net.stage = net.am_bufs && (gpu_segs & ~net.gpu_ok);
    if (net.stage)
        stage_pin();
    if (gpu_segs & ~net.gpu_ok)
        shmemi_debug("libfabric transport: GPU segments %s over the network through their owners' host memory",
                     net.stage ? "reached" : "NOT reachable (no FI_MSG with FI_ORDER_SAS either)");
    for (int pe = 0; pe < n; pe++) {
        if (fi_av_insert(net.av, all[pe].addr, 1, &net.addr[pe], 0, NULL) != 1) {
            free(all);
            snprintf(err, errlen, "libfabric transport: cannot insert PE %d's address into the address vector", pe);
            return -1;
        }
    }
    free(all);
    if (!(probes = calloc((size_t)n, sizeof *probes))) {
        snprintf(err, errlen, "libfabric transport: out of memory");
        return -1;
    }
    if (net.mr_local)
        probes_mr = lreg(probes, (size_t)n * sizeof *probes, FI_READ, "shmem_init (libfabric transport)");
    snprintf(net.desc, sizeof net.desc, "%s on %s (max message %zu B, inject %zu B, %s atomics%s)",
             i->fabric_attr->prov_name, i->domain_attr->name, net.max_msg, net.inject,
             net.am                                ? "message"
             : net.amo_ok[1][SHMEMI_AMO_FETCH_ADD] ? "native"
                                                   : "emulated",
             !net.mr_local                             ? ""
             : (i->domain_attr->mr_mode & FI_MR_LOCAL) ? ", local buffers registered (FI_MR_LOCAL)"
                                                       : ", local buffers registered (SHMEM_OFI_MR_LOCAL)");

    if (shmemi_env.ofi_progress) {
        if (fi_control(&net.ep0.cq->fid, FI_GETWAIT, &net.wait_fd))
            net.wait_fd = -1;
        if (progress_start()) {
            snprintf(err, errlen, "libfabric transport: cannot start the progress thread: %s", strerror(errno));
            return -1;
        }
    }
    shmemi_ofi_up = 1;
    shmemi_debug("libfabric transport up: %s, progress thread %s", net.desc,
                 !shmemi_env.ofi_progress ? "off"
                 : net.sleep_queue        ? "sleeping on a queue of its own when idle"
                 : net.wait_fd >= 0       ? "sleeping on the completion queue"
                                          : "polling");
    return 0;
}

const char *shmemi_ofi_describe(void) { return shmemi_ofi_up ? net.desc : NULL; }

int shmemi_ofi_fabric_atomics(void) { return shmemi_ofi_up && !net.am; }

void shmemi_ofi_fini(void) {
    if (!shmemi_ofi_up)
        return;
    /* Peers may still need this PE's progress until all are done: the quiet of a PE still in shmemi_ofi_quiet_all
     * waits for us to answer its flush message or serve its read-back, and the bootstrap barrier drives nothing. So
     * without a progress thread, one runs for the barrier (a polling one: no wait descriptor was asked for). */
    if (!net.progress_on && progress_start())
        shmemi_fatal("shmem_finalize", "cannot start a thread to serve peers while they finish: %s", strerror(errno));
    shmemi_ofi_quiet_all();
    shmemb_barrier();
    progress_stop();
    if (am_nfly)
        am_fly_reap(NULL, 1); /* the GPU reads the receive buffers until its copies are done */
    pthread_mutex_lock(&ctx_eps_lock);
    for (int k = 0; k < 64; k++)
        if (ctx_eps[k]) { /* contexts the program did not destroy */
            ep_close(ctx_eps[k]);
            free(ctx_eps[k]);
            ctx_eps[k] = NULL;
        }
    pthread_mutex_unlock(&ctx_eps_lock);
    ep_close(&net.ep0);
    regions_unguard();
    stage_unpin();
    scratch_close_all();
    if (probes_mr)
        lclose(probes_mr);
    probes_mr = NULL;
    free(probes);
    probes = NULL;
    if (net.am_mr)
        lclose(net.am_mr);
    net.am_mr = NULL;
    if (net.am_bufs)
        munmap(net.am_bufs, am_bufs_bytes);
    net.am_bufs = NULL;
    am_nlater = 0;
    net.am = net.stage = 0;
    for (int si = 0; si < NSEG; si++) {
        if (net.mr[si] && net.lbase[si])
            lclose(net.mr[si]);
        else if (net.mr[si])
            fi_close(&net.mr[si]->fid);
        net.mr[si] = NULL;
        net.lbase[si] = NULL;
        free(net.key[si]);
        free(net.base[si]);
        net.key[si] = net.base[si] = NULL;
    }
    if (net.av)
        fi_close(&net.av->fid);
    if (net.domain)
        fi_close(&net.domain->fid);
    if (net.fabric)
        fi_close(&net.fabric->fid);
    fi_freeinfo(net.info);
    free(net.addr);
    net.info = NULL;
    shmemi_ofi_up = 0;
}
