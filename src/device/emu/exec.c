/* exec.c - the CPU emulation's GPU: streams (a thread each, running its queue in order), kernels (blocks spread over
 * up to SHMEM_EMU_BLOCKS OS threads, each block's threads as fibers on one of them), block and warp barriers and
 * exchanges, events and captured graphs. Blocks of one kernel run at the same time (up to the limit), as on a GPU
 * whose grid fits, so blocks may wait for each other and for other PEs; a block whose threads all poll backs off, so
 * several PEs share two cores. __shared__ is per OS thread, which is per running block. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "device/emu/emu.h"
#include "device/emu/fiber.h"
#include "gpu/gtl.h"
#include "state.h"

__thread struct gshmem_emu_thread *gshmem_emu_cur;

enum { ST_RUN, ST_POLL, ST_BAR, ST_WBAR, ST_DONE };

struct emu_block;
struct emu_thread {
    struct gshmem_emu_thread pub; /* first: gshmem_emu_cur points here */
    struct emu_block *blk;
    struct shmemi_fiber *fib;
    int state;
    unsigned wait_gen;
};

/* Lanes of one warp may wait at different barriers at once (the tiles of a cooperative_groups partition): each lane
 * that arrives says which lanes its barrier waits for, and counts the barriers it has passed. */
struct emu_warp {
    unsigned live;     /* lanes not yet exited */
    unsigned arrived;  /* lanes at a warp barrier */
    unsigned want[32]; /* by lane: the lanes its barrier waits for */
    unsigned gen[32];  /* by lane: barriers passed */
    uint64_t slot[32];
};

struct emu_block {
    struct emu_block *run_prev, *run_next; /* the blocks running now (running_blocks) */
    unsigned nthreads, live, arrived, gen;
    unsigned grid_gen; /* the block barrier after which its first thread to run took the block to the grid's */
    int acc[2];        /* __syncthreads_count/and/or, by barrier parity */
    struct emu_warp warp[32];
    struct emu_thread *th;
};

/* One OS thread that runs blocks: its fibers and stacks are kept between blocks and kernels. */
struct emu_worker {
    struct shmemi_fiber os; /* this OS thread's own context */
    struct shmemi_fiber *fib;
    struct emu_thread *th;
    char **stk; /* the running block's stacks, from the pool (stacks.c) */
    unsigned nfib;
    char *dyn;
    size_t dyn_len;
};
static __thread struct emu_worker *me_worker;
static __thread struct emu_thread *me_thread;

/* Every block running on this PE's emulated GPU, so that shmem_finalize can say where a kernel still running is
 * (shmemi_emu_running); a block joins and leaves under the lock, its threads' fields are read with atomic loads. */
static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_block *running_blocks;

static struct emu_worker *worker_self(void) {
    if (!me_worker && !(me_worker = calloc(1, sizeof *me_worker)))
        shmemi_emu_fatal("the emulated GPU", "out of memory for a block worker");
    return me_worker;
}

/* ---- inside kernels ---- */
static inline struct emu_thread *self_thread(const char *what) {
    struct emu_thread *t = me_thread;
    if (!t)
        shmemi_emu_fatal(what, "called outside a kernel (on the host)");
    return t;
}

/* back to the block's scheduler; returns when it resumes this thread */
static void park(struct emu_thread *t) {
    struct emu_worker *w = me_worker;
    shmemi_fiber_switch(t->fib, &w->os);
}

void gshmem_emu_syncthreads(void) {
    struct emu_thread *t = self_thread("__syncthreads");
    struct emu_block *b = t->blk;
    if (++b->arrived == b->live) {
        b->arrived = 0;
        b->acc[(b->gen + 1) & 1] = 0;
        b->gen++;
        return;
    }
    t->state = ST_BAR;
    t->wait_gen = b->gen;
    park(t);
}

int gshmem_emu_syncthreads_op(int op, int pred) {
    struct emu_thread *t = self_thread("__syncthreads_count");
    struct emu_block *b = t->blk;
    int *acc = &b->acc[b->gen & 1];
    *acc += pred != 0;
    gshmem_emu_syncthreads();
    int n = b->acc[(b->gen - 1) & 1];
    return op == 0 ? n : op == 1 ? n == (int)b->live : n != 0;
}

