/* ofi_am.c - messages of the libfabric transport, for providers without fabric atomics (net) and for staged GPU data:
 * sending them, the receive buffers, and the target applying them in order (atomics, put-with-signal, flushes). */
#include <sys/mman.h>

#include "gpu/gtl.h"
#include "transport/ofi/ofi_int.h"

struct am_rbuf *shmemt_ofi_am_later[AM_LATER];
int shmemt_ofi_am_nlater;

static void am_send_len(struct ofi_ep *e, int pe, const struct am_msg *m, size_t len, int in_handler) {
    ssize_t rc;
    unsigned long n = 0;
    struct stall st = {0};
    while ((rc = fi_inject(e->ep, m, len, shmemt_ofi.addr[pe])) == -FI_EAGAIN) {
        if (in_handler)
            (void)fi_cntr_read(e->cntr); /* progress without taking messages (we hold am_lock) */
        else
            drive_waiting(e, n);
        if (++n > 64)
            sched_yield();
        shmemt_ofi_stall_check(&st, "fi_inject (atomic message)", pe, 1);
    }
    if (rc)
        shmemt_ofi_fatal("fi_inject (atomic message)", (int)rc);
}

void shmemt_ofi_am_send(struct ofi_ep *e, int pe, const struct am_msg *m, int in_handler) {
    am_send_len(e, pe, m, sizeof *m, in_handler);
}

void shmemt_ofi_sbuf_free(void *b) {
    struct am_sbuf *sb = b;
    if (sb->mr)
        shmemt_ofi_lclose(sb->mr);
    free(sb);
}

int shmemt_ofi_am_post(struct ofi_ep *e, struct am_rbuf *b) {
    struct iovec iov = {.iov_base = &b->m, .iov_len = sizeof b->m + sizeof b->data};
    void *desc = shmemt_ofi.am_mr ? fi_mr_desc(shmemt_ofi.am_mr) : NULL;
    struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = &b->fc};
    if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local))
        shmemt_ofi_lcheck(iov.iov_base, iov.iov_len, desc, "shmem (libfabric transport, receive buffers)");
    ssize_t rc;
    struct stall st = {0};
    while ((rc = fi_recvmsg(e->ep, &msg, FI_COMPLETION)) == -FI_EAGAIN) {
        (void)fi_cntr_read(e->cntr);
        shmemt_ofi_stall_check(&st, "fi_recvmsg (receive buffers)", -1, 1);
    }
    return (int)rc;
}

struct shmemi_seg *shmemt_ofi_am_seg(int si) {
    return si == SHMEMI_MAX_SEGS ? &shmemi_rt.internal : si < shmemi_rt.nsegs ? &shmemi_rt.segs[si] : NULL;
}

/* A peer's atomic on this PE's GPU memory, sent as a message (the provider has no atomics of its own on it): a
 * kernel of ours runs it, so it needs a free SM on this PE's GPU even when the thread serving it is the proxy, which
 * otherwise never launches one (docs/device.md: with such a provider, a kernel that holds every SM must not wait for
 * a peer's atomic on its GPU memory). */
static uint64_t peer_gpu_amo(void *p, int op, uint64_t value, uint64_t cond, size_t size, const char *fn) {
    int saved = shmemi_gtl_no_sm;
    shmemi_gtl_no_sm = 0;
    uint64_t r = shmemi_gtl_amo(p, op, value, cond, size, fn);
    shmemi_gtl_no_sm = saved;
    return r;
}

