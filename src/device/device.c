/* device.c - the device state (include/gshmem/device/state.h) and its copies: each translation unit that includes the
 * device library registers a function that receives the state (cudaMemcpyToSymbol into its own __constant__ copy, a
 * plain copy under the CPU emulation), so a .cu file needs neither relocatable device code nor a device link, and a
 * shared library's kernels get it when the library is loaded. Tables the device reads on every operation (peer
 * mappings, teams, contexts) live in device memory; the ring lives in host memory the device can reach. */
#include "device/device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gshmem/device/state.h>

#include "device/emu/emu.h"
#include "gpu/gtl.h"
#include "mem/mem.h"
#include "proxy/proxy.h"
#include "shmemg.h"

_Static_assert((int)SHMEMGI_AMO_XOR == (int)SHMEMI_AMO_XOR && (int)SHMEMGI_AMO_CSWAP == (int)SHMEMI_AMO_CSWAP,
               "the device library numbers atomics as the host does");
_Static_assert(SHMEMGI_MAX_DTEAMS == SHMEMI_MAX_TEAMS, "a device team's row is its collective slot");
_Static_assert(sizeof(struct shmemgi_req) == 128, "a ring slot is 128 bytes");

static struct shmemgi_dstate hst; /* what every unit receives */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int (**units)(const void *, size_t);
static int nunits, up;

/* host shadows of the device tables, and where they live on the device */
static struct shmemgi_dteam teams[SHMEMGI_MAX_DTEAMS];
static struct shmemgi_dctx ctxs[SHMEMGI_MAX_DCTX];
static struct shmemgi_dteam *d_teams;
static struct shmemgi_dctx *d_ctxs;
static int32_t *d_pes[SHMEMGI_MAX_DTEAMS];  /* team member lists */
static char *d_scratch[SHMEMGI_MAX_DTEAMS]; /* each team slot's collective scratch, kept for the slot's next team */
static uint64_t *d_peers[SHMEMGI_MAX_DSEGS];
static uint64_t *d_counters; /* ring tail, issued[], the error claim */
static uint8_t *d_peer_amo;
static struct shmemgi_ring *ring;
static struct shmemgi_derror *derr;
static void *sync_area;

__attribute__((visibility("default"))) void gshmemx_device_register_unit(int (*upload)(const void *, size_t)) {
    pthread_mutex_lock(&lock);
    int (**u)(const void *, size_t) = realloc(units, (size_t)(nunits + 1) * sizeof *u);
    if (u) {
        units = u;
        units[nunits++] = upload;
    }
    int now = up;
    pthread_mutex_unlock(&lock);
    if (!u)
        shmemi_fatal("gshmem device library", "out of memory registering a translation unit");
    if (now && upload(&hst, sizeof hst)) /* a shared library loaded after shmem_init */
        shmemi_fatal("gshmem device library",
                     "cannot hand the device state to a newly loaded unit (cudaMemcpyToSymbol failed)");
}

static void upload_all(const char *fn) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nunits; i++)
        if (units[i](&hst, sizeof hst)) {
            pthread_mutex_unlock(&lock);
            shmemi_fatal(fn,
                         "cannot hand the device state to translation unit %d of the program "
                         "(cudaMemcpyToSymbol failed): is the GPU the one current at shmem_init?",
                         i);
        }
    pthread_mutex_unlock(&lock);
}

static void dev_write(void *dst, const void *src, size_t n, const char *fn) { shmemi_gtl_copy(dst, src, n, fn); }

static void *dev_alloc(size_t n, const char *fn) {
    void *p;
    if (shmemi_gtl->alloc(n, &p))
        shmemi_fatal(fn, "cannot allocate %zu bytes of GPU memory for the device library's tables", n);
    shmemi_gtl_memset(p, 0, n, fn);
    return p;
}

