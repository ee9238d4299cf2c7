/* coll.c - every collective, once, for teams and active sets (see coll.h for the two data paths). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "gpu/gtl.h"
#include "mem/mem.h"
#include "transport/ofi/ofi.h"

#define COLL_BLOCK 4096 /* bytes reduced/scanned per step of the address-split paths */

struct grp {
    int start, stride, size, me; /* world PE of member i is start + i * stride (or pes[i]); me = this PE's index */
    const int *pes;              /* a team's list of members (see struct gshmem_team), or NULL */
    struct gshmem_team *team;    /* team form: epochs and scratch slots */
    long *psync;                 /* active-set form */
    const char *fn;
    int net; /* some member is not mapped: move data with RMA, synchronize with fabric atomics (coll_net below) */
    int dev; /* DEV_DEST, DEV_SRC: the call's dest, source are GPU memory (set by check_bufs) */
};

static inline int gpe(const struct grp *g, int i) { return g->pes ? g->pes[i] : g->start + i * g->stride; }

static struct grp grp_team(shmem_team_t team, const char *fn) {
    struct gshmem_team *t = shmemi_team_check(team, fn);
    return (struct grp){t->start, t->stride, t->size, t->my_pe, t->pes, t, NULL, fn, t->net, 0};
}

static void aset_barrier(const struct grp *g);

/* ---- active sets run on cached implicit teams ----
 * The first collective on an active set creates a team for it (agreeing on a slot through pSync barriers), and
 * every later call on that set takes the team paths. All members make the same calls on a set, so they all miss,
 * create and cache together; a set that got no slot is cached as such and keeps the pSync paths. A PE holds at
 * most ASET_TEAMS of these, leaving the other slots to shmem_team_split_*. */
#define ASET_TEAMS 16
struct aset_entry {
    int start, stride, size;
    struct gshmem_team *team;
    struct aset_entry *next;
};
static struct aset_entry *aset_cache;
static int aset_nteams;
static pthread_mutex_t aset_lock = PTHREAD_MUTEX_INITIALIZER;

static void ctl_read(void *dst, int pe, size_t off, size_t len);

static void aset_vote(void *arg, uint64_t *r, const uint64_t *v, size_t n, const char *fn) {
    const struct grp *g = arg;
    memcpy(shmemi_rt.ctl[shmemi_rt.my_pe]->aset_vote, v, n * sizeof *v);
    aset_barrier(g);
    memcpy(r, v, n * sizeof *v);
    for (int i = 0; i < g->size; i++) {
        uint64_t o[SHMEMI_MAX_TEAMS + 1];
        ctl_read(o, gpe(g, i), offsetof(struct shmemi_ctl, aset_vote), n * sizeof *v);
        for (size_t j = 0; j < n; j++)
            r[j] = o[j] > r[j] ? o[j] : r[j];
    }
    aset_barrier(g); /* nobody overwrites its vote before every member has read it */
}

static struct gshmem_team *aset_team(const struct grp *g) {
    pthread_mutex_lock(&aset_lock);
    struct aset_entry *e = aset_cache;
    while (e && (e->start != g->start || e->stride != g->stride || e->size != g->size))
        e = e->next;
    pthread_mutex_unlock(&aset_lock);
    if (e)
        return e->team;
    e = calloc(1, sizeof *e);
    if (!e)
        shmemi_fatal(g->fn, "out of memory");
    *e = (struct aset_entry){g->start, g->stride, g->size, NULL, NULL};
    e->team = shmemi_team_implicit(g->start, g->stride, g->size, g->me, aset_vote, (void *)g, aset_nteams < ASET_TEAMS,
                                   g->fn);
    pthread_mutex_lock(&aset_lock);
    aset_nteams += e->team != NULL;
    e->next = aset_cache;
    aset_cache = e;
    pthread_mutex_unlock(&aset_lock);
    return e->team;
}

/* Fills g for an active set; 0 when this PE is not a member: programs from OSHMEM call the deprecated active-set
 * collectives on every PE, members or not, and OSHMEM returns at once for the others, so gshmem does too. */
static int grp_aset(struct grp *out, int start, int logs, int size, long *psync, const char *fn) {
    shmemi_check_init(fn);
    int n = shmemi_rt.n_pes;
    if (logs < 0 || logs > 30 || size <= 0 || start < 0 || start + (long)(size - 1) * (1L << logs) >= n)
        shmemi_fatal(fn,
                     "invalid active set PE_start=%d logPE_stride=%d PE_size=%d: need PE_size > 0, logPE_stride >= 0 "
                     "and 0 <= PE_start + (PE_size-1)*2^logPE_stride < %d",
                     start, logs, size, n);
    int stride = 1 << logs, d = shmemi_rt.my_pe - start;
    if (d < 0 || d % stride || d / stride >= size) {
        shmemi_debug("%s: this PE is not in the active set PE_start=%d logPE_stride=%d PE_size=%d: it returns at once",
                     fn, start, logs, size);
        return 0;
    }
    if (!psync)
        shmemi_err_null(fn, "pSync");
    struct grp g = {start, stride, size, d / stride, NULL, NULL, psync, fn, 0, 0};
    for (int i = 0; i < size; i++)
        g.net |= !shmemi_rt.ctl[start + i * stride];
    if (size > 1)
        g.team = aset_team(&g);
    *out = g;
    return 1;
}

/* The bytes [addr, addr+len) of member i's copy of a symmetric object. */
static inline char *peer(const struct grp *g, const void *addr, size_t len, int i) {
    return shmemi_xlate(addr, len, gpe(g, i), g->fn);
}

/* ---- GPU memory ----
 * dest and source are symmetric, so every member finds the same kinds. Within a node every member's GPU memory is
 * mapped (IPC), so the paths below stay as they are with their copies made by the GPU layer when a side is GPU
 * memory; reductions accumulate on the GPU (a kernel per step) when the sources are there (split below). With members
 * across the network, GPU buffers take the plain network paths (pull, push: gets and puts of the RMA layer, which
 * reaches peers' GPU segments by FI_HMEM or through their owner; the team algorithms that write members' buffers and
 * scratch with the CPU are skipped), reductions accumulating in host memory; large reductions of GPU buffers on
 * evenly spread teams run in two levels instead (hier_reduce). */
#define DEV_DEST 1
#define DEV_SRC 2

static inline void check_bufs(struct grp *g, const void *dest, const void *src, size_t len) {
    if (len && !dest)
        shmemi_err_null(g->fn, "dest");
    if (len && !src)
        shmemi_err_null(g->fn, "source");
    g->dev = 0;
    /* whatever len is: a member that contributes nothing to a collect must still choose the same algorithm as the
     * others (a source left NULL beside an empty contribution is taken to be where dest is) */
    if (SHMEMI_UNLIKELY(shmemi_rt.gpu)) {
        int ddev = dest && shmemi_dev_local(dest);
        int sdev = src ? shmemi_dev_local(src) : ddev;
        g->dev = (ddev ? DEV_DEST : 0) | (sdev ? DEV_SRC : 0);
        /* members whose GPU memory some other member does not map (GPUs without peer access): the network paths,
         * whose RMA reaches it through its owner (every member finds the same) */
        if (g->dev && !g->net)
            g->net = shmemi_gpu_unmapped_among(g->start, g->stride, g->size, g->pes);
    }
}

/* n bytes from s to d (distinct or identical, never partly overlapping); dev: either side may be GPU memory */
static inline void xcopy(void *d, const void *s, size_t n, int dev, const char *fn) {
    if (d == s || !n)
        return;
    if (SHMEMI_UNLIKELY(dev))
        shmemi_gtl_copy(d, s, n, fn);
    else
        memmove(d, s, n);
}

static inline void xzero(void *d, size_t n, int dev, const char *fn) {
    if (SHMEMI_UNLIKELY(dev))
        shmemi_gtl_memset(d, 0, n, fn);
    else
        memset(d, 0, n);
}

/* Blocks gathered from scratch into a GPU dest: assembled in host memory, then one copy (a GPU copy costs
 * microseconds whatever its size). out() is where to assemble; done() copies it to dest. */
struct gather {
    char *dest, *buf;
    size_t len;
};
static char *gather_out(const struct grp *g, struct gather *ga, void *dest, size_t len) {
    *ga = (struct gather){dest, NULL, len};
    if (!(g->dev & DEV_DEST))
        return dest;
    if (!(ga->buf = malloc(len)))
        shmemi_fatal(g->fn, "out of memory for %zu bytes of staging", len);
    return ga->buf;
}
static void gather_done(const struct grp *g, struct gather *ga) {
    if (!ga->buf)
        return;
    shmemi_gtl_copy(ga->dest, ga->buf, ga->len, g->fn);
    free(ga->buf);
}

/* ---- team epochs ---- */
static inline struct shmemi_coll_slot *slot_of(const struct grp *g, int i) {
    return &shmemi_rt.ctl[gpe(g, i)]->coll[g->team->slot];
}

static void publish(const struct grp *g, uint64_t e) {
    __atomic_store_n(&slot_of(g, g->me)->ready, e, __ATOMIC_RELEASE);
    for (int i = 0; i < g->size; i++)
        if (i != g->me)
            shmemi_ring_force(gpe(g, i));
}

