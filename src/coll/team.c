/* team.c - teams (strided sets of world PEs with their own collective slot and epochs) and communication contexts.
 *
 * A team's collectives synchronize through one slot of every member's control block. Creating a team is collective
 * over its parent: the parent reduces (MAX) each slot's last epoch, with a slot in use anywhere counting as
 * infinity, so every member picks the same free slot and starts the new team's epochs above anything a previous
 * owner of the slot left there. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coll/coll.h"
#include "device/device.h"
#include "mem/mem.h"
#include "shmemg.h" /* the device teams, exported as declared there */
#include "transport/ofi/ofi.h"

/* This PE's slots: free, used by a team, or reserved by a team creation in progress (another thread may be
 * creating a team from a different parent at the same time) */
enum { SLOT_FREE, SLOT_USED, SLOT_RESERVED };
static unsigned char slot_used[SHMEMI_MAX_TEAMS];
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
/* Each slot's signal goals for collectives over the network (kept out of struct gshmem_team, whose size is fixed) */
static uint64_t slot_goals[SHMEMI_MAX_TEAMS][SHMEMI_NET_SIGS + SHMEMI_NET_FROM_MAX];

/* pes: NULL for start + i * stride, or the members' world PEs, ascending (the team takes it) */
static void team_set(struct gshmem_team *t, int start, int stride, int size, int *pes, int my_pe, int slot,
                     uint64_t base) {
    t->start = pes ? pes[0] : start;
    t->stride = pes ? 0 : stride;
    t->size = size;
    t->pes = pes;
    t->my_pe = my_pe;
    t->slot = slot;
    t->epoch = base;
    t->base = base;
    t->nctx = 0;
    t->net = 0;
    for (int i = 0; i < size; i++)
        t->net |= !shmemi_rt.ctl[shmemi_team_world(t, i)];
    t->sig_goal = slot_goals[slot];
    t->from_goal = slot_goals[slot] + SHMEMI_NET_SIGS;
    memset(slot_goals[slot], 0, sizeof slot_goals[slot]);
    t->nred = 0;
    pthread_mutex_lock(&slot_lock);
    slot_used[slot] = SLOT_USED;
    pthread_mutex_unlock(&slot_lock);
}

/* A copy of pes[0..n) for another team or a context, or NULL for none */
static int *pes_copy(const int *pes, int n, const char *fn) {
    if (!pes)
        return NULL;
    int *c = malloc((size_t)n * sizeof *c);
    if (!c)
        shmemi_fatal(fn, "out of memory for a team's list of PEs");
    memcpy(c, pes, (size_t)n * sizeof *c);
    return c;
}

/* n world PEs, ascending: NULL if evenly spaced (*start, *stride say how), else a list of them to keep */
static int *strided_or_list(const int *w, int n, int *start, int *stride, const char *fn) {
    *start = w[0];
    *stride = n > 1 ? w[1] - w[0] : 1;
    for (int i = 2; i < n; i++)
        if (w[i] - w[i - 1] != *stride)
            return pes_copy(w, n, fn);
    return NULL;
}

