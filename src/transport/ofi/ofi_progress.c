/* ofi_progress.c - driving the libfabric provider: completions and errors, the waits of blocked calls (back-off, stall
 * limit), shmemi_ofi_progress for waiters, and the progress thread that serves peers while this PE computes. */
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "transport/ofi/ofi_int.h"

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
    pthread_join(shmemt_ofi.progress, NULL); /* it has returned, or is returning */
    shmemi_debug("progress thread started again: this PE stops driving the provider");
    if ((errno = pthread_create(&shmemt_ofi.progress, NULL, progress_main, NULL)))
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

__attribute__((noreturn)) void shmemt_ofi_fatal(const char *what, int rc) {
    char hint[400];
    shmemi_fatal(what, "libfabric error %d (%s) on provider %s%s", rc, fi_strerror(rc < 0 ? -rc : rc),
                 shmemt_ofi.info ? shmemt_ofi.info->fabric_attr->prov_name : "?",
                 shmemt_ofi_fd_hint(rc, hint, sizeof hint));
}

/* ---- completion ---- */
/* A failed operation raises the counter's error count; `cq_says` when the queue itself reports an error entry. */
void shmemt_ofi_check_errors(struct ofi_ep *e, int cq_says) {
    uint64_t errs = fi_cntr_readerr(e->cntr);
    if (SHMEMI_LIKELY(errs == e->errs_seen && !cq_says))
        return;
    struct fi_cq_err_entry ce = {0};
    char buf[256] = "";
    if (fi_cq_readerr(e->cq, &ce, 0) > 0)
        fi_cq_strerror(e->cq, ce.prov_errno, ce.err_data, buf, sizeof buf);
    char hint[400];
    shmemt_ofi_fd_hint(ce.err, hint, sizeof hint);
    shmemi_fatal("shmem (libfabric transport)", "a network operation failed on provider %s: %s%s%s%s",
                 shmemt_ofi.info->fabric_attr->prov_name, ce.err ? fi_strerror(ce.err) : "error counter raised",
                 *buf ? ": " : "", buf,
                 *hint ? hint : " (a peer may have exited, or a transfer exceeded what the provider allows)");
}

static void op_completed(void *ctx) {
    struct op_done *d = ctx;
    if (d && d->heap == SBUF_POOL)
        shmemt_ofi_get_sbuf_put(d);
    else if (d && d->heap)
        shmemt_ofi_sbuf_free(d);
    else if (d)
        __atomic_sub_fetch(&d->left, 1, __ATOMIC_RELEASE);
}

/* Drives the provider once; returns how many completions it took off the queue (atomic messages included). */
int shmemt_ofi_drive(struct ofi_ep *e) {
    struct fi_cq_entry ent[8];
    if (!shmemt_ofi.am_bufs) {
        ssize_t n = fi_cq_read(e->cq, ent, 8);
        for (ssize_t i = 0; i < n; i++)
            op_completed(ent[i].op_context);
        if (n == -FI_EAVAIL)
            shmemt_ofi_check_errors(e, 1);
        return n > 0 ? (int)n : 0;
    }
    if (__atomic_load_n(&shmemt_ofi.am_lock, __ATOMIC_RELAXED) ||
        __atomic_exchange_n(&shmemt_ofi.am_lock, 1, __ATOMIC_ACQUIRE))
        return 0; /* another thread is applying messages, in order: let it */
    if (shmemt_ofi_am_nlater)
        shmemt_ofi_am_post_later();
    ssize_t n = fi_cq_read(e->cq, ent, 8);
    for (ssize_t i = 0; i < n; i++)
        if (am_ours(ent[i].op_context))
            shmemt_ofi_am_handle(e, (struct am_rbuf *)ent[i].op_context);
        else
            op_completed(ent[i].op_context);
    if (shmemt_ofi_am_nfly)
        shmemt_ofi_am_fly_reap(e, 0);
    __atomic_store_n(&shmemt_ofi.am_lock, 0, __ATOMIC_RELEASE);
    if (n == -FI_EAVAIL)
        shmemt_ofi_check_errors(e, 1);
    return n > 0 ? (int)n : 0;
}

/* Waits until every operation posted on e so far has completed (remote completion: delivery-complete semantics).
 * Completions come out of order, so with threads sharing the endpoint "counter >= what was posted when I began" could
 * count a later operation of another thread in place of mine. Instead: `posted` is raised before each post, and all is
 * complete when the counter reaches it with no post in between (the counter can never run ahead of it). */
