/* rma.c - the one dispatch point for RMA, signals and atomics. Every peer reachable today is mapped (same node),
 * so a put is a memcpy into the peer's copy and an atomic is a CPU atomic on the mapped word; the network
 * transport (issue 4) plugs in where shmemi_xlate finds no mapping. */
#include <string.h>

#include "state.h"

static inline void check_buf(const void *p, size_t n, const char *fn, const char *what) {
    if (SHMEMI_UNLIKELY(!p && n))
        shmemi_err_null(fn, what);
}

/* Stores a single element so a concurrent reader (wait_until) never sees it torn. */
static inline void store_elem(void *d, const void *v, size_t size) {
    switch (size) {
    case 1: __atomic_store_n((uint8_t *)d, *(const uint8_t *)v, __ATOMIC_RELAXED); break;
    case 2: {
        uint16_t x;
        memcpy(&x, v, 2);
        __atomic_store_n((uint16_t *)d, x, __ATOMIC_RELAXED);
        break;
    }
    case 4: {
        uint32_t x;
        memcpy(&x, v, 4);
        __atomic_store_n((uint32_t *)d, x, __ATOMIC_RELAXED);
        break;
    }
    case 8: {
        uint64_t x;
        memcpy(&x, v, 8);
        __atomic_store_n((uint64_t *)d, x, __ATOMIC_RELAXED);
        break;
    }
    default: memcpy(d, v, size);
    }
}

static inline void load_elem(void *out, const void *s, size_t size) {
    switch (size) {
    case 1: *(uint8_t *)out = __atomic_load_n((const uint8_t *)s, __ATOMIC_RELAXED); break;
    case 2: {
        uint16_t x = __atomic_load_n((const uint16_t *)s, __ATOMIC_RELAXED);
        memcpy(out, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = __atomic_load_n((const uint32_t *)s, __ATOMIC_RELAXED);
        memcpy(out, &x, 4);
        break;
    }
    case 8: {
        uint64_t x = __atomic_load_n((const uint64_t *)s, __ATOMIC_RELAXED);
        memcpy(out, &x, 8);
        break;
    }
    default: memcpy(out, s, size);
    }
}

static inline int elem_aligned(const void *p, size_t size) { return size <= 8 && !((uintptr_t)p & (size - 1)); }

void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (SHMEMI_UNLIKELY(!nbytes)) {
        if ((unsigned)pe >= (unsigned)shmemi_rt.n_pes)
            shmemi_err_pe(fn, pe);
        return;
    }
    char *d = shmemi_xlate(dest, nbytes, pe, fn);
    check_buf(src, nbytes, fn, "source");
    memcpy(d, src, nbytes);
    shmemi_ring(pe, dest, nbytes);
}

void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (SHMEMI_UNLIKELY(!nbytes)) {
        if ((unsigned)pe >= (unsigned)shmemi_rt.n_pes)
            shmemi_err_pe(fn, pe);
        return;
    }
    const char *s = shmemi_xlate(src, nbytes, pe, fn);
    check_buf(dest, nbytes, fn, "dest");
    memcpy(dest, s, nbytes);
}

/* Non-blocking forms complete immediately on mapped peers: a copy by the CPU is done when it returns. */
void shmemi_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn) {
    shmemi_put(ctx, dest, src, nbytes, pe, fn);
}

void shmemi_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn) {
    shmemi_get(ctx, dest, src, nbytes, pe, fn);
}

void shmemi_p(shmem_ctx_t ctx, void *dest, const void *value, size_t size, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    char *d = shmemi_xlate(dest, size, pe, fn);
    if (elem_aligned(d, size))
        store_elem(d, value, size);
    else
        memcpy(d, value, size);
    shmemi_ring(pe, dest, size);
}

void shmemi_g(shmem_ctx_t ctx, void *out, const void *src, size_t size, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    const char *s = shmemi_xlate(src, size, pe, fn);
    if (elem_aligned(s, size))
        load_elem(out, s, size);
    else
        memcpy(out, s, size);
}