static void team_entry(struct gshmem_team *t, const char *fn) {
    int s = t->slot;
    struct shmemgi_dteam e = {.handle = (uint64_t)(uintptr_t)t,
                              .start = t->start,
                              .stride = t->stride,
                              .size = t->size,
                              .my_pe = t->my_pe,
                              .index = s};
    if (!d_scratch[s])
        d_scratch[s] = dev_alloc(2 * SHMEMGI_COLL_HALF, fn);
    e.scratch = d_scratch[s];
    if (t->pes) {
        if (d_pes[s]) {
            shmemi_gtl_forget(d_pes[s]);
            shmemi_gtl->free(d_pes[s], 0);
        }
        d_pes[s] = dev_alloc((size_t)t->size * sizeof(int32_t), fn);
        int32_t *tmp = malloc((size_t)t->size * sizeof *tmp);
        if (!tmp)
            shmemi_fatal(fn, "out of memory");
        for (int i = 0; i < t->size; i++)
            tmp[i] = t->pes[i];
        dev_write(d_pes[s], tmp, (size_t)t->size * sizeof *tmp, fn);
        free(tmp);
        e.pes = d_pes[s];
    }
    teams[s] = e;
    dev_write(&d_teams[s], &e, sizeof e, fn);
}

int shmemi_device_init(char *why, size_t len) {
    const char *fn = "shmem_init_thread";
    if (!shmemi_gtl || shmemi_rt.dev_heap < 0) {
        snprintf(why, len, "GPU support is off (%s)", shmemi_rt.gpu_why);
        return -1;
    }
    if (shmemi_gtl == &shmemi_gtl_emu && !shmemi_gtl_emu_kernels) {
        snprintf(why, len, "the emulated GPU runs kernels only in programs built with oshcc --emulate-gpu");
        return -1;
    }
    if (!shmemi_gtl->host_alloc) {
        snprintf(why, len, "the GPU backend (%s) cannot map host memory for the device", shmemi_gtl->name);
        return -1;
    }
    memset(&hst, 0, sizeof hst);
    hst.version = SHMEMGI_DSTATE_VERSION;
    hst.my_pe = shmemi_rt.my_pe;
    hst.n_pes = shmemi_rt.n_pes;
    hst.proxy_all = shmemi_env.device_proxy_all;
    hst.copy_cutover = shmemi_env.device_copy_cutover;
    /* where one PE is reached both through the proxy and directly (large copies to the copy engine; every put
     * through the proxy but atomics, which never are; below, a mapped GPU without native atomics), a fence must see
     * the proxy's queue land before the direct path may overtake it */
    hst.fence_quiet = hst.copy_cutover || hst.proxy_all;
    for (int i = 0; i < shmemi_rt.nsegs && hst.nsegs < SHMEMGI_MAX_DSEGS; i++) {
        struct shmemi_seg *s = &shmemi_rt.segs[i];
        if (s->kind != SHMEMI_MEM_DEVICE)
            continue;
        uint64_t *tmp = calloc((size_t)shmemi_rt.n_pes, sizeof *tmp);
        if (!tmp)
            shmemi_fatal(fn, "out of memory");
        for (int pe = 0; pe < shmemi_rt.n_pes; pe++)
            tmp[pe] = (uint64_t)(uintptr_t)s->peer[pe];
        int k = hst.nsegs++;
        d_peers[k] = dev_alloc((size_t)shmemi_rt.n_pes * sizeof *tmp, fn);
        dev_write(d_peers[k], tmp, (size_t)shmemi_rt.n_pes * sizeof *tmp, fn);
        free(tmp);
        hst.seg[k] = (struct shmemgi_dseg){(uint64_t)(uintptr_t)s->base, s->size, d_peers[k]};
    }
    /* which peers' GPU memory this GPU may update with its own atomics (shmemi_gpu_native_amo) */
    uint8_t *amo = malloc((size_t)shmemi_rt.n_pes);
    if (!amo)
        shmemi_fatal(fn, "out of memory");
    for (int pe = 0; pe < shmemi_rt.n_pes; pe++) {
        amo[pe] = (uint8_t)(shmemi_gpu_native_amo(pe) != 0);
        if (!amo[pe] && shmemi_rt.segs[shmemi_rt.dev_heap].peer[pe]) /* its stores direct, its atomics proxied */
            hst.fence_quiet = 1;
    }
    d_peer_amo = dev_alloc((size_t)shmemi_rt.n_pes, fn);
    dev_write(d_peer_amo, amo, (size_t)shmemi_rt.n_pes, fn);
    free(amo);
    hst.peer_amo = d_peer_amo;
    d_teams = dev_alloc(sizeof teams, fn);
    d_ctxs = dev_alloc(sizeof ctxs, fn);
    memset(teams, 0, sizeof teams);
    memset(ctxs, 0, sizeof ctxs);
    /* counters the device's atomics change: the ring's tail, the error claim, requests per context and how many of
     * them quiets found complete */
    d_counters = dev_alloc((2 + 2 * SHMEMGI_MAX_DCTX) * sizeof(uint64_t), fn);
    if (shmemi_gtl->host_alloc(sizeof *ring, (void **)&ring) || shmemi_gtl->host_alloc(sizeof *derr, (void **)&derr)) {
        snprintf(why, len, "cannot allocate host memory the GPU can reach (%s)", shmemi_gtl->name);
        return -1;
    }
    for (uint64_t i = 0; i < SHMEMGI_RING_SLOTS; i++)
        ring->slot[i].seq = i; /* slot i is free for ticket i */
    /* the barrier counters of device teams, in the GPU heap: symmetric, so peers signal them as any object */
    size_t sync_bytes = (size_t)SHMEMGI_MAX_DTEAMS * (SHMEMGI_SYNC_ROUNDS + 1) * sizeof(uint64_t);
    /* (every PE allocates the same at init: the same offset; init's last barrier comes before any peer uses it) */
    sync_area = shmemi_seg_alloc_local(&shmemi_rt.segs[shmemi_rt.dev_heap], sync_bytes, 64, fn);
    if (!sync_area) {
        snprintf(why, len,
                 "the GPU heap has no room for the device library's %zu bytes of barrier counters (set "
                 "SHMEM_DEVICE_SYMMETRIC_SIZE larger)",
                 sync_bytes);
        return -1;
    }
    shmemi_gtl_memset(sync_area, 0, sync_bytes, fn);
    hst.ring = ring;
    hst.ring_tail = d_counters;
    hst.issued = d_counters + 2;
    hst.quieted = hst.issued + SHMEMGI_MAX_DCTX;
    hst.err = derr;
    hst.err_claim = (uint32_t *)(d_counters + 1);
    hst.sync = sync_area;
    hst.epoch = (uint64_t *)sync_area + (size_t)SHMEMGI_MAX_DTEAMS * SHMEMGI_SYNC_ROUNDS;
    hst.coll_half = SHMEMGI_COLL_HALF;
    hst.teams = d_teams;
    hst.ctxs = d_ctxs;
    hst.team_world = (uint64_t)(uintptr_t)SHMEM_DEVICE_TEAM_WORLD;
    hst.team_shared = (uint64_t)(uintptr_t)SHMEM_DEVICE_TEAM_SHARED;
    hst.ctx_default = (uint64_t)(uintptr_t)SHMEM_DEVICE_CTX_DEFAULT;
    team_entry(&gshmem_team_device_world, fn);
    team_entry(&gshmem_team_device_shared, fn);
    gshmem_team_device_world.device = gshmem_team_device_shared.device = 1;
    memset(&gshmem_ctx_device_default, 0, sizeof gshmem_ctx_device_default);
    gshmem_ctx_device_default.team = &gshmem_team_device_world;
    gshmem_ctx_device_default.options = SHMEM_DEVICE_CTX;
    gshmem_ctx_device_default.size = shmemi_rt.n_pes;
    gshmem_ctx_device_default.stride = 1;
    ctxs[0] = (struct shmemgi_dctx){hst.ctx_default, gshmem_team_device_world.slot, 0};
    dev_write(&d_ctxs[0], &ctxs[0], sizeof ctxs[0], fn);
    if (shmemi_proxy_start(ring, derr, why, len))
        return -1;
    hst.magic = SHMEMGI_DSTATE_MAGIC;
    upload_all(fn);
    pthread_mutex_lock(&lock);
    up = 1;
    pthread_mutex_unlock(&lock);
    shmemi_debug("kernel-side communication up: %d GPU segment(s), %d unit(s) with the device library, proxy running",
                 hst.nsegs, nunits);
    return 0;
}

