/* ofi_mr.c - memory registration for the libfabric transport: this PE's segments and peers' keys and bases, GPU
 * segments (FI_HMEM), and local buffers for providers that need them registered (FI_MR_LOCAL: verbs, efa). */
#include "gpu/gtl.h"
#include "transport/ofi/ofi_int.h"

static __thread struct scratch *my_scratch;
static struct scratch *all_scratch; /* every thread's, to close at finalize (the structures themselves stay) */
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t shmemt_ofi_net_gen;

/* With SHMEM_OFI_MR_LOCAL=1 every transfer is checked as a provider that needs it would check it: each local buffer
 * lies in a live registration, whose descriptor goes with it (software providers ignore descriptors, so nothing else
 * here would notice one missing). */
static struct lrec {
    const char *p;
    size_t len;
    struct fid_mr *mr;
} * lrecs;
static int nlrecs, lrecs_cap;
static pthread_mutex_t lrecs_lock = PTHREAD_MUTEX_INITIALIZER;

void shmemt_ofi_lrec_add(const void *p, size_t len, struct fid_mr *mr) {
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

void shmemt_ofi_lclose(struct fid_mr *mr) {
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

void shmemt_ofi_lcheck(const void *p, size_t len, void *desc, const char *what) {
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

struct fid_mr *shmemt_ofi_lreg(void *p, size_t len, uint64_t access, const char *fn) {
    struct fid_mr *mr;
    uint64_t key = __atomic_fetch_add(&shmemt_ofi.tmp_key, 1, __ATOMIC_RELAXED);
    int rc = fi_mr_reg(shmemt_ofi.domain, p, len, access, 0, key, 0, &mr, NULL);
    if (rc)
        shmemi_fatal(fn,
                     "cannot register a local buffer of %zu bytes with provider %s, which needs it (FI_MR_LOCAL): %s "
                     "(a symmetric buffer needs no registration of its own)",
                     len, shmemt_ofi.info->fabric_attr->prov_name, fi_strerror(-rc));
    shmemt_ofi_lrec_add(p, len, mr);
    return mr;
}

struct scratch *shmemt_ofi_scratch(void) {
    struct scratch *s = my_scratch;
    if (SHMEMI_LIKELY(s && s->gen == shmemt_ofi_net_gen))
        return s;
    int fresh = !s;
    if (fresh && !(s = calloc(1, sizeof *s)))
        shmemi_fatal("shmem (libfabric transport)", "out of memory for a thread's registered buffer");
    if (posix_memalign((void **)&s->buf, 4096, SCRATCH))
        shmemi_fatal("shmem (libfabric transport)", "out of memory for a thread's registered buffer");
    s->mr = shmemt_ofi_lreg(s->buf, SCRATCH, FI_READ | FI_WRITE, "shmem (libfabric transport)");
    s->desc = fi_mr_desc(s->mr);
    pthread_mutex_lock(&scratch_lock);
    s->gen = shmemt_ofi_net_gen;
    if (fresh) {
        s->next = all_scratch;
        all_scratch = s;
    }
    pthread_mutex_unlock(&scratch_lock);
    my_scratch = s;
    return s;
}

void shmemt_ofi_scratch_close_all(void) {
    pthread_mutex_lock(&scratch_lock);
    for (struct scratch *s = all_scratch; s; s = s->next)
        if (s->gen == shmemt_ofi_net_gen && s->mr) {
            shmemt_ofi_lclose(s->mr);
            free(s->buf);
            s->mr = NULL;
            s->buf = NULL;
            s->gen = 0;
        }
    pthread_mutex_unlock(&scratch_lock);
}

/* Whether [p, p+len) lies in a segment registered for local use; *desc is then its descriptor. */
int shmemt_ofi_seg_desc(const void *p, size_t len, void **desc) {
    for (int si = 0; si < NSEG; si++) {
        if (covers(shmemt_ofi.lbase[si], shmemt_ofi.llen[si], p, len)) {
            *desc = fi_mr_desc(shmemt_ofi.mr[si]);
            return 1;
        }
    }
    return 0;
}

/* A registration for one non-blocking transfer just posted on e: closed by the next quiet. */
void shmemt_ofi_defer_close(struct ofi_ep *e, struct fid_mr *mr) {
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
void shmemt_ofi_wait_release(struct ofi_ep *e) {
    if (SHMEMI_LIKELY(!__atomic_load_n(&e->ntmp, __ATOMIC_RELAXED))) {
        shmemt_ofi_wait_posted(e);
        return;
    }
    pthread_mutex_lock(&e->dirty_lock);
    struct fid_mr **t = e->tmp;
    int n = e->ntmp;
    e->tmp = NULL;
    __atomic_store_n(&e->ntmp, 0, __ATOMIC_RELAXED);
    e->tmpcap = 0;
    pthread_mutex_unlock(&e->dirty_lock);
    shmemt_ofi_wait_posted(e);
    for (int k = 0; k < n; k++)
        shmemt_ofi_lclose(t[k]);
    free(t);
}

/* A GPU segment, registered as GPU memory (FI_HMEM) or, for a backend whose memory the network sees as host memory
 * (the emulated GPU), at the address the backend gives. Failure is not fatal: peers then cannot reach the segment
 * over the network, and an operation that tries stops with a message. Not registered when the network is up only for
 * node peers whose GPUs cannot map this one or update it atomically (shmemi_rt.net_for_gpu): their operations then
 * come as messages this PE applies with its own GPU, the one way their atomics stay atomic with its kernels'. */
static void reg_gpu_seg(struct shmemi_seg *s, int si, const struct fi_info *i, struct ofi_card *mine) {
    void *a;
    int devno = 0;
    if (!shmemi_gtl || !shmemi_env.ofi_gpu_register || shmemi_rt.net_for_gpu ||
        (shmemi_gtl->net_iface != FI_HMEM_SYSTEM && !shmemt_ofi.hmem) || shmemi_gtl->net_addr(s->base, &a, &devno))
        return;
    struct iovec iov = {.iov_base = a, .iov_len = s->map_size};
    struct fi_mr_attr at = {.mr_iov = &iov,
                            .iov_count = 1,
                            .access = FI_REMOTE_READ | FI_REMOTE_WRITE,
                            .requested_key = (uint64_t)si + 1,
                            .iface = (enum fi_hmem_iface)shmemi_gtl->net_iface};
    at.device.cuda = devno;
    int rc = fi_mr_regattr(shmemt_ofi.domain, &at, 0, &shmemt_ofi.mr[si]);
    if (rc) {
        shmemi_debug(
            "libfabric transport: cannot register the %s with provider %s (%s): not reachable over the network",
            s->name, i->fabric_attr->prov_name, fi_strerror(-rc));
        shmemt_ofi.mr[si] = NULL;
        return;
    }
    mine->key[si] = fi_mr_key(shmemt_ofi.mr[si]);
    mine->base[si] = (i->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)a : 0;
    mine->gpu_ok |= 1ULL << si;
}

int shmemi_ofi_gpu_reachable(const struct shmemi_seg *s) {
    return shmemi_ofi_up && (((shmemt_ofi.gpu_ok >> seg_index(s)) & 1) || shmemt_ofi.stage);
}

/* ---- this PE's segments, and peers' keys and bases ---- */
int shmemt_ofi_mr_segs_open(const struct fi_info *i, struct ofi_card *mine, char *err, size_t errlen) {
    int rc;
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
        uint64_t local = shmemt_ofi.mr_local ? FI_READ | FI_WRITE | FI_SEND | FI_RECV : 0;
        if ((rc = fi_mr_reg(shmemt_ofi.domain, s->base, s->map_size, FI_REMOTE_READ | FI_REMOTE_WRITE | local, 0,
                            (uint64_t)si + 1, 0, &shmemt_ofi.mr[si], NULL))) {
            snprintf(err, errlen, "libfabric transport: cannot register the %s (%zu bytes) with provider %s: %s",
                     s->name, s->map_size, i->fabric_attr->prov_name, fi_strerror(-rc));
            return -1;
        }
        mine->key[si] = fi_mr_key(shmemt_ofi.mr[si]);
        mine->base[si] = (i->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)s->base : 0;
        if (shmemt_ofi.mr_local) {
            shmemt_ofi.lbase[si] = s->base;
            shmemt_ofi.llen[si] = s->map_size;
            shmemt_ofi_lrec_add(s->base, s->map_size, shmemt_ofi.mr[si]);
        }
    }
    return 0;
}

int shmemt_ofi_mr_segs_keys(const struct ofi_card *all, int n, char *err, size_t errlen) {
    for (int si = 0; si < NSEG; si++) {
        if (!shmemt_ofi.mr[si])
            continue;
        shmemt_ofi.key[si] = calloc((size_t)n, sizeof(uint64_t));
        shmemt_ofi.base[si] = calloc((size_t)n, sizeof(uint64_t));
        if (!shmemt_ofi.key[si] || !shmemt_ofi.base[si]) {
            snprintf(err, errlen, "libfabric transport: out of memory");
            return -1;
        }
        for (int pe = 0; pe < n; pe++) {
            shmemt_ofi.key[si][pe] = all[pe].key[si];
            shmemt_ofi.base[si][pe] = all[pe].base[si];
        }
    }
    return 0;
}

void shmemt_ofi_mr_segs_close(void) {
    for (int si = 0; si < NSEG; si++) {
        if (shmemt_ofi.mr[si] && shmemt_ofi.lbase[si])
            shmemt_ofi_lclose(shmemt_ofi.mr[si]);
        else if (shmemt_ofi.mr[si])
            fi_close(&shmemt_ofi.mr[si]->fid);
        shmemt_ofi.mr[si] = NULL;
        shmemt_ofi.lbase[si] = NULL;
        free(shmemt_ofi.key[si]);
        free(shmemt_ofi.base[si]);
        shmemt_ofi.key[si] = shmemt_ofi.base[si] = NULL;
    }
}