static void wait_ready(const struct grp *g, int i, uint64_t e) {
    uint64_t *r = &slot_of(g, i)->ready;
    SHMEMI_WAIT_FOR(__atomic_load_n(r, __ATOMIC_ACQUIRE) >= e, g->fn);
}

static void wait_all(const struct grp *g, uint64_t e) {
    for (int k = 1; k < g->size; k++)
        wait_ready(g, (g->me + k) % g->size, e);
}

/* Every member publishes `ready = e` when it enters epoch e, so ready >= e+1 means it is done with epoch e. */
#define BUF(e) ((e) % SHMEMI_COLL_DEPTH)

/* This PE's scratch buffer for epoch e. Its last user was epoch e-DEPTH: once every member has entered the epoch
 * after that, nobody reads it any more (a fresh team has no such epoch). A PE may thus run DEPTH-1 collectives ahead
 * of the slowest member, which lets a broadcast root stream without waiting for its readers. */
static char *scratch_for(const struct grp *g, uint64_t e) {
    if (e > g->team->base + SHMEMI_COLL_DEPTH)
        wait_all(g, e - SHMEMI_COLL_DEPTH + 1);
    return slot_of(g, g->me)->data[BUF(e)];
}

static inline const char *scratch_of(const struct grp *g, int i, uint64_t e) { return slot_of(g, i)->data[BUF(e)]; }

/* ---- barriers ---- */
/* Active set: every member adds 1 to every other member's pSync[0] (after any data it pushed there) and waits for
 * its own to have gained size-1, then takes size-1 off: one flag hop. A member already in the next barrier may have
 * added its 1 before that, which the subtraction keeps, so consecutive barriers may reuse pSync; once every member
 * is done pSync[0] is back at SHMEM_SYNC_VALUE. */
static void aset_arrive(const struct grp *g) {
    if (shmemi_rt.amo_net || g->net) { /* pSync also takes fabric atomics, or a member is off the node */
        shmemi_ofi_quiet_all();
        for (int k = 1; k < g->size; k++) {
            int i = (g->me + k) % g->size;
            shmemi_amo(SHMEM_CTX_DEFAULT, SHMEMI_AMO_ADD, &g->psync[0], 1, 0, sizeof(long), gpe(g, i), g->fn);
            shmemi_ring_force(gpe(g, i));
        }
        return;
    }
    for (int k = 1; k < g->size; k++) {
        int i = (g->me + k) % g->size;
        __atomic_fetch_add((long *)(void *)peer(g, &g->psync[0], sizeof(long), i), 1L, __ATOMIC_RELEASE);
        shmemi_ring_force(gpe(g, i));
    }
}

static void aset_wait(const struct grp *g) {
    long *cnt = &g->psync[0], goal = SHMEM_SYNC_VALUE + g->size - 1;
    SHMEMI_WAIT_FOR(__atomic_load_n(cnt, __ATOMIC_ACQUIRE) >= goal, g->fn);
    if (shmemi_rt.amo_net)
        shmemi_amo(SHMEM_CTX_DEFAULT, SHMEMI_AMO_ADD, cnt, (uint64_t)(-(long)(g->size - 1)), 0, sizeof(long),
                   shmemi_rt.my_pe, g->fn);
    else
        __atomic_fetch_sub(cnt, (long)g->size - 1, __ATOMIC_RELAXED);
}

static void aset_barrier(const struct grp *g) {
    aset_arrive(g);
    aset_wait(g);
}

static void net_barrier(const struct grp *g);

static void grp_barrier(const struct grp *g) {
    if (g->size == 1)
        return;
    if (g->team && g->net) {
        net_barrier(g);
    } else if (g->team) {
        uint64_t e = ++g->team->epoch;
        publish(g, e);
        wait_all(g, e);
    } else {
        aset_barrier(g);
    }
}

void shmemi_team_sync_internal(struct gshmem_team *t, const char *fn) {
    struct grp g = grp_team(t, fn);
    grp_barrier(&g);
}

int shmem_team_sync(shmem_team_t team) {
    struct grp g = grp_team(team, "shmem_team_sync");
    grp_barrier(&g);
    return 0;
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync) {
    struct grp g;
    if (!grp_aset(&g, PE_start, logPE_stride, PE_size, pSync, "shmem_sync"))
        return;
    grp_barrier(&g);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync) {
    struct grp g;
    if (!grp_aset(&g, PE_start, logPE_stride, PE_size, pSync, "shmem_barrier"))
        return;
    shmem_quiet(); /* updates by set members are complete on return */
    grp_barrier(&g);
}

/* ---- groups with members off this node (coll_net) ----
 * No peer's control block can be polled, so everything is pushed: data goes into the receiver's memory and is
 * followed by a signal, an add of 1 to a counter in the receiver's slot that only the receiver reads. Counters only
 * grow while the team lives (the team remembers how many signals it waited for on each) and are zeroed when it is
 * destroyed. Each counter has one sender, and a sender's operations arrive in order, so "the counter reached my
 * goal" means that signal (and the data before it) is here, however far ahead of this PE the sender runs:
 *
 * - barrier: dissemination, ceil(log2 n) rounds; in round k a member signals member me + 2^k and waits for member
 *   me - 2^k (a counter per round);
 * - reductions that fit the slot's scratch: recursive doubling, log2 n rounds of exchange between members me and
 *   me ^ 2^k (a counter per step); members past the largest power of two hand their data to a partner first and
 *   get the result back last. The lower member's partial is always the left operand, so every member computes the
 *   same expression;
 * - broadcast, fcollect, collect, alltoall: data goes straight into the members' dest (the spec has every dest
 *   ready before any PE calls the collective), with a counter per sending member in the receiver's slot.
 *   Broadcast runs down a binomial tree from the root; the others have every member put its block into every other
 *   member's dest (collect sends the sizes first).
 *
 * Larger reductions and scans keep the split by address over RMA, between barriers. */
static inline size_t slot_off(const struct grp *g) {
    return offsetof(struct shmemi_ctl, coll) + (size_t)g->team->slot * sizeof(struct shmemi_coll_slot);
}

/* The slot's scratch (SHMEMI_COLL_DEPTH * SHMEMI_COLL_SCRATCH bytes): reductions' buffers, then collect's sizes
 * (one word per member), then the per-sender counters. */
#define NET_SCRATCH (SHMEMI_COLL_DEPTH * SHMEMI_COLL_SCRATCH)
#define NET_FROM_AREA (NET_SCRATCH - SHMEMI_NET_FROM_MAX * sizeof(uint64_t))
#define NET_SIZES_AREA (NET_FROM_AREA - SHMEMI_NET_FROM_MAX * sizeof(uint64_t))
#define NET_RD_AREA NET_SIZES_AREA
_Static_assert(NET_RD_AREA >= 16 * 1024, "too little scratch left for reductions over the network");

static inline size_t sig_off(const struct grp *g, int idx) {
    return slot_off(g) + offsetof(struct shmemi_coll_slot, sig) + (size_t)idx * sizeof(uint64_t);
}
static inline size_t scratch_off(const struct grp *g, size_t at) {
    return slot_off(g) + offsetof(struct shmemi_coll_slot, data) + at;
}
static inline char *ctl_mine(size_t off) { return (char *)shmemi_rt.ctl[shmemi_rt.my_pe] + off; }

/* Adds 1 to the counter at byte offset `off` of member i's control block, after the data this PE put there before
 * (see shmemi_ofi_coll_signal). */
static void net_signal(const struct grp *g, int i, size_t off) {
    int pe = gpe(g, i);
    struct shmemi_ctl *c = shmemi_rt.ctl[pe];
    if (c && !shmemi_rt.amo_net) {
        shmemi_store_fence();
        __atomic_fetch_add((uint64_t *)(void *)((char *)c + off), 1, __ATOMIC_RELEASE);
    } else {
        shmemi_ofi_coll_signal(off, pe);
    }
    shmemi_ring_force(pe);
}

/* Waits until this PE's counter at `off` reaches *goal + count, and keeps that as the new goal. */
static void net_wait(size_t off, uint64_t *goal, uint64_t count, const char *fn) {
    uint64_t *sig = (uint64_t *)(void *)ctl_mine(off), want = *goal += count;
    SHMEMI_WAIT_FOR_VAR(__atomic_load_n(sig, __ATOMIC_ACQUIRE) >= want, sig, sizeof *sig, fn);
}

/* the counters for signals from member `from` (data collectives) and for step `idx` (barrier, reductions) */
static inline size_t from_off(const struct grp *g, int from) {
    return scratch_off(g, NET_FROM_AREA + (size_t)from * sizeof(uint64_t));
}
static void net_wait_from(const struct grp *g, int from, uint64_t count) {
    net_wait(from_off(g, from), &g->team->from_goal[from], count, g->fn);
}
static void net_wait_sig(const struct grp *g, int idx) { net_wait(sig_off(g, idx), &g->team->sig_goal[idx], 1, g->fn); }

void shmemi_coll_slot_reset(struct gshmem_team *t) {
    struct shmemi_coll_slot *sl = &shmemi_rt.ctl[shmemi_rt.my_pe]->coll[t->slot];
    uint64_t *from = (uint64_t *)(void *)((char *)sl->data + NET_FROM_AREA);
    for (int i = 0; i < SHMEMI_NET_SIGS; i++)
        __atomic_store_n(&sl->sig[i], 0, __ATOMIC_RELAXED);
    /* all of them, not just the team's: a team within the node used this scratch for data (its epochs' buffers
     * overlap the counters), and the slot's next team may be one with members off the node */
    for (int i = 0; i < SHMEMI_NET_FROM_MAX; i++)
        __atomic_store_n(&from[i], 0, __ATOMIC_RELAXED);
}