/* Strided copies: the extent touched on the remote side is checked once, then elements move one by one. */
static char *xlate_strided(const void *addr, ptrdiff_t stride, size_t count, size_t elemsize, int pe, const char *fn) {
    if (stride < 0)
        shmemi_fatal(fn, "negative strides are not supported (stride %td)", stride);
    size_t extent = (count - 1) * (size_t)stride * elemsize + elemsize;
    return shmemi_xlate(addr, extent, pe, fn);
}

static void copy_strided(char *d, const char *s, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t es) {
    size_t ds = (size_t)dst * es, ss = (size_t)sst * es;
    switch (es) {
    case 4:
        for (size_t i = 0; i < nelems; i++)
            memcpy(d + i * ds, s + i * ss, 4);
        break;
    case 8:
        for (size_t i = 0; i < nelems; i++)
            memcpy(d + i * ds, s + i * ss, 8);
        break;
    default:
        for (size_t i = 0; i < nelems; i++)
            memcpy(d + i * ds, s + i * ss, es);
    }
}

void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t es,
                 int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (!nelems) {
        if ((unsigned)pe >= (unsigned)shmemi_rt.n_pes)
            shmemi_err_pe(fn, pe);
        return;
    }
    char *d = xlate_strided(dest, dst, nelems, es, pe, fn);
    check_buf(src, nelems, fn, "source");
    copy_strided(d, src, dst, sst, nelems, es);
    shmemi_ring(pe, dest, ((nelems - 1) * (size_t)dst + 1) * es);
}

void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t es,
                 int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (!nelems) {
        if ((unsigned)pe >= (unsigned)shmemi_rt.n_pes)
            shmemi_err_pe(fn, pe);
        return;
    }
    const char *s = xlate_strided(src, sst, nelems, es, pe, fn);
    check_buf(dest, nelems, fn, "dest");
    copy_strided(dest, s, dst, sst, nelems, es);
}

/* Blocked strides: block b of bsize contiguous elements starts at b*stride elements on each side. */
void shmemi_ibput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                  size_t nblocks, size_t es, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (!nblocks || !bsize) {
        if ((unsigned)pe >= (unsigned)shmemi_rt.n_pes)
            shmemi_err_pe(fn, pe);
        return;
    }
    if (dst < 0 || sst < 0)
        shmemi_fatal(fn, "negative strides are not supported");
    char *d = shmemi_xlate(dest, ((nblocks - 1) * (size_t)dst + bsize) * es, pe, fn);
    check_buf(src, nblocks, fn, "source");
    for (size_t b = 0; b < nblocks; b++)
        memcpy(d + b * (size_t)dst * es, (const char *)src + b * (size_t)sst * es, bsize * es);
    shmemi_ring(pe, dest, ((nblocks - 1) * (size_t)dst + bsize) * es);
}

void shmemi_ibget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                  size_t nblocks, size_t es, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (!nblocks || !bsize) {
        if ((unsigned)pe >= (unsigned)shmemi_rt.n_pes)
            shmemi_err_pe(fn, pe);
        return;
    }
    if (dst < 0 || sst < 0)
        shmemi_fatal(fn, "negative strides are not supported");
    const char *s = shmemi_xlate(src, ((nblocks - 1) * (size_t)sst + bsize) * es, pe, fn);
    check_buf(dest, nblocks, fn, "dest");
    for (size_t b = 0; b < nblocks; b++)
        memcpy((char *)dest + b * (size_t)dst * es, s + b * (size_t)sst * es, bsize * es);
}

/* ---- put with signal: the data must be visible before the signal is ---- */
void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                       int sig_op, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    uint64_t *sig = (uint64_t *)(void *)shmemi_xlate(sig_addr, sizeof *sig_addr, pe, fn);
    if (SHMEMI_UNLIKELY((uintptr_t)sig & 7))
        shmemi_fatal(fn, "sig_addr %p is not 8-byte aligned", (void *)sig_addr);
    if (nbytes) {
        char *d = shmemi_xlate(dest, nbytes, pe, fn);
        check_buf(src, nbytes, fn, "source");
        memcpy(d, src, nbytes);
        shmemi_store_fence();
    }
    if (sig_op == SHMEM_SIGNAL_SET)
        __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
    else if (sig_op == SHMEM_SIGNAL_ADD)
        __atomic_fetch_add(sig, signal, __ATOMIC_SEQ_CST);
    else
        shmemi_fatal(fn, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
    shmemi_ring(pe, sig_addr, sizeof *sig_addr);
    if (nbytes)
        shmemi_ring(pe, dest, nbytes);
}

