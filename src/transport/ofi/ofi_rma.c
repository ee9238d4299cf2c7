/* ofi_rma.c - one-sided transfers over libfabric: puts and gets cut at the provider's maximum message, the small-put
 * delivery-complete switch, quiet and fence, put-with-signal, collectives' data and signals, liveness probes. */
#include "transport/ofi/ofi_int.h"

/* How quiet learns that a put landed. By default a small put is injected and counts as complete once sent (net and
 * rxm raise the counter of an injected write at transmit), so quiet sends one more message to each PE written (a
 * read-back or a flush) and waits for its answer: put + quiet was 1.6x a get (15.7 against 9.5 us over net). Asked
 * for delivery completion, the provider answers the write itself once the data is in the target's memory, and quiet
 * only waits for the counter: put + quiet then costs a get. Yet that answer is traffic the target sends and the
 * initiator takes on every put, which doubled a p/wait_until ping-pong (4.7 -> 10.7 us). So a small put asks for it
 * only while quiets come soon after puts: a quiet that finds at most DELIVER_PUTS small puts since the previous one
 * turns it on, more than LEAVE_PUTS small puts without a quiet turn it off. Both kinds are correct (the other kind is
 * marked dirty and flushed); the choice only moves the cost. */
#define DELIVER_PUTS 4
#define LEAVE_PUTS 16

static int small_put_delivered(struct ofi_ep *e, const void *src, size_t len, int pe, uint64_t raddr, uint64_t key) {
    uint32_t k = __atomic_add_fetch(&e->small_puts, 1, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&e->deliver, __ATOMIC_RELAXED))
        return 0;
    if (k > LEAVE_PUTS) {
        __atomic_store_n(&e->deliver, 0, __ATOMIC_RELAXED);
        return 0;
    }
    struct iovec iov = {.iov_base = (void *)(uintptr_t)src, .iov_len = len};
    struct fi_rma_iov rio = {.addr = raddr, .len = len, .key = key};
    void *desc = NULL; /* (injected: the provider copies the source before returning) */
    struct fi_msg_rma m = {.msg_iov = &iov,
                           .desc = &desc,
                           .iov_count = 1,
                           .addr = shmemt_ofi.addr[pe],
                           .rma_iov = &rio,
                           .rma_iov_count = 1};
    POST(e, fi_writemsg(e->ep, &m, FI_INJECT | FI_DELIVERY_COMPLETE), "fi_writemsg (delivery-complete put)");
    return 1;
}

void shmemt_ofi_quiet_ep(struct ofi_ep *e) {
    int list[64], n;
    struct am_slot slot = {0};
    pthread_mutex_lock(&e->quiet_lock);
    uint32_t k = __atomic_exchange_n(&e->small_puts, 0, __ATOMIC_RELAXED);
    if (k) /* (a quiet after none says nothing about how puts are followed) */
        __atomic_store_n(&e->deliver, k <= DELIVER_PUTS, __ATOMIC_RELAXED);
    __atomic_store_n(&e->amo_pending, 0, __ATOMIC_RELAXED); /* (one sent from here on sets it again) */
    do {
        pthread_mutex_lock(&e->dirty_lock);
        n = e->ndirty < 64 ? e->ndirty : 64;
        e->ndirty -= n;
        memcpy(list, e->dirty_list + e->ndirty, (size_t)n * sizeof *list);
        for (int i = 0; i < n; i++)
            __atomic_store_n(&e->dirty[list[i]], 0, __ATOMIC_RELAXED); /* (mark_dirty reads it without the lock) */
        pthread_mutex_unlock(&e->dirty_lock);
        if (shmemt_ofi.am ||
            shmemt_ofi.stage) { /* a flush answered means the writes and messages sent before it landed */
            __atomic_add_fetch(&slot.left, (uint32_t)n, __ATOMIC_SEQ_CST);
            struct am_msg m = {.kind = AM_FLUSH, .from = (int32_t)shmemi_rt.my_pe, .token = (uint64_t)(uintptr_t)&slot};
            for (int i = 0; i < n; i++)
                shmemt_ofi_am_send(e, list[i], &m, 0);
            if (shmemt_ofi.am)
                continue;
        }
        void *sink = &e->sink, *desc = NULL;
        if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local) && n) {
            struct scratch *sc = shmemt_ofi_scratch();
            sink = sc->buf;
            desc = sc->desc;
            shmemt_ofi_lcheck(sink, sizeof e->sink, desc, "shmem_quiet (libfabric transport)");
        }
        for (int i = 0; i < n; i++) /* read back the first word of the peer's control block */
            POST(e,
                 fi_read(e->ep, sink, sizeof e->sink, desc, shmemt_ofi.addr[list[i]],
                         shmemt_ofi.base[SHMEMI_MAX_SEGS][list[i]], shmemt_ofi.key[SHMEMI_MAX_SEGS][list[i]], NULL),
                 "fi_read (quiet)");
    } while (n == 64);
    shmemt_ofi_wait_release(e);
    shmemt_ofi_am_wait(e, &slot);
    pthread_mutex_unlock(&e->quiet_lock);
}

