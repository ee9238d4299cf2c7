/* state.h - the runtime's global state: PEs, symmetric segments and their peer mappings, per-PE control blocks,
 * plus the inline hot path (symmetric address -> peer pointer), error reporting and back-off waiting. */
#ifndef GSHMEM_STATE_H
#define GSHMEM_STATE_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "env.h"
#include "shmemi.h"

#define SHMEMI_MAX_SEGS (5 + SHMEMI_MAX_PARTITIONS)
#define SHMEMI_CACHELINE 64
#define SHMEMI_MAX_TEAMS 64 /* collective slots: world, shared, and up to 62 teams alive at once */
#define SHMEMI_COLL_DEPTH                                                                                              \
    32 /* scratch buffers per slot: a root may run DEPTH-1 collectives ahead; over the network                         \
        * they hold reductions' data (see coll.c) */
#define SHMEMI_COLL_SCRATCH 4096 /* bytes per buffer: small collectives publish their data here */
/* Signal counters per slot for collectives over the network (see coll.c): dissemination barrier rounds and
 * recursive-doubling reduction steps; and (in the slot's scratch) one per member that sends data, for teams of up to
 * SHMEMI_NET_FROM_MAX members */
#define SHMEMI_NET_SIG_BAR 0
#define SHMEMI_NET_SIG_RED 32
#define SHMEMI_NET_SIGS 66
#define SHMEMI_NET_FROM_MAX 1536

enum shmemi_seg_role {
    SHMEMI_SEG_HEAP,
    SHMEMI_SEG_STATIC,
    SHMEMI_SEG_PARTITION,
    SHMEMI_SEG_INTERNAL,
    SHMEMI_SEG_DEVICE_HEAP
};
enum shmemi_mem_kind { SHMEMI_MEM_HOST, SHMEMI_MEM_DEVICE };

struct shmemi_buddy;

struct shmemi_seg {
    char *base;                 /* this PE's copy: the symmetric address range users see */
    size_t size;                /* usable bytes (identical on every PE) */
    size_t map_size;            /* bytes mapped (page rounded; an automatic heap's may exceed size, and differ by PE) */
    char **peer;                /* [n_pes]: local address of PE i's copy, NULL if not mapped (network path) */
    size_t *peer_map;           /* host segments: [n_pes] bytes of PE i's copy mapped here (its own map_size) */
    int role;                   /* enum shmemi_seg_role */
    int kind;                   /* enum shmemi_mem_kind */
    int part_id;                /* partition ID, 0 for the others */
    struct shmemi_buddy *alloc; /* allocator for heap and partitions */
    const char *name;           /* for messages: "heap", "static data", "partition 3" */
    size_t base_align;          /* base's alignment (identical on every PE): shmem_align honours up to this */
    char *dev_raw;              /* GPU segments: the GPU allocation base lies in (base - dev_raw bytes before it) */
    size_t dev_len;             /* ... and that allocation's length (identical on every PE) */
    char **peer_raw;            /* GPU segments: [n_pes] local peers' allocations as imported (IPC), NULL if not */
    size_t pgsize;              /* host segments: the page size backing it (huge pages for PGSIZE= partitions) */
    int share_fd;               /* huge-page segments: the owner's descriptor peers open until mapped, else -1 */
};

/* Per-PE control block in the internal segment, mapped by every local peer. Fields written by different PEs
 * live on different cache lines. */