void shmemi_teams_init(void) {
    int n = shmemi_rt.n_pes, me = shmemi_rt.my_pe;
    const char *fn = "shmem_init";
    memset(slot_used, 0, sizeof slot_used);
    free(gshmem_team_shared.pes); /* (an earlier init's) */
    free(gshmem_team_device_shared.pes);
    team_set(&gshmem_team_world, 0, 1, n, NULL, me, 0, 0);
    gshmem_team_world.predefined = 1;
    /* SHARED: the PEs whose memory this one maps, a list of them where they are not evenly spaced (a launcher mapping
     * PEs round-robin onto nodes of unequal slots gives that) */
    int *local = malloc((size_t)n * sizeof *local), count = 0, idx = 0, start, stride;
    if (!local)
        shmemi_fatal(fn, "out of memory for SHMEM_TEAM_SHARED");
    for (int pe = 0; pe < n; pe++)
        if (shmemi_rt.local[pe]) {
            if (pe == me)
                idx = count;
            local[count++] = pe;
        }
    int *pes = strided_or_list(local, count, &start, &stride, fn);
    free(local);
    team_set(&gshmem_team_shared, start, stride, count, pes, idx, 1, 0);
    gshmem_team_shared.predefined = 1;
    /* GPU teams: every PE has a GPU when GPU support is on (all PEs agree at init). DEVICE_SHARED: the PEs whose GPU
     * memory this one maps, and they each other's: those of SHARED, unless some GPUs of the node lack peer access to
     * others (src/mem groups the GPUs then, the same way on every PE). Their own slots keep their collectives apart
     * from WORLD's. */
    memset(&gshmem_team_device_world, 0, sizeof gshmem_team_device_world);
    memset(&gshmem_team_device_shared, 0, sizeof gshmem_team_device_shared);
    gshmem_team_device_world.my_pe = gshmem_team_device_shared.my_pe = -1;
    if (shmemi_rt.gpu) {
        team_set(&gshmem_team_device_world, 0, 1, n, NULL, me, 2, 0);
        int *grp = malloc((size_t)n * sizeof *grp), ng = 0, gidx = 0;
        if (!grp)
            shmemi_fatal(fn, "out of memory for SHMEM_DEVICE_TEAM_SHARED");
        for (int pe = 0; pe < n; pe++)
            if (shmemi_gpu_group_member(pe)) {
                if (pe == me)
                    gidx = ng;
                grp[ng++] = pe;
            }
        int *gpes = strided_or_list(grp, ng, &start, &stride, fn);
        free(grp);
        team_set(&gshmem_team_device_shared, start, stride, ng, gpes, gidx, 3, 0);
        gshmem_team_device_world.predefined = gshmem_team_device_shared.predefined = 1;
    }
    gshmem_ctx_default.team = &gshmem_team_world;
    gshmem_ctx_default.start = 0;
    gshmem_ctx_default.stride = 1;
    gshmem_ctx_default.size = n;
    gshmem_ctx_default.pes = NULL;
}

static struct gshmem_team *check_team(shmem_team_t team, const char *fn) {
    shmemi_check_init(fn);
    if (!team)
        shmemi_fatal(fn, "the team is SHMEM_TEAM_INVALID; pass a team this PE belongs to (a split returns "
                         "SHMEM_TEAM_INVALID to PEs outside the new team)");
    if (SHMEMI_UNLIKELY(!team->size))
        shmemi_fatal(fn,
                     "SHMEM_DEVICE_TEAM_WORLD and SHMEM_DEVICE_TEAM_SHARED exist only with GPU support, which is "
                     "off (%s); check that shmem_init_thread provided SHMEM_DEVICE_HOST_INIT",
                     shmemi_rt.gpu_why);
    return team;
}

struct gshmem_team *shmemi_team_check(shmem_team_t team, const char *fn) {
    return check_team(team, fn);
}

int shmem_team_my_pe(shmem_team_t team) { return team && team->size && shmemi_rt.init_state == 1 ? team->my_pe : -1; }
int shmem_team_n_pes(shmem_team_t team) { return team && team->size && shmemi_rt.init_state == 1 ? team->size : -1; }

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config) {
    if (!team)
        return -1;
    check_team(team, "shmem_team_get_config");
    if (!config && config_mask)
        shmemi_err_null("shmem_team_get_config", "config");
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}

static int world_to_team(const struct gshmem_team *t, int w) {
    if (t->pes) { /* ascending: binary search */
        int lo = 0, hi = t->size - 1;
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (t->pes[mid] == w)
                return mid;
            if (t->pes[mid] < w)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        return -1;
    }
    int d = w - t->start;
    if (t->stride == 0)
        return d == 0 ? 0 : -1;
    if (d % t->stride)
        return -1;
    int i = d / t->stride;
    return i >= 0 && i < t->size ? i : -1;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
    if (!src_team || !dest_team || src_pe < 0 || src_pe >= src_team->size)
        return -1;
    return world_to_team(dest_team, shmemi_team_world(src_team, src_pe));
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe) {
    if (!team || pe < 0 || pe >= team->size)
        return NULL;
    return shmem_ptr(dest, shmemi_team_world(team, pe));
}

/* Picks `k` slots free on every member of `parent` (collective over parent); returns 0 and fills slots[] and
 * bases[] (the epoch each new team starts from), or -1 on every member if fewer than k are free. Each member offers
 * its free slots, reserved for the duration, so a creation running concurrently in another thread of this PE (from
 * another parent) cannot pick the same one; if reservations made a creation come up short, every member of the
 * parent sees it in the reduced result, and they all release and retry after a random pause. */
static void parent_max(void *arg, uint64_t *r, const uint64_t *v, size_t n, const char *fn) {
    shmemi_team_reduce_private(arg, SHMEMI_OP_MAX, SHMEMI_DT_UINT64, r, v, n, fn);
}