static void put_ep(struct ofi_ep *e, struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe, int nbi) {
    int si = seg_index(s);
    uint64_t raddr = shmemt_ofi.base[si][pe] + off, key = shmemt_ofi.key[si][pe];
    if (len <= shmemt_ofi.inject) {
        POST(e, fi_inject_write(e->ep, src, len, shmemt_ofi.addr[pe], raddr, key), "fi_inject_write");
        return;
    }
    void *desc = NULL;
    struct fid_mr *tmp = NULL;
    if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local) && !shmemt_ofi_seg_desc(src, len, &desc)) {
        if (!nbi && len <= SCRATCH) {
            struct scratch *sc = shmemt_ofi_scratch();
            memcpy(sc->buf, src, len);
            src = sc->buf;
            desc = sc->desc;
        } else {
            tmp = shmemt_ofi_lreg((void *)(uintptr_t)src, len, FI_WRITE, "shmem_put (libfabric transport)");
            desc = fi_mr_desc(tmp);
        }
    }
    if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local))
        shmemt_ofi_lcheck(src, len, desc, "shmem_put (libfabric transport)");
    for (size_t done = 0; done < len;) {
        size_t n = len - done < shmemt_ofi.max_msg ? len - done : shmemt_ofi.max_msg;
        POST(e, fi_write(e->ep, (const char *)src + done, n, desc, shmemt_ofi.addr[pe], raddr + done, key, NULL),
             "fi_write");
        done += n;
    }
    if (!nbi) /* the source may be reused when a blocking put returns */
        shmemt_ofi_wait_posted(e);
    if (tmp && !nbi)
        shmemt_ofi_lclose(tmp);
    else if (tmp)
        shmemt_ofi_defer_close(e, tmp);
}

void shmemi_ofi_put(shmem_ctx_t ctx, struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe, int nbi) {
    struct ofi_ep *e = ep_of(ctx);
    if (staged(s)) {
        shmemt_ofi_staged_put(e, s, off, src, len, pe);
        return;
    }
    if (len <= shmemt_ofi.inject) {
        int si = seg_index(s);
        if (small_put_delivered(e, src, len, pe, shmemt_ofi.base[si][pe] + off, shmemt_ofi.key[si][pe]))
            return; /* awaited by quiet through the counter: not marked */
    }
    put_ep(e, s, off, src, len, pe, nbi);
    mark_dirty(e, pe);
}

/* Collective traffic: data, then a signal the receiver waits for (the data is not waited for in between: the
 * collective calls shmemi_ofi_coll_done before it reuses or returns its sources). The signal's arrival tells the
 * receiver that the data landed (the provider applies a PE's operations in order), and the sender never needs to know,
 * so neither is marked for the next quiet: a barrier after a reduction does not flush for it. On an unordered provider
 * the data is marked as usual and the signal quiets first. */
