/* liveness.c - leaving the job: finalize's own synchronization, and the check that turns "no PE can ever run again"
 * into a message and a job-wide abort instead of a hang (runtime/exit.c has the exit hook of a PE that ends without
 * shmem_finalize).
 *
 * A PE that returns from main or calls exit(0) without shmem_finalize is finalized by the hook. Finalize's
 * synchronization is a count on PE 0 that nothing else uses, so it cannot pair with a barrier the program still runs
 * on other PEs (it used to be a barrier_all: PE 0 then passed its own barrier_all and waited forever in finalize).
 * Such a PE also tells every PE that it left. From then on a thread that has waited past its spin in any blocking
 * routine looks at every PE's life word (mapped peers directly, others as the probes below read them) every SCAN_NS:
 * when each PE is either blocked in a wait or in finalize, at least one waits in something other than finalize, and
 * nothing changes for STEADY_NS, no PE can ever satisfy those waits, and the lowest waiting PE ends the job naming the
 * PE that left and the routine it waits in. A non-zero exit status ends the job at once with that status.
 *
 * A PE that leaves by _exit (or whose process ends some other way without finalizing) says nothing. oshrun and ORTE's
 * mpirun end the job when they see it; other launchers (srun) may not, so a thread blocked for PIDS_AFTER_NS also
 * checks once a second whether the processes of the PEs on its machine still exist, and a vanished one counts as a
 * PE that left.
 *
 * A PE of another node that can no longer be reached (its link is down for good, its machine stopped) says nothing
 * either, and no launcher sees it: a wait on local memory that such a PE was to write would never end, as nothing is
 * in flight for SHMEM_OFI_STALL_TIMEOUT to catch. So a thread blocked that long also reads the life word of each PE
 * it reaches over the network, once per tick, with reads no one waits for (one in flight per peer: the wait goes on
 * meanwhile); a peer that leaves one unanswered for SHMEM_OFI_STALL_TIMEOUT seconds ends the job with a message
 * naming it and its address (the launcher's abort reaches the other nodes' PEs). A peer whose process this PE sees
 * stopped on its own machine (SIGSTOP, a debugger) is not lost. The answers are also the scan's view of those PEs. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "comm/comm.h"
#include "transport/ofi/ofi.h"

#define SCAN_NS 200000000ull        /* between looks at the job */
#define STEADY_NS 1000000000ull     /* no PE may change that long before the job counts as stuck */
#define FALLBACK 4                  /* ... and this many times that before a PE other than the lowest waiter says so */
#define PIDS_AFTER_NS 1000000000ull /* a thread blocked this long checks that its machine's PEs still exist */
#define PROBE_BATCH 32              /* reads of network peers' life words posted per tick, at most (one per peer) */
#define PROBE_WARN_S 10             /* a peer silent this long is named once on stderr, while the wait goes on */

static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static inline struct shmemi_ctl *my_ctl(void) { return shmemi_rt.ctl[shmemi_rt.my_pe]; }

/* ---- words in other PEs' control blocks: CPU atomics on mapped ones, unless atomics go through the fabric ---- */
static void ctl_amo(int pe, size_t off, int op, uint64_t v) {
    struct shmemi_ctl *c = shmemi_rt.ctl[pe];
    uint64_t *w = c ? (uint64_t *)(void *)((char *)c + off) : NULL;
    if (w && !shmemi_rt.amo_net) {
        if (op == SHMEMI_AMO_ADD)
            __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST);
        else
            __atomic_store_n(w, v, __ATOMIC_SEQ_CST);
    } else {
        shmemi_ofi_amo(SHMEM_CTX_DEFAULT, op, &shmemi_rt.internal, off, v, 0, sizeof v, pe);
    }
    shmemi_ring_force(pe);
}

/* `where` is written by whichever thread blocks last and read by peers at any time: byte by byte, atomically */
static void where_put(struct shmemi_life *l, const char *fn) {
    size_t i = 0;
    for (; fn[i] && i + 1 < sizeof l->where; i++)
        __atomic_store_n(&l->where[i], fn[i], __ATOMIC_RELAXED);
    __atomic_store_n(&l->where[i], '\0', __ATOMIC_RELAXED);
}

/* PEs whose process is gone (same machine only: kill(pid, 0), and a zombie counts as gone) */
static unsigned char *dead;