/* len bytes from src into member i's copy of the symmetric bytes at addr (seg NULL) or into its control block at
 * byte offset off (seg &shmemi_rt.internal), then a signal to its counter at control-block offset sig. src must
 * stay untouched until shmemi_ofi_coll_done (the transfer and the receiver's handling overlap that wait). */
static void net_put_signal(const struct grp *g, struct shmemi_seg *seg, void *addr, size_t off, const void *src,
                           size_t len, size_t sig, int i) {
    int pe = gpe(g, i);
    char *d;
    if (!len) {
        net_signal(g, i, sig);
        return;
    }
    if (seg)
        d = shmemi_rt.ctl[pe] ? (char *)shmemi_rt.ctl[pe] + off : NULL;
    else
        d = shmemi_resolve(addr, len, pe, g->fn, &seg, &off);
    if (d) {
        memcpy(d, src, len);
        net_signal(g, i, sig);
        return;
    }
    shmemi_ofi_coll_put_signal(seg, off, src, len, sig, pe);
    shmemi_ring_force(pe);
}

static void ctl_read(void *dst, int pe, size_t off, size_t len) {
    struct shmemi_ctl *c = shmemi_rt.ctl[pe];
    if (c)
        memcpy(dst, (char *)c + off, len);
    else
        shmemi_ofi_get(SHMEM_CTX_DEFAULT, &shmemi_rt.internal, off, dst, len, pe, 0);
}

static void net_barrier(const struct grp *g) {
    shmemi_ofi_quiet_all(); /* what this PE put is delivered before anyone leaves */
    for (int k = 0, d = 1; d < g->size; k++, d <<= 1) {
        net_signal(g, (g->me + d) % g->size, sig_off(g, SHMEMI_NET_SIG_BAR + k));
        net_wait_sig(g, SHMEMI_NET_SIG_BAR + k);
    }
}

static inline int log2_floor(int n) {
    int l = 0;
    while ((2 << l) <= n)
        l++;
    return l;
}

/* Reductions over the network receive into two halves of the area, one per parity of the team's reductions: a
 * member may be one reduction ahead of a partner, never two (every pair of partners exchanges data in every
 * reduction, whichever of the two algorithms below runs it). */
#define NET_RED_HALF ((NET_RD_AREA / 2) & ~(size_t)63)
static inline size_t net_red_off(const struct grp *g, int par, size_t at) {
    return scratch_off(g, (size_t)par * NET_RED_HALF + at);
}

/* Recursive doubling's buffer size: steps 1..L (rounds), and where the size is not a power of two steps 0 (an extra
 * member's data) and L+1 (the result for an extra member), in each half; at most one message's data (16 KiB). */
#define NET_RD_PIECE 16384
static inline int net_rd_first(const struct grp *g) { return g->size & (g->size - 1) ? 0 : 1; }
static size_t net_rd_max(const struct grp *g) {
    int L = log2_floor(g->size);
    size_t b = NET_RED_HALF / (size_t)(net_rd_first(g) ? L : L + 2) & ~(size_t)63;
    return b < NET_RD_PIECE ? b : NET_RD_PIECE;
}

/* Which algorithm reduces over the network: recursive doubling up to NET_RD_BYTES (log2 n hops, each with all the
 * data), then Rabenseifner's up to net_rsag_bytes (2 log2 n hops, with less data each), then the split by address
 * (every member reads a slice from every other and writes the result to all: see net_reduce_split). Two sweeps with
 * each one forced, over net on 2 cores, 52 KiB halves (32 scratch buffers per slot), doubling / Rabenseifner's /
 * split, us: 2 PEs 16 KiB 21/31/45-67, 32 KiB 41/39-40/51-75, 64 KiB 83/59-64/63-86, 128 KiB 163-172/113-115/107-118;
 * 3 PEs 16 KiB 65-77/76-89/340, 32 KiB 117-144/93-113/295-422, 64 KiB 228-320/195-236/328-386, 128 KiB
 * 463-619/399-511/401-446, 256 KiB -/820-886/765-782; 4 PEs 8 KiB 55-73/90-134/339-577, 16 KiB 78-100/115-116/332-615,
 * 32 KiB 157-201/148-150/345-583, 64 KiB 320-394/163-207/478-501, 128 KiB 628-828/438-519/481-626, 256 KiB
 * -/738-958/727-843. */
static inline int net_red_pairs(const struct grp *g) { return g->size > 2 && !(g->size & (g->size - 1)); }
#define NET_RD_BYTES 16384
static inline size_t net_rsag_bytes(const struct grp *g) { return net_red_pairs(g) || g->size == 3 ? 131072 : 65536; }
/* The ring (net_reduce_ring) in place of Rabenseifner's on teams whose size is not a power of two, up to 5 members.
 * Forced sweeps, ring / Rabenseifner's / split, us: 3 PEs 32 KiB 119-200/111-126/337-343, 64 KiB 159-254/209-247/
 * 339-418, 128 KiB 321-492/479-612/400-445, 256 KiB 648-860/787-1021/693-756; 5 PEs 32 KiB 456-505/554-571/
 * 885-1034, 64 KiB 601-691/708-872/1121-1134, 128 KiB 1174-1355/1344-1489/983-1310; 6 PEs (3 per core) 32 KiB
 * 515-697/348-586, 64 KiB 1017-1284/694-1041: there the ring's 2(n-1) steps cost more than an extra member's
 * transfers (on a network where each PE has its own core the ring would pay off further). */
static inline int net_red_ring(const struct grp *g) { return g->size & (g->size - 1) && g->size <= 5; }

static void net_reduce_rd(const struct grp *g, int op, int dt, void *dest, const void *src, size_t count) {
    size_t nbytes = count * shmemi_dtype_size(dt), b = net_rd_max(g);
    int n = g->size, me = g->me, L = log2_floor(n), m = 1 << L, par = (int)(g->team->nred++ & 1);
#define RD_OFF(step) net_red_off(g, par, (size_t)((step)-first) * b)
#define RD_SIG(step) sig_off(g, SHMEMI_NET_SIG_RED + (step))
    int first = net_rd_first(g);
    _Alignas(64) char stack[2 * SHMEMI_COLL_SCRATCH];
    size_t rb = (nbytes + 63) & ~(size_t)63; /* aligned_alloc takes whole multiples of the alignment */
    char *acc = nbytes <= SHMEMI_COLL_SCRATCH ? stack : aligned_alloc(64, 2 * rb);
    if (!acc)
        shmemi_fatal(g->fn, "out of memory for %zu bytes of reduction buffers", 2 * rb);
    char *tmp = acc + (acc == stack ? SHMEMI_COLL_SCRATCH : rb);
    memcpy(acc, src, nbytes);
    if (me >= m) { /* an extra member: its partner me - m reduces for it */
        net_put_signal(g, &shmemi_rt.internal, NULL, RD_OFF(0), acc, nbytes, RD_SIG(0), me - m);
        net_wait_sig(g, SHMEMI_NET_SIG_RED + L + 1);
        memcpy(dest, ctl_mine(RD_OFF(L + 1)), nbytes);
        shmemi_ofi_coll_done(); /* acc was a source */
        if (acc != stack)
            free(acc);
        return;
    }
    if (me + m < n) {
        net_wait_sig(g, SHMEMI_NET_SIG_RED);
        shmemi_reduce_apply(op, dt, acc, ctl_mine(RD_OFF(0)), count);
    }
    for (int k = 0; k < L; k++) {
        int p = me ^ (1 << k);
        net_put_signal(g, &shmemi_rt.internal, NULL, RD_OFF(k + 1), acc, nbytes, RD_SIG(k + 1), p);
        net_wait_sig(g, SHMEMI_NET_SIG_RED + k + 1);
        shmemi_ofi_coll_done(); /* acc is about to change */
        const char *in = ctl_mine(RD_OFF(k + 1));
        if (me < p) {
            shmemi_reduce_apply(op, dt, acc, in, count);
        } else { /* the lower member's partial on the left, as the partner computes it */
            memcpy(tmp, in, nbytes);
            shmemi_reduce_apply(op, dt, tmp, acc, count);
            memcpy(acc, tmp, nbytes);
        }
    }
    if (me + m < n) {
        net_put_signal(g, &shmemi_rt.internal, NULL, RD_OFF(L + 1), acc, nbytes, RD_SIG(L + 1), me + m);
    }
#undef RD_OFF
#undef RD_SIG
    memcpy(dest, acc, nbytes);
    shmemi_ofi_coll_done();
    if (acc != stack)
        free(acc);
}

/* Medium reductions over the network (Rabenseifner's): the data is cut into one block per member; a reduce-scatter
 * by recursive halving leaves member i with block i reduced (log2 m steps, each sending half of what the one before
 * did), then an allgather by recursive doubling puts the blocks straight into the members' dests. Members past the
 * largest power of two m first hand their data to member me - m, and get the result from it at the end. One member
 * reduces each block, so every PE gets the same bits. Writing into a partner's dest is safe: the partner has entered
 * (its data for this reduction came first) and has read its source into its accumulator. Step k of the halving
 * lands at a fixed place in the receiver's half (blocks may be uneven: every step's room is for whole blocks). */
