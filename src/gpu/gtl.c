/* gtl.c - picks the GPU backend (SHMEM_GPU), caches memory-kind answers per device allocation range, and wraps the
 * backend's copies and atomics with the job-ending error reporting the rest of the library uses. */
#include "gpu/gtl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "bootstrap/bootstrap.h"
#include "state.h"

const struct gtl_backend *shmemi_gtl;
static char desc[256];

static char skipped[640]; /* SHMEM_GPU=auto: why the backends before the one taken were not */
static const struct gtl_backend *const vendors[] = {&shmemi_gtl_cuda, &shmemi_gtl_hip, &shmemi_gtl_ze};
#define NVENDORS (int)(sizeof vendors / sizeof vendors[0])

static int try_backend(const struct gtl_backend *b, int local_rank, int nlocal, char *why, size_t whylen) {
    char r[512] = "";
    if (b->init(local_rank, nlocal, desc, sizeof desc, r, sizeof r)) {
        snprintf(why, whylen, "%s: %s", b->name, r);
        return -1;
    }
    shmemi_gtl = b;
    return 0;
}

int shmemi_gtl_init(int local_rank, int nlocal, char *why, size_t whylen) {
    const char *want = shmemi_env.gpu;
    if (!strcmp(want, "none")) {
        snprintf(why, whylen, "SHMEM_GPU=none");
        return -1;
    }
    int emulate = !strncmp(want, "emulate", 7);
    if (shmemi_gtl_emu_kernels && !emulate && strcmp(want, "auto")) {
        snprintf(why, whylen,
                 "this program was built for the emulated GPU (oshcc --emulate-gpu), so SHMEM_GPU=%s cannot apply; "
                 "unset SHMEM_GPU or build the program with nvcc or hipcc",
                 want);
        return -1;
    }
    if (emulate || shmemi_gtl_emu_kernels)
        return try_backend(&shmemi_gtl_emu, local_rank, nlocal, why, whylen);
    /* auto: the first vendor whose driver loads and sees a device; why lists each refusal, for shmem_info */
    size_t used = 0;
    skipped[0] = '\0';
    for (int i = 0; i < NVENDORS; i++) {
        if (strcmp(want, "auto") && strcmp(want, vendors[i]->name))
            continue;
        char r[600] = "";
        if (!try_backend(vendors[i], local_rank, nlocal, r, sizeof r)) {
            snprintf(skipped, sizeof skipped, "%.*s", (int)used, why);
            return 0;
        }
        if (used < whylen)
            used += (size_t)snprintf(why + used, whylen - used, "%s%s", used ? "; " : "", r);
    }
    return -1;
}

int shmemi_gtl_pick_device(int ndev, const char *const *busid, int local_rank, int nlocal) {
    (void)local_rank, (void)nlocal; /* (the placement knows every PE of the node) */
    return shmemi_pick_near(ndev, busid, NULL, "GPU");
}

#define MAX_PICK 64
int shmemi_gtl_pick_busid(int ndev, int (*busid)(int i, char *id, int len), int local_rank, int nlocal) {
    char ids[MAX_PICK][32];
    const char *known[MAX_PICK];
    int m = ndev < MAX_PICK ? ndev : MAX_PICK;
    for (int i = 0; i < m; i++) {
        known[i] = NULL;
        if (busid(i, ids[i], (int)sizeof ids[i]))
            continue;
        /* lower-case hex, as hwloc and the other backends write it, so SHMEM_INFO shows every vendor's alike (the
         * topology's lookup ignores case) */
        for (char *c = ids[i]; *c; c++)
            if (*c >= 'A' && *c <= 'F')
                *c = (char)(*c - 'A' + 'a');
        known[i] = ids[i];
    }
    int k = shmemi_gtl_pick_device(m, known, local_rank, nlocal);
    return k >= 0 && k < m ? k : local_rank % ndev;
}

/* ---- the node's GPUs: which one each PE took, and what this PE's may do with the others' memory ---- */
#define NODE_DEVS 64
static char node_bus[NODE_DEVS][32]; /* the node's GPUs, in the order of the lowest PE on each */
static int node_ndev;
static int *pe_dev;             /* [n_pes] index in node_bus of node PE pe's GPU; -1: another node, or not known */
static int node_p2p[NODE_DEVS]; /* GTL_P2P_* from this PE's GPU to each (-1: that one is not visible here) */
static char share_note[320];    /* SHMEM_INFO: how the PEs on this PE's GPU share it */