struct shmemi_ctl {
    _Alignas(SHMEMI_CACHELINE) uint32_t bell; /* futex word: bumped by a writer that finds sleepers */
    uint32_t sleepers;                        /* threads of this PE asleep on bell */
    int32_t wait_seg;                         /* what the sleeper waits on: a user segment index, or SHMEMI_WAITON_* */
    uint64_t wait_lo, wait_hi;                /* byte offsets [lo, hi) in that segment */
    _Alignas(SHMEMI_CACHELINE) uint64_t scratch[8];
    /* Leaving the job (exit.c). Written by this PE only: */
    _Alignas(SHMEMI_CACHELINE) struct shmemi_life {
        uint32_t state;   /* enum shmemi_life_state */
        uint32_t blocked; /* threads of this PE waiting in a blocking routine past its spin (see shmemi_life_tick) */
        uint64_t wakes;   /* bumped each time one of them gets going again */
        char where[48];   /* the routine a blocked thread waits in */
    } life;
    /* Written by peers: 1 + a PE that ended without shmem_finalize (0: none); PE 0's count of PEs in finalize, and
     * PE 0's word that they all are */
    _Alignas(SHMEMI_CACHELINE) uint64_t left_pe;
    uint64_t fin_count, fin_go;
    _Alignas(SHMEMI_CACHELINE) uint64_t aset_vote[SHMEMI_MAX_TEAMS + 1]; /* slot offers of an active set's team */
    struct shmemi_coll_slot {
        _Alignas(SHMEMI_CACHELINE) uint64_t ready; /* last collective epoch this PE entered (team epochs) */
        uint64_t sig[SHMEMI_NET_SIGS];             /* collectives over the network: signals counted here (see coll.c) */
        uint64_t meta[SHMEMI_COLL_DEPTH];          /* per buffer: bytes published (collect) */
        _Alignas(SHMEMI_CACHELINE) char data[SHMEMI_COLL_DEPTH][SHMEMI_COLL_SCRATCH];
    } coll[SHMEMI_MAX_TEAMS];
};

/* The objects behind SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, the device teams and SHMEM_CTX_DEFAULT are exported
 * data (see shmem.h), so their size is part of the ABI: a program linked against one version holds a copy
 * (a copy relocation) of the size it was linked with, and the library works in that copy. Both structs are padded to
 * a fixed size; a field that does not fit must go behind a pointer, not grow them. */
#define SHMEMI_TEAM_ABI_SIZE 256
#define SHMEMI_CTX_ABI_SIZE 128

/* Teams: a strided set of world PEs, or (SHMEM_TEAM_SHARED where the node's PEs are not evenly spaced, and its
 * splits) an ascending list of them. */
struct gshmem_team {
    union {
        struct {
            int start, stride, size; /* world PE of team PE i is start + i * stride, unless pes */
            int *pes;                /* NULL, or world PE of each team PE, ascending (owned by the team) */
            int my_pe;               /* this PE's number in the team */
            int slot;                /* its collective slot in every member's control block */
            int predefined;          /* WORLD, SHARED: never destroyed */
            uint64_t epoch;          /* epochs used by collectives on this team so far (same on every member) */
            uint64_t base;           /* epoch the team started from (its slot's earlier owners left epochs <= base) */
            shmem_team_config_t config;
            long config_mask;
            int nctx; /* contexts created from this team and not yet destroyed */
            int net;  /* some member's control block is not mapped: collectives go through RMA and atomics */
            /* collectives over the network: signals this PE has waited for in its slot, per counter
             * [SHMEMI_NET_SIGS] and per sending member [SHMEMI_NET_FROM_MAX] (the slot's, in team.c) */
            uint64_t *sig_goal, *from_goal;
            uint64_t nred; /* recursive-doubling reductions so far (their buffers alternate) */
            int device;    /* a device team (SHMEM_DEVICE_TEAM_*, or split from one): kernels may name it */
        };
        char abi_size[SHMEMI_TEAM_ABI_SIZE];
    };
};
_Static_assert(sizeof(struct gshmem_team) == SHMEMI_TEAM_ABI_SIZE, "struct gshmem_team outgrew its exported size");

/* Contexts: with every peer mapped a context is an ordering domain whose operations complete as the CPU performs
 * them; it carries its team's PE mapping, since RMA on a team context uses team-relative PE numbers. */
