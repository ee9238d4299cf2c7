/* proxy.c - serves the requests kernels put in the ring (peers this PE does not map: other nodes, or every peer over
 * libfabric) with the host routines, in ticket order, and answers blocking ones in their slot. It backs off when idle:
 * spins briefly, yields, then sleeps (on the doorbell futex under the CPU emulation, with a growing timeout on a GPU),
 * so several PEs' proxies on two cores cost little while nothing happens. A kernel's misuse report (the error slot)
 * ends the job from here, naming the routine and the PE. */
#include "proxy/proxy.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "comm/comm.h"
#include "gpu/gtl.h"

static struct shmemgi_ring *ring;
static struct shmemgi_derror *derr;
static pthread_t thr;
static int running, stopping, sleeping;
static uint64_t executed[SHMEMGI_MAX_DCTX];
static uint64_t head;

/* A host handle where a kernel needs a device one: the predefined host handles and the invalid one say why */
static const char *host_handle(uint64_t h) {
    if (!h)
        return " (the handle is null: SHMEM_TEAM_INVALID or SHMEM_CTX_INVALID, as a failed creation leaves it)";
    if (h == (uint64_t)(uintptr_t)SHMEM_TEAM_WORLD || h == (uint64_t)(uintptr_t)SHMEM_TEAM_SHARED)
        return h == (uint64_t)(uintptr_t)SHMEM_TEAM_WORLD ? " (the handle is SHMEM_TEAM_WORLD, the host's)"
                                                          : " (the handle is SHMEM_TEAM_SHARED, the host's)";
    return h == (uint64_t)(uintptr_t)SHMEM_CTX_DEFAULT ? " (the handle is SHMEM_CTX_DEFAULT, the host's)" : "";
}

void shmemi_proxy_misuse_text(unsigned what, int pe, uint64_t addr, uint64_t len, char *buf, size_t n) {
    static const char *const text[] = {
        [SHMEMGI_ERR_NOT_INIT] = "called before shmem_init_thread provided SHMEM_DEVICE_KERNEL_INIT (or after "
                                 "shmem_finalize); initialize with shmem_init_thread(... | SHMEM_DEVICE_KERNEL_INIT, "
                                 "&provided) and check provided",
        [SHMEMGI_ERR_PE] = "target PE is out of range",
        [SHMEMGI_ERR_ADDR] = "the address is not in the GPU symmetric heap; use memory from shmemg_malloc (or "
                             "shmem_space_malloc on SHMEM_SPACE_DEVICE)",
        [SHMEMGI_ERR_TEAM] = "the team is not a device team; use SHMEM_DEVICE_TEAM_WORLD, SHMEM_DEVICE_TEAM_SHARED "
                             "or a team split from them",
        [SHMEMGI_ERR_CTX] = "the context is not a device context; create it with SHMEM_DEVICE_CTX, or use "
                            "SHMEM_DEVICE_CTX_DEFAULT",
        [SHMEMGI_ERR_ALIGN] = "the atomic object is not aligned to its size",
        [SHMEMGI_ERR_CMP] = "the comparison is not one of SHMEM_CMP_EQ/NE/GT/GE/LT/LE",
        [SHMEMGI_ERR_SIGOP] = "the signal operation is not SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD",
        [SHMEMGI_ERR_CTX_GONE] = "the context was destroyed (shmem_ctx_destroy, or shmem_team_destroy of its team) "
                                 "while a kernel still used it; destroy it after the kernels that use it have "
                                 "finished (cudaStreamSynchronize)",
    };
    const char *t = what < sizeof text / sizeof text[0] && text[what] ? text[what] : "misuse of an unknown kind";
    /* what each kind's report means: fail() hands over the same four fields for every kind */
    switch (what) {
    case SHMEMGI_ERR_PE:
        snprintf(buf, n, "%s (PE %d; this job has %d PE%s)", t, pe, shmemi_rt.n_pes, shmemi_rt.n_pes == 1 ? "" : "s");
        break;
    case SHMEMGI_ERR_ADDR:
        if (pe >= 0)
            snprintf(buf, n, "%s (%#llx, %llu bytes; target PE %d)", t, (unsigned long long)addr,
                     (unsigned long long)len, pe);
        else
            snprintf(buf, n, "%s (%#llx, %llu bytes)", t, (unsigned long long)addr, (unsigned long long)len);
        break;
    case SHMEMGI_ERR_TEAM:
    case SHMEMGI_ERR_CTX: snprintf(buf, n, "%s%s", t, host_handle(addr)); break;
    case SHMEMGI_ERR_ALIGN:
        snprintf(buf, n, "%s (%#llx, an object of %llu bytes)", t, (unsigned long long)addr, (unsigned long long)len);
        break;
    case SHMEMGI_ERR_CMP: snprintf(buf, n, "%s (%d)", t, pe); break;
    case SHMEMGI_ERR_SIGOP: snprintf(buf, n, "%s (%llu)", t, (unsigned long long)len); break;
    default: snprintf(buf, n, "%s", t);
    }
}