/* The state letter of /proc/<pid>/stat (R, S, T, Z, ...); 'X' when the process no longer exists, '?' unknown. */
static char process_state(int pid) {
    if (pid <= 0)
        return '?';
    if (kill(pid, 0) && errno == ESRCH)
        return 'X';
    char path[48], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 'X' : '?';
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return '?';
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* the command name may hold anything: the state follows the last ')' */
    return paren && paren[1] == ' ' && paren[2] ? paren[2] : '?';
}

static int process_gone(int pid) {
    char st = process_state(pid);
    return st == 'Z' || st == 'X';
}

/* Marks the PEs of this machine whose process has ended; returns one of them + 1, or 0. */
static int check_pids(void) {
    int found = 0;
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++) {
        if (pe == shmemi_rt.my_pe || !shmemi_rt.same_host || !shmemi_rt.same_host[pe] || !shmemi_rt.pids)
            continue;
        if (!dead)
            return 0;
        if (!__atomic_load_n(&dead[pe], __ATOMIC_RELAXED) && process_gone(shmemi_rt.pids[pe]))
            __atomic_store_n(&dead[pe], 1, __ATOMIC_RELAXED);
        if (__atomic_load_n(&dead[pe], __ATOMIC_RELAXED) && !found)
            found = pe + 1;
    }
    return found;
}

static int is_dead(int pe) { return dead && __atomic_load_n(&dead[pe], __ATOMIC_RELAXED); }

/* ---- PEs reached over the network: their life words as the probes read them, and their silences ---- */
static struct remote {
    struct shmemi_life life; /* as the last answer had it (zero, i.e. running, until one came) */
    uint64_t read_at;        /* when the read that brought it was posted; 0: none yet */
    uint64_t stopped_at;     /* when its process was last seen stopped on this machine */
    int warned;
} * remote;
static pthread_mutex_t remote_lock = PTHREAD_MUTEX_INITIALIZER;
static int probe_from; /* where the next tick's posts start, when there are more peers than PROBE_BATCH */

static int on_net(int pe) { return shmemi_ofi_up && remote && !shmemi_rt.ctl[pe] && pe != shmemi_rt.my_pe; }

/* pe's read has been asked for since `posted` (in flight, or refused): ends the job once pe has been silent for the
 * limit */
static void silent(struct shmemi_waiter *w, int pe, struct remote *r, uint64_t now, uint64_t posted) {
    if (now - posted < PIDS_AFTER_NS) /* a round trip, however slow the machine */
        return;
    if (shmemi_rt.same_host && shmemi_rt.same_host[pe] && shmemi_rt.pids &&
        strchr("Tt", process_state(shmemi_rt.pids[pe])))
        r->stopped_at = now; /* held, not lost: its silence counts from when it runs again */
    uint64_t from = r->stopped_at > posted ? r->stopped_at : posted, secs = (now - from) / 1000000000ull;
    int limit = shmemi_ofi_stall_limit();
    const char *fn = w->fn ? w->fn : "a blocking routine";
    char addr[96];
    if (limit && secs >= (uint64_t)limit)
        shmemi_fatal(fn,
                     "lost the connection to PE %d (%s): it has not answered for %d s, so this wait may never end (a "
                     "link or the node may be down); terminating the job (SHMEM_OFI_STALL_TIMEOUT sets this limit in "
                     "seconds, 0: wait forever)",
                     pe, shmemi_ofi_peer_addr(pe, addr, sizeof addr), limit);
    if (secs >= PROBE_WARN_S && limit > PROBE_WARN_S && !r->warned) {
        r->warned = 1;
        fprintf(stderr,
                "gshmem: PE %d: %s: PE %d (%s) has not answered for %d s; still waiting (the job stops after %d s: "
                "SHMEM_OFI_STALL_TIMEOUT)\n",
                shmemi_rt.my_pe, fn, pe, shmemi_ofi_peer_addr(pe, addr, sizeof addr), PROBE_WARN_S, limit);
    }
}