#define NET_RSAG_MAX_L ((SHMEMI_NET_SIGS - SHMEMI_NET_SIG_RED - 2) / 2)

/* Elements per piece: the half holds an extra member's data (m blocks, if the size is not a power of two), then
 * m - 1 blocks; the accumulator m blocks. 0: no block fits. */
#define NET_RSAG_ACC (2 * NET_RED_HALF)
static size_t net_rsag_count(const struct grp *g, size_t es) {
    int L = log2_floor(g->size), m = 1 << L;
    size_t blk =
        g->size == m ? NET_RED_HALF / ((size_t)(m - 1) * es) : (NET_RED_HALF - 64) / ((size_t)(2 * m - 1) * es);
    if (blk > NET_RSAG_ACC / ((size_t)m * es))
        blk = NET_RSAG_ACC / ((size_t)m * es);
    return L <= NET_RSAG_MAX_L ? blk * (size_t)m : 0;
}

static void net_reduce_rsag(const struct grp *g, int op, int dt, void *dest, const void *src, size_t count) {
    size_t es = shmemi_dtype_size(dt), nbytes = count * es;
    int n = g->size, me = g->me, L = log2_floor(n), m = 1 << L, par = (int)(g->team->nred++ & 1);
    size_t per = (count + (size_t)m - 1) / (size_t)m, pre = n > m ? (nbytes + 63) & ~(size_t)63 : 0;
    char *d = dest;
#define BLK(i) (((size_t)(i)*per < count ? (size_t)(i)*per : count) * es) /* byte offset of block i */
    /* counters: 0 an extra member's data, 1 + j the halving step with partner me ^ 2^j (as recursive doubling's
     * step with that partner: a counter must hear from one PE only, or a partner already in the next reduction could
     * stand in for one still in this), L + 1 + j the doubling step with partner me ^ 2^j, 2L + 1 an extra member's
     * result */
#define SIG(k) sig_off(g, SHMEMI_NET_SIG_RED + (k))
    if (me >= m) {
        net_put_signal(g, &shmemi_rt.internal, NULL, net_red_off(g, par, 0), src, nbytes, SIG(0), me - m);
        net_wait_sig(g, SHMEMI_NET_SIG_RED + 2 * L + 1);
        shmemi_ofi_coll_done(); /* src was a source */
        return;
    }
    char *acc = aligned_alloc(64, NET_RSAG_ACC); /* 40 KiB: not on the stack of a thread that may have a small one */
    if (!acc)
        shmemi_fatal(g->fn, "out of memory for %zu bytes of reduction buffers", (size_t)NET_RSAG_ACC);
    memcpy(acc, src, nbytes);
    if (me + m < n) {
        net_wait_sig(g, SHMEMI_NET_SIG_RED);
        shmemi_reduce_apply(op, dt, acc, ctl_mine(net_red_off(g, par, 0)), count);
    }
    int lo = 0;
    for (int k = 0, half = m / 2; k < L; k++, half /= 2) {
        int keep = me < lo + half ? lo : lo + half, give = keep == lo ? lo + half : lo, p = me ^ half;
        size_t at = pre + (size_t)(m - (m >> k)) * per * es; /* where step k lands */
        net_put_signal(g, &shmemi_rt.internal, NULL, net_red_off(g, par, at), acc + BLK(give),
                       BLK(give + half) - BLK(give), SIG(L - k), p);
        net_wait_sig(g, SHMEMI_NET_SIG_RED + L - k);
        shmemi_reduce_apply(op, dt, acc + BLK(keep), ctl_mine(net_red_off(g, par, at)),
                            (BLK(keep + half) - BLK(keep)) / es);
        lo = keep;
    }
    memcpy(d + BLK(me), acc + BLK(me), BLK(me + 1) - BLK(me));
    for (int k = 0; k < L; k++) {
        int w = 1 << k, base = me & ~(w - 1);
        net_put_signal(g, NULL, d + BLK(base), 0, d + BLK(base), BLK(base + w) - BLK(base), SIG(1 + L + k), me ^ w);
        net_wait_sig(g, SHMEMI_NET_SIG_RED + 1 + L + k);
    }
    if (me + m < n)
        net_put_signal(g, NULL, d, 0, d, nbytes, SIG(2 * L + 1), me + m);
#undef BLK
#undef SIG
    shmemi_ofi_coll_done(); /* acc and dest were sources */
    free(acc);
}

/* Medium reductions over the network on teams whose size is not a power of two (a ring): a reduce-scatter in n - 1
 * steps, each passing one block on to the next member, leaves member i with block i + 1 reduced; an allgather in
 * n - 1 more steps passes the reduced blocks on round the ring, straight into the members' dests. Every step sends
 * 1/n of the data and every member sends the same amount, where recursive doubling or Rabenseifner's would first
 * have an extra member hand all its data to a partner and wait for all the result. Each block is reduced by one
 * member, so every PE gets the same bits. Writing into the next member's dest is safe: the block that member owns
 * reached this one through every member, so all have entered and read their source into their accumulator. Every
 * signal a member gets comes from the one before it, on its counter for that sender, in order; the reduce-scatter
 * lands at a fixed place in the receiver's half per step. */
static size_t net_ring_count(const struct grp *g, size_t es) {
    return NET_RED_HALF / ((size_t)(g->size - 1) * es) * (size_t)g->size;
}

static void net_reduce_ring(const struct grp *g, int op, int dt, void *dest, const void *src, size_t count) {
    size_t es = shmemi_dtype_size(dt), nbytes = count * es, n = (size_t)g->size;
    int me = g->me, right = (me + 1) % g->size, left = (me + g->size - 1) % g->size;
    int par = (int)(g->team->nred++ & 1);
    size_t per = (count + n - 1) / n, rb = (nbytes + 63) & ~(size_t)63;
    char *d = dest, *acc = aligned_alloc(64, rb);
    if (!acc)
        shmemi_fatal(g->fn, "out of memory for %zu bytes of reduction buffers", rb);
#define BLK(i) ((((size_t)(i) % n) * per < count ? ((size_t)(i) % n) * per : count) * es) /* block i's byte offset */
#define BLEN(i) ((size_t)(i) % n == n - 1 ? nbytes - BLK(i) : BLK((size_t)(i) + 1) - BLK(i))
    memcpy(acc, src, nbytes);
    for (size_t s = 0; s + 1 < n; s++) {
        size_t give = (size_t)me + n - s, get = give + n - 1, at = s * per * es;
        net_put_signal(g, &shmemi_rt.internal, NULL, net_red_off(g, par, at), acc + BLK(give), BLEN(give),
                       from_off(g, me), right);
        net_wait_from(g, left, 1);
        shmemi_reduce_apply(op, dt, acc + BLK(get), ctl_mine(net_red_off(g, par, at)), BLEN(get) / es);
    }
    size_t own = (size_t)me + 1;
    memcpy(d + BLK(own), acc + BLK(own), BLEN(own));
    for (size_t s = 0; s + 1 < n; s++) {
        size_t b = own + n - s;
        net_put_signal(g, NULL, d + BLK(b), 0, d + BLK(b), BLEN(b), from_off(g, me), right);
        net_wait_from(g, left, 1);
    }
#undef BLK
#undef BLEN
    shmemi_ofi_coll_done(); /* acc and dest were sources */
    free(acc);
}

/* Broadcast down a binomial tree: relative member r (r = 0 is the root) gets the data from r - (highest bit of r)
 * and passes it on to r + 2^k for every 2^k > r, farthest first. */
static void net_bcast(const struct grp *g, void *dest, const void *src, size_t nbytes, int root, int copy_root) {
    int n = g->size, r = (g->me - root + n) % n, top = 1, low = 1;
    while (top * 2 < n)
        top *= 2;
    while (low <= r)
        low *= 2;
    if (r)
        net_wait_from(g, (r - low / 2 + root) % n, 1);
    else if (copy_root)
        memmove(dest, src, nbytes);
    for (int d = top; d >= low; d /= 2) {
        if (r + d >= n)
            continue;
        int i = (r + d + root) % n;
        net_put_signal(g, NULL, dest, 0, r ? dest : src, nbytes, from_off(g, g->me), i);
    }
    shmemi_ofi_coll_done();
}

/* fcollect and alltoall: member i gets this PE's block (block i of src for alltoall) in block me of its dest */
static void net_scatter_blocks(const struct grp *g, void *dest, const void *src, size_t nbytes, int all) {
    int n = g->size, me = g->me;
    char *d = (char *)dest + (size_t)me * nbytes;
    for (int k = 1; k < n; k++) {
        int i = (me + k) % n;
        net_put_signal(g, NULL, d, 0, (const char *)src + (all ? (size_t)i * nbytes : 0), nbytes, from_off(g, me), i);
    }
    memmove(d, (const char *)src + (all ? (size_t)me * nbytes : 0), nbytes);
    for (int k = 1; k < n; k++)
        net_wait_from(g, (me + k) % n, 1);
    shmemi_ofi_coll_done();
}