/* The slot choice, over any group that can MAX-reduce: `red` reduces across it, `window` is the slot window offered
 * first (-1: none), `offer` 0 makes this member offer nothing (so the choice fails on every member). */
static int pick_slots_by(shmemi_maxreduce_fn red, void *arg, int window, int offer, int leader, int k, int *slots,
                         uint64_t *bases, const char *fn) {
    enum { CONTENDED = SHMEMI_MAX_TEAMS };
    uint64_t v[SHMEMI_MAX_TEAMS + 1], r[SHMEMI_MAX_TEAMS + 1];
    struct shmemi_ctl *mine = shmemi_rt.ctl[shmemi_rt.my_pe];
    unsigned seed = (unsigned)shmemi_rt.my_pe * 2654435761u ^ (unsigned)(uintptr_t)&v;
    for (int attempt = 0;; attempt++) {
        unsigned char offered[SHMEMI_MAX_TEAMS] = {0};
        /* First offer only the parent's window of 8 slots: creations from different parents running at once in
         * threads of one PE then rarely contend. Later attempts offer every slot. */
        int lo = attempt || window < 0 ? 0 : window * 8, hi = attempt || window < 0 ? SHMEMI_MAX_TEAMS : lo + 8;
        if (!offer)
            lo = hi = 0;
        pthread_mutex_lock(&slot_lock);
        v[CONTENDED] = 0;
        for (int s = 0; s < SHMEMI_MAX_TEAMS; s++) {
            v[s] = UINT64_MAX;
            if (s < lo || s >= hi)
                continue;
            if (slot_used[s] == SLOT_FREE) {
                v[s] = __atomic_load_n(&mine->coll[s].ready, __ATOMIC_RELAXED);
                slot_used[s] = SLOT_RESERVED;
                offered[s] = 1;
            } else if (slot_used[s] == SLOT_RESERVED) {
                v[CONTENDED] = 1;
            }
        }
        pthread_mutex_unlock(&slot_lock);
        red(arg, r, v, SHMEMI_MAX_TEAMS + 1, fn);
        int got = 0;
        for (int s = 0; s < SHMEMI_MAX_TEAMS && got < k; s++)
            if (r[s] != UINT64_MAX) { /* free on every member, so offered by this one */
                slots[got] = s;
                bases[got++] = r[s];
                offered[s] = 0; /* stays reserved: team_new marks it used, or the caller releases it */
            }
        pthread_mutex_lock(&slot_lock);
        for (int s = 0; s < SHMEMI_MAX_TEAMS; s++)
            if (offered[s] || (got < k && r[s] != UINT64_MAX))
                slot_used[s] = SLOT_FREE;
        pthread_mutex_unlock(&slot_lock);
        if (got == k)
            return 0;
        if (attempt == 0 && window >= 0)
            continue;
        if (!r[CONTENDED]) {
            if (leader)
                shmemi_debug("%s: no free team slot (at most %d teams may exist at once)", fn, SHMEMI_MAX_TEAMS);
            return -1;
        }
        struct timespec ts = {0, (long)(rand_r(&seed) % (50000u << (attempt < 7 ? attempt : 7)))};
        nanosleep(&ts, NULL);
    }
}

static int pick_slots(struct gshmem_team *parent, int k, int *slots, uint64_t *bases, const char *fn) {
    return pick_slots_by(parent_max, parent, parent->slot % (SHMEMI_MAX_TEAMS / 8), 1, parent->my_pe == 0, k, slots,
                         bases, fn);
}

/* A team for a deprecated active set (PE start + i*stride, i < size), so its collectives take the team paths.
 * Collective over the set; `red` reduces over it through pSync. NULL on every member if no slot is free or this
 * PE already holds `cap` such teams (it then offers none). */
struct gshmem_team *shmemi_team_implicit(int start, int stride, int size, int my_idx, shmemi_maxreduce_fn red,
                                         void *arg, int offer, const char *fn) {
    int slot;
    uint64_t base;
    if (pick_slots_by(red, arg, -1, offer, my_idx == 0, 1, &slot, &base, fn))
        return NULL;
    struct gshmem_team *t = calloc(1, sizeof *t);
    if (!t)
        shmemi_fatal(fn, "out of memory for a team object");
    team_set(t, start, stride, size, NULL, my_idx, slot, base);
    return t;
}

static void release_slot(int slot) {
    pthread_mutex_lock(&slot_lock);
    if (slot_used[slot] == SLOT_RESERVED)
        slot_used[slot] = SLOT_FREE;
    pthread_mutex_unlock(&slot_lock);
}