int shmemi_gtl_peer_dev(int pe) { return pe_dev && pe >= 0 && pe < shmemi_rt.n_pes ? pe_dev[pe] : -1; }

static void lower(char *s) {
    for (; *s; s++)
        if (*s >= 'A' && *s <= 'F')
            *s = (char)(*s - 'A' + 'a');
}

/* Several PEs on one GPU: without MPS their contexts take turns (a kernel that waits for a co-located PE's kernel
 * keeps the GPU until its time slice ends, so each such wait costs about a slice); with MPS their kernels run at once,
 * and a kernel that fills the SMs it may use while it waits for a co-located PE's kernel hangs, unless each PE's share
 * leaves room for the others': CUDA_MPS_ACTIVE_THREAD_PERCENTAGE <= 100 / PEs per GPU. */
static void share_check(int first_here) {
    struct gtl_share sh = {-1, 0, 0};
    if (shmemi_gtl->share(&sh))
        sh.mps = -1;
    int n = shmemi_rt.gpu_per_dev;
    if (sh.mps == 0)
        snprintf(share_note, sizeof share_note,
                 "%d PEs share this GPU without MPS: their contexts take turns, so each wait of a kernel for a "
                 "co-located PE costs about a time slice (MPS runs them at once)",
                 n);
    else if (sh.mps == 1 && sh.sms && sh.sms_mine)
        snprintf(share_note, sizeof share_note, "%d PEs share this GPU under MPS, each on up to %d of its %d SMs%s", n,
                 sh.sms_mine, sh.sms,
                 sh.sms_mine * n > sh.sms ? " (more than 1/PEs-per-GPU: a kernel that fills them while it waits for a "
                                            "co-located PE hangs)"
                                          : "");
    else
        snprintf(share_note, sizeof share_note, "%d PEs share this GPU (%s)", n,
                 sh.mps == 1 ? "under MPS, each PE's share of the SMs not known"
                             : "how the driver shares it not known");
    if (sh.mps == 1 && sh.sms && sh.sms_mine && sh.sms_mine * n > sh.sms && first_here) {
        fprintf(stderr,
                "gshmem: PE %d: %d PEs share GPU %s under MPS and each may use %d of its %d SMs: a kernel that fills "
                "them while it waits for a co-located PE's kernel leaves that kernel no SM and hangs; set "
                "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d (100 / PEs per GPU) or less\n",
                shmemi_rt.my_pe, n, node_bus[pe_dev[shmemi_rt.my_pe]], sh.sms_mine, sh.sms, 100 / n);
        fflush(stderr);
    }
}