/* fcollect on power-of-two teams: recursive doubling, step k sending the 2^k blocks gathered so far to member
 * me ^ 2^k, into its dest (log2 n messages per member instead of n - 1; 4 PEs over net on 2 cores, 8 B-32 KiB:
 * 48-167 us against 60-205 with a put to every member, three alternating runs; 8 PEs 145-244 against 262-389) */
static void net_fcollect_rd(const struct grp *g, void *dest, const void *src, size_t nbytes) {
    int n = g->size, me = g->me;
    char *d = dest;
    memmove(d + (size_t)me * nbytes, src, nbytes);
    for (int w = 1; w < n; w <<= 1) {
        size_t at = (size_t)(me & ~(w - 1)) * nbytes;
        net_put_signal(g, NULL, d + at, 0, d + at, (size_t)w * nbytes, from_off(g, me), me ^ w);
        net_wait_from(g, me ^ w, 1);
    }
    shmemi_ofi_coll_done();
}

/* fcollect on other teams (Bruck's, with every block at its own place): after step k this member holds blocks
 * me .. me + 2^(k+1) - 1 (mod n); step k sends the ones it holds (all but what the receiver already has, at the
 * last step) to member me - 2^k, in one put or two where the range wraps past the end of dest. ceil(log2 n)
 * messages per member instead of n - 1. Over net on 2 cores, forced, two runs each, Bruck's / direct puts, us:
 * 8 B 5 PEs 81-97/74-111, 6 PEs 102-146/96-105, 7 PEs 161-173/149-266; 4 KiB 110-136/113-154, 145-180/163-174,
 * 189-309/229-363; 32 KiB 263-272/253-258, 281-292/415-425, 407-565/614-713. At 3 PEs the two direct puts go out
 * at once and Bruck's two steps measured slower (8 B 56-61/43-53 us, 32 KiB 132-138/100-127), so it starts at 5. */
static void net_fcollect_bruck(const struct grp *g, void *dest, const void *src, size_t nbytes) {
    int n = g->size, me = g->me;
    char *d = dest;
    memmove(d + (size_t)me * nbytes, src, nbytes);
    for (int w = 1; w < n; w <<= 1) {
        int to = (me + n - w) % n, from = (me + w) % n, cnt = w < n - w ? w : n - w;
        int first = n - me < cnt ? n - me : cnt; /* blocks before the wrap */
        net_put_signal(g, NULL, d + (size_t)me * nbytes, 0, d + (size_t)me * nbytes, (size_t)first * nbytes,
                       from_off(g, me), to);
        if (first < cnt)
            net_put_signal(g, NULL, d, 0, d, (size_t)(cnt - first) * nbytes, from_off(g, me), to);
        net_wait_from(g, from, from + cnt > n ? 2 : 1);
    }
    shmemi_ofi_coll_done();
}

/* collect: the sizes first (each member reads those of the members before it), then the blocks at their offsets. A
 * member sends its blocks after reading the sizes it needs, and finishes only when it has every member's blocks, so
 * no member's next size overwrites one not read yet. */
static void net_collect_push(const struct grp *g, void *dest, const void *src, size_t nbytes) {
    int n = g->size, me = g->me;
    size_t soff = scratch_off(g, NET_SIZES_AREA);
    uint64_t mine = nbytes, *sizes = (uint64_t *)(void *)ctl_mine(soff), off = 0;
    for (int k = 1; k < n; k++) {
        int i = (me + k) % n;
        net_put_signal(g, &shmemi_rt.internal, NULL, soff + (size_t)me * sizeof mine, &mine, sizeof mine,
                       from_off(g, me), i);
    }
    for (int i = 0; i < me; i++) {
        net_wait_from(g, i, 1);
        off += __atomic_load_n(&sizes[i], __ATOMIC_RELAXED);
    }
    char *d = (char *)dest + off;
    for (int k = 1; k < n; k++) {
        int i = (me + k) % n;
        net_put_signal(g, NULL, d, 0, src, nbytes, from_off(g, me), i);
    }
    memmove(d, src, nbytes);
    for (int i = 0; i < n; i++)
        if (i != me)
            net_wait_from(g, i, i < me ? 1 : 2); /* members after this one: their size, then their block */
    shmemi_ofi_coll_done();
}

/* member i's bytes [addr, addr+len) into dst (pull_nbi: complete at the next quiet); dst into member i's
 * [addr, addr+len) */
static void pull(const struct grp *g, void *dst, const void *addr, size_t len, int i) {
    if (i == g->me)
        xcopy(dst, addr, len, g->dev, g->fn);
    else if (len)
        shmemi_get(SHMEM_CTX_DEFAULT, dst, addr, len, gpe(g, i), g->fn);
}

static void pull_nbi(const struct grp *g, void *dst, const void *addr, size_t len, int i) {
    if (i == g->me)
        xcopy(dst, addr, len, g->dev, g->fn);
    else if (len)
        shmemi_get_nbi(SHMEM_CTX_DEFAULT, dst, addr, len, gpe(g, i), g->fn);
}

static void push(const struct grp *g, void *addr, const void *src, size_t len, int i) {
    if (i == g->me)
        xcopy(addr, src, len, g->dev, g->fn);
    else if (len)
        shmemi_put_nbi(SHMEM_CTX_DEFAULT, addr, src, len, gpe(g, i), g->fn);
}

/* Reduction of private buffers (team creation): through this PE's scratch in its slot, read by the others. */
static void net_reduce_private(const struct grp *g, int op, int dt, void *dest, const void *src, size_t count) {
    size_t nbytes = count * shmemi_dtype_size(dt);
    struct shmemi_coll_slot *mine = &shmemi_rt.ctl[shmemi_rt.my_pe]->coll[g->team->slot];
    size_t off = (size_t)((char *)mine->data[0] - (char *)shmemi_rt.ctl[shmemi_rt.my_pe]);
    _Alignas(64) char in[SHMEMI_COLL_SCRATCH];
    memcpy(mine->data[0], src, nbytes);
    net_barrier(g);
    for (int i = 0; i < g->size; i++) {
        ctl_read(i ? in : dest, gpe(g, i), off, nbytes);
        if (i)
            shmemi_reduce_apply(op, dt, dest, in, count);
    }
    net_barrier(g); /* nobody overwrites its scratch before every member has read it */
}

/* Pieces of large reductions and scans over the network: each member reads a piece of its slice from every
 * member at once (non-blocking gets, one quiet), so a piece costs one round trip, not one per member. Up to
 * NET_SPLIT_PIECE bytes per member, NET_SPLIT_BUF in all (a piece per member in, and out for a scan). 256 KiB
 * pieces against 64 KiB, alternating runs over net on 2 cores, us: 2 PEs 512 KiB 338-412/448-559, 1 MiB 701-772/
 * 943-1144; 4 PEs 1 MiB 2146-2541/3337-3791, 2 MiB 4267-4892/4894-6940. */
#define NET_SPLIT_PIECE 262144
#define NET_SPLIT_BUF (2u << 20)

/* the pieces, between barriers the caller runs (a group of PEs may be part of a larger one: see hier_reduce) */
static void net_split_pieces(const struct grp *g, int op, int dt, void *dest, const void *src, size_t count, int scan,
                             int excl) {
    size_t es = shmemi_dtype_size(dt), n = (size_t)g->size;
    size_t per = (count + n - 1) / n, lo = (size_t)g->me * per, hi = lo + per < count ? lo + per : count;
    size_t nbuf = scan ? 2 * n : n + 1, piece = NET_SPLIT_BUF / nbuf;
    piece = piece > NET_SPLIT_PIECE ? NET_SPLIT_PIECE : piece < COLL_BLOCK ? COLL_BLOCK : piece & ~(size_t)63;
    size_t blk = piece / es;
    char *buf = aligned_alloc(64, nbuf * piece);
    if (!buf)
        shmemi_fatal(g->fn, "out of memory for %zu bytes of reduction buffers", nbuf * piece);
#define IN(i) (buf + (size_t)(i)*piece)
#define OUT(i) (buf + (n + (size_t)(i)) * piece) /* scan: member i's prefix; reduction: OUT(0), the result */
    for (size_t b = lo; b < hi; b += blk) {
        size_t m = hi - b < blk ? hi - b : blk, off = b * es, len = m * es;
        const char *s = (const char *)src + off;
        char *d = (char *)dest + off;
        for (int i = 0; i < g->size; i++)
            pull_nbi(g, IN(i), s, len, i);
        shmemi_ofi_quiet_all(); /* the gets, and the previous piece's puts (their sources are rewritten below) */
        if (scan) {
            for (int i = 0; i < g->size; i++) {
                char *o = OUT(i);
                if (i == 0) {
                    if (excl)
                        memset(o, 0, len);
                    else
                        memcpy(o, IN(0), len);
                    continue;
                }
                memcpy(o, OUT(i - 1), len); /* prefix through member i-1 (excl: i-2) ... */
                shmemi_reduce_apply(SHMEMI_OP_SUM, dt, o, IN(excl ? i - 1 : i), m); /* ... plus the next one */
            }
            for (int i = 0; i < g->size; i++)
                push(g, d, OUT(i), len, i);
        } else {
            char *acc = OUT(0);
            memcpy(acc, IN(0), len);
            for (int i = 1; i < g->size; i++)
                shmemi_reduce_apply(op, dt, acc, IN(i), m);
            for (int i = 0; i < g->size; i++)
                push(g, d, acc, len, i);
        }
    }
#undef IN
#undef OUT
    shmemi_ofi_quiet_all();
    free(buf);
}