static void report(void) {
    struct shmemgi_derror e;
    memcpy(&e, derr, sizeof e);
    e.fn[sizeof e.fn - 1] = '\0';
    char msg[512];
    shmemi_proxy_misuse_text(e.what, e.pe, e.addr, e.len, msg, sizeof msg);
    shmemi_fatal(e.fn, "(in a kernel) %s", msg);
}

static void execute(struct shmemgi_req *q) {
    void *dst = (void *)(uintptr_t)q->dst, *src = (void *)(uintptr_t)q->src;
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    const char *fn = "shmemg (through the proxy)";
    switch (q->op) {
    case SHMEMGI_OP_PUT:
        if (q->size == 1) { /* p: the data came in the request */
            uint64_t v[2] = {q->value, q->cond};
            shmemi_p(c, dst, v, q->len, q->pe, "shmemg_p (through the proxy)");
        } else if (q->wait) {
            shmemi_put(c, dst, src, q->len, q->pe, "shmemg_putmem (through the proxy)");
        } else {
            shmemi_put_nbi(c, dst, src, q->len, q->pe, "shmemg_putmem_nbi (through the proxy)");
        }
        break;
    case SHMEMGI_OP_GET:
        if (q->size == 1) { /* g: the data goes back in the request */
            uint64_t v[2] = {0, 0};
            shmemi_g(c, v, src, q->len, q->pe, "shmemg_g (through the proxy)");
            q->result[0] = v[0];
            q->result[1] = v[1];
        } else if (q->wait) {
            shmemi_get(c, dst, src, q->len, q->pe, "shmemg_getmem (through the proxy)");
        } else {
            shmemi_get_nbi(c, dst, src, q->len, q->pe, "shmemg_getmem_nbi (through the proxy)");
        }
        break;
    case SHMEMGI_OP_AMO: {
        uint64_t old =
            shmemi_amo(c, (int)q->amo, dst, q->value, q->cond, q->size, q->pe, "shmemg atomic (through the proxy)");
        if (src) /* a nonblocking fetching atomic: the old value into the fetch object (GPU heap) */
            shmemi_gtl_copy(src, &old, q->size, fn);
        q->result[0] = old;
        break;
    }
    case SHMEMGI_OP_PUT_SIGNAL:
        if (q->wait)
            shmemi_put_signal(c, dst, src, q->len, (uint64_t *)(uintptr_t)q->sig, q->value, (int)q->amo, q->pe,
                              "shmemg_putmem_signal (through the proxy)");
        else
            shmemi_put_signal_nbi(c, dst, src, q->len, (uint64_t *)(uintptr_t)q->sig, q->value, (int)q->amo, q->pe,
                                  "shmemg_putmem_signal_nbi (through the proxy)");
        break;
    case SHMEMGI_OP_FENCE: shmem_fence(); break;
    case SHMEMGI_OP_QUIET: shmem_quiet(); break;
    default: shmemi_fatal(fn, "request of unknown kind %u in the ring (memory corrupted?)", q->op);
    }
    if ((unsigned)q->ctx < SHMEMGI_MAX_DCTX) {
        executed[q->ctx]++;
        if (q->op == SHMEMGI_OP_QUIET) /* the answer: the host quiet completed all of them, this one included */
            q->result[0] = executed[q->ctx];
    }
}