static void warp_release(struct emu_warp *w, unsigned lanes) {
    w->arrived &= ~lanes;
    for (; lanes; lanes &= lanes - 1)
        w->gen[__builtin_ctz(lanes)]++;
}

/* after a lane exits: the barriers that waited only for it among the lanes still missing */
static void warp_settle(struct emu_warp *w) {
    for (unsigned pend = w->arrived; pend;) {
        unsigned l = (unsigned)__builtin_ctz(pend), g = w->want[l] & w->live;
        if ((w->arrived & g) == g)
            warp_release(w, g);
        pend &= ~(g | 1u << l);
    }
}

static void warp_barrier(struct emu_thread *t, unsigned mask) {
    unsigned lane = t->pub.lane, bit = 1u << lane;
    struct emu_warp *w = &t->blk->warp[t->pub.lin / 32];
    unsigned want = (mask & w->live) | bit; /* a lane outside its own mask still takes part */
    w->want[lane] = want;
    w->arrived |= bit;
    if ((w->arrived & want) == want) {
        warp_release(w, want);
        return;
    }
    t->state = ST_WBAR;
    t->wait_gen = w->gen[lane];
    park(t);
}

void gshmem_emu_syncwarp(unsigned mask) { warp_barrier(self_thread("__syncwarp"), mask); }

uint64_t gshmem_emu_shfl(unsigned mask, uint64_t v, int kind, int arg, int width) {
    struct emu_thread *t = self_thread("__shfl_sync");
    struct emu_warp *w = &t->blk->warp[t->pub.lin / 32];
    unsigned lane = t->pub.lane, src = lane;
    if (width <= 0 || width > 32 || (width & (width - 1)))
        width = 32;
    unsigned base = lane & ~(unsigned)(width - 1), in = lane & (unsigned)(width - 1);
    switch (kind) {
    case GSHMEM_EMU_SHFL_IDX: src = base + ((unsigned)arg & (unsigned)(width - 1)); break;
    case GSHMEM_EMU_SHFL_UP: src = in >= (unsigned)arg ? lane - (unsigned)arg : lane; break;
    case GSHMEM_EMU_SHFL_DOWN: src = in + (unsigned)arg < (unsigned)width ? lane + (unsigned)arg : lane; break;
    default: src = ((in ^ (unsigned)arg) < (unsigned)width) ? base + (in ^ (unsigned)arg) : lane; break;
    }
    w->slot[lane] = v;
    warp_barrier(t, mask);
    uint64_t r = w->slot[src & 31];
    warp_barrier(t, mask);
    return r;
}

unsigned gshmem_emu_vote(unsigned mask, int kind, int pred) {
    struct emu_thread *t = self_thread("__ballot_sync");
    struct emu_warp *w = &t->blk->warp[t->pub.lin / 32];
    w->slot[t->pub.lane] = pred != 0;
    warp_barrier(t, mask);
    unsigned ballot = 0, m = mask & w->live;
    for (unsigned l = 0; l < 32; l++)
        if ((m >> l & 1) && w->slot[l])
            ballot |= 1u << l;
    warp_barrier(t, mask);
    switch (kind) {
    case GSHMEM_EMU_VOTE_ANY: return ballot != 0;
    case GSHMEM_EMU_VOTE_ALL: return ballot == m;
    default: return ballot;
    }
}

unsigned gshmem_emu_activemask(void) {
    struct emu_thread *t = self_thread("__activemask");
    return t->blk->warp[t->pub.lin / 32].live;
}

void gshmem_emu_yield(void) {
    struct emu_thread *t = me_thread;
    if (!t) {
        sched_yield();
        return;
    }
    t->state = ST_POLL;
    park(t);
}

void *gshmem_emu_dyn_shared(void) {
    self_thread("extern __shared__");
    return me_worker->dyn;
}

/* ---- running a block ---- */
struct kernel_run {
    struct gshmem_emu_dim3 grid, block;
    size_t shmem;
    void (*fn)(void *);
    void *closure;
    unsigned nblocks;
    unsigned next; /* blocks handed out (atomic) */
    int coop;      /* launched with cudaLaunchCooperativeKernel: every block resident, grid barriers allowed */
    unsigned grid_arrived, grid_gen; /* blocks at the grid barrier; grid barriers passed (atomic) */
};
static __thread struct kernel_run *me_kernel;