int shmemi_device_up(void) { return up; }

/* A kernel that runs on past shmem_finalize reads a device state that is gone (the routine's misuse report) or a GPU
 * heap no longer mapped (a segfault under the emulation, a fault on a GPU), and one that waits for its proxy waits for
 * ever: finalize waits for the PE's kernels first, with the proxy still serving them. The emulation sees its streams
 * and its running threads (the routine each entered last); on a GPU the driver sees every stream of the PE's context,
 * so kernels that do not use gshmem are waited for too. */
void shmemi_device_quiesce(const char *fn) {
    if (!shmemi_gtl)
        return;
    int w = (int)shmemi_env.device_finalize_wait;
    const char *fix = "synchronize with the PE's kernels (cudaStreamSynchronize or cudaDeviceSynchronize) before "
                      "shmem_finalize, or give them longer (SHMEM_DEVICE_FINALIZE_WAIT)";
    if (shmemi_gtl == &shmemi_gtl_emu) {
        if (!shmemi_emu_idle_wait(w))
            return;
        char where[256];
        if (shmemi_emu_running(where, sizeof where))
            shmemi_fatal(fn, "a kernel was still running after %d s, %s; %s", w, where, fix);
        shmemi_fatal(fn,
                     "work queued on the emulated GPU had not finished after %d s (a kernel not started yet, or a "
                     "stream waiting for an event); %s",
                     w, fix);
    }
    if (shmemi_gtl->idle(w) == 1)
        shmemi_fatal(fn,
                     "work of this PE's was still running on its GPU after %d s (a kernel, or other work on a stream; "
                     "on a GPU the library does not see which device routine a kernel is in); %s",
                     w, fix);
}