/* SHMEM_DEVICE_PROXY_MUTATE: a promise the proxy breaks on purpose, so that a test that cannot see it is found */
enum { MUTATE_NONE, MUTATE_FENCE, MUTATE_QUIET, MUTATE_COMPLETION };
static int mutate;

/* SHMEM_DEVICE_PROXY_REORDER: non-blocking requests held back, run last first when something must see them done */
#define HELD_MAX 64
static struct shmemgi_req held[HELD_MAX];
static int nheld;

static int holdable(const struct shmemgi_req *q) { /* (non-blocking fetching atomics too: their results are due at
                                                     the next quiet, and they are ordered only by a fence) */
    return !q->wait && (q->op == SHMEMGI_OP_PUT || q->op == SHMEMGI_OP_PUT_SIGNAL || q->op == SHMEMGI_OP_AMO);
}

static void release_held(void) {
    while (nheld > 0) {
        /* a moment before each, as a network's delivery takes: a peer may see the later one without the earlier,
         * and whatever the kernel does directly meanwhile overtakes them */
        usleep(200);
        execute(&held[--nheld]);
    }
}

/* After a request the proxy polls for poll_ns (SHMEM_DEVICE_PROXY_POLL; < 0: for ever): on a GPU nothing wakes a
 * sleeping proxy, so a request that comes while it sleeps waits out the sleep. Then it backs off. */
static long long poll_ns;
static int polling;
static uint64_t poll_t0;
static unsigned backoff_base;