/* cooperative_groups::grid_group::sync(): the block gathers, its first thread to run on takes it to the grid's
 * barrier (polling, so the SM's other blocks and PEs run), then releases the block's threads */
void gshmem_emu_grid_sync(void) {
    struct emu_thread *t = self_thread("cooperative_groups::grid_group::sync");
    struct kernel_run *k = me_kernel;
    if (!k->coop)
        gshmem_emu_trap("cooperative_groups::grid_group::sync() in a kernel not launched by "
                        "cudaLaunchCooperativeKernel (its grid_group is not valid: a GPU traps)");
    __atomic_store_n(&t->pub.routine, "cooperative_groups::grid_group::sync", __ATOMIC_RELAXED);
    gshmem_emu_syncthreads();
    struct emu_block *b = t->blk;
    if (b->grid_gen != b->gen) {
        b->grid_gen = b->gen;
        unsigned gen = __atomic_load_n(&k->grid_gen, __ATOMIC_ACQUIRE);
        if (__atomic_add_fetch(&k->grid_arrived, 1, __ATOMIC_ACQ_REL) == k->nblocks) {
            __atomic_store_n(&k->grid_arrived, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&k->grid_gen, gen + 1, __ATOMIC_RELEASE);
        } else {
            while (__atomic_load_n(&k->grid_gen, __ATOMIC_ACQUIRE) == gen)
                gshmem_emu_yield();
        }
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    gshmem_emu_syncthreads();
}

int gshmem_emu_grid_valid(void) {
    self_thread("cooperative_groups::grid_group::is_valid");
    return me_kernel->coop;
}

static void thread_main(void *arg) {
    struct emu_thread *t = arg;
    me_kernel->fn(me_kernel->closure);
    /* exited: barriers wait for one thread fewer from now on */
    struct emu_block *b = t->blk;
    struct emu_warp *w = &b->warp[t->pub.lin / 32];
    t->state = ST_DONE;
    b->live--;
    w->live &= ~(1u << t->pub.lane);
    if (b->live && b->arrived && b->arrived == b->live) {
        b->arrived = 0;
        b->acc[(b->gen + 1) & 1] = 0;
        b->gen++;
    }
    warp_settle(w);
    shmemi_fiber_switch(t->fib, &me_worker->os);
}

/* A block whose threads only poll: yield the CPU for the first couple of milliseconds (a peer's answer usually comes
 * within that, and yielding lets the PE that owes it run on a shared core), then sleep, longer the longer it lasts. */
static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void backoff(unsigned *idle, uint64_t *since) {
    unsigned k = ++*idle;
    if (k < 8)
        return;
    uint64_t t = now_ns();
    if (k == 8)
        *since = t;
    uint64_t waited = t - *since;
    if (waited < 2000000) {
        sched_yield();
        return;
    }
    long ns = waited < 20000000 ? 20000 : waited < 200000000 ? 100000 : 500000;
    struct timespec ts = {0, ns};
    nanosleep(&ts, NULL);
}

static void run_block(struct kernel_run *k, unsigned bidx) {
    struct emu_worker *w = worker_self();
    unsigned n = k->block.x * k->block.y * k->block.z;
    if (w->nfib < n) {
        struct shmemi_fiber *f = realloc(w->fib, n * sizeof *f);
        if (f)
            w->fib = f;
        struct emu_thread *th = f ? realloc(w->th, n * sizeof *th) : NULL;
        if (th)
            w->th = th;
        char **stk = th ? realloc(w->stk, n * sizeof *stk) : NULL;
        if (!stk)
            shmemi_emu_fatal("a kernel launch", "out of memory for %u emulated threads", n);
        w->stk = stk;
        for (unsigned i = w->nfib; i < n; i++)
            if (shmemi_fiber_init(&w->fib[i]))
                shmemi_emu_fatal("a kernel launch", "out of memory for %u emulated threads", n);
        w->nfib = n;
    }
    /* stacks only while the block runs: a grid of any size needs those of its resident blocks */
    shmemi_emu_stacks_take(n, w->stk);
    size_t stack_len = shmemi_emu_stack_len();
    if (k->shmem > w->dyn_len) {
        free(w->dyn);
        if (!(w->dyn = calloc(1, k->shmem)))
            shmemi_emu_fatal("a kernel launch", "out of memory for %zu bytes of dynamic shared memory", k->shmem);
        w->dyn_len = k->shmem;
    }
    struct emu_block b = {.nthreads = n, .live = n};
    for (unsigned i = 0; i < 32; i++)
        b.warp[i].live = i * 32 < n ? (n - i * 32 >= 32 ? ~0u : (1u << (n - i * 32)) - 1) : 0;
    b.th = w->th;
    struct gshmem_emu_dim3 bid = {bidx % k->grid.x, bidx / k->grid.x % k->grid.y, bidx / (k->grid.x * k->grid.y)};
    for (unsigned i = 0; i < n; i++) {
        struct emu_thread *t = &w->th[i];
        memset(t, 0, sizeof *t);
        t->pub.tid =
            (struct gshmem_emu_dim3){i % k->block.x, i / k->block.x % k->block.y, i / (k->block.x * k->block.y)};
        t->pub.bid = bid;
        t->pub.bdim = k->block;
        t->pub.gdim = k->grid;
        t->pub.lin = i;
        t->pub.lane = i % 32;
        t->blk = &b;
        t->fib = &w->fib[i];
        t->state = ST_RUN;
        shmemi_fiber_start(t->fib, w->stk[i], stack_len, thread_main, t);
    }
    pthread_mutex_lock(&running_lock);
    b.run_next = running_blocks;
    if (running_blocks)
        running_blocks->run_prev = &b;
    running_blocks = &b;
    pthread_mutex_unlock(&running_lock);
    me_kernel = k;
    unsigned idle = 0;
    uint64_t idle_since = 0;
    while (b.live) {
        int quiet = 1, ran = 0;
        for (unsigned i = 0; i < n; i++) {
            struct emu_thread *t = &w->th[i];
            if (t->state == ST_DONE || (t->state == ST_BAR && b.gen == t->wait_gen) ||
                (t->state == ST_WBAR && b.warp[i / 32].gen[i % 32] == t->wait_gen))
                continue;
            if (t->state != ST_POLL)
                quiet = 0;
            t->state = ST_RUN;
            ran = 1;
            me_thread = t;
            gshmem_emu_cur = &t->pub;
            shmemi_fiber_switch(&w->os, t->fib);
            me_thread = NULL;
            gshmem_emu_cur = NULL;
            if (t->state != ST_POLL)
                quiet = 0;
        }
        if (!ran)
            shmemi_emu_fatal("a kernel",
                             "block (%u,%u,%u) is stuck: its threads wait at __syncthreads or __syncwarp for "
                             "threads that never arrive",
                             bid.x, bid.y, bid.z);
        if (quiet)
            backoff(&idle, &idle_since);
        else
            idle = 0;
    }
    pthread_mutex_lock(&running_lock);
    if (b.run_prev)
        b.run_prev->run_next = b.run_next;
    else
        running_blocks = b.run_next;
    if (b.run_next)
        b.run_next->run_prev = b.run_prev;
    pthread_mutex_unlock(&running_lock);
    shmemi_emu_stacks_give(n, w->stk);
}

int shmemi_emu_running(char *where, size_t len) {
    int n = 0;
    const struct emu_thread *pick = NULL;
    int pick_rank = -1;
    pthread_mutex_lock(&running_lock);
    for (const struct emu_block *b = running_blocks; b; b = b->run_next, n++)
        for (unsigned i = 0; i < b->nthreads; i++) {
            const struct emu_thread *t = &b->th[i];
            int state = __atomic_load_n(&t->state, __ATOMIC_RELAXED);
            const char *r = __atomic_load_n(&t->pub.routine, __ATOMIC_RELAXED);
            /* a thread polling in a routine is surely in it; one that runs or waits at a block barrier is only
             * known to have entered it last */
            int rank = state == ST_DONE ? -1 : r && state == ST_POLL ? 2 : r ? 1 : 0;
            if (rank > pick_rank) {
                pick = t;
                pick_rank = rank;
            }
        }
    if (pick) {
        const struct gshmem_emu_thread *p = &pick->pub;
        const char *r = __atomic_load_n(&p->routine, __ATOMIC_RELAXED);
        snprintf(where, len, "%s%s (block (%u,%u,%u), thread (%u,%u,%u))",
                 pick_rank == 2   ? "waiting in "
                 : pick_rank == 1 ? "last in "
                                  : "",
                 r ? r : "in no device routine yet", p->bid.x, p->bid.y, p->bid.z, p->tid.x, p->tid.y, p->tid.z);
    } else if (len) {
        where[0] = '\0';
    }
    pthread_mutex_unlock(&running_lock);
    return n;
}

/* ---- kernels on a stream: its thread and helpers take blocks until none are left ---- */
struct emu_pool {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned nthr;
    unsigned running; /* helpers still in the current kernel */
    uint64_t kgen;    /* kernels handed to the helpers */
    struct kernel_run *k;
    unsigned want; /* helpers wanted for the current kernel */
};

static void take_blocks(struct kernel_run *k) {
    for (;;) {
        unsigned b = __atomic_fetch_add(&k->next, 1, __ATOMIC_RELAXED);
        if (b >= k->nblocks)
            return;
        shmemi_emu_sm_take(-1); /* a block runs on an SM of the emulated GPU, shared with every other kernel */
        run_block(k, b);
        shmemi_emu_sm_give();
    }
}

struct helper_arg {
    struct emu_pool *p;
    unsigned idx;
};

static void *helper_main(void *arg) {
    struct helper_arg a = *(struct helper_arg *)arg;
    free(arg);
    struct emu_pool *p = a.p;
    pthread_mutex_lock(&p->lock);
    uint64_t seen = p->kgen - 1; /* started for the kernel being handed out */
    for (;;) {
        while (p->kgen == seen)
            pthread_cond_wait(&p->go, &p->lock);
        seen = p->kgen;
        if (a.idx >= p->want)
            continue; /* a smaller kernel: not needed this time */
        struct kernel_run *k = p->k;
        pthread_mutex_unlock(&p->lock);
        take_blocks(k);
        pthread_mutex_lock(&p->lock);
        if (--p->running == 0)
            pthread_cond_broadcast(&p->done);
    }
    return NULL;
}

static unsigned max_resident(void) { return shmemi_env.emu_blocks > 0 ? (unsigned)shmemi_env.emu_blocks : 32; }

/* What can be co-resident: an SM each (SHMEM_EMU_SMS), a block worker each (SHMEM_EMU_BLOCKS), stacks for all */
unsigned shmemi_emu_coop_max(unsigned nthreads) {
    unsigned m = max_resident(), sms = (unsigned)gshmem_emu_sm_count(), s = shmemi_emu_stacks_blocks(nthreads);
    m = sms < m ? sms : m;
    return s < m ? s : m;
}

void shmemi_emu_run_kernel(struct emu_pool **pp, const struct shmemi_emu_kernel *kk) {
    struct kernel_run k = {.grid = kk->grid,
                           .block = kk->block,
                           .shmem = kk->shmem,
                           .fn = kk->fn,
                           .closure = kk->closure,
                           .coop = kk->coop};
    k.nblocks = k.grid.x * k.grid.y * k.grid.z;
    unsigned helpers = (k.nblocks < max_resident() ? k.nblocks : max_resident()) - 1;
    struct emu_pool *p = *pp;
    if (helpers && !p) {
        if (!(p = calloc(1, sizeof *p)))
            shmemi_emu_fatal("a kernel launch", "out of memory");
        pthread_mutex_init(&p->lock, NULL);
        pthread_cond_init(&p->go, NULL);
        pthread_cond_init(&p->done, NULL);
        *pp = p;
    }
    if (helpers) {
        pthread_mutex_lock(&p->lock);
        p->k = &k;
        p->want = helpers;
        p->running = helpers;
        p->kgen++;
        while (p->nthr < helpers) { /* new helpers start on this kernel */
            struct helper_arg *a = malloc(sizeof *a);
            pthread_t t;
            if (!a)
                shmemi_emu_fatal("a kernel launch", "out of memory");
            *a = (struct helper_arg){p, p->nthr};
            int e = pthread_create(&t, NULL, helper_main, a);
            if (e)
                shmemi_emu_fatal("a kernel launch", "cannot start a thread for the emulated GPU's blocks: %s",
                                 strerror(e));
            pthread_detach(t);
            p->nthr++;
        }
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->lock);
    }
    take_blocks(&k);
    if (helpers) {
        pthread_mutex_lock(&p->lock);
        while (p->running)
            pthread_cond_wait(&p->done, &p->lock);
        pthread_mutex_unlock(&p->lock);
    }
}