int shmemi_gtl_peers(char *why, size_t whylen) {
    int n = shmemi_rt.n_pes, me = shmemi_rt.my_pe;
    struct card {
        char id[32];
    } mine, *all = calloc((size_t)n, sizeof *all);
    free(shmemi_rt.gpu_peer);
    free(pe_dev);
    shmemi_rt.gpu_peer = calloc((size_t)n, 1);
    pe_dev = malloc((size_t)n * sizeof *pe_dev);
    if (!all || !shmemi_rt.gpu_peer || !pe_dev) {
        free(all);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    memset(&mine, 0, sizeof mine);
    if (shmemi_gtl->busid(-1, mine.id, sizeof mine.id))
        mine.id[0] = '\0';
    if (shmemb_allgather(&mine, all, sizeof mine)) {
        free(all);
        snprintf(why, whylen, "bootstrap allgather of the PEs' GPUs failed");
        return -1;
    }
    node_ndev = 0;
    for (int pe = 0; pe < n; pe++) {
        pe_dev[pe] = -1;
        all[pe].id[sizeof all[pe].id - 1] = '\0';
        if (!shmemi_rt.local[pe] || !all[pe].id[0])
            continue;
        int k = 0;
        while (k < node_ndev && strcasecmp(node_bus[k], all[pe].id))
            k++;
        if (k == node_ndev && node_ndev < NODE_DEVS)
            snprintf(node_bus[node_ndev++], sizeof node_bus[0], "%s", all[pe].id);
        pe_dev[pe] = k < node_ndev ? k : -1;
    }
    free(all);
    int md = pe_dev[me], first_here = 1;
    for (int k = 0; k < node_ndev; k++)
        node_p2p[k] = k == md  ? GTL_P2P_ACCESS | GTL_P2P_ATOMICS
                      : md < 0 ? -1
                               : shmemi_gtl->p2p(node_bus[md], node_bus[k]);
    shmemi_rt.gpu_per_dev = 0;
    for (int pe = 0; pe < n; pe++) {
        if (!shmemi_rt.local[pe])
            continue;
        int d = pe_dev[pe], f;
        if (md < 0 || d < 0) /* the driver names no device: taken as before, every peer mapped */
            f = SHMEMI_GPU_PEER_ACCESS | SHMEMI_GPU_PEER_ATOMICS;
        else if (d == md)
            f = SHMEMI_GPU_PEER_SAME | SHMEMI_GPU_PEER_ACCESS | SHMEMI_GPU_PEER_ATOMICS;
        else if (node_p2p[d] < 0)
            f = SHMEMI_GPU_PEER_ACCESS | SHMEMI_GPU_PEER_HIDDEN;
        else
            f = (node_p2p[d] & GTL_P2P_ACCESS ? SHMEMI_GPU_PEER_ACCESS : 0) |
                ((node_p2p[d] & (GTL_P2P_ACCESS | GTL_P2P_ATOMICS)) == (GTL_P2P_ACCESS | GTL_P2P_ATOMICS)
                     ? SHMEMI_GPU_PEER_ATOMICS
                     : 0);
        shmemi_rt.gpu_peer[pe] = (unsigned char)f;
        if (f & SHMEMI_GPU_PEER_SAME) {
            shmemi_rt.gpu_per_dev++;
            first_here &= pe >= me;
        }
    }
    share_note[0] = '\0';
    if (shmemi_rt.gpu_per_dev > 1)
        share_check(first_here);
    if (md >= 0)
        shmemi_debug("GPU %s: node GPU %d of %d, %d PE(s) on it", node_bus[md], md, node_ndev, shmemi_rt.gpu_per_dev);
    return 0;
}

/* one line: what this PE does with each node peer's GPU memory (its row of the node's matrix) */
void shmemi_gpu_peers_print(FILE *f) {
    if (!shmemi_rt.gpu_peer)
        return;
    char line[4096];
    size_t at = 0;
    int md = shmemi_gtl_peer_dev(shmemi_rt.my_pe);
    for (int pe = 0; pe < shmemi_rt.n_pes && at < sizeof line - 200; pe++) {
        unsigned g = shmemi_rt.gpu_peer[pe];
        if (pe == shmemi_rt.my_pe || !shmemi_rt.local[pe])
            continue;
        const char *how = g & SHMEMI_GPU_PEER_SAME      ? "same GPU"
                          : g & SHMEMI_GPU_PEER_ATOMICS ? "peer access, native atomics"
                          : g & SHMEMI_GPU_PEER_ACCESS
                              ? (g & SHMEMI_GPU_PEER_HIDDEN
                                     ? "peer access; its GPU is not visible here, so atomics through the network"
                                     : "peer access, no native atomics: atomics through the network")
                          : g & SHMEMI_GPU_PEER_FAILED ? "IPC import failed: through the network"
                                                       : "no peer access: through the network";
        at += (size_t)snprintf(line + at, sizeof line - at, "%sPE %d %s", at ? "; " : "", pe, how);
    }
    char id[32] = "(bus id not known)";
    if (md >= 0)
        snprintf(id, sizeof id, "%s", node_bus[md]);
    lower(id);
    fprintf(f, "gshmem: PE %d: GPU %s%s%s: %s\n", shmemi_rt.my_pe, id, share_note[0] ? ", " : "", share_note,
            at ? line : "no other PE of this node");
}

/* shmem_info outside a job: what each visible GPU may do with the others' memory, rows reaching columns */
static void p2p_matrix_print(FILE *f) {
    char ids[16][32];
    int nd = 0;
    while (nd < 16 && !shmemi_gtl->busid(nd, ids[nd], sizeof ids[nd]))
        nd++;
    if (nd < 2)
        return;
    fprintf(f, "  GPU peer access (row reaches column; A: access and native atomics, a: access without native "
               "atomics, -: none, ?: not known):\n");
    for (int i = 0; i < nd; i++) {
        char row[80] = "";
        size_t at = 0;
        for (int j = 0; j < nd; j++) {
            int r = i == j ? -2 : shmemi_gtl->p2p(ids[i], ids[j]);
            at += (size_t)snprintf(row + at, sizeof row - at, " %c",
                                   r == -2                 ? '='
                                   : r < 0                 ? '?'
                                   : !(r & GTL_P2P_ACCESS) ? '-'
                                   : (r & GTL_P2P_ATOMICS) ? 'A'
                                                           : 'a');
            if (at >= sizeof row)
                break;
        }
        lower(ids[i]);
        fprintf(f, "    %2d %s %s\n", i, ids[i], row);
    }
}

static void *scratch_kept;
static char *stage_kept;
static void stage_free(char *p);

void shmemi_gtl_fini(void) {
    void *k = __atomic_exchange_n(&scratch_kept, NULL, __ATOMIC_ACQ_REL);
    if (k)
        shmemi_gtl->free(k, SHMEMI_GTL_SCRATCH);
    char *st = __atomic_exchange_n(&stage_kept, NULL, __ATOMIC_ACQ_REL);
    if (st)
        stage_free(st);
    if (shmemi_gtl)
        shmemi_gtl->fini();
    shmemi_gtl = NULL;
    free(pe_dev);
    pe_dev = NULL;
    node_ndev = 0;
}

const char *shmemi_gtl_describe(void) { return shmemi_gtl ? desc : NULL; }

/* ---- kind cache: device ranges seen so far, most recent first; a miss asks the driver ---- */
#define CACHE_N 64
static struct range {
    uintptr_t base;
    size_t size;
} cache[CACHE_N];
static int cache_n;
static int cache_lock;

static void lock(void) { shmemi_spin_lock(&cache_lock); }
static void unlock(void) { shmemi_spin_unlock(&cache_lock); }

int shmemi_gtl_kind(const void *p) {
    if (!shmemi_gtl || !p)
        return GTL_MEM_HOST;
    uintptr_t a = (uintptr_t)p;
    lock();
    for (int i = 0; i < cache_n; i++)
        if (a - cache[i].base < cache[i].size) {
            if (i) { /* move to front: loops over one buffer hit at once */
                struct range t = cache[i];
                memmove(&cache[1], &cache[0], (size_t)i * sizeof cache[0]);
                cache[0] = t;
            }
            unlock();
            return GTL_MEM_DEVICE;
        }
    unlock();
    uintptr_t base = 0;
    size_t size = 0;
    int k = shmemi_gtl->query(p, &base, &size);
    if (k == GTL_MEM_DEVICE && size) {
        lock();
        int n = cache_n < CACHE_N ? cache_n++ : CACHE_N - 1;
        memmove(&cache[1], &cache[0], (size_t)n * sizeof cache[0]);
        cache[0] = (struct range){base, size};
        unlock();
    }
    return k;
}

void shmemi_gtl_forget(const void *base) {
    lock();
    for (int i = 0; i < cache_n; i++)
        if (cache[i].base == (uintptr_t)base) {
            memmove(&cache[i], &cache[i + 1], (size_t)(cache_n - i - 1) * sizeof cache[0]);
            cache_n--;
            break;
        }
    unlock();
}

void shmemi_gtl_copy(void *dst, const void *src, size_t n, const char *fn) {
    if (n && shmemi_gtl->copy(dst, src, n))
        shmemi_fatal(fn, "the GPU copy of %zu bytes from %p to %p failed (%s)", n, src, dst, shmemi_gtl->name);
}

void *shmemi_gtl_copy_start(void *dst, const void *src, size_t n, const char *fn) {
    void *t = NULL;
    if (shmemi_gtl->copy_start(dst, src, n, &t))
        shmemi_fatal(fn, "queueing a GPU copy of %zu bytes from %p to %p failed (%s)", n, src, dst, shmemi_gtl->name);
    return t;
}

int shmemi_gtl_copy_end(void *ticket, int wait, const char *fn) {
    int r = shmemi_gtl->copy_end(ticket, wait);
    if (r < 0)
        shmemi_fatal(fn, "a queued GPU copy failed (%s)", shmemi_gtl->name);
    return r;
}

/* ---- staging buffers: a page of header (whether the pair is pinned), then the two buffers ---- */
static char *stage_alloc(const char *fn) {
    size_t pg = shmemi_rt.page, len = pg + 2 * SHMEMI_GTL_STAGE;
    char *h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (h == MAP_FAILED)
        shmemi_fatal(fn, "out of memory for %zu bytes of staging buffers for GPU data", 2 * SHMEMI_GTL_STAGE);
    *(int *)(void *)h = !shmemi_gtl->host_register(h + pg, 2 * SHMEMI_GTL_STAGE); /* unpinned still works */
    return h + pg;
}

static void stage_free(char *p) {
    char *h = p - shmemi_rt.page;
    if (*(int *)(void *)h && shmemi_gtl->host_unregister(p))
        shmemi_fatal("shmem (GPU staging)", "the GPU driver (%s) cannot unpin a staging buffer", shmemi_gtl->name);
    munmap(h, shmemi_rt.page + 2 * SHMEMI_GTL_STAGE);
}

char *shmemi_gtl_stage_get(const char *fn) {
    char *p = __atomic_exchange_n(&stage_kept, NULL, __ATOMIC_ACQ_REL);
    return p ? p : stage_alloc(fn);
}

void shmemi_gtl_stage_put(char *p) {
    char *none = NULL;
    if (!__atomic_compare_exchange_n(&stage_kept, &none, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        stage_free(p);
}

void shmemi_gtl_memset(void *dst, int byte, size_t n, const char *fn) {
    if (n && shmemi_gtl->memset(dst, byte, n))
        shmemi_fatal(fn, "setting %zu bytes of GPU memory at %p failed (%s)", n, dst, shmemi_gtl->name);
}

void shmemi_gtl_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                       const char *fn) {
    if (!width || !height)
        return;
    if (!shmemi_gtl->copy2d(dst, dpitch, src, spitch, width, height))
        return;
    for (size_t r = 0; r < height; r++) /* e.g. a pitch beyond what the copy engine takes */
        shmemi_gtl_copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width, fn);
}

__thread int shmemi_gtl_no_sm;

static void no_sm_check(const char *what, const char *fn) {
    if (SHMEMI_UNLIKELY(shmemi_gtl_no_sm))
        shmemi_fatal(fn,
                     "the proxy thread was about to launch %s, which needs a free SM while the kernel it serves may "
                     "hold them all (a hang on a GPU): a library bug, please report it",
                     what);
}

int shmemi_gtl_reduce(int op, int dt, void *acc, const void *in, size_t count, const char *fn) {
    if (count)
        no_sm_check("a reduction kernel", fn);
    int r = shmemi_gtl->reduce(op, dt, acc, in, count);
    if (r > 0)
        shmemi_fatal(fn, "the reduction kernel on %zu elements of GPU memory failed (%s backend)", count,
                     shmemi_gtl->name);
    return r;
}

void *shmemi_gtl_scratch_get(const char *fn) {
    void *p = __atomic_exchange_n(&scratch_kept, NULL, __ATOMIC_ACQ_REL);
    if (!p && shmemi_gtl->alloc(SHMEMI_GTL_SCRATCH, &p))
        shmemi_fatal(fn, "cannot allocate %zu bytes of GPU memory for a collective's accumulator (%s)",
                     SHMEMI_GTL_SCRATCH, shmemi_gtl->name);
    return p;
}

void shmemi_gtl_scratch_put(void *p) {
    void *none = NULL;
    if (!__atomic_compare_exchange_n(&scratch_kept, &none, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        shmemi_gtl->free(p, SHMEMI_GTL_SCRATCH);
}

uint64_t shmemi_gtl_amo(void *p, int op, uint64_t value, uint64_t cond, size_t size, const char *fn) {
    uint64_t old = 0;
    no_sm_check("an atomic kernel on GPU memory", fn);
    if (shmemi_gtl->amo(p, op, value, cond, size, &old))
        shmemi_fatal(fn, "the atomic on GPU memory at %p failed (%s backend)", p, shmemi_gtl->name);
    return old;
}

/* shmem_info and SHMEM_INFO: the GPU backend and device, heap size, and which GPU features are available (and why
 * not; brief: the backend and heap only). Outside a job (shmem_info) the backend is probed as PE 0 of a one-PE node
 * would. */
void shmemi_gpu_info_print(FILE *f, int brief) {
    size_t heap = shmemi_env.symmetric_size_device   ? shmemi_env.symmetric_size_device
                  : shmemi_env.device_symmetric_size ? shmemi_env.device_symmetric_size
                                                     : (size_t)1 << 30;
    char why[640] = "";
    const char *d = NULL;
    int probed = 0;
    if (shmemi_rt.init_state == 1) {
        d = shmemi_gtl_describe();
        snprintf(why, sizeof why, "%s", shmemi_rt.gpu_why);
        if (d && shmemi_rt.dev_heap >= 0)
            heap = shmemi_rt.segs[shmemi_rt.dev_heap].size;
    } else if (!strcmp(shmemi_env.gpu, "none")) {
        snprintf(why, sizeof why, "SHMEM_GPU=none");
    } else if (!shmemi_gtl_init(0, 1, why, sizeof why)) {
        d = shmemi_gtl_describe();
        probed = 1;
    }
    if (!d)
        fprintf(f, "GPU: none — %s\n", why); /* (why has parentheses of its own) */
    else
        fprintf(f, "GPU: %s backend, %s\n  GPU symmetric heap: %zu bytes per PE (SHMEM_SYMMETRIC_SIZE_DEVICE)\n",
                shmemi_gtl->name, d, heap);
    if (d && skipped[0])
        fprintf(f, "  (SHMEM_GPU=auto took the first backend that works; before it: %s)\n", skipped);
    if (d && probed)
        p2p_matrix_print(f);
    else if (d && shmemi_rt.init_state == 1 && shmemi_rt.gpu_peer && node_ndev) {
        char list[600];
        size_t at = 0;
        for (int k = 0; k < node_ndev && at < sizeof list - 80; k++) {
            char id[32];
            snprintf(id, sizeof id, "%s", node_bus[k]);
            lower(id);
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s:", k ? "; " : "", id);
            for (int pe = 0, c = 0; pe < shmemi_rt.n_pes && at < sizeof list - 16; pe++)
                if (pe_dev[pe] == k)
                    at += (size_t)snprintf(list + at, sizeof list - at, "%s%d", c++ ? "," : " PE ", pe);
        }
        fprintf(f, "  GPUs of PE 0's node: %d (%s)%s\n", node_ndev, list,
                shmemi_rt.gpu_per_dev > 1 ? "; several PEs per GPU (SHMEM_INFO's per-PE lines say how they share it)"
                                          : "");
    }
    if (d && shmemi_gtl_coherent_describe())
        fprintf(f, "  GPU memory: %s\n", shmemi_gtl_coherent_describe());
    else if (d && shmemi_gtl->coherent && shmemi_gtl->coherent() == 1)
        fprintf(f, "  GPU memory: coherently accessible by the CPU (SHMEM_GPU_COHERENT)\n");
    if (brief)
        goto out;
    if (shmemi_rt.init_state == 1 && !shmemi_rt.gpu)
        fprintf(f, "  SHMEM_DEVICE_HOST_INIT: not provided in this job: GPU support is off\n");
    else if (shmemi_rt.init_state == 1)
        fprintf(f, "  SHMEM_DEVICE_HOST_INIT: %s; device awareness (local GPU buffers): %s\n",
                shmemi_rt.gpu_provided ? "provided" : "available (not requested)",
                shmemi_rt.dev_local ? "on" : "off (SHMEM_ENABLE_DEVICE_AWARENESS=1 turns it on)");
    else if (d)
        fprintf(f, "  SHMEM_DEVICE_HOST_INIT: available; device awareness (local GPU buffers): available with "
                   "SHMEM_ENABLE_DEVICE_AWARENESS=1 or SHMEM_DEVICE_HOST_INIT\n");
    else
        fprintf(f, "  SHMEM_DEVICE_HOST_INIT and device awareness: not available (no GPU)\n");
    if (shmemi_rt.init_state == 1 && shmemi_rt.kernel_provided)
        fprintf(f, "  SHMEM_DEVICE_KERNEL_INIT: provided (kernels call shmemg_* routines; docs/device.md)\n");
    else if (shmemi_rt.init_state == 1)
        fprintf(f, "  SHMEM_DEVICE_KERNEL_INIT: not provided in this job (a program built with the device library "
                   "asks for it in shmem_init_thread; docs/device.md)\n");
    else
        fprintf(f, "  SHMEM_DEVICE_KERNEL_INIT: for programs built with the device library (nvcc, hipcc, or oshcc "
                   "--emulate-gpu for the CPU emulation; docs/device.md)\n");
out:
    if (probed)
        shmemi_gtl_fini();
}
