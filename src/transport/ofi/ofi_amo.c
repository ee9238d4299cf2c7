/* ofi_amo.c - atomics over libfabric: the provider's own where it has them, compare-and-swap emulation of the ones it
 * lacks, or messages the target applies (providers without fabric atomics). */
#include "transport/ofi/ofi_int.h"

const struct ofi_amo_map shmemt_ofi_amo_map[SHMEMI_AMO_XOR + 1] = {
    [SHMEMI_AMO_FETCH] = {K_FETCH, FI_ATOMIC_READ}, [SHMEMI_AMO_SET] = {K_WRITE, FI_ATOMIC_WRITE},
    [SHMEMI_AMO_SWAP] = {K_FETCH, FI_ATOMIC_WRITE}, [SHMEMI_AMO_CSWAP] = {K_CSWAP, FI_CSWAP},
    [SHMEMI_AMO_FETCH_INC] = {K_FETCH, FI_SUM},     [SHMEMI_AMO_INC] = {K_WRITE, FI_SUM},
    [SHMEMI_AMO_FETCH_ADD] = {K_FETCH, FI_SUM},     [SHMEMI_AMO_ADD] = {K_WRITE, FI_SUM},
    [SHMEMI_AMO_FETCH_AND] = {K_FETCH, FI_BAND},    [SHMEMI_AMO_AND] = {K_WRITE, FI_BAND},
    [SHMEMI_AMO_FETCH_OR] = {K_FETCH, FI_BOR},      [SHMEMI_AMO_OR] = {K_WRITE, FI_BOR},
    [SHMEMI_AMO_FETCH_XOR] = {K_FETCH, FI_BXOR},    [SHMEMI_AMO_XOR] = {K_WRITE, FI_BXOR},
};

static uint64_t am_amo(struct ofi_ep *e, int op, int si, size_t off, uint64_t value, uint64_t cond, size_t size,
                       int pe) {
    struct am_slot slot = {.left = 1};
    int fetch = shmemt_ofi_amo_map[op].kind != K_WRITE;
    struct am_msg m = {.kind = fetch ? AM_FETCH : AM_POST,
                       .op = (uint8_t)op,
                       .size = (uint8_t)size,
                       .seg = (uint8_t)si,
                       .from = (int32_t)shmemi_rt.my_pe,
                       .off = off,
                       .value = value,
                       .cond = cond,
                       .token = (uint64_t)(uintptr_t)&slot};
    shmemt_ofi_am_send(e, pe, &m, 0);
    if (!fetch) {
        mark_dirty(e, pe); /* applied by the next flush */
        __atomic_store_n(&e->amo_pending, 1, __ATOMIC_RELAXED);
        return 0;
    }
    shmemt_ofi_am_wait(e, &slot);
    return slot.result;
}