static void net_reduce_split(const struct grp *g, int op, int dt, void *dest, const void *src, size_t count, int scan,
                             int excl) {
    grp_barrier(g);
    net_split_pieces(g, op, dt, dest, src, count, scan, excl);
    grp_barrier(g);
}

/* ---- reductions of GPU buffers across nodes, in two levels ----
 * With L members on each of N nodes (the same L on every node), the array is cut into L slices. Member r of a node
 * (its r-th member in team order) reduces slice r of its node's sources on the GPU, reading them in place through
 * IPC with a kernel per member, into its own dest; the N members r of all nodes (a column) then reduce that slice
 * over the network as net_reduce_split does, each a piece of it, and write it into the column's dests; last, each
 * member copies the other slices from its node's members, GPU to GPU. The network carries each node's data once
 * instead of once per member (L times less than the flat split), and the node-level work runs as kernels. */
struct hier {
    int L, N, r, k;  /* members per node, nodes, this member's index on its node and its node's in the column */
    int *node, *col; /* team indices of this node's members (by index on the node), of this column (by node) */
};

static int hier_plan(const struct grp *g, struct hier *h) {
    int n = g->size, np = shmemi_rt.n_pes, *seen = calloc((size_t)np, sizeof(int));
    int *lidx = malloc((size_t)n * sizeof(int)), mynode = shmemi_rt.node_of[shmemi_rt.my_pe], ok = 1, nodes = 0;
    h->node = h->col = NULL;
    h->r = h->k = 0;
    if (!seen || !lidx) {
        free(seen);
        free(lidx);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int nd = shmemi_rt.node_of[gpe(g, i)];
        nodes += !seen[nd];
        lidx[i] = seen[nd]++;
    }
    h->L = seen[mynode];
    h->N = nodes;
    for (int i = 0; i < n && ok; i++)
        ok = seen[shmemi_rt.node_of[gpe(g, i)]] == h->L;
    if (ok && h->L > 1 && h->N > 1 && (h->node = malloc((size_t)h->L * sizeof(int))) &&
        (h->col = malloc((size_t)h->N * sizeof(int)))) {
        int c = 0;
        h->r = lidx[g->me];
        for (int i = 0; i < n; i++) {
            if (shmemi_rt.node_of[gpe(g, i)] == mynode)
                h->node[lidx[i]] = i;
            if (lidx[i] == h->r) {
                if (i == g->me)
                    h->k = c;
                h->col[c++] = gpe(g, i);
            }
        }
    } else {
        ok = 0;
    }
    free(seen);
    free(lidx);
    if (!ok) {
        free(h->node);
        free(h->col);
    }
    return ok;
}

/* slice r of L of count elements: [*lo, *lo + return) */
static size_t slice_of(size_t count, int L, int r, size_t *lo) {
    size_t per = (count + (size_t)L - 1) / (size_t)L, a = (size_t)r * per;
    *lo = a < count ? a : count;
    return a + per < count ? per : count - *lo;
}

static void hier_reduce(const struct grp *g, const struct hier *h, int op, int dt, void *dest, const void *src,
                        size_t count) {
    size_t es = shmemi_dtype_size(dt), lo, m = slice_of(count, h->L, h->r, &lo);
    size_t blk = SHMEMI_GTL_SCRATCH / es;
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        shmemi_debug("%s: a reduction of GPU buffers in two levels (%d nodes of %d PE%s); SHMEM_GPU_HIER_COLL=0: one",
                     g->fn, h->N, h->L, h->L == 1 ? "" : "s");
    grp_barrier(g); /* every source ready */
    if (m) {
        char *acc = shmemi_gtl_scratch_get(g->fn);
        for (size_t b = 0; b < m; b += blk) {
            size_t e = m - b < blk ? m - b : blk, off = (lo + b) * es, len = e * es;
            const char *s = (const char *)src + off;
            shmemi_gtl_copy(acc, peer(g, s, len, h->node[0]), len, g->fn);
            for (int j = 1; j < h->L; j++)
                if (shmemi_gtl_reduce(op, dt, acc, peer(g, s, len, h->node[j]), e, g->fn))
                    shmemi_fatal(g->fn, "the GPU backend has no kernel for this reduction any more");
            shmemi_gtl_copy((char *)dest + off, acc, len, g->fn); /* only this member reads this slice of src */
        }
        shmemi_gtl_scratch_put(acc);
    }
    grp_barrier(g); /* every node's partial sums in place */
    struct grp col = {0, 0, h->N, h->k, h->col, NULL, NULL, g->fn, 1, g->dev};
    if (m)
        net_split_pieces(&col, op, dt, (char *)dest + lo * es, (char *)dest + lo * es, m, 0, 0);
    grp_barrier(g); /* every slice done in every column */
    for (int j = 0; j < h->L; j++) {
        size_t jlo, jm = slice_of(count, h->L, j, &jlo);
        if (j != h->r && jm)
            shmemi_gtl_copy((char *)dest + jlo * es, peer(g, (char *)dest + jlo * es, jm * es, h->node[j]), jm * es,
                            g->fn);
    }
    grp_barrier(g); /* nobody's dest is read any more */
}

static void net_collect(const struct grp *g, void *dest, const void *src, size_t nbytes, int fixed) {
    int n = g->size;
    size_t off = 0, soff = g->team ? offsetof(struct shmemi_ctl, coll) +
                                         (size_t)g->team->slot * sizeof(struct shmemi_coll_slot) +
                                         offsetof(struct shmemi_coll_slot, meta)
                                   : offsetof(struct shmemi_ctl, scratch);
    if (!fixed)
        __atomic_store_n((uint64_t *)(void *)((char *)shmemi_rt.ctl[shmemi_rt.my_pe] + soff), (uint64_t)nbytes,
                         __ATOMIC_RELAXED);
    grp_barrier(g);
    for (int i = 0; i < n; i++) {
        uint64_t len = nbytes;
        if (!fixed && i != g->me)
            ctl_read(&len, gpe(g, i), soff, sizeof len);
        pull(g, (char *)dest + off, src, (size_t)len, i);
        off += (size_t)len;
    }
    grp_barrier(g);
}

/* ---- broadcast ---- */
static void bcast(struct grp *g, void *dest, const void *src, size_t nbytes, int root, int update_root) {
    if (root < 0 || root >= g->size)
        shmemi_fatal(g->fn, "PE_root %d is not a PE of the %s (0..%d)", root, g->team ? "team" : "active set",
                     g->size - 1);
    check_bufs(g, dest, src, nbytes);
    if (!nbytes)
        return;
    int me = g->me, copy_root = me == root && update_root && dest != src;
    if (g->net && g->team && !g->dev && g->size <= SHMEMI_NET_FROM_MAX) {
        net_bcast(g, dest, src, nbytes, root, copy_root);
        return;
    }
    if (g->net) {
        grp_barrier(g);
        if (me != root)
            pull(g, dest, src, nbytes, root);
        else if (copy_root)
            xcopy(dest, src, nbytes, g->dev, g->fn);
        grp_barrier(g);
        return;
    }
    if (g->team && nbytes <= SHMEMI_COLL_SCRATCH && g->size > 1) {
        uint64_t e = ++g->team->epoch;
        if (me == root) {
            xcopy(scratch_for(g, e), src, nbytes, g->dev & DEV_SRC, g->fn);
            publish(g, e);
        } else {
            publish(g, e);
            wait_ready(g, root, e);
            xcopy(dest, scratch_of(g, root, e), nbytes, g->dev & DEV_DEST, g->fn);
        }
        if (copy_root)
            xcopy(dest, src, nbytes, g->dev, g->fn);
        return;
    }
    /* every member copies at once: the others pull from the root's source while the root fills its own dest */
    grp_barrier(g);
    if (me != root)
        xcopy(dest, peer(g, src, nbytes, root), nbytes, g->dev, g->fn);
    else if (copy_root)
        xcopy(dest, src, nbytes, g->dev, g->fn);
    grp_barrier(g);
}

/* ---- fcollect, collect ---- */
static void fcollect(struct grp *g, void *dest, const void *src, size_t nbytes) {
    check_bufs(g, dest, src, nbytes);
    if (!nbytes)
        return;
    char *d = dest;
    int n = g->size, me = g->me;
    if (g->net && g->team && !g->dev && n <= SHMEMI_NET_FROM_MAX) {
        if (n > 2 && !(n & (n - 1)))
            net_fcollect_rd(g, dest, src, nbytes);
        else if (n >= 5)
            net_fcollect_bruck(g, dest, src, nbytes);
        else
            net_scatter_blocks(g, dest, src, nbytes, 0);
        return;
    }
    if (g->net) {
        net_collect(g, dest, src, nbytes, 1);
        return;
    }
    if (g->team && nbytes <= SHMEMI_COLL_SCRATCH && n > 1) {
        uint64_t e = ++g->team->epoch;
        struct gather ga;
        xcopy(scratch_for(g, e), src, nbytes, g->dev & DEV_SRC, g->fn);
        publish(g, e);
        d = gather_out(g, &ga, dest, (size_t)n * nbytes);
        xcopy(d + (size_t)me * nbytes, src, nbytes, g->dev & DEV_SRC, g->fn); /* d: host memory here */
        for (int k = 1; k < n; k++) {
            int i = (me + k) % n;
            wait_ready(g, i, e);
            memcpy(d + (size_t)i * nbytes, scratch_of(g, i, e), nbytes);
        }
        gather_done(g, &ga);
        return;
    }
    grp_barrier(g);
    for (int k = 0; k < n; k++) {
        int i = (me + k) % n;
        xcopy(d + (size_t)i * nbytes, i == me ? (const char *)src : peer(g, src, nbytes, i), nbytes, g->dev, g->fn);
    }
    grp_barrier(g);
}