/* One tick's round: takes the answers that came, judges the reads still in flight, posts the next ones. */
static void probe_peers(struct shmemi_waiter *w, uint64_t now) {
    if (!shmemi_ofi_up || !remote || pthread_mutex_trylock(&remote_lock))
        return; /* (another thread of this PE is at it) */
    /* with no limit (SHMEM_OFI_STALL_TIMEOUT=0, or no progress thread) only the scan needs the answers */
    int n = shmemi_rt.n_pes, start = probe_from;
    int posts = shmemi_ofi_stall_limit() || __atomic_load_n(&my_ctl()->left_pe, __ATOMIC_ACQUIRE) ? 0 : PROBE_BATCH;
    for (int k = 0; k < n; k++) {
        int pe = (start + k) % n;
        if (!on_net(pe) || is_dead(pe))
            continue;
        struct remote *r = &remote[pe];
        struct shmemi_life l;
        uint64_t since;
        int got = shmemi_ofi_probe_poll(pe, &l, sizeof l, &since);
        if (got == 0) {
            silent(w, pe, r, now, since);
        } else if (got == 1) {
            l.where[sizeof l.where - 1] = '\0';
            r->life = l;
            r->read_at = since;
            r->warned = 0;
        }
        if (posts < PROBE_BATCH && shmemi_ofi_probe_post(pe, offsetof(struct shmemi_ctl, life), sizeof l) &&
            ++posts == PROBE_BATCH)
            probe_from = (pe + 1) % n;
    }
    pthread_mutex_unlock(&remote_lock);
}

/* pe's life word; *at: how old the view is at most (the time of the read, for a PE over the network) */
static void life_of(int pe, struct shmemi_life *out, uint64_t now, uint64_t *at) {
    *at = now;
    if (is_dead(pe)) { /* nothing to read; a read would wait on a peer that cannot answer */
        memset(out, 0, sizeof *out);
        out->state = SHMEMI_LIFE_GONE;
        return;
    }
    struct shmemi_ctl *c = shmemi_rt.ctl[pe];
    if (!c) {
        memset(out, 0, sizeof *out); /* no probe (no network, or none answered yet): running, for all we know */
        *at = 0;
        if (on_net(pe)) {
            pthread_mutex_lock(&remote_lock);
            *out = remote[pe].life;
            *at = remote[pe].read_at;
            pthread_mutex_unlock(&remote_lock);
        }
        return;
    }
    out->state = __atomic_load_n(&c->life.state, __ATOMIC_ACQUIRE);
    out->blocked = __atomic_load_n(&c->life.blocked, __ATOMIC_ACQUIRE);
    out->wakes = __atomic_load_n(&c->life.wakes, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < sizeof out->where; i++)
        out->where[i] = __atomic_load_n(&c->life.where[i], __ATOMIC_RELAXED);
    out->where[sizeof out->where - 1] = '\0';
}

/* One look at the job; ends it when it has been stuck long enough. */
static void scan(struct shmemi_waiter *w, uint64_t now) {
    uint64_t sum = 1469598103934665603ull, oldest = now;
    int waiting = 0, gone = -1, first = -1, me = shmemi_rt.my_pe;
    const char *gone_how = "";
    check_pids(); /* a PE counted as blocked may have vanished since */
    char first_where[sizeof((struct shmemi_life *)0)->where] = "";
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++) {
        struct shmemi_life l;
        uint64_t at;
        life_of(pe, &l, now, &at);
        oldest = at < oldest ? at : oldest;
        if (l.state == SHMEMI_LIFE_RUNNING && !l.blocked) { /* someone may still write what the others wait for */
            w->scan_t0 = 0;
            return;
        }
        if ((l.state == SHMEMI_LIFE_LEFT || l.state == SHMEMI_LIFE_GONE) && gone < 0) {
            gone = pe;
            gone_how = l.state == SHMEMI_LIFE_LEFT ? "ended (exit status 0) without calling shmem_finalize"
                                                   : "is gone: its process ended without shmem_finalize";
        }
        if (l.state == SHMEMI_LIFE_RUNNING && waiting++ == 0) {
            first = pe;
            memcpy(first_where, l.where, sizeof first_where);
        }
        sum = (sum ^ (l.state | (uint64_t)l.blocked << 8 | l.wakes << 24)) * 1099511628211ull;
    }
    if (!waiting || gone < 0) { /* all in finalize: it completes; or nobody left early (not ours to judge) */
        w->scan_t0 = 0;
        return;
    }
    if (!w->scan_t0 || sum != w->scan_sum) {
        w->scan_sum = sum;
        w->scan_t0 = now;
        return;
    }
    uint64_t steady = now - w->scan_t0;
    if (steady < STEADY_NS || (first != me && steady < FALLBACK * STEADY_NS) || oldest < w->scan_t0)
        return; /* (a view of a PE read before the steady stretch began proves nothing about it) */
    char others[48] = "";
    if (waiting > 1)
        snprintf(others, sizeof others, " (%d other PE%s too)", waiting - 1, waiting > 2 ? "s wait" : " waits");
    if (first == me)
        shmemi_fatal(w->fn ? w->fn : first_where,
                     "PE %d %s, so this wait can never end%s; terminating the job (end every PE with "
                     "shmem_finalize, or the whole job with shmem_global_exit)",
                     gone, gone_how, others);
    shmemi_fatal(w->fn ? w->fn : "shmem_finalize",
                 "PE %d waits in %s%s, which can never end now that PE %d %s; terminating the job (end every PE "
                 "with shmem_finalize, or the whole job with shmem_global_exit)",
                 first, first_where, others, gone, gone_how);
}