void shmemi_ofi_coll_put(struct shmemi_seg *s, size_t off, const void *src, size_t len, int pe) {
    struct ofi_ep *e = &shmemt_ofi.ep0;
    if (len <= shmemt_ofi.inject) {
        put_ep(e, s, off, src, len, pe, 1);
        if (!shmemt_ofi.ordered)
            mark_dirty(e, pe);
        return;
    }
    /* complete once the source may be reused (net acknowledges transmit- and delivery-complete writes alike): the
     * receiver learns of delivery from the signal */
    int si = seg_index(s);
    void *desc = NULL;
    struct fid_mr *tmp = NULL;
    if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local) && !shmemt_ofi_seg_desc(src, len, &desc)) {
        tmp = shmemt_ofi_lreg((void *)(uintptr_t)src, len, FI_WRITE, "shmem collective (libfabric transport)");
        desc = fi_mr_desc(tmp);
    }
    if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local))
        shmemt_ofi_lcheck(src, len, desc, "shmem collective (libfabric transport)");
    for (size_t done = 0; done < len;) {
        size_t n = len - done < shmemt_ofi.max_msg ? len - done : shmemt_ofi.max_msg;
        struct iovec iov = {.iov_base = (char *)(uintptr_t)src + done, .iov_len = n};
        struct fi_rma_iov rio = {.addr = shmemt_ofi.base[si][pe] + off + done, .len = n, .key = shmemt_ofi.key[si][pe]};
        struct fi_msg_rma m = {.msg_iov = &iov,
                               .desc = &desc,
                               .iov_count = 1,
                               .addr = shmemt_ofi.addr[pe],
                               .rma_iov = &rio,
                               .rma_iov_count = 1};
        POST(e, fi_writemsg(e->ep, &m, FI_INJECT_COMPLETE), "fi_writemsg (collective)");
        done += n;
    }
    if (tmp)
        shmemt_ofi_defer_close(e, tmp); /* closed by shmemi_ofi_coll_done */
    if (!shmemt_ofi.ordered)
        mark_dirty(e, pe);
}

void shmemi_ofi_coll_done(void) {
    if (shmemi_ofi_up)
        shmemt_ofi_wait_release(&shmemt_ofi.ep0);
}

void shmemi_ofi_coll_put_signal(struct shmemi_seg *s, size_t off, const void *src, size_t len, size_t sig, int pe) {
    if (shmemt_ofi.am && shmemt_ofi.ordered && len <= shmemt_ofi.am_data) {
        struct am_msg m = {.kind = AM_PUTSIG,
                           .op = SHMEMI_AMO_ADD,
                           .size = SHMEMI_MAX_SEGS,
                           .seg = (uint8_t)seg_index(s),
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = off,
                           .value = 1,
                           .cond = sig,
                           .token = len};
        shmemt_ofi_am_send_putsig(&shmemt_ofi.ep0, pe, &m, src, len);
        return;
    }
    if (len)
        shmemi_ofi_coll_put(s, off, src, len, pe);
    shmemi_ofi_coll_signal(sig, pe);
}

void shmemi_ofi_coll_signal(size_t off, int pe) {
    struct ofi_ep *e = &shmemt_ofi.ep0;
    if (!shmemt_ofi.ordered)
        shmemt_ofi_quiet_ep(e);
    if (shmemt_ofi.am) {
        struct am_msg m = {.kind = AM_POST,
                           .op = SHMEMI_AMO_ADD,
                           .size = 8,
                           .seg = SHMEMI_MAX_SEGS,
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = off,
                           .value = 1};
        shmemt_ofi_am_send(e, pe, &m, 0);
    } else if (shmemt_ofi.amo_ok[1][SHMEMI_AMO_ADD] && shmemt_ofi.inject >= 8) {
        uint64_t one = 1;
        POST(e,
             fi_inject_atomic(e->ep, &one, 1, shmemt_ofi.addr[pe], shmemt_ofi.base[SHMEMI_MAX_SEGS][pe] + off,
                              shmemt_ofi.key[SHMEMI_MAX_SEGS][pe], FI_UINT64, FI_SUM),
             "fi_inject_atomic (collective signal)");
    } else {
        shmemi_ofi_amo(SHMEM_CTX_DEFAULT, SHMEMI_AMO_ADD, &shmemi_rt.internal, off, 1, 0, 8, pe);
    }
}

/* A get with FI_MR_LOCAL: into a registered destination, or through this thread's scratch buffer, or a registration
 * of the destination for the one transfer. */