struct gshmem_ctx {
    union {
        struct {
            struct gshmem_team *team;
            long options;
            int start, stride, size; /* copy of the team's mapping for the RMA path */
            int *pes;                /* copy of the team's list, if it has one (owned by the context) */
            void *net;               /* its own libfabric endpoint (private contexts), or NULL for endpoint 0 */
        };
        char abi_size[SHMEMI_CTX_ABI_SIZE];
    };
};
_Static_assert(sizeof(struct gshmem_ctx) == SHMEMI_CTX_ABI_SIZE, "struct gshmem_ctx outgrew its exported size");

struct shmemi_state {
    int my_pe;
    int n_pes;
    int init_state; /* 0 never, 1 running, 2 finalized */
    int thread_level;
    int nsegs; /* user-visible segments come first: segs[0 .. nsegs) */
    struct shmemi_seg segs[SHMEMI_MAX_SEGS];
    struct shmemi_seg internal; /* control blocks, not addressable by users */
    struct shmemi_ctl **ctl;    /* [n_pes] mapped control blocks (NULL if not on this node) */
    unsigned char *local;       /* [n_pes] 1: on this node, its segments are mapped (shared-memory path) */
    int nlocal;                 /* PEs mapped, this one included */
    int node_pes;               /* PEs on this machine, mapped or not: they share its memory and CPUs */
    int *node_of;               /* [n_pes] the lowest PE of each PE's node; NULL when all are on this one */
    unsigned char *same_host;   /* [n_pes] 1: on this machine per the launcher, mapped or not (SHMEM_TRANSPORT=ofi) */
    int *pids;                  /* [n_pes] each PE's process id (meaningful where same_host) */
    int amo_net; /* atomics go through the fabric, even to mapped peers: CPU atomics on a word are not atomic with
                  * respect to the fabric's (the provider may apply them with plain loads and stores) */
    unsigned long wait_spin; /* effective SHMEM_WAIT_SPIN */
    int oversubscribed;      /* this node's PEs outnumber the CPUs this PE may run on */
    size_t page;
    char jobid[64];
    /* GPU support (src/gpu): on when requested and every PE has it */
    int gpu;             /* the GPU layer is up: GPU segments may exist, copies check memory kinds */
    int dev_local;       /* local (non-symmetric) GPU buffers are accepted: SHMEM_ENABLE_DEVICE_AWARENESS, HOST_INIT */
    int gpu_provided;    /* SHMEM_DEVICE_HOST_INIT was requested and is given back */
    int kernel_provided; /* SHMEM_DEVICE_KERNEL_INIT: kernel-side communication is up on every PE */
    int dev_heap;        /* index in segs of the GPU symmetric heap, or -1 */
    size_t gpu_cpu_max;  /* coherent GPU memory (APUs): transfers of at most this many bytes by the CPU; 0: none */
    unsigned char *gpu_peer; /* [n_pes] SHMEMI_GPU_PEER_* for the node's PEs (this one too), NULL without GPU support */
    int gpu_per_dev;         /* PEs of this node on this PE's GPU, this one included */
    /* the network is up only to reach node peers' GPU memory that this PE cannot map, or not update atomically: it
     * registers no GPU memory then, so each PE applies every remote operation on its own (as its kernels see it) */
    int net_for_gpu;
    /* ends the whole job (the runtime's: libfabric's shm regions, then the bootstrap's abort); NULL before the
     * bootstrap is up */
    void (*abort_job)(int status, const char *msg) __attribute__((noreturn));
    char gpu_why[640]; /* when off: why */
    /* placement (place.c): a core each PE runs on (-1: not bound, anywhere), and what this PE took */
    int *place_cpu;
    char place_cores[96], place_gpu[128], place_nic[128];
    char place_proxy[256]; /* where the proxy thread runs and how it waits (SHMEM_INFO); empty: no proxy */
};

SHMEMI_HIDDEN extern struct shmemi_state shmemi_rt;

/* shmemi_rt.gpu_peer[pe]: this PE's GPU and node peer pe's (src/gpu sets what the drivers say, src/mem what the IPC
 * imports did) */