#define COLLECT_DIRECT 1u /* meta flag: the contribution is too big for scratch; read it from the source */

static void collect(struct grp *g, void *dest, const void *src, size_t nbytes) {
    check_bufs(g, dest, src, nbytes);
    char *d = dest;
    int n = g->size, me = g->me;
    if (n == 1) {
        xcopy(d, src, nbytes, g->dev, g->fn);
        return;
    }
    if (g->net && g->team && !g->dev && n <= SHMEMI_NET_FROM_MAX) {
        net_collect_push(g, dest, src, nbytes);
        return;
    }
    if (g->net) {
        net_collect(g, dest, src, nbytes, 0);
        return;
    }
    uint64_t mine = (uint64_t)nbytes << 1, e = 0;
    int any_direct = 0;
    if (g->team) {
        e = ++g->team->epoch;
        char *sc = scratch_for(g, e);
        if (nbytes > SHMEMI_COLL_SCRATCH)
            mine |= COLLECT_DIRECT;
        else
            xcopy(sc, src, nbytes, g->dev & DEV_SRC, g->fn);
        __atomic_store_n(&slot_of(g, me)->meta[BUF(e)], mine, __ATOMIC_RELAXED);
        publish(g, e);
    } else {
        /* active sets have no scratch: sizes go through this PE's control block, data is read from sources */
        __atomic_store_n(&shmemi_rt.ctl[shmemi_rt.my_pe]->scratch[0], mine | COLLECT_DIRECT, __ATOMIC_RELAXED);
        grp_barrier(g);
    }
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        uint64_t m = mine;
        if (i != me) {
            if (g->team) {
                wait_ready(g, i, e);
                m = __atomic_load_n(&slot_of(g, i)->meta[BUF(e)], __ATOMIC_RELAXED);
            } else {
                m = __atomic_load_n(&shmemi_rt.ctl[gpe(g, i)]->scratch[0], __ATOMIC_RELAXED);
            }
        }
        size_t len = (size_t)(m >> 1);
        any_direct |= (int)(m & COLLECT_DIRECT);
        int scr = i != me && !(m & COLLECT_DIRECT); /* from the member's scratch, in host memory */
        xcopy(d + off,
              i == me                ? (const char *)src
              : (m & COLLECT_DIRECT) ? peer(g, src, len, i)
                                     : scratch_of(g, i, e),
              len, scr ? g->dev & DEV_DEST : g->dev, g->fn);
        off += len;
    }
    if (any_direct) /* sources read in place stay untouched until every reader is done */
        grp_barrier(g);
}

/* ---- alltoall, alltoalls ---- */
static void alltoall(struct grp *g, void *dest, const void *src, size_t nbytes) {
    check_bufs(g, dest, src, nbytes);
    if (!nbytes)
        return;
    char *d = dest;
    const char *s = src;
    int n = g->size, me = g->me;
    if (g->net && g->team && !g->dev && n <= SHMEMI_NET_FROM_MAX) {
        net_scatter_blocks(g, dest, src, nbytes, 1);
        return;
    }
    if (g->net) {
        grp_barrier(g);
        for (int k = 0; k < n; k++) {
            int i = (me + k) % n;
            pull(g, d + (size_t)i * nbytes, s + (size_t)me * nbytes, nbytes, i);
        }
        grp_barrier(g);
        return;
    }
    if (g->team && n > 1 && nbytes <= SHMEMI_COLL_SCRATCH / (size_t)n) {
        uint64_t e = ++g->team->epoch;
        struct gather ga;
        char *sc = scratch_for(g, e);
        xcopy(sc, s, nbytes * (size_t)n, g->dev & DEV_SRC, g->fn);
        publish(g, e);
        d = gather_out(g, &ga, dest, (size_t)n * nbytes);
        memcpy(d + (size_t)me * nbytes, sc + (size_t)me * nbytes, nbytes);
        for (int k = 1; k < n; k++) {
            int i = (me + k) % n;
            wait_ready(g, i, e);
            memcpy(d + (size_t)i * nbytes, scratch_of(g, i, e) + (size_t)me * nbytes, nbytes);
        }
        gather_done(g, &ga);
        return;
    }
    grp_barrier(g);
    for (int k = 0; k < n; k++) {
        int i = (me + k) % n;
        const char *from = s + (size_t)me * nbytes;
        xcopy(d + (size_t)i * nbytes, i == me ? from : peer(g, from, nbytes, i), nbytes, g->dev, g->fn);
    }
    grp_barrier(g);
}

static void alltoalls(struct grp *g, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                      size_t es) {
    if (dst < 1 || sst < 1)
        shmemi_fatal(g->fn, "strides dst=%td and sst=%td must both be >= 1", dst, sst);
    check_bufs(g, dest, src, nelems);
    if (!nelems)
        return;
    int n = g->size, me = g->me;
    size_t extent = (((size_t)n * nelems - 1) * (size_t)sst + 1) * es;
    char *d = dest;
    grp_barrier(g);
    if (g->net) {
        for (int k = 0; k < n; k++) {
            int i = (me + k) % n;
            shmemi_iget(SHMEM_CTX_DEFAULT, d + (size_t)i * nelems * (size_t)dst * es,
                        (const char *)src + (size_t)me * nelems * (size_t)sst * es, dst, sst, nelems, es, gpe(g, i),
                        g->fn);
        }
        grp_barrier(g);
        return;
    }
    for (int k = 0; k < n; k++) {
        int i = (me + k) % n;
        const char *si = peer(g, src, extent, i);
        char *di = d + (size_t)i * nelems * (size_t)dst * es;
        si += (size_t)me * nelems * (size_t)sst * es;
        if (g->dev) { /* one strided copy per member */
            shmemi_gtl_copy2d(di, (size_t)dst * es, si, (size_t)sst * es, es, nelems, g->fn);
            continue;
        }
        for (size_t m = 0; m < nelems; m++)
            memcpy(di + m * (size_t)dst * es, si + m * (size_t)sst * es, es);
    }
    grp_barrier(g);
}

/* ---- reductions and scans ---- */
/* Small reductions on a team: every member publishes its source in scratch and reduces all of them, in member
 * order, so every PE computes bit-identical results. Works on private buffers too (team creation uses it). */
static void reduce_small(const struct grp *g, int op, int dt, void *dest, const void *src, size_t count) {
    size_t nbytes = count * shmemi_dtype_size(dt);
    uint64_t e = ++g->team->epoch;
    _Alignas(64) char acc[SHMEMI_COLL_SCRATCH];
    char *out = g->dev & DEV_DEST ? acc : dest; /* a GPU dest gets the result in one copy */
    xcopy(scratch_for(g, e), src, nbytes, g->dev & DEV_SRC, g->fn);
    publish(g, e);
    wait_all(g, e);
    memcpy(out, scratch_of(g, 0, e), nbytes);
    for (int i = 1; i < g->size; i++)
        shmemi_reduce_apply(op, dt, out, scratch_of(g, i, e), count);
    xcopy(dest, out, nbytes, g->dev & DEV_DEST, g->fn);
}

/* Large reductions and scans, and those of active sets, between barriers: member k runs slice k of every member's
 * source (in member order: every PE computes the same expression) and writes the result into slice k of every
 * member's dest. Only member k touches slice k anywhere, so dest == source works. A scan (op SUM) writes member i's
 * prefix as it goes; it copies each source piece before writing dests, which may be the sources.
 * With GPU sources and a kernel for (op, dt), the accumulator is GPU memory and each step a kernel reading the
 * member's source in place; otherwise it is host memory, with GPU sources copied in first. */
