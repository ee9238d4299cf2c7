/* ofi_ep.c - libfabric endpoints: opening one with its completion queue and counter, closing it, and the private
 * endpoints of SHMEM_CTX_PRIVATE contexts (quiet_all reaches them). */
#include "transport/ofi/ofi_int.h"

int shmemt_ofi_ep_open(struct ofi_ep *e, int wait_fd, char *err, size_t errlen) {
    struct fi_cq_attr cqa = {
        .format = FI_CQ_FORMAT_CONTEXT, .size = 128, .wait_obj = wait_fd ? FI_WAIT_FD : FI_WAIT_NONE};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE};
    int rc;
    const char *what;
    if ((rc = fi_endpoint(shmemt_ofi.domain, shmemt_ofi.info, &e->ep, NULL))) {
        what = "fi_endpoint";
        goto fail;
    }
    if ((rc = fi_cq_open(shmemt_ofi.domain, &cqa, &e->cq, NULL)) && wait_fd) {
        cqa.wait_obj = FI_WAIT_NONE; /* no wait descriptor: the progress thread polls instead */
        rc = fi_cq_open(shmemt_ofi.domain, &cqa, &e->cq, NULL);
    }
    if (rc) {
        what = "fi_cq_open";
        goto fail;
    }
    if ((rc = fi_cntr_open(shmemt_ofi.domain, &ca, &e->cntr, NULL))) {
        what = "fi_cntr_open";
        goto fail;
    }
    if ((rc = fi_ep_bind(e->ep, &shmemt_ofi.av->fid, 0))) {
        what = "fi_ep_bind(av)";
        goto fail;
    }
    if ((rc = fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION))) {
        what = "fi_ep_bind(cq)";
        goto fail;
    }
    if ((rc = fi_ep_bind(e->ep, &e->cntr->fid, FI_WRITE | FI_READ))) {
        what = "fi_ep_bind(counter)";
        goto fail;
    }
    if ((rc = fi_enable(e->ep))) {
        what = "fi_enable";
        goto fail;
    }
    shmemt_ofi_regions_note();
    e->posted = 0;
    e->amo_pending = 0;
    e->errs_seen = 0;
    e->ndirty = 0;
    e->dirty = calloc((size_t)shmemi_rt.n_pes, 1);
    e->dirty_list = calloc((size_t)shmemi_rt.n_pes, sizeof(int));
    pthread_mutex_init(&e->dirty_lock, NULL);
    pthread_mutex_init(&e->quiet_lock, NULL);
    if (!e->dirty || !e->dirty_list) {
        snprintf(err, errlen, "libfabric transport: out of memory");
        return -1;
    }
    return 0;
fail:;
    char hint[400];
    snprintf(err, errlen, "libfabric transport: %s failed on provider %s: %s%s", what,
             shmemt_ofi.info->fabric_attr->prov_name, fi_strerror(-rc), shmemt_ofi_fd_hint(rc, hint, sizeof hint));
    return -1;
}

void shmemt_ofi_ep_close(struct ofi_ep *e) {
    if (e->sbufs) { /* sends in flight read their buffers */
        for (int k = 0; k < AM_NSEND; k++)
            shmemt_ofi_wait_op(e, &e->sbufs[k].d);
        if (e->sbufs[0].mr)
            shmemt_ofi_lclose(e->sbufs[0].mr);
        free(e->sbufs);
    }
    if (e->ntmp) /* (after a quiet: nothing left in flight) */
        shmemt_ofi_wait_release(e);
    free(e->tmp);
    free(e->dirty);
    free(e->dirty_list);
    if (e->ep)
        fi_close(&e->ep->fid);
    if (e->cntr)
        fi_close(&e->cntr->fid);
    if (e->cq)
        fi_close(&e->cq->fid);
    memset(e, 0, sizeof *e);
}

/* A SHMEM_CTX_PRIVATE context gets an endpoint of its own (its own completion queue and counter, no wait
 * descriptor: its one thread drives it while it waits, endpoint 0 too: see drive_waiting), so threads with private
 * contexts do not take turns on endpoint 0's lock. Peers do not know its address in advance; the provider learns it
 * at the first connection. Other contexts may be used by several threads at once and share endpoint 0.
 * By default not on rxm (tcp;ofi_rxm, verbs;ofi_rxm): there each endpoint is progressed apart, so a waiting thread
 * drives two, and private endpoints measured slower over tcp on 2 cores (fetch-add + put, 1-2 threads per PE:
 * 0.77-0.81x; puts with a quiet every 16, 1-4 threads: 0.85-0.89x), where over net they were 1.07-1.33x for puts.
 * SHMEM_OFI_CTX_ENDPOINTS=1 gives them there too. */
static pthread_mutex_t ctx_eps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ofi_ep *ctx_eps[64]; /* private endpoints alive (quiet_all and finalize reach them) */

void shmemi_ofi_ctx_create(struct gshmem_ctx *c) {
    c->net = NULL;
    if (!shmemi_ofi_up || !(c->options & SHMEM_CTX_PRIVATE) || !shmemi_env.ofi_ctx_ep ||
        (shmemi_env.ofi_ctx_ep < 0 && strstr(shmemt_ofi.info->fabric_attr->prov_name, "ofi_rxm")))
        return;
    struct ofi_ep *e = calloc(1, sizeof *e);
    char err[256];
    if (!e)
        return;
    pthread_mutex_lock(&ctx_eps_lock);
    int slot = -1;
    for (int k = 0; k < 64 && slot < 0; k++)
        if (!ctx_eps[k])
            slot = k;
    if (slot < 0 || shmemt_ofi_ep_open(e, 0, err, sizeof err)) {
        pthread_mutex_unlock(&ctx_eps_lock);
        shmemi_debug("private context shares endpoint 0: %s", slot < 0 ? "64 private endpoints in use" : err);
        shmemt_ofi_ep_close(e);
        free(e);
        return;
    }
    ctx_eps[slot] = e;
    pthread_mutex_unlock(&ctx_eps_lock);
    c->net = e;
    shmemi_debug("private context: endpoint %d of its own", slot + 1);
}

static void ctx_ep_release(struct ofi_ep *e) {
    shmemt_ofi_quiet_ep(e);
    shmemt_ofi_ep_close(e);
    free(e);
}

void shmemi_ofi_ctx_destroy(struct gshmem_ctx *c) {
    struct ofi_ep *e = c->net;
    if (!e)
        return;
    c->net = NULL;
    pthread_mutex_lock(&ctx_eps_lock);
    for (int k = 0; k < 64; k++)
        if (ctx_eps[k] == e)
            ctx_eps[k] = NULL;
    pthread_mutex_unlock(&ctx_eps_lock);
    ctx_ep_release(e);
}

void shmemi_ofi_quiet_all(void) {
    if (!shmemi_ofi_up)
        return;
    shmemt_ofi_quiet_ep(&shmemt_ofi.ep0);
    pthread_mutex_lock(&ctx_eps_lock);
    for (int k = 0; k < 64; k++)
        if (ctx_eps[k])
            shmemt_ofi_quiet_ep(ctx_eps[k]);
    pthread_mutex_unlock(&ctx_eps_lock);
}

void shmemt_ofi_ctx_eps_close(void) {
    pthread_mutex_lock(&ctx_eps_lock);
    for (int k = 0; k < 64; k++)
        if (ctx_eps[k]) { /* contexts the program did not destroy */
            shmemt_ofi_ep_close(ctx_eps[k]);
            free(ctx_eps[k]);
            ctx_eps[k] = NULL;
        }
    pthread_mutex_unlock(&ctx_eps_lock);
}