void shmemi_device_fini(void) {
    if (!up)
        return;
    shmemi_proxy_stop();
    pthread_mutex_lock(&lock);
    up = 0;
    pthread_mutex_unlock(&lock);
    memset(&hst, 0, sizeof hst); /* kernels launched after finalize find no state */
    upload_all("shmem_finalize");
    for (int i = 0; i < SHMEMGI_MAX_DSEGS; i++)
        if (d_peers[i]) {
            shmemi_gtl_forget(d_peers[i]);
            shmemi_gtl->free(d_peers[i], 0);
            d_peers[i] = NULL;
        }
    for (int i = 0; i < SHMEMGI_MAX_DTEAMS; i++) {
        if (d_pes[i]) {
            shmemi_gtl_forget(d_pes[i]);
            shmemi_gtl->free(d_pes[i], 0);
            d_pes[i] = NULL;
        }
        if (d_scratch[i]) {
            shmemi_gtl_forget(d_scratch[i]);
            shmemi_gtl->free(d_scratch[i], 0);
            d_scratch[i] = NULL;
        }
    }
    void *tables[] = {d_teams, d_ctxs, d_counters, d_peer_amo};
    for (int i = 0; i < 4; i++) {
        shmemi_gtl_forget(tables[i]);
        shmemi_gtl->free(tables[i], 0);
    }
    d_peer_amo = NULL;
    d_teams = NULL;
    d_ctxs = NULL;
    d_counters = NULL;
    shmemi_gtl->host_free(ring);
    shmemi_gtl->host_free(derr);
    ring = NULL;
    derr = NULL;
    sync_area = NULL; /* (the GPU heap goes with the segments) */
}

void shmemi_device_team_added(struct gshmem_team *t) {
    if (!up)
        return;
    t->device = 1;
    team_entry(t, "shmem_team_split");
}

void shmemi_device_team_removed(struct gshmem_team *t) {
    if (!up || !t->device)
        return;
    int s = t->slot;
    const char *fn = "shmem_team_destroy";
    struct shmemgi_dteam e = {0};
    teams[s] = e;
    dev_write(&d_teams[s], &e, sizeof e, fn);
    /* every member is past the team's last barrier (destroy synchronized them): its counters can start over */
    uint64_t *row = hst.sync + (size_t)s * SHMEMGI_SYNC_ROUNDS;
    shmemi_gtl_memset(row, 0, SHMEMGI_SYNC_ROUNDS * sizeof(uint64_t), fn);
    shmemi_gtl_memset(&hst.epoch[s], 0, sizeof(uint64_t), fn);
}