static void get_local(struct ofi_ep *e, uint64_t raddr, uint64_t key, void *dst, size_t len, int pe, int nbi) {
    void *desc = NULL;
    char *out = dst;
    struct fid_mr *tmp = NULL;
    if (!shmemt_ofi_seg_desc(dst, len, &desc)) {
        if (!nbi && len <= SCRATCH) {
            struct scratch *sc = shmemt_ofi_scratch();
            out = sc->buf;
            desc = sc->desc;
        } else {
            tmp = shmemt_ofi_lreg(dst, len, FI_READ, "shmem_get (libfabric transport)");
            desc = fi_mr_desc(tmp);
        }
    }
    shmemt_ofi_lcheck(out, len, desc, "shmem_get (libfabric transport)");
    for (size_t done = 0; done < len;) {
        size_t n = len - done < shmemt_ofi.max_msg ? len - done : shmemt_ofi.max_msg;
        POST(e, fi_read(e->ep, out + done, n, desc, shmemt_ofi.addr[pe], raddr + done, key, NULL), "fi_read");
        done += n;
    }
    if (nbi) {
        if (tmp)
            shmemt_ofi_defer_close(e, tmp);
        return;
    }
    shmemt_ofi_wait_posted(e);
    if (out != dst)
        memcpy(dst, out, len);
    if (tmp)
        shmemt_ofi_lclose(tmp);
}

void shmemi_ofi_get(shmem_ctx_t ctx, struct shmemi_seg *s, size_t off, void *dst, size_t len, int pe, int nbi) {
    struct ofi_ep *e = ep_of(ctx);
    if (staged(s)) { /* (complete at return, nbi or not) */
        shmemt_ofi_staged_get(e, s, off, dst, len, pe);
        return;
    }
    int si = seg_index(s);
    uint64_t raddr = shmemt_ofi.base[si][pe] + off, key = shmemt_ofi.key[si][pe];
    if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local)) {
        get_local(e, raddr, key, dst, len, pe, nbi);
        return;
    }
    if (!nbi && len <= shmemt_ofi.max_msg) {
        struct op_done d = {.left = 1};
        struct iovec iov = {.iov_base = dst, .iov_len = len};
        struct fi_rma_iov rio = {.addr = raddr, .len = len, .key = key};
        struct fi_msg_rma m = {.msg_iov = &iov,
                               .iov_count = 1,
                               .addr = shmemt_ofi.addr[pe],
                               .rma_iov = &rio,
                               .rma_iov_count = 1,
                               .context = &d.fc};
        POST(e, fi_readmsg(e->ep, &m, FI_COMPLETION), "fi_readmsg");
        shmemt_ofi_wait_op(e, &d);
        return;
    }
    for (size_t done = 0; done < len;) {
        size_t n = len - done < shmemt_ofi.max_msg ? len - done : shmemt_ofi.max_msg;
        POST(e, fi_read(e->ep, (char *)dst + done, n, NULL, shmemt_ofi.addr[pe], raddr + done, key, NULL), "fi_read");
        done += n;
    }
    if (!nbi)
        shmemt_ofi_wait_posted(e);
}

/* ---- probes: reads no one waits for (comm/liveness.c asks whether PEs of other nodes still answer) ----
 * One slot per peer: a read in flight, or its answer. A slot is the provider's until its read completes, so it lives
 * here, not on the stack of the wait that posted it (that wait may well end first). A post is tried once per call,
 * never in a loop: a provider that refuses it (-FI_EAGAIN: no connection to a peer that is gone or unreachable) must
 * not hold up the wait, and the refusal counts as silence from the first try. Probes count among the posted
 * operations like any read: a quiet waits for one in flight (a round trip), and one that never completes stalls the
 * quiet until SHMEM_OFI_STALL_TIMEOUT, the limit liveness gives it too. */
struct probe *shmemt_ofi_probes;
struct fid_mr *shmemt_ofi_probes_mr;

int shmemi_ofi_probe_poll(int pe, void *out, size_t len, uint64_t *since) {
    struct probe *p = &shmemt_ofi_probes[pe];
    if (p->state == PROBE_IDLE)
        return -1;
    *since = p->since;
    if (p->state == PROBE_REFUSED || __atomic_load_n(&p->d.left, __ATOMIC_ACQUIRE))
        return 0;
    memcpy(out, p->buf, len < PROBE_MAX ? len : PROBE_MAX);
    p->state = PROBE_IDLE;
    return 1;
}