int shmemt_ofi_all_done(struct ofi_ep *e) {
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

static int stall_limit(void) {
    int s = shmemi_env.ofi_stall_timeout;
    return s >= 0 ? s : shmemi_env.ofi_progress ? 120 : 0;
}

void shmemt_ofi_stall_check(struct stall *s, const char *what, int pe, int refused) {
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
    if (secs >= 1 && !s->fds_checked) {
        /* A provider that cannot open a socket to a peer (out of descriptors) refuses operations to it, or leaves them
         * waiting, and reports no error: after a second of that, a PE at its descriptor limit ends the job saying so
         * (nothing it waits for would free one). */
        s->fds_checked = 1;
        char hint[400];
        if (shmemt_ofi_fds_exhausted())
            shmemi_fatal("shmem (libfabric transport)", "%s: no progress for %d s on libfabric provider %s%s: %s%s",
                         what, (int)secs, shmemt_ofi.info->fabric_attr->prov_name, whom, why,
                         shmemt_ofi_fd_hint(FI_EMFILE, hint, sizeof hint));
    }
    if (secs >= (uint64_t)limit)
        shmemi_fatal(
            "shmem (libfabric transport)",
            "%s: no progress for %d s on libfabric provider %s%s: %s. A peer may have stopped or be unreachable "
            "from here, or the provider does not work on this network (pick another with "
            "SHMEM_OFI_PROVIDER); SHMEM_OFI_STALL_TIMEOUT sets this limit in seconds (0: wait forever)",
            what, limit, shmemt_ofi.info->fabric_attr->prov_name, whom, why);
    if (secs >= 10 && limit > 10 && !s->warned) {
        s->warned = 1;
        fprintf(stderr,
                "gshmem: PE %d: shmem (libfabric transport): %s: no progress for 10 s on libfabric provider %s%s: %s; "
                "still waiting (the job "
                "stops after %d s: SHMEM_OFI_STALL_TIMEOUT)\n",
                shmemi_rt.my_pe, what, shmemt_ofi.info->fabric_attr->prov_name, whom, why, limit);
    }
}

void shmemt_ofi_wait_posted(struct ofi_ep *e) {
    unsigned long spins = 0;
    if (shmemt_ofi_all_done(e))
        return;
    struct stall st = {0};
    shmemi_ofi_driving(SHMEMI_DRIVE_START);
    while (!shmemt_ofi_all_done(e)) {
        if ((spins & 63) == 63) /* (reading the error count drives the provider again: not every turn) */
            shmemt_ofi_check_errors(e, 0);
        drive_waiting(e, spins);
        backoff(&spins);
        shmemt_ofi_stall_check(&st, "waiting for transfers to complete", -1, 0);
    }
    shmemi_ofi_driving(SHMEMI_DRIVE_STOP);
}

void shmemt_ofi_wait_op(struct ofi_ep *e, struct op_done *d) {
    unsigned long spins = 0;
    if (!__atomic_load_n(&d->left, __ATOMIC_ACQUIRE))
        return;
    struct stall st = {0};
    shmemi_ofi_driving(SHMEMI_DRIVE_START);
    while (__atomic_load_n(&d->left, __ATOMIC_ACQUIRE)) {
        drive_waiting(e, spins); /* (a failed operation leaves an error entry on the queue: drive reports it) */
        backoff(&spins);
        shmemt_ofi_stall_check(&st, "waiting for a transfer to complete", -1, 0);
    }
    shmemi_ofi_driving(SHMEMI_DRIVE_STOP);
}

int shmemi_ofi_stall_limit(void) { return stall_limit(); }

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

void shmemt_ofi_ticks_start(void) {
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
        int n = shmemt_ofi_drive(&shmemt_ofi.ep0);
        return n ? n : (int64_t)(ticks() - a) > line; /* (a migration between the two reads counts as work once) */
    }
    uint64_t a = mono_ns();
    int n = shmemt_ofi_drive(&shmemt_ofi.ep0);
    if (n)
        return n;
    uint64_t b = mono_ns();
    if (!__atomic_load_n(&tick_cal.done, __ATOMIC_ACQUIRE))
        ticks_learn(b);
    return (int64_t)(b - a) > served_ns();
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
    if (!own_queue && fi_cq_open(shmemt_ofi.domain, &a, &own_queue, NULL))
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
            else if (t - stretch_since >= LEAVE_NS && __atomic_load_n(&shmemt_ofi.progress_on, __ATOMIC_ACQUIRE) &&
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
            if (__atomic_load_n(&shmemt_ofi.progress_on, __ATOMIC_ACQUIRE) == 0)
                break;
            continue;
        }
        seen = ep;
        lazy = LAZY_NS;
        __atomic_store_n(&parked, 0, __ATOMIC_SEQ_CST);
        int fd = shmemt_ofi.sleep_queue ? own_queue_fd()
                                        : shmemt_ofi.wait_fd; /* (opened before driving: no traffic missed) */
        struct fid *f = shmemt_ofi.sleep_queue ? (own_queue ? &own_queue->fid : NULL) : &shmemt_ofi.ep0.cq->fid;
        int got = shmemt_ofi_drive(&shmemt_ofi.ep0);
        shmemi_wake_after_traffic();
        struct pollfd p[2] = {{.fd = shmemt_ofi.stop_pipe[0], .events = POLLIN}, {.fd = fd, .events = POLLIN}};
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
            } else if (fi_trywait(shmemt_ofi.fabric, &f, 1) == FI_SUCCESS) {
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
        if (__atomic_load_n(&shmemt_ofi.progress_on, __ATOMIC_ACQUIRE) == 0)
            break;
    }
    own_queue_close();
    return NULL;
}

int shmemt_ofi_progress_start(void) {
    if (pipe(shmemt_ofi.stop_pipe))
        return -1;
    shmemt_ofi.progress_on = 1;
    if ((errno = pthread_create(&shmemt_ofi.progress, NULL, progress_main, NULL))) {
        shmemt_ofi.progress_on = 0;
        close(shmemt_ofi.stop_pipe[0]);
        close(shmemt_ofi.stop_pipe[1]);
        return -1;
    }
    return 0;
}

void shmemt_ofi_progress_stop(void) {
    __atomic_store_n(&shmemt_ofi.progress_on, 0, __ATOMIC_RELEASE);
    ssize_t w = write(shmemt_ofi.stop_pipe[1], "x", 1);
    (void)w;
    syscall(SYS_futex, &drivers, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0); /* parked: look now */
    pthread_join(shmemt_ofi.progress, NULL);                                  /* (if it had left, it is joined here) */
    __atomic_store_n(&absent, 0, __ATOMIC_SEQ_CST);
    close(shmemt_ofi.stop_pipe[0]);
    close(shmemt_ofi.stop_pipe[1]);
}