static void split(const struct grp *g, int op, int dt, void *dest, const void *src, size_t count, int scan, int excl) {
    size_t es = shmemi_dtype_size(dt), n = (size_t)g->size;
    size_t per = (count + n - 1) / n, lo = (size_t)g->me * per, hi = lo + per < count ? lo + per : count;
    int sdev = !!(g->dev & DEV_SRC), kern = sdev && !shmemi_gtl_reduce(op, dt, NULL, NULL, 0, g->fn);
    int adev = kern, ddev = adev || (g->dev & DEV_DEST); /* acc in GPU memory; a store touches GPU memory */
    _Alignas(64) char stack[2 * COLL_BLOCK];
    size_t half = g->dev ? SHMEMI_GTL_SCRATCH / 2 : COLL_BLOCK; /* GPU copies cost microseconds each: big pieces */
    char *acc = kern ? shmemi_gtl_scratch_get(g->fn) : g->dev ? malloc(2 * half) : stack, *in = acc + half;
    size_t blk = half / es;
    if (!acc)
        shmemi_fatal(g->fn, "out of memory for %zu bytes of staging", 2 * half);
    for (size_t b = lo; b < hi; b += blk) {
        size_t m = hi - b < blk ? hi - b : blk, off = b * es, len = m * es;
        const char *s = (const char *)src + off;
        char *d = (char *)dest + off;
        if (scan)
            xzero(acc, len, adev, g->fn);
        for (int i = 0; i < g->size; i++) {
            const char *si = peer(g, s, len, i);
            if (!scan && i == 0) {
                xcopy(acc, si, len, adev || sdev, g->fn);
                continue;
            }
            if (scan || (sdev && !kern)) {
                xcopy(in, si, len, adev || sdev, g->fn);
                si = in;
            }
            if (scan && excl)
                xcopy(peer(g, d, len, i), acc, len, ddev, g->fn);
            if (!kern)
                shmemi_reduce_apply(op, dt, acc, si, m);
            else if (shmemi_gtl_reduce(op, dt, acc, si, m, g->fn))
                shmemi_fatal(g->fn, "the GPU backend has no kernel for this reduction any more");
            if (scan && !excl)
                xcopy(peer(g, d, len, i), acc, len, ddev, g->fn);
        }
        for (int i = 0; !scan && i < g->size; i++)
            xcopy(peer(g, d, len, i), acc, len, ddev, g->fn);
    }
    if (kern)
        shmemi_gtl_scratch_put(acc);
    else if (acc != stack)
        free(acc);
}

static void reduce(struct grp *g, int op, int dt, void *dest, const void *src, size_t count) {
    if (!shmemi_reduce_valid(op, dt))
        shmemi_fatal(g->fn, "this reduction is not defined for this type");
    size_t nbytes = count * shmemi_dtype_size(dt);
    check_bufs(g, dest, src, nbytes);
    if (!count)
        return;
    if (g->size == 1) {
        xcopy(dest, src, nbytes, g->dev, g->fn);
        return;
    }
    if (g->net && g->team && !g->dev && nbytes <= net_rsag_bytes(g)) {
        /* in pieces of what the scratch holds: every member cuts at the same places, so dest == src stays safe */
        size_t es = shmemi_dtype_size(dt), rs = net_rsag_count(g, es);
        int ring = net_red_ring(g), rd = nbytes <= NET_RD_BYTES || (!rs && !ring);
        size_t per = rd ? net_rd_max(g) / es : ring ? net_ring_count(g, es) : rs;
        for (size_t done = 0; done < count; done += per)
            (rd     ? net_reduce_rd
             : ring ? net_reduce_ring
                    : net_reduce_rsag)(g, op, dt, (char *)dest + done * es, (const char *)src + done * es,
                                       count - done < per ? count - done : per);
        return;
    }
    struct hier h;
    if (g->net && g->dev == (DEV_SRC | DEV_DEST) && shmemi_env.gpu_hier_coll && nbytes >= shmemi_env.gpu_hier_coll &&
        shmemi_rt.node_of && !shmemi_gtl_reduce(op, dt, NULL, NULL, 0, g->fn) && hier_plan(g, &h)) {
        hier_reduce(g, &h, op, dt, dest, src, count);
        free(h.node);
        free(h.col);
        return;
    }
    if (g->net) {
        net_reduce_split(g, op, dt, dest, src, count, 0, 0);
        return;
    }
    if (g->team && nbytes <= SHMEMI_COLL_SCRATCH) {
        reduce_small(g, op, dt, dest, src, count);
        return;
    }
    grp_barrier(g);
    split(g, op, dt, dest, src, count, 0, 0);
    grp_barrier(g);
}

void shmemi_team_reduce_private(struct gshmem_team *t, int op, int dt, void *dest, const void *src, size_t n,
                                const char *fn) {
    struct grp g = grp_team(t, fn);
    if (g.size == 1)
        memmove(dest, src, n * shmemi_dtype_size(dt));
    else if (g.net)
        net_reduce_private(&g, op, dt, dest, src, n);
    else
        reduce_small(&g, op, dt, dest, src, n);
}

static void scan(struct grp *g, int excl, int dt, void *dest, const void *src, size_t count) {
    size_t es = shmemi_dtype_size(dt), nbytes = count * es;
    check_bufs(g, dest, src, nbytes);
    if (!count)
        return;
    int me = g->me, upto = excl ? me : me + 1; /* members 0 .. upto-1 contribute to this PE's result */
    if (g->size == 1) {
        if (excl)
            xzero(dest, nbytes, g->dev & DEV_DEST, g->fn);
        else
            xcopy(dest, src, nbytes, g->dev, g->fn);
        return;
    }
    if (g->net) {
        net_reduce_split(g, SHMEMI_OP_SUM, dt, dest, src, count, 1, excl);
        return;
    }
    if (g->team && nbytes <= SHMEMI_COLL_SCRATCH) {
        uint64_t e = ++g->team->epoch;
        _Alignas(64) char acc[SHMEMI_COLL_SCRATCH];
        char *out = g->dev & DEV_DEST ? acc : dest; /* a GPU dest gets the result in one copy */
        xcopy(scratch_for(g, e), src, nbytes, g->dev & DEV_SRC, g->fn);
        publish(g, e);
        if (upto == 0) {
            xzero(dest, nbytes, g->dev & DEV_DEST, g->fn);
            return;
        }
        for (int i = 0; i < upto; i++) {
            if (i != me)
                wait_ready(g, i, e);
            if (i == 0)
                memcpy(out, scratch_of(g, 0, e), nbytes);
            else
                shmemi_reduce_apply(SHMEMI_OP_SUM, dt, out, scratch_of(g, i, e), count);
        }
        xcopy(dest, out, nbytes, g->dev & DEV_DEST, g->fn);
        return;
    }
    grp_barrier(g);
    split(g, SHMEMI_OP_SUM, dt, dest, src, count, 1, excl);
    grp_barrier(g);
}

/* ---- entry points ---- */
int shmemi_broadcast(shmem_team_t team, void *dest, const void *src, size_t nbytes, int root, const char *fn) {
    struct grp g = grp_team(team, fn);
    bcast(&g, dest, src, nbytes, root, 1);
    return 0;
}

int shmemi_collect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *fn) {
    struct grp g = grp_team(team, fn);
    collect(&g, dest, src, nbytes);
    return 0;
}

int shmemi_fcollect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *fn) {
    struct grp g = grp_team(team, fn);
    fcollect(&g, dest, src, nbytes);
    return 0;
}

int shmemi_alltoall(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *fn) {
    struct grp g = grp_team(team, fn);
    alltoall(&g, dest, src, nbytes);
    return 0;
}

int shmemi_alltoalls(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                     size_t esize, const char *fn) {
    struct grp g = grp_team(team, fn);
    alltoalls(&g, dest, src, dst, sst, nelems, esize);
    return 0;
}

int shmemi_reduce(shmem_team_t team, int op, int dtype, void *dest, const void *src, size_t nreduce, const char *fn) {
    struct grp g = grp_team(team, fn);
    reduce(&g, op, dtype, dest, src, nreduce);
    return 0;
}

int shmemi_scan(shmem_team_t team, int exclusive, int dtype, void *dest, const void *src, size_t nelems,
                const char *fn) {
    struct grp g = grp_team(team, fn);
    scan(&g, exclusive, dtype, dest, src, nelems);
    return 0;
}

void shmemi_broadcast_aset(void *dest, const void *src, size_t nbytes, int root, int start, int logs, int size,
                           long *psync, const char *fn) {
    struct grp g;
    if (!grp_aset(&g, start, logs, size, psync, fn))
        return;
    bcast(&g, dest, src, nbytes, root, 0);
}

void shmemi_collect_aset(void *dest, const void *src, size_t nbytes, int start, int logs, int size, long *psync,
                         const char *fn) {
    struct grp g;
    if (!grp_aset(&g, start, logs, size, psync, fn))
        return;
    collect(&g, dest, src, nbytes);
}

void shmemi_fcollect_aset(void *dest, const void *src, size_t nbytes, int start, int logs, int size, long *psync,
                          const char *fn) {
    struct grp g;
    if (!grp_aset(&g, start, logs, size, psync, fn))
        return;
    fcollect(&g, dest, src, nbytes);
}

void shmemi_alltoall_aset(void *dest, const void *src, size_t nbytes, int start, int logs, int size, long *psync,
                          const char *fn) {
    struct grp g;
    if (!grp_aset(&g, start, logs, size, psync, fn))
        return;
    alltoall(&g, dest, src, nbytes);
}

void shmemi_alltoalls_aset(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize,
                           int start, int logs, int size, long *psync, const char *fn) {
    struct grp g;
    if (!grp_aset(&g, start, logs, size, psync, fn))
        return;
    alltoalls(&g, dest, src, dst, sst, nelems, esize);
}

void shmemi_to_all(int op, int dtype, void *dest, const void *src, int nreduce, int start, int logs, int size,
                   void *pwrk, long *psync, const char *fn) {
    struct grp g;
    if (!grp_aset(&g, start, logs, size, psync, fn))
        return;
    (void)pwrk; /* peers' sources are read in place: no work array is needed */
    if (nreduce < 0)
        shmemi_fatal(fn, "nreduce is %d; it must be >= 0", nreduce);
    reduce(&g, op, dtype, dest, src, (size_t)nreduce);
}