void shmemi_life_tick(struct shmemi_waiter *w) {
    struct shmemi_ctl *me = my_ctl();
    uint64_t now = mono_ns();
    if (!w->blocked) {
        w->blocked = 1;
        w->next_scan = now + PIDS_AFTER_NS;
        where_put(&me->life, w->fn ? w->fn : "a blocking routine");
        __atomic_fetch_add(&me->life.blocked, 1, __ATOMIC_SEQ_CST);
    }
    if (now < w->next_scan)
        return;
    int left = __atomic_load_n(&me->left_pe, __ATOMIC_ACQUIRE) != 0;
    if (!left) {
        w->next_scan = now + PIDS_AFTER_NS;
        int pe1 = check_pids();
        if (pe1)
            __atomic_store_n(&me->left_pe, (uint64_t)pe1, __ATOMIC_RELEASE);
        left = pe1 != 0;
    }
    probe_peers(w, now); /* (after check_pids: a PE whose process is gone is not asked) */
    if (!left)
        return;
    w->next_scan = now + SCAN_NS;
    scan(w, now);
}

void shmemi_life_unblock(struct shmemi_waiter *w) {
    struct shmemi_ctl *me = my_ctl();
    __atomic_fetch_add(&me->life.wakes, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_sub(&me->life.blocked, 1, __ATOMIC_SEQ_CST);
    w->blocked = 0;
}

void shmemi_finalize_sync(int implicit) {
    struct shmemi_ctl *me = my_ctl();
    int n = shmemi_rt.n_pes;
    const char *fn = implicit ? "shmem_finalize (at exit)" : "shmem_finalize";
    __atomic_store_n(&me->life.state, implicit ? SHMEMI_LIFE_LEFT : SHMEMI_LIFE_FINALIZING, __ATOMIC_SEQ_CST);
    if (implicit)
        for (int pe = 0; pe < n; pe++)
            ctl_amo(pe, offsetof(struct shmemi_ctl, left_pe), SHMEMI_AMO_SET, (uint64_t)shmemi_rt.my_pe + 1);
    if (shmemi_ofi_up)
        shmemi_ofi_quiet_all(); /* what this PE sent has landed before PE 0 counts it in */
    ctl_amo(0, offsetof(struct shmemi_ctl, fin_count), SHMEMI_AMO_ADD, 1);
    if (shmemi_rt.my_pe == 0) {
        SHMEMI_WAIT_FOR(__atomic_load_n(&me->fin_count, __ATOMIC_ACQUIRE) >= (uint64_t)n, fn);
        for (int pe = 1; pe < n; pe++)
            ctl_amo(pe, offsetof(struct shmemi_ctl, fin_go), SHMEMI_AMO_SET, 1);
    } else {
        SHMEMI_WAIT_FOR(__atomic_load_n(&me->fin_go, __ATOMIC_ACQUIRE) != 0, fn);
    }
}

void shmemi_liveness_init(void) {
    free(dead);
    dead = calloc((size_t)shmemi_rt.n_pes, 1); /* (without it, vanished processes go unnoticed: not fatal) */
    free(remote);
    remote = calloc((size_t)shmemi_rt.n_pes, sizeof *remote); /* (without it, lost peers go unnoticed) */
    probe_from = 0;
}