#define SHMEMI_GPU_PEER_SAME 1    /* one GPU for both (several PEs may share one) */
#define SHMEMI_GPU_PEER_ACCESS 2  /* pe's GPU segments are mapped here: this GPU has peer access to pe's */
#define SHMEMI_GPU_PEER_ATOMICS 4 /* this GPU's atomics on pe's GPU memory are atomic with pe's own (native) */
#define SHMEMI_GPU_PEER_HIDDEN                                                                                         \
    8                             /* pe's GPU is not visible to this process: the IPC import was tried, and native     \
                                   * atomics are taken as absent, since the driver cannot be asked */
#define SHMEMI_GPU_PEER_FAILED 16 /* the driver claimed peer access, but an IPC import of pe's memory failed */

/* Whether this PE's atomics on node peer pe's mapped GPU memory may be its GPU's own (else pe applies them) */
static inline int shmemi_gpu_native_amo(int pe) {
    return !shmemi_rt.gpu_peer || (shmemi_rt.gpu_peer[pe] & SHMEMI_GPU_PEER_ATOMICS);
}

/* ---- placement (place.c): this PE's cores, and the GPU and NIC nearest them ---- */
/* A core this PE is bound or placed on (-1: not bound), noting its cores for SHMEM_INFO */
SHMEMI_HIDDEN int shmemi_place_cpu(void);
/* Which of n devices (PCI addresses busid[i], or NULL) this PE takes: the nearest its cores, spread over the node's
 * PEs (shmemi_rt.place_cpu); records "<names[i]> at <busid> (near ...)" as this PE's GPU or NIC (what) */
SHMEMI_HIDDEN int shmemi_pick_near(int n, const char *const *busid, const char *const *names, const char *what);
SHMEMI_HIDDEN void shmemi_place_print(FILE *f);
/* A core for a helper thread of this PE (the proxy) other than the ones its main thread may run on: one of this PE's
 * own cores past the first when it is bound to several, else a core no PE of this node is bound to (the node's
 * PEs take them in turn); -1 when there is none, or the PE is not bound (the scheduler places both). why says
 * which, for SHMEM_INFO. */
SHMEMI_HIDDEN int shmemi_place_helper_core(char *why, size_t len);

/* ---- errors: one line naming the routine, the PE and the fix, then a job-wide abort ---- */
SHMEMI_HIDDEN __attribute__((noreturn, format(printf, 2, 3))) void shmemi_fatal(const char *fn, const char *fmt, ...);
SHMEMI_HIDDEN __attribute__((noreturn)) void shmemi_err_pe(const char *fn, int pe);
SHMEMI_HIDDEN __attribute__((noreturn)) void shmemi_err_sym(const char *fn, const void *addr, size_t len, int pe);
SHMEMI_HIDDEN __attribute__((noreturn)) void shmemi_err_null(const char *fn, const char *arg);
SHMEMI_HIDDEN __attribute__((format(printf, 1, 2))) void shmemi_debug(const char *fmt, ...);
SHMEMI_HIDDEN void shmemi_check_init(const char *fn);

/* ---- symmetric address translation (the hot path) ---- */
static inline struct shmemi_seg *shmemi_find_seg(const void *addr, size_t *off) {
    for (int i = 0; i < shmemi_rt.nsegs; i++) {
        struct shmemi_seg *s = &shmemi_rt.segs[i];
        size_t o = (size_t)((uintptr_t)addr - (uintptr_t)s->base);
        if (o < s->size) {
            *off = o;
            return s;
        }
    }
    return NULL;
}

/* Pointer to the bytes [addr, addr+len) of `pe`'s copy; aborts with a message on a bad PE or address. */
static inline char *shmemi_xlate(const void *addr, size_t len, int pe, const char *fn) {
    if (SHMEMI_UNLIKELY((unsigned)pe >= (unsigned)shmemi_rt.n_pes))
        shmemi_err_pe(fn, pe);
    size_t off;
    struct shmemi_seg *s = shmemi_find_seg(addr, &off);
    if (SHMEMI_UNLIKELY(!s || len > s->size - off || !s->peer[pe]))
        shmemi_err_sym(fn, addr, len, pe);
    return s->peer[pe] + off;
}