void shmemi_put_signal_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                           uint64_t signal, int sig_op, int pe, const char *fn) {
    shmemi_put_signal(ctx, dest, src, nbytes, sig_addr, signal, sig_op, pe, fn);
}

/* ---- atomics ---- */
#define AMO_BODY(T, p)                                                                                                 \
    do {                                                                                                               \
        T v = (T)value, c = (T)cond;                                                                                   \
        switch (op) {                                                                                                  \
        case SHMEMI_AMO_FETCH: return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                            \
        case SHMEMI_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); return 0;                                       \
        case SHMEMI_AMO_SWAP: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                      \
        case SHMEMI_AMO_CSWAP: __atomic_compare_exchange_n(p, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return c; \
        case SHMEMI_AMO_FETCH_INC:                                                                                     \
        case SHMEMI_AMO_INC: return __atomic_fetch_add(p, (T)1, __ATOMIC_SEQ_CST);                                     \
        case SHMEMI_AMO_FETCH_ADD:                                                                                     \
        case SHMEMI_AMO_ADD: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                        \
        case SHMEMI_AMO_FETCH_AND:                                                                                     \
        case SHMEMI_AMO_AND: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                        \
        case SHMEMI_AMO_FETCH_OR:                                                                                      \
        case SHMEMI_AMO_OR: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                          \
        case SHMEMI_AMO_FETCH_XOR:                                                                                     \
        case SHMEMI_AMO_XOR: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                        \
        }                                                                                                              \
        return 0;                                                                                                      \
    } while (0)

static inline uint64_t amo32(uint32_t *p, int op, uint64_t value, uint64_t cond) { AMO_BODY(uint32_t, p); }
static inline uint64_t amo64(uint64_t *p, int op, uint64_t value, uint64_t cond) { AMO_BODY(uint64_t, p); }

uint64_t shmemi_amo(shmem_ctx_t ctx, int op, void *dest, uint64_t value, uint64_t cond, size_t size, int pe,
                    const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    char *p = shmemi_xlate(dest, size, pe, fn);
    if (SHMEMI_UNLIKELY((uintptr_t)p & (size - 1)))
        shmemi_fatal(fn, "dest %p is not aligned to its %zu-byte type; atomics need naturally aligned objects", dest,
                     size);
    uint64_t r =
        size == 8 ? amo64((uint64_t *)(void *)p, op, value, cond) : amo32((uint32_t *)(void *)p, op, value, cond);
    if (op != SHMEMI_AMO_FETCH)
        shmemi_ring(pe, dest, size);
    return r;
}

void shmemi_amo_nbi(shmem_ctx_t ctx, int op, void *fetch, void *dest, uint64_t value, uint64_t cond, size_t size,
                    int pe, const char *fn) {
    if (SHMEMI_UNLIKELY(!fetch))
        shmemi_err_null(fn, "fetch");
    uint64_t r = shmemi_amo(ctx, op, dest, value, cond, size, pe, fn);
    if (size == 8)
        memcpy(fetch, &r, 8);
    else {
        uint32_t r32 = (uint32_t)r;
        memcpy(fetch, &r32, 4);
    }
}

/* ---- ordering: with every peer mapped, completion is store visibility ---- */
void shmem_fence(void) { shmemi_store_fence(); }
void shmem_quiet(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void shmem_ctx_fence(shmem_ctx_t ctx) { shmemi_store_fence(); }
void shmem_ctx_quiet(shmem_ctx_t ctx) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

void shmem_pe_quiet(const int *target_pes, size_t npes) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) {}
void shmem_set_cache_line_inv(void *dest) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) {}