int shmemi_ofi_probe_post(int pe, size_t off, size_t len) {
    struct probe *p = &shmemt_ofi_probes[pe];
    struct ofi_ep *e = &shmemt_ofi.ep0;
    if (p->state == PROBE_FLYING || len > PROBE_MAX)
        return 0;
    if (p->state == PROBE_IDLE)
        p->since = mono_ns();
    p->d = (struct op_done){.left = 1};
    struct iovec iov = {.iov_base = p->buf, .iov_len = len};
    void *desc = shmemt_ofi_probes_mr ? fi_mr_desc(shmemt_ofi_probes_mr) : NULL;
    if (shmemt_ofi.mr_local)
        shmemt_ofi_lcheck(p->buf, len, desc, "shmem (libfabric transport): a probe of a peer");
    struct fi_rma_iov rio = {
        .addr = shmemt_ofi.base[SHMEMI_MAX_SEGS][pe] + off, .len = len, .key = shmemt_ofi.key[SHMEMI_MAX_SEGS][pe]};
    struct fi_msg_rma m = {.msg_iov = &iov,
                           .desc = &desc,
                           .iov_count = 1,
                           .addr = shmemt_ofi.addr[pe],
                           .rma_iov = &rio,
                           .rma_iov_count = 1,
                           .context = &p->d.fc};
    /* counted before the post as POST does (see all_done), and taken back if none was made: until then the counter
     * cannot reach `posted`, so no quiet takes the uncounted read for done */
    __atomic_fetch_add(&e->posted, 1, __ATOMIC_SEQ_CST);
    ssize_t rc = fi_readmsg(e->ep, &m, FI_COMPLETION);
    if (rc) {
        __atomic_fetch_sub(&e->posted, 1, __ATOMIC_SEQ_CST);
        p->state = PROBE_REFUSED;
        shmemt_ofi_drive(e); /* (a refusal clears as the provider makes progress) */
        return 1;
    }
    p->state = PROBE_FLYING;
    return 1;
}

void shmemi_ofi_put_signal(shmem_ctx_t ctx, struct shmemi_seg *ds, size_t doff, const void *src, size_t len,
                           struct shmemi_seg *ss, size_t soff, uint64_t signal, int sig_op, int pe) {
    struct ofi_ep *e = ep_of(ctx);
    if (shmemt_ofi.am && shmemt_ofi.ordered &&
        len <= shmemt_ofi.am_data) { /* one message; the target applies data and signal in turn */
        struct am_msg m = {.kind = AM_PUTSIG,
                           .op = sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD,
                           .size = (uint8_t)seg_index(ss),
                           .seg = (uint8_t)seg_index(ds),
                           .from = (int32_t)shmemi_rt.my_pe,
                           .off = doff,
                           .value = signal,
                           .cond = soff,
                           .token = len};
        shmemt_ofi_am_send_putsig(e, pe, &m, src, len);
        mark_dirty(e, pe); /* applied by the next flush */
        __atomic_store_n(&e->amo_pending, 1, __ATOMIC_RELAXED);
        return;
    }
    if (len) {
        shmemi_ofi_put(ctx, ds, doff, src, len, pe, 1);
        /* delivered before the signal is sent, whatever the provider reorders: writes and messages (staged GPU
         * data or signal) are not ordered together where atomics are the fabric's */
        if (!shmemt_ofi.ordered || (!shmemt_ofi.am && staged(ds) != staged(ss)))
            shmemt_ofi_quiet_ep(e);
    }
    shmemi_ofi_amo(ctx, sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD, ss, soff, signal, 0, 8, pe);
}

void shmemi_ofi_quiet(shmem_ctx_t ctx) { shmemt_ofi_quiet_ep(ep_of(ctx)); }

void shmemi_ofi_fence(shmem_ctx_t ctx) {
    struct ofi_ep *e = ep_of(ctx);
    /* an ordered provider applies a PE's writes in order, and its atomics in order: nothing to do unless an atomic
     * may be overtaken by a write that follows it */
    if (!shmemt_ofi.ordered || __atomic_load_n(&e->amo_pending, __ATOMIC_RELAXED)) {
        shmemt_ofi_quiet_ep(e);
        return;
    }
    /* another thread's quiet may have taken this thread's atomic off amo_pending before flushing it: wait for it */
    pthread_mutex_lock(&e->quiet_lock);
    pthread_mutex_unlock(&e->quiet_lock);
}