/* Like shmemi_xlate, but a peer that is not mapped is not an error: returns NULL with *seg and *off set, and the
 * caller takes the network path. */
static inline char *shmemi_resolve(const void *addr, size_t len, int pe, const char *fn, struct shmemi_seg **seg,
                                   size_t *off) {
    if (SHMEMI_UNLIKELY((unsigned)pe >= (unsigned)shmemi_rt.n_pes))
        shmemi_err_pe(fn, pe);
    struct shmemi_seg *s = shmemi_find_seg(addr, off);
    if (SHMEMI_UNLIKELY(!s || len > s->size - *off))
        shmemi_err_sym(fn, addr, len, pe);
    *seg = s;
    return s->peer[pe] ? s->peer[pe] + *off : NULL;
}

/* World PE of team PE i (0 <= i < t->size). */
static inline int shmemi_team_world(const struct gshmem_team *t, int i) {
    return t->pes ? t->pes[i] : t->start + i * t->stride;
}

/* PE argument of an RMA/AMO on `ctx` -> world PE (team contexts number PEs within their team). */
SHMEMI_HIDDEN int shmemi_ctx_pe_slow(shmem_ctx_t ctx, int pe, const char *fn);
static inline int shmemi_ctx_pe(shmem_ctx_t ctx, int pe, const char *fn) {
    if (SHMEMI_LIKELY(ctx == SHMEM_CTX_DEFAULT))
        return pe;
    return shmemi_ctx_pe_slow(ctx, pe, fn);
}

/* ---- waking sleeping waiters ----
 * A sleeper records what it waits on, so a writer wakes it (a futex system call) only for a store that can change
 * the outcome: a PE idling in a barrier is not woken by every put another PE aims at its heap. */
#define SHMEMI_WAITON_INTERNAL (-1) /* barrier/lock waits: only explicit shmemi_ring_force wakes them */
#define SHMEMI_WAITON_ANY (-2)      /* several sleepers with different targets: any store wakes */
SHMEMI_HIDDEN void shmemi_ring_slow(struct shmemi_ctl *c, const void *addr, size_t len);
/* After a store to [addr, addr+len) (a symmetric address as this PE sees it) in `pe`'s copy. */
static inline void shmemi_ring(int pe, const void *addr, size_t len) {
    struct shmemi_ctl *c = shmemi_rt.ctl[pe];
    if (SHMEMI_UNLIKELY(c && __atomic_load_n(&c->sleepers, __ATOMIC_RELAXED)))
        shmemi_ring_slow(c, addr, len);
}
SHMEMI_HIDDEN void shmemi_ring_force(int pe);
/* The network progress thread, after traffic: wakes this PE's sleepers if what they wait on may have changed. */
SHMEMI_HIDDEN void shmemi_wake_after_traffic(void);
SHMEMI_HIDDEN void shmemi_ring_all(void);
/* A thread going to sleep leaves the word it waits on (watchable: a word the CPU may read), so the progress thread
 * rings only when that word changed; several sleepers, or one on a word it cannot watch, fall back to any traffic. */
SHMEMI_HIDDEN void shmemi_watch_set(const void *p, size_t len, int watchable, int first);
SHMEMI_HIDDEN void shmemi_watch_clear(void);

static inline void shmemi_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* A lock for short sections that may still be held across a driver call (the GPU layer's): a waiter spins briefly,
 * then yields its CPU, since the holder may be descheduled on an oversubscribed node. */
static inline void shmemi_spin_lock(int *l) {
    for (unsigned spins = 0; __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE); spins++)
        if (spins < 64)
            shmemi_cpu_relax();
        else
            sched_yield();
}
static inline void shmemi_spin_unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

/* Makes preceding copies (which may use non-temporal stores) visible before later stores. */
static inline void shmemi_store_fence(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

#endif