static uint64_t native_amo(struct ofi_ep *e, int op, int si, size_t off, uint64_t value, uint64_t cond, size_t size,
                           int pe) {
    enum fi_datatype dt = size == 8 ? FI_UINT64 : FI_UINT32;
    uint64_t raddr = shmemt_ofi.base[si][pe] + off, key = shmemt_ofi.key[si][pe];
    if (op == SHMEMI_AMO_INC || op == SHMEMI_AMO_FETCH_INC)
        value = 1;
    union word {
        uint64_t u64;
        uint32_t u32;
    } v, c, r = {0};
    if (size == 8) {
        v.u64 = value;
        c.u64 = cond;
    } else {
        v.u32 = (uint32_t)value;
        c.u32 = (uint32_t)cond;
    }
    union word *vp = &v, *cp = &c, *rp = &r; /* operands and result: on this stack, or registered (mr_local) */
    void *desc = NULL;
    if (SHMEMI_UNLIKELY(shmemt_ofi.mr_local)) {
        struct scratch *sc = shmemt_ofi_scratch();
        vp = (union word *)(void *)sc->buf;
        cp = vp + 1;
        rp = vp + 2;
        *vp = v;
        *cp = c;
        *rp = r;
        desc = sc->desc;
        shmemt_ofi_lcheck(vp, 3 * sizeof *vp, desc, "shmem atomic (libfabric transport)");
    }
    switch (shmemt_ofi_amo_map[op].kind) {
    case K_WRITE:
        if (size <= shmemt_ofi.inject)
            POST(e, fi_inject_atomic(e->ep, &v, 1, shmemt_ofi.addr[pe], raddr, key, dt, shmemt_ofi_amo_map[op].op),
                 "fi_inject_atomic");
        else {
            POST(e, fi_atomic(e->ep, vp, 1, desc, shmemt_ofi.addr[pe], raddr, key, dt, shmemt_ofi_amo_map[op].op, NULL),
                 "fi_atomic");
            shmemt_ofi_wait_posted(e); /* the operand lives on this stack */
        }
        mark_dirty(e, pe);
        __atomic_store_n(&e->amo_pending, 1, __ATOMIC_RELAXED);
        return 0;
    default: {
        /* Waited for through its own completion, as a blocking get is (one progress call per turn, not two) */
        struct op_done d = {.left = 1};
        struct fi_ioc in = {.addr = vp, .count = 1}, res = {.addr = rp, .count = 1}, cmp = {.addr = cp, .count = 1};
        struct fi_rma_ioc rio = {.addr = raddr, .count = 1, .key = key};
        struct fi_msg_atomic m = {.msg_iov = &in,
                                  .desc = &desc,
                                  .iov_count = 1,
                                  .addr = shmemt_ofi.addr[pe],
                                  .rma_iov = &rio,
                                  .rma_iov_count = 1,
                                  .datatype = dt,
                                  .op = shmemt_ofi_amo_map[op].op,
                                  .context = &d.fc};
        if (shmemt_ofi_amo_map[op].kind == K_FETCH)
            POST(e, fi_fetch_atomicmsg(e->ep, &m, &res, &desc, 1, FI_COMPLETION), "fi_fetch_atomicmsg");
        else
            POST(e, fi_compare_atomicmsg(e->ep, &m, &cmp, &desc, 1, &res, &desc, 1, FI_COMPLETION),
                 "fi_compare_atomicmsg");
        shmemt_ofi_wait_op(e, &d);
    }
    }
    return size == 8 ? rp->u64 : rp->u32;
}

static uint64_t apply(int op, uint64_t old, uint64_t value, size_t size) {
    uint64_t mask = size == 8 ? ~0ull : 0xffffffffull, r;
    switch (op) {
    case SHMEMI_AMO_SET:
    case SHMEMI_AMO_SWAP: r = value; break;
    case SHMEMI_AMO_INC:
    case SHMEMI_AMO_FETCH_INC: r = old + 1; break;
    case SHMEMI_AMO_ADD:
    case SHMEMI_AMO_FETCH_ADD: r = old + value; break;
    case SHMEMI_AMO_AND:
    case SHMEMI_AMO_FETCH_AND: r = old & value; break;
    case SHMEMI_AMO_OR:
    case SHMEMI_AMO_FETCH_OR: r = old | value; break;
    case SHMEMI_AMO_XOR:
    case SHMEMI_AMO_FETCH_XOR: r = old ^ value; break;
    default: r = old;
    }
    return r & mask;
}

uint64_t shmemi_ofi_amo(shmem_ctx_t ctx, int op, struct shmemi_seg *s, size_t off, uint64_t value, uint64_t cond,
                        size_t size, int pe) {
    struct ofi_ep *e = ep_of(ctx);
    int si = seg_index(s);
    if (shmemt_ofi.am || staged(s))
        return am_amo(e, op, si, off, value, cond, size, pe);
    if (SHMEMI_LIKELY(shmemt_ofi.amo_ok[size == 8][op]))
        return native_amo(e, op, si, off, value, cond, size, pe);
    /* emulation: read, then compare-and-swap until no other update came between (correct against any concurrent
     * atomic, native or emulated, since the provider applies each one atomically) */
    uint64_t old = shmemt_ofi.amo_ok[size == 8][SHMEMI_AMO_FETCH]
                       ? native_amo(e, SHMEMI_AMO_FETCH, si, off, 0, 0, size, pe)
                       : native_amo(e, SHMEMI_AMO_CSWAP, si, off, 0, 0, size, pe);
    for (;;) {
        if (op == SHMEMI_AMO_FETCH)
            return old;
        uint64_t seen = native_amo(e, SHMEMI_AMO_CSWAP, si, off, apply(op, old, value, size), old, size, pe);
        if (seen == old)
            return old;
        old = seen;
    }
}