static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void idle_wait(unsigned *idle) {
    unsigned k = ++*idle;
    if (k == 1) { /* the first idle turn since a request */
        polling = poll_ns != 0;
        poll_t0 = polling ? mono_ns() : 0;
        backoff_base = 0;
    }
    if (polling) {
        if (poll_ns < 0 || (k & 63) || mono_ns() - poll_t0 < (uint64_t)poll_ns) {
            shmemi_cpu_relax();
            return;
        }
        polling = 0;
        backoff_base = k;
    }
    k -= backoff_base;
    if (k < 64) {
        shmemi_cpu_relax();
        return;
    }
    if (k < 128) {
        sched_yield();
        return;
    }
    long ns = 20000L << (k - 128 < 6 ? k - 128 : 6); /* up to 1.3 ms */
    if (shmemi_gtl == &shmemi_gtl_emu) {             /* emulated kernels ring the doorbell: sleep on it */
        uint32_t seen = __atomic_load_n(&ring->doorbell, __ATOMIC_ACQUIRE);
        __atomic_store_n(&sleeping, 1, __ATOMIC_SEQ_CST);
        struct shmemgi_req *q = &ring->slot[head % SHMEMGI_RING_SLOTS];
        if (__atomic_load_n(&q->seq, __ATOMIC_ACQUIRE) != head + 1 && !__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
            struct timespec ts = {0, ns * 8};
            syscall(SYS_futex, &ring->doorbell, FUTEX_WAIT, seen, &ts, NULL, 0);
        }
        __atomic_store_n(&sleeping, 0, __ATOMIC_RELAXED);
        return;
    }
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

static void *proxy_main(void *arg) {
    (void)arg;
    shmemi_gtl_no_sm = 1; /* the kernel waiting for an answer may hold every SM: nothing here may need one */
    unsigned idle = 0;
    for (;;) {
        if (SHMEMI_UNLIKELY(__atomic_load_n(&derr->flag, __ATOMIC_ACQUIRE)))
            report();
        struct shmemgi_req *q = &ring->slot[head % SHMEMGI_RING_SLOTS];
        if (__atomic_load_n(&q->seq, __ATOMIC_ACQUIRE) == head + 1) {
            if (shmemi_env.device_proxy_reorder && holdable(q)) {
                /* (a non-blocking source may not change before the next quiet, so it can wait here too) */
                held[nheld++] = *q;
                __atomic_store_n(&q->seq, head + SHMEMGI_RING_SLOTS, __ATOMIC_RELEASE);
                head++;
                idle = 0;
                if (nheld == HELD_MAX)
                    release_held();
                continue;
            }
            int early = q->wait && mutate == MUTATE_COMPLETION;
            if (early) { /* (SHMEM_DEVICE_PROXY_MUTATE: the answer before the work, which comes late enough for
                          * the requester to read the answer first, even with the two on one CPU) */
                __atomic_store_n(&q->done, 1, __ATOMIC_RELEASE);
                usleep(2000);
            }
            if (!(mutate == MUTATE_FENCE && q->op == SHMEMGI_OP_FENCE) &&
                !(mutate == MUTATE_QUIET && q->op == SHMEMGI_OP_QUIET))
                release_held(); /* a fence, a quiet or a blocking request sees everything before it done */
            if (!(mutate == MUTATE_FENCE && q->op == SHMEMGI_OP_FENCE))
                execute(q);
            if (q->wait) { /* the requester reads the answer and frees the slot */
                if (!early)
                    __atomic_store_n(&q->done, 1, __ATOMIC_RELEASE);
            } else {
                __atomic_store_n(&q->seq, head + SHMEMGI_RING_SLOTS, __ATOMIC_RELEASE);
            }
            head++;
            idle = 0;
            continue;
        }
        if (__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
            release_held();
            break;
        }
        if (nheld && idle >= 100) /* nothing new for a while: what is held goes out (before sleeping), so waits end */
            release_held();
        idle_wait(&idle);
    }
    return NULL;
}

int shmemi_proxy_start(struct shmemgi_ring *r, struct shmemgi_derror *e, char *why, size_t len) {
    ring = r;
    derr = e;
    head = 0;
    memset(executed, 0, sizeof executed);
    const char *m = shmemi_env.device_proxy_mutate;
    mutate = !strcmp(m, "fence")        ? MUTATE_FENCE
             : !strcmp(m, "quiet")      ? MUTATE_QUIET
             : !strcmp(m, "completion") ? MUTATE_COMPLETION
                                        : MUTATE_NONE;
    stopping = 0;
    /* a core of its own where the binding leaves one, so that it does not take turns with a main thread that spins
     * in the GPU driver; it then polls for ever unless told otherwise */
    char where[128];
    int core = shmemi_place_helper_core(where, sizeof where), own = 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (core >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(core, &one);
        own = !pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    }
    long long p = shmemi_env.device_proxy_poll;
    int emulated = shmemi_gtl == &shmemi_gtl_emu; /* (its kernels ring a doorbell: no need to poll) */
    poll_ns = p >= 0 ? p * 1000 : p == -1 ? -1 : emulated ? 0 : own ? -1 : 200000;
    int rc = pthread_create(&thr, &attr, proxy_main, NULL);
    if (rc && own) { /* (a core outside the cgroup's set, say) */
        pthread_attr_destroy(&attr);
        pthread_attr_init(&attr);
        own = 0;
        snprintf(where, sizeof where, "placed by the scheduler (pinning it to core %d failed)", core);
        rc = pthread_create(&thr, &attr, proxy_main, NULL);
    }
    pthread_attr_destroy(&attr);
    if (rc) {
        snprintf(why, len, "cannot start the proxy thread: %s", strerror(rc));
        return -1;
    }
    char polls[64];
    if (poll_ns < 0)
        snprintf(polls, sizeof polls, "polls for ever");
    else if (poll_ns == 0)
        snprintf(polls, sizeof polls, "sleeps when idle%s", emulated ? " (kernels wake it)" : "");
    else
        snprintf(polls, sizeof polls, "polls %lld us after a request, then sleeps", poll_ns / 1000);
    snprintf(shmemi_rt.place_proxy, sizeof shmemi_rt.place_proxy, "%s; %s (SHMEM_DEVICE_PROXY_POLL)", where, polls);
    running = 1;
    return 0;
}

void shmemi_proxy_stop(void) {
    if (!running)
        return;
    __atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
    shmemi_proxy_doorbell();
    pthread_join(thr, NULL);
    running = 0;
}

void shmemi_proxy_doorbell(void) {
    if (!ring)
        return;
    __atomic_fetch_add(&ring->doorbell, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&sleeping, __ATOMIC_SEQ_CST))
        syscall(SYS_futex, &ring->doorbell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