static struct gshmem_team *team_new(const struct gshmem_team *parent, int start, int stride, int size, int my_pe,
                                    int slot, uint64_t base, const shmem_team_config_t *config, long mask) {
    struct gshmem_team *t = calloc(1, sizeof *t);
    if (!t)
        shmemi_fatal("shmem_team_split", "out of memory for a team object");
    if (!parent->pes) {
        team_set(t, parent->start + start * parent->stride, stride * parent->stride, size, NULL, my_pe, slot, base);
    } else { /* members of a listed parent: strided again if they happen to be evenly spaced */
        int *w = malloc((size_t)size * sizeof *w), wstart, wstride;
        if (!w)
            shmemi_fatal("shmem_team_split", "out of memory for a team's list of PEs");
        for (int i = 0; i < size; i++)
            w[i] = parent->pes[start + i * stride];
        int *pes = strided_or_list(w, size, &wstart, &wstride, "shmem_team_split");
        free(w);
        team_set(t, wstart, wstride, size, pes, my_pe, slot, base);
    }
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS)) {
        t->config.num_contexts = config->num_contexts;
        t->config_mask = SHMEM_TEAM_NUM_CONTEXTS;
    }
    if (parent->device) /* split from a device team: kernels may name it */
        shmemi_device_team_added(t);
    return t;
}

int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size, const shmem_team_config_t *config,
                             long config_mask, shmem_team_t *new_team) {
    const char *fn = "shmem_team_split_strided";
    shmemi_check_init(fn);
    if (!new_team)
        shmemi_err_null(fn, "new_team");
    *new_team = SHMEM_TEAM_INVALID;
    if (!parent)
        return -1;
    int n = parent->size;
    long last = (long)start + (long)(size - 1) * stride;
    if (size <= 0 || start < 0 || start >= n || last < 0 || last >= n || (stride == 0 && size != 1)) {
        if (parent->my_pe == 0)
            shmemi_debug("%s: invalid triplet start=%d stride=%d size=%d for a parent team of %d PE%s", fn, start,
                         stride, size, n, n == 1 ? "" : "s");
        return -1; /* every parent member sees the same arguments, so all return nonzero together */
    }
    int slot;
    uint64_t base;
    if (pick_slots(parent, 1, &slot, &base, fn))
        return -1;
    int d = parent->my_pe - start, idx = -1;
    if (stride == 0)
        idx = d == 0 ? 0 : -1;
    else if (d % stride == 0 && d / stride >= 0 && d / stride < size)
        idx = d / stride;
    if (idx >= 0)
        *new_team = team_new(parent, start, stride == 0 ? 1 : stride, size, idx, slot, base, config, config_mask);
    else
        release_slot(slot);
    return 0;
}

int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask,
                        shmem_team_t *yaxis_team) {
    const char *fn = "shmem_team_split_2d";
    shmemi_check_init(fn);
    if (!xaxis_team)
        shmemi_err_null(fn, "xaxis_team");
    if (!yaxis_team)
        shmemi_err_null(fn, "yaxis_team");
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (!parent || xrange <= 0)
        return -1;
    int n = parent->size, p = parent->my_pe;
    if (xrange > n)
        xrange = n;
    int slots[2];
    uint64_t bases[2];
    if (pick_slots(parent, 2, slots, bases, fn))
        return -1;
    int x = p % xrange, y = p / xrange;
    int xsize = n - y * xrange < xrange ? n - y * xrange : xrange;
    int ysize = (n - x + xrange - 1) / xrange;
    *xaxis_team = team_new(parent, y * xrange, 1, xsize, x, slots[0], bases[0], xaxis_config, xaxis_mask);
    *yaxis_team = team_new(parent, x, xrange, ysize, y, slots[1], bases[1], yaxis_config, yaxis_mask);
    return 0;
}

/* ---- contexts ---- */
struct ctx_node {
    struct gshmem_ctx ctx;
    struct ctx_node *next;
};
static struct ctx_node *ctx_list; /* every context alive, so destroying a team can destroy its shareable ones */

static void ctx_unlink(struct gshmem_ctx *ctx) {
    for (struct ctx_node **pp = &ctx_list; *pp; pp = &(*pp)->next)
        if (&(*pp)->ctx == ctx) {
            struct ctx_node *dead = *pp;
            *pp = dead->next;
            dead->ctx.team->nctx--;
            if (dead->ctx.options & SHMEM_DEVICE_CTX)
                shmemi_device_ctx_removed(&dead->ctx);
            else
                shmemi_ofi_ctx_destroy(&dead->ctx);
            free(dead->ctx.pes);
            free(dead);
            return;
        }
}