static void am_putsig(const struct am_rbuf *b) {
    const struct am_msg *m = &b->m;
    int put = m->kind == AM_PUT;
    struct shmemi_seg *sg = shmemt_ofi_am_seg(m->seg), *ss = put ? sg : shmemt_ofi_am_seg(m->size);
    if (!sg || !ss || m->token > AM_DATA || m->off + m->token > sg->map_size ||
        (!put && ((m->cond & 7) || m->cond + 8 > ss->map_size || (m->op != SHMEMI_AMO_SET && m->op != SHMEMI_AMO_ADD))))
        shmemi_fatal("shmem (libfabric transport)", "malformed put message from PE %d", (int)m->from);
    const char *fn =
        put ? "shmem_put (libfabric transport, staged GPU data)" : "shmem_put_signal (libfabric transport)";
    if (sg->kind == SHMEMI_MEM_DEVICE)
        shmemi_gtl_copy((char *)sg->base + m->off, b->data, m->token, fn);
    else
        memcpy((char *)sg->base + m->off, b->data, m->token);
    if (put) {
        shmemi_wake_after_traffic();
        return;
    }
    uint64_t *sig = (uint64_t *)(void *)((char *)ss->base + m->cond);
    if (ss->kind == SHMEMI_MEM_DEVICE)
        peer_gpu_amo(sig, m->op, m->value, 0, 8, fn);
    else if (m->op == SHMEMI_AMO_SET)
        __atomic_store_n(sig, m->value, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(sig, m->value, __ATOMIC_RELEASE);
    shmemi_wake_after_traffic();
}

/* Sends a put-with-signal message: header m, then len bytes of data. The data is copied, so src may be reused at
 * once. */
void shmemt_ofi_am_send_putsig(struct ofi_ep *e, int pe, const struct am_msg *m, const void *src, size_t len) {
    if (len <= shmemt_ofi.am_inline) {
        struct {
            struct am_msg m;
            char data[AM_DATA];
        } b;
        b.m = *m;
        memcpy(b.data, src, len);
        am_send_len(e, pe, &b.m, sizeof b.m + len, 0);
        return;
    }
    /* a free send buffer: the next in turn, once its previous send completed (another thread may take it first) */
    struct am_sbuf *sb, *ring = __atomic_load_n(&e->sbufs, __ATOMIC_ACQUIRE);
    unsigned long spins = 0;
    struct stall st = {0};
    if (!ring) { /* first use: threads sharing the endpoint may race; one allocation wins */
        struct am_sbuf *fresh = calloc(AM_NSEND, sizeof *fresh);
        if (!fresh)
            shmemi_fatal("shmem_put_signal (libfabric transport)", "out of memory for send buffers");
        struct fid_mr *mr =
            shmemt_ofi.mr_local ? shmemt_ofi_lreg(fresh, AM_NSEND * sizeof *fresh, FI_SEND, "shmem_put_signal") : NULL;
        for (int k = 0; k < AM_NSEND; k++)
            fresh[k].mr = mr;
        if (__atomic_compare_exchange_n(&e->sbufs, &ring, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            ring = fresh;
        } else {
            if (mr)
                shmemt_ofi_lclose(mr);
            free(fresh);
        }
    }
    for (;;) {
        sb = &ring[__atomic_fetch_add(&e->snext, 1, __ATOMIC_RELAXED) % AM_NSEND];
        uint32_t free_ = 0;
        if (__atomic_compare_exchange_n(&sb->d.left, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            break;
        drive_waiting(e, spins);
        backoff(&spins);
        shmemt_ofi_stall_check(&st, "waiting for a send buffer", pe, 0);
    }
    sb->m = *m;
    memcpy(sb->data, src, len);
    struct iovec iov = {.iov_base = &sb->m, .iov_len = sizeof sb->m + len};
    void *desc = sb->mr ? fi_mr_desc(sb->mr) : NULL;
    struct fi_msg msg = {
        .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = shmemt_ofi.addr[pe], .context = &sb->d.fc};
    if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local))
        shmemt_ofi_lcheck(iov.iov_base, iov.iov_len, desc, "shmem_put_signal (libfabric transport)");
    ssize_t rc;
    spins = 0;
    st = (struct stall){0};
    while ((rc = fi_sendmsg(e->ep, &msg, FI_COMPLETION | FI_INJECT_COMPLETE)) == -FI_EAGAIN) {
        drive_waiting(e, spins);
        backoff(&spins);
        shmemt_ofi_stall_check(&st, "fi_sendmsg (put with signal)", pe, 1);
    }
    if (rc)
        shmemt_ofi_fatal("fi_sendmsg (put with signal)", (int)rc);
}

static void am_serve(struct ofi_ep *e, struct am_msg m) {
    if (m.kind == AM_REPLY) {
        struct am_slot *slot = (struct am_slot *)(uintptr_t)m.token;
        slot->result = m.value;
        __atomic_sub_fetch(&slot->left, 1, __ATOMIC_RELEASE);
        return;
    }
    struct am_msg r = {.kind = AM_REPLY, .token = m.token, .from = (int32_t)shmemi_rt.my_pe};
    if (m.from < 0 || m.from >= shmemi_rt.n_pes)
        shmemi_fatal("shmem (libfabric transport)", "malformed atomic message (from PE %d)", (int)m.from);
    if (m.kind != AM_FLUSH) {
        struct shmemi_seg *sg = shmemt_ofi_am_seg(m.seg);
        if (!sg || (m.size != 4 && m.size != 8) || m.off + m.size > sg->map_size || m.op > SHMEMI_AMO_XOR)
            shmemi_fatal("shmem (libfabric transport)", "malformed atomic message from PE %d", (int)m.from);
        void *p = (char *)sg->base + m.off;
        r.value = sg->kind == SHMEMI_MEM_DEVICE
                      ? peer_gpu_amo(p, m.op, m.value, m.cond, m.size, "shmem atomic (libfabric transport)")
                      : shmemi_amo_cpu(p, m.op, m.value, m.cond, m.size);
        if (m.op != SHMEMI_AMO_FETCH) /* wakes a sleeper only if the word it watches changed, as for fabric data */
            shmemi_wake_after_traffic();
        if (m.kind == AM_POST)
            return;
    }
    shmemt_ofi_am_send(e, m.from, &r, 1);
}

void shmemt_ofi_am_handle(struct ofi_ep *e, struct am_rbuf *b) {
    int answer = b->m.kind == AM_GOT || b->m.kind == AM_REPLY;
    if (shmemt_ofi_am_put_gpu(e, b))
        return;
    if (shmemt_ofi_am_nfly && !shmemt_ofi_am_get_gpu(&b->m))
        shmemt_ofi_am_fly_reap(e, 1);
    if (b->m.kind == AM_PUTSIG || b->m.kind == AM_PUT)
        am_putsig(b);
    else if (b->m.kind == AM_GET)
        shmemt_ofi_am_get(e, &b->m);
    else if (b->m.kind == AM_GOT)
        shmemt_ofi_am_got(b);
    else
        am_serve(e, b->m); /* the answer first: posting the buffer again is off the peer's critical path */
    if (answer && shmemt_ofi_am_nlater < AM_LATER) {
        shmemt_ofi_am_later[shmemt_ofi_am_nlater++] = b;
        return;
    }
    int rc = shmemt_ofi_am_post(e, b);
    if (rc)
        shmemt_ofi_fatal("fi_recvmsg (atomic messages)", rc);
}

void shmemt_ofi_am_post_later(void) {
    while (shmemt_ofi_am_nlater) {
        int rc = shmemt_ofi_am_post(
            &shmemt_ofi.ep0, shmemt_ofi_am_later[--shmemt_ofi_am_nlater]); /* (every receive buffer is endpoint 0's) */
        if (rc)
            shmemt_ofi_fatal("fi_recvmsg (atomic messages)", rc);
    }
}

/* Waits until at most `most` answers are still to come. */
void shmemt_ofi_am_wait_for(struct ofi_ep *e, struct am_slot *slot, uint32_t most) {
    unsigned long spins = 0;
    if (__atomic_load_n(&slot->left, __ATOMIC_ACQUIRE) <= most)
        return;
    struct stall st = {0};
    shmemi_ofi_driving(SHMEMI_DRIVE_START);
    while (__atomic_load_n(&slot->left, __ATOMIC_ACQUIRE) > most) {
        shmemt_ofi_drive(&shmemt_ofi.ep0); /* replies come to endpoint 0, whichever endpoint sent the request */
        if (e != &shmemt_ofi.ep0)
            shmemt_ofi_drive(e);
        if ((spins & 63) == 63)
            shmemt_ofi_check_errors(e, 0);
        backoff(&spins);
        shmemt_ofi_stall_check(&st, "waiting for a peer's answer", -1, 0);
    }
    shmemi_ofi_driving(SHMEMI_DRIVE_STOP);
}

void shmemt_ofi_am_wait(struct ofi_ep *e, struct am_slot *slot) { shmemt_ofi_am_wait_for(e, slot, 0); }

/* Page-aligned memory (the GPU driver pins whole pages), or NULL. */
void *shmemt_ofi_pages_alloc(size_t bytes, size_t *rounded) {
    *rounded = (bytes + shmemi_rt.page - 1) & ~(shmemi_rt.page - 1);
    void *p = mmap(NULL, *rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

size_t shmemt_ofi_am_bufs_bytes;

/* Receive buffers and the rest of what messages need (atomics as messages, staged GPU data). */
int shmemt_ofi_am_setup(const struct fi_info *i, char *err, size_t errlen) {
    size_t max = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : SIZE_MAX;
    if (strstr(i->fabric_attr->prov_name, "ofi_rxm")) {
        /* rxm sends a message past its buffer size by rendezvous, whose completion may come after a later message's:
         * messages must be applied in the order sent (a quiet's flush after a staged put), so stay under it (less
         * rxm's header). Over tcp with FI_OFI_RXM_BUFFER_SIZE=4096 and 4 KiB messages, staged GPU puts landed after
         * the quiet that should have covered them. */
        const char *v = shmemi_env_lib("FI_OFI_RXM_BUFFER_SIZE");
        size_t buf = v && *v ? (size_t)strtoull(v, NULL, 0) : 16384; /* libfabric 1.17's default */
        buf = buf > 128 ? buf - 128 : 0;
        if (max > buf)
            max = buf;
    }
    if (max < sizeof(struct am_msg) + 64) {
        snprintf(err, errlen,
                 "libfabric transport: provider %s delivers messages in order only up to %zu bytes; %zu needed%s",
                 i->fabric_attr->prov_name, max, sizeof(struct am_msg) + 64,
                 strstr(i->fabric_attr->prov_name, "ofi_rxm") ? " (raise FI_OFI_RXM_BUFFER_SIZE)" : "");
        return -1;
    }
    shmemt_ofi.am_data = max - sizeof(struct am_msg) < AM_DATA ? max - sizeof(struct am_msg) : AM_DATA;
    shmemt_ofi.am_inline = i->tx_attr->inject_size - sizeof(struct am_msg);
    if (shmemt_ofi.am_inline > shmemt_ofi.am_data)
        shmemt_ofi.am_inline = shmemt_ofi.am_data;
    shmemt_ofi.am_bufs = shmemt_ofi_pages_alloc(AM_NBUF * sizeof *shmemt_ofi.am_bufs, &shmemt_ofi_am_bufs_bytes);
    if (!shmemt_ofi.am_bufs) {
        snprintf(err, errlen, "libfabric transport: out of memory");
        return -1;
    }
    int rc;
    if (shmemt_ofi.mr_local && (rc = fi_mr_reg(shmemt_ofi.domain, shmemt_ofi.am_bufs, shmemt_ofi_am_bufs_bytes, FI_RECV,
                                               0, shmemt_ofi.tmp_key++, 0, &shmemt_ofi.am_mr, NULL))) {
        snprintf(err, errlen, "libfabric transport: cannot register receive buffers with provider %s: %s",
                 i->fabric_attr->prov_name, fi_strerror(-rc));
        return -1;
    }
    if (shmemt_ofi.am_mr)
        shmemt_ofi_lrec_add(shmemt_ofi.am_bufs, shmemt_ofi_am_bufs_bytes, shmemt_ofi.am_mr);
    for (int k = 0; k < AM_NBUF; k++) {
        rc = shmemt_ofi_am_post(&shmemt_ofi.ep0, &shmemt_ofi.am_bufs[k]);
        if (rc) {
            snprintf(err, errlen, "libfabric transport: cannot post receive buffers on provider %s: %s",
                     i->fabric_attr->prov_name, fi_strerror(-rc));
            return -1;
        }
    }
    return 0;
}