int shmemi_device_ctx_added(struct gshmem_ctx *c) {
    const char *fn = "shmem_ctx_create";
    if (!up)
        shmemi_fatal(fn, "SHMEM_DEVICE_CTX needs kernel-side communication: shmem_init_thread must provide "
                         "SHMEM_DEVICE_KERNEL_INIT");
    if (!c->team->device)
        shmemi_fatal(fn, "a device context (SHMEM_DEVICE_CTX) needs a device team: SHMEM_DEVICE_TEAM_WORLD, "
                         "SHMEM_DEVICE_TEAM_SHARED or a team split from them");
    int max = shmemi_env.device_max_ctx > 0 && shmemi_env.device_max_ctx < SHMEMGI_MAX_DCTX
                  ? (int)shmemi_env.device_max_ctx + 1
                  : SHMEMGI_MAX_DCTX;
    uint64_t h = (uint64_t)(uintptr_t)c;
    pthread_mutex_lock(&lock);
    /* a free entry, else the entry of a destroyed context (kept so that a kernel still using it hears why) */
    int k = -1, gone = -1, stale = -1;
    for (int i = 1; i < max && k < 0; i++)
        if (!ctxs[i].handle)
            k = i;
        else if (ctxs[i].handle >> 63 && gone < 0)
            gone = i;
    for (int i = 1; i < SHMEMGI_MAX_DCTX; i++)
        if (ctxs[i].handle == ~h) /* (the address of a destroyed one, given out again: no longer "destroyed") */
            stale = i;
    if (k < 0)
        k = gone;
    if (k > 0)
        ctxs[k] = (struct shmemgi_dctx){h, c->team->slot, k};
    if (stale > 0 && stale != k)
        ctxs[stale] = (struct shmemgi_dctx){0};
    pthread_mutex_unlock(&lock);
    if (k < 0)
        return -1;
    if (stale > 0 && stale != k)
        dev_write(&d_ctxs[stale], &ctxs[stale], sizeof ctxs[stale], fn);
    dev_write(&d_ctxs[k], &ctxs[k], sizeof ctxs[k], fn);
    return 0;
}

void shmemi_device_ctx_removed(struct gshmem_ctx *c) {
    if (!up)
        return;
    /* kept, its handle inverted: a kernel still running with it is told it was destroyed (no kernel may use it
     * again, so waiting here for the PE's kernels would only wait for ones that go on with other contexts) */
    for (int i = 1; i < SHMEMGI_MAX_DCTX; i++)
        if (ctxs[i].handle == (uint64_t)(uintptr_t)c) {
            pthread_mutex_lock(&lock);
            ctxs[i].handle = ~ctxs[i].handle;
            struct shmemgi_dctx e = ctxs[i];
            pthread_mutex_unlock(&lock);
            dev_write(&d_ctxs[i], &e, sizeof e, "shmem_ctx_destroy");
        }
}

/* [p, p+len) in a GPU segment (as a kernel's seg_of finds it): the segment, and p's offset in it */
static struct shmemi_seg *dev_seg_of(const void *p, size_t len, size_t *off) {
    struct shmemi_seg *s = shmemi_find_seg(p, off);
    return s && s->kind == SHMEMI_MEM_DEVICE && len <= s->size - *off ? s : NULL;
}

/* The stream-ordered routines' choice between the copy engine and a kernel, made as a kernel's peer_addr makes it
 * (SHMEM_DEVICE_PROXY_ALL keeps the proxy's path under test there too); whatever a kernel would call a misuse is left
 * to the kernel, which reports it with its routine's name. */
__attribute__((visibility("default"))) void *gshmemx_device_stream_peer(const void *remote, const void *local,
                                                                        size_t len, int pe) {
    if (!__atomic_load_n(&up, __ATOMIC_ACQUIRE) || shmemi_env.device_proxy_all || pe < 0 || pe >= shmemi_rt.n_pes)
        return NULL;
    size_t off, loff;
    struct shmemi_seg *r = dev_seg_of(remote, len, &off);
    if (!r || !dev_seg_of(local, len, &loff) || !r->peer[pe])
        return NULL;
    return r->peer[pe] + off;
}

/* ---- the CPU emulation's shortcuts: its kernels run in this process ---- */
__attribute__((visibility("default"), noreturn)) void gshmemx_emu_device_fail(unsigned what, const char *fn, int pe,
                                                                              const void *addr, size_t len) {
    char msg[512];
    shmemi_proxy_misuse_text(what, pe, (uint64_t)(uintptr_t)addr, len, msg, sizeof msg);
    if (shmemi_rt.init_state != 1) {
        fprintf(stderr, "gshmem: %s (in a kernel): %s\n", fn, msg);
        fflush(stderr);
        _Exit(1);
    }
    shmemi_fatal(fn, "(in a kernel) %s", msg);
}

__attribute__((visibility("default"))) void gshmemx_emu_proxy_doorbell(void) { shmemi_proxy_doorbell(); }