void shmem_team_destroy(shmem_team_t team) {
    const char *fn = "shmem_team_destroy";
    if (!team)
        return;
    check_team(team, fn);
    if (team->predefined)
        shmemi_fatal(fn, "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be destroyed; destroy only teams returned "
                         "by shmem_team_split_strided or shmem_team_split_2d");
    /* Collective: once every member is here, nobody still reads this slot, and it may be reused. */
    shmemi_team_sync_internal(team, fn);
    pthread_mutex_lock(&ctx_lock);
    for (struct ctx_node *c = ctx_list, *next; c; c = next) {
        next = c->next;
        if (c->ctx.team == team && !(c->ctx.options & SHMEM_CTX_PRIVATE))
            ctx_unlink(&c->ctx);
    }
    pthread_mutex_unlock(&ctx_lock);
    shmemi_device_team_removed(team);
    pthread_mutex_lock(&slot_lock);
    shmemi_coll_slot_reset(team);
    slot_used[team->slot] = SLOT_FREE;
    pthread_mutex_unlock(&slot_lock);
    team->size = 0;
    free(team->pes);
    free(team);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx) {
    const char *fn = "shmem_team_create_ctx";
    shmemi_check_init(fn);
    if (!ctx)
        shmemi_err_null(fn, "ctx");
    *ctx = SHMEM_CTX_INVALID;
    if (!team)
        return -1;
    long known = SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE | SHMEM_DEVICE_CTX;
    if (options & ~known)
        shmemi_fatal(fn,
                     "unknown option bits 0x%lx; use SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE, "
                     "SHMEM_DEVICE_CTX",
                     options & ~known);
    struct ctx_node *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    c->ctx.team = team;
    c->ctx.options = options;
    c->ctx.start = team->start;
    c->ctx.stride = team->stride;
    c->ctx.size = team->size;
    c->ctx.pes = pes_copy(team->pes, team->size, fn); /* (a private context may outlive its team) */
    if ((options & SHMEM_DEVICE_CTX) && shmemi_device_ctx_added(&c->ctx)) { /* kernels' contexts: a table entry */
        free(c->ctx.pes);
        free(c);
        return -1;
    }
    if (!(options & SHMEM_DEVICE_CTX))
        shmemi_ofi_ctx_create(&c->ctx);
    pthread_mutex_lock(&ctx_lock);
    c->next = ctx_list;
    ctx_list = c;
    team->nctx++;
    pthread_mutex_unlock(&ctx_lock);
    *ctx = &c->ctx;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx) {
    if (!ctx)
        shmemi_err_null("shmem_ctx_create", "ctx");
    /* a device context without a team is on the device world team (GPU auxiliary specification) */
    return shmem_team_create_ctx(options & SHMEM_DEVICE_CTX ? SHMEM_DEVICE_TEAM_WORLD : SHMEM_TEAM_WORLD, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx) {
    const char *fn = "shmem_ctx_destroy";
    if (!ctx)
        return;
    shmemi_check_init(fn);
    if (ctx == SHMEM_CTX_DEFAULT)
        shmemi_fatal(fn, "SHMEM_CTX_DEFAULT cannot be destroyed; destroy only contexts from shmem_ctx_create");
    if (ctx == SHMEM_DEVICE_CTX_DEFAULT)
        shmemi_fatal(fn, "SHMEM_DEVICE_CTX_DEFAULT cannot be destroyed; destroy only contexts from shmem_ctx_create");
    if (!(ctx->options & SHMEM_DEVICE_CTX)) /* (a device context's requests are the kernels' to quiet) */
        shmem_ctx_quiet(ctx);               /* destroying a context completes its operations */
    pthread_mutex_lock(&ctx_lock);
    ctx_unlink(ctx);
    pthread_mutex_unlock(&ctx_lock);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team) {
    if (!team)
        shmemi_err_null("shmem_ctx_get_team", "team");
    if (!ctx) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}

/* 1.6 sessions are hints about a burst of operations; with every peer mapped there is nothing to batch. */
void shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_ctx_session_config_t *config,
                             long config_mask) {
    if (config_mask && !config)
        shmemi_err_null("shmem_ctx_session_start", "config");
}

void shmem_ctx_session_stop(shmem_ctx_t ctx) { shmem_ctx_quiet(ctx); }
