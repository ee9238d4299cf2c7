/* rma.c - the one dispatch point for RMA, signals and atomics. A mapped peer (same node) is reached by the CPU: a
 * put is a memcpy into the peer's copy and an atomic a CPU atomic on the mapped word. A peer that is not mapped is
 * reached through the libfabric transport (src/transport/ofi), with the segment and offset resolved here. GPU memory
 * on either side (with GPU support on) goes through the GPU layer (src/gpu) instead of the CPU. */
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "copy.h"
#include "cpu_amo.h"
#include "gpu/gtl.h"
#include "transport/ofi/ofi.h"

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

/* ---- GPU memory: the CPU cannot touch it, the GPU layer copies it ---- */
int shmemi_dev_local_slow(const void *p) {
    size_t off;
    struct shmemi_seg *s = shmemi_find_seg(p, &off);
    if (s)
        return s->kind == SHMEMI_MEM_DEVICE;
    return shmemi_rt.dev_local && shmemi_gtl_kind(p) == GTL_MEM_DEVICE;
}

/* A peer's GPU segment that is not mapped: the network reaches it only if every PE registered it (a provider with
 * FI_HMEM for CUDA memory; see shmemi_ofi_gpu_reachable). */
static void no_remote_gpu(const struct shmemi_seg *sg, int pe, const char *fn) {
    if (SHMEMI_UNLIKELY(sg->kind == SHMEMI_MEM_DEVICE) && !shmemi_ofi_gpu_reachable(sg))
        shmemi_fatal(fn,
                     "PE %d's %s is not mapped (another node, or SHMEM_TRANSPORT=ofi) and the network provider "
                     "cannot reach GPU memory (no FI_HMEM); keep the symmetric objects other nodes access in host "
                     "memory, or pick a provider with FI_HMEM (SHMEM_OFI_PROVIDER)",
                     pe, sg->name);
}

/* A local GPU buffer to or from another node: staged through two page-locked host buffers in pieces, the GPU copy
 * of one piece running while the network moves the other (blocking transfers: each network piece is complete, its
 * buffer free again, when the call returns). Pieces are a quarter of the transfer, 64 KiB to SHMEMI_GTL_STAGE, so
 * mid-sized transfers overlap too. */
static void gpu_net(shmem_ctx_t ctx, int put, struct shmemi_seg *sg, size_t off, char *local, size_t n, int pe,
                    const char *fn) {
    no_remote_gpu(sg, pe, fn);
    char *buf = shmemi_gtl_stage_get(fn);
    size_t piece = n / 4 < ((size_t)64 << 10) ? (size_t)64 << 10 : n / 4;
    if (piece > SHMEMI_GTL_STAGE)
        piece = SHMEMI_GTL_STAGE;
    size_t npieces = (n + piece - 1) / piece;
    void *ticket[2] = {NULL, NULL};
    if (put) { /* copy i+1 out of the GPU while piece i goes to the peer */
        ticket[0] = shmemi_gtl_copy_start(buf, local, n < piece ? n : piece, fn);
        for (size_t i = 0; i < npieces; i++) {
            size_t at = i * piece, len = i + 1 == npieces ? n - at : piece;
            char *b = buf + (i & 1) * SHMEMI_GTL_STAGE;
            shmemi_gtl_copy_end(ticket[i & 1], 1, fn);
            if (i + 1 < npieces) {
                size_t at1 = at + piece, len1 = i + 2 == npieces ? n - at1 : piece;
                ticket[(i + 1) & 1] =
                    shmemi_gtl_copy_start(buf + ((i + 1) & 1) * SHMEMI_GTL_STAGE, local + at1, len1, fn);
            }
            shmemi_ofi_put(ctx, sg, off + at, b, len, pe, 0);
        }
    } else { /* piece i+1 comes from the peer while piece i is copied into the GPU */
        for (size_t i = 0; i < npieces; i++) {
            size_t at = i * piece, len = i + 1 == npieces ? n - at : piece;
            char *b = buf + (i & 1) * SHMEMI_GTL_STAGE;
            if (ticket[i & 1]) /* piece i-2's copy out of this buffer */
                shmemi_gtl_copy_end(ticket[i & 1], 1, fn);
            shmemi_ofi_get(ctx, sg, off + at, b, len, pe, 0);
            ticket[i & 1] = shmemi_gtl_copy_start(local + at, b, len, fn);
        }
        for (int k = 0; k < 2; k++)
            if (ticket[k])
                shmemi_gtl_copy_end(ticket[k], 1, fn);
    }
    shmemi_gtl_stage_put(buf);
}

/* With GPU support on: when the n bytes between `local` and the peer's copy (mapped, else segment sg at off over the
 * network) need the GPU layer (GPU memory on a mapped side, or a local GPU buffer to or from the network), moves
 * them and returns 1; else 0: the CPU's or the network's job (a host buffer to a peer's GPU memory the network
 * reaches). */
static int gpu_move(shmem_ctx_t ctx, int put, char *mapped, struct shmemi_seg *sg, size_t off, const void *local,
                    size_t n, int pe, const char *fn) {
    if (mapped && n <= shmemi_rt.gpu_cpu_max) /* coherent GPU memory (an APU): the CPU is faster for this size */
        return 0;
    int ldev = shmemi_dev_local_slow(local);
    if (sg->kind != SHMEMI_MEM_DEVICE && !ldev)
        return 0;
    if (!mapped && !ldev) {
        no_remote_gpu(sg, pe, fn);
        return 0;
    }
    if (!mapped)
        gpu_net(ctx, put, sg, off, (char *)(uintptr_t)local, n, pe, fn);
    else if (put)
        shmemi_gtl_copy(mapped, local, n, fn);
    else
        shmemi_gtl_copy((void *)(uintptr_t)local, mapped, n, fn);
    return 1;
}

void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (SHMEMI_UNLIKELY(!nbytes)) {
        if ((unsigned)pe >= (unsigned)shmemi_rt.n_pes)
            shmemi_err_pe(fn, pe);
        return;
    }
    struct shmemi_seg *sg;
    size_t off;
    char *d = shmemi_resolve(dest, nbytes, pe, fn, &sg, &off);
    check_buf(src, nbytes, fn, "source");
    if (SHMEMI_UNLIKELY(shmemi_rt.gpu) && gpu_move(ctx, 1, d, sg, off, src, nbytes, pe, fn)) {
        if (d)
            shmemi_ring(pe, dest, nbytes);
        return;
    }
    if (SHMEMI_UNLIKELY(!d)) {
        shmemi_ofi_put(ctx, sg, off, src, nbytes, pe, 0);
        return;
    }
    shmemi_copy(d, src, nbytes);
    shmemi_ring(pe, dest, nbytes);
}

void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (SHMEMI_UNLIKELY(!nbytes)) {
        if ((unsigned)pe >= (unsigned)shmemi_rt.n_pes)
            shmemi_err_pe(fn, pe);
        return;
    }
    struct shmemi_seg *sg;
    size_t off;
    const char *s = shmemi_resolve(src, nbytes, pe, fn, &sg, &off);
    check_buf(dest, nbytes, fn, "dest");
    if (SHMEMI_UNLIKELY(shmemi_rt.gpu) && gpu_move(ctx, 0, (char *)(uintptr_t)s, sg, off, dest, nbytes, pe, fn))
        return;
    if (SHMEMI_UNLIKELY(!s)) {
        shmemi_ofi_get(ctx, sg, off, dest, nbytes, pe, 0);
        return;
    }
    shmemi_copy(dest, s, nbytes);
}

/* Non-blocking forms complete immediately on mapped peers (a copy by the CPU is done when it returns); on the
 * network they complete at the next quiet. */
void shmemi_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn) {
    if (shmemi_ofi_up) {
        pe = shmemi_ctx_pe(ctx, pe, fn);
        struct shmemi_seg *sg;
        size_t off;
        if (nbytes && !shmemi_resolve(dest, nbytes, pe, fn, &sg, &off)) {
            check_buf(src, nbytes, fn, "source");
            if (SHMEMI_UNLIKELY(shmemi_rt.gpu) && gpu_move(ctx, 1, NULL, sg, off, src, nbytes, pe, fn))
                return;
            shmemi_ofi_put(ctx, sg, off, src, nbytes, pe, 1);
            return;
        }
        ctx = SHMEM_CTX_DEFAULT; /* pe is a world PE now */
    }
    shmemi_put(ctx, dest, src, nbytes, pe, fn);
}

void shmemi_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn) {
    if (shmemi_ofi_up) {
        pe = shmemi_ctx_pe(ctx, pe, fn);
        struct shmemi_seg *sg;
        size_t off;
        if (nbytes && !shmemi_resolve(src, nbytes, pe, fn, &sg, &off)) {
            check_buf(dest, nbytes, fn, "dest");
            if (SHMEMI_UNLIKELY(shmemi_rt.gpu) && gpu_move(ctx, 0, NULL, sg, off, dest, nbytes, pe, fn))
                return;
            shmemi_ofi_get(ctx, sg, off, dest, nbytes, pe, 1);
            return;
        }
        ctx = SHMEM_CTX_DEFAULT;
    }
    shmemi_get(ctx, dest, src, nbytes, pe, fn);
}

void shmemi_p(shmem_ctx_t ctx, void *dest, const void *value, size_t size, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    struct shmemi_seg *sg;
    size_t off;
    char *d = shmemi_resolve(dest, size, pe, fn, &sg, &off);
    if (SHMEMI_UNLIKELY(sg->kind == SHMEMI_MEM_DEVICE) && gpu_move(ctx, 1, d, sg, off, value, size, pe, fn)) {
        if (d)
            shmemi_ring(pe, dest, size);
        return;
    }
    if (SHMEMI_UNLIKELY(!d)) {
        shmemi_ofi_put(ctx, sg, off, value, size, pe, 0);
        return;
    }
    if (elem_aligned(d, size))
        store_elem(d, value, size);
    else
        memcpy(d, value, size);
    shmemi_ring(pe, dest, size);
}

void shmemi_g(shmem_ctx_t ctx, void *out, const void *src, size_t size, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    struct shmemi_seg *sg;
    size_t off;
    const char *s = shmemi_resolve(src, size, pe, fn, &sg, &off);
    if (SHMEMI_UNLIKELY(sg->kind == SHMEMI_MEM_DEVICE) &&
        gpu_move(ctx, 0, (char *)(uintptr_t)s, sg, off, out, size, pe, fn))
        return;
    if (SHMEMI_UNLIKELY(!s)) {
        shmemi_ofi_get(ctx, sg, off, out, size, pe, 0);
        return;
    }
    if (elem_aligned(s, size))
        load_elem(out, s, size);
    else
        memcpy(out, s, size);
}

/* Strided copies: the extent touched on the remote side is checked once, then elements (or blocks) move one by one:
 * by the CPU to a mapped peer, else as non-blocking network transfers completed together. */
struct strided {
    char *mapped;          /* the peer's copy of the remote side, or NULL: network */
    struct shmemi_seg *sg; /* network: its segment and offset */
    size_t off;
};

static struct strided resolve_strided(const void *addr, ptrdiff_t stride, size_t nblocks, size_t bsize, size_t es,
                                      int pe, const char *fn) {
    if (stride < 0)
        shmemi_fatal(fn, "negative strides are not supported (stride %td)", stride);
    struct strided r;
    size_t extent = ((nblocks - 1) * (size_t)stride + bsize) * es;
    r.mapped = shmemi_resolve(addr, extent, pe, fn, &r.sg, &r.off);
    return r;
}

/* Moves nblocks blocks of bsize elements; block b starts at b*dst elements of d and b*sst elements of s. put: the
 * remote side is the destination. */
static void move_blocks(shmem_ctx_t ctx, int put, const struct strided *r, char *local, ptrdiff_t lst, ptrdiff_t rst,
                        size_t bsize, size_t nblocks, size_t es, int pe, const char *fn) {
    size_t ls = (size_t)lst * es, rs = (size_t)rst * es, len = bsize * es;
    int ldev = SHMEMI_UNLIKELY(shmemi_rt.gpu) && shmemi_dev_local_slow(local);
    if (SHMEMI_UNLIKELY(r->sg->kind == SHMEMI_MEM_DEVICE) && !r->mapped)
        no_remote_gpu(r->sg, pe, fn); /* a host buffer goes over the network below, a GPU one is staged */
    if (ldev || (SHMEMI_UNLIKELY(r->sg->kind == SHMEMI_MEM_DEVICE) && r->mapped)) {
        if (r->mapped && lst > 0 && rst > 0) { /* one 2D copy, not a copy per block */
            if (put)
                shmemi_gtl_copy2d(r->mapped, rs, local, ls, len, nblocks, fn);
            else
                shmemi_gtl_copy2d(local, ls, r->mapped, rs, len, nblocks, fn);
            return;
        }
        for (size_t b = 0; b < nblocks; b++)
            gpu_move(ctx, put, r->mapped ? r->mapped + b * rs : NULL, r->sg, r->off + b * rs, local + b * ls, len, pe,
                     fn);
        return;
    }
    if (r->mapped && len == 4 && put) { /* constant-size copies: the common element-wise iput/iget */
        for (size_t b = 0; b < nblocks; b++)
            memcpy(r->mapped + b * rs, local + b * ls, 4);
    } else if (r->mapped && len == 8 && put) {
        for (size_t b = 0; b < nblocks; b++)
            memcpy(r->mapped + b * rs, local + b * ls, 8);
    } else if (r->mapped && len == 4) {
        for (size_t b = 0; b < nblocks; b++)
            memcpy(local + b * ls, r->mapped + b * rs, 4);
    } else if (r->mapped && len == 8) {
        for (size_t b = 0; b < nblocks; b++)
            memcpy(local + b * ls, r->mapped + b * rs, 8);
    }
    if (r->mapped && (len == 4 || len == 8))
        return;
    if (r->mapped) {
        for (size_t b = 0; b < nblocks; b++) {
            if (put)
                shmemi_copy(r->mapped + b * rs, local + b * ls, len);
            else
                shmemi_copy(local + b * ls, r->mapped + b * rs, len);
        }
        return;
    }
    for (size_t b = 0; b < nblocks; b++) {
        if (put)
            shmemi_ofi_put(ctx, r->sg, r->off + b * rs, local + b * ls, len, pe, 1);
        else
            shmemi_ofi_get(ctx, r->sg, r->off + b * rs, local + b * ls, len, pe, 1);
    }
    shmemi_ofi_quiet(ctx);
}

static int nothing_to_move(size_t n, int pe, const char *fn) {
    if (n)
        return 0;
    if ((unsigned)pe >= (unsigned)shmemi_rt.n_pes)
        shmemi_err_pe(fn, pe);
    return 1;
}

void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t es,
                 int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (nothing_to_move(nelems, pe, fn))
        return;
    struct strided r = resolve_strided(dest, dst, nelems, 1, es, pe, fn);
    check_buf(src, nelems, fn, "source");
    move_blocks(ctx, 1, &r, (char *)(uintptr_t)src, sst, dst, 1, nelems, es, pe, fn);
    shmemi_ring(pe, dest, ((nelems - 1) * (size_t)dst + 1) * es);
}

void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t es,
                 int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (nothing_to_move(nelems, pe, fn))
        return;
    struct strided r = resolve_strided(src, sst, nelems, 1, es, pe, fn);
    check_buf(dest, nelems, fn, "dest");
    move_blocks(ctx, 0, &r, dest, dst, sst, 1, nelems, es, pe, fn);
}

/* Blocked strides: block b of bsize contiguous elements starts at b*stride elements on each side. */
void shmemi_ibput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                  size_t nblocks, size_t es, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (nothing_to_move(nblocks && bsize, pe, fn))
        return;
    if (dst < 0 || sst < 0)
        shmemi_fatal(fn, "negative strides are not supported");
    struct strided r = resolve_strided(dest, dst, nblocks, bsize, es, pe, fn);
    check_buf(src, nblocks, fn, "source");
    move_blocks(ctx, 1, &r, (char *)(uintptr_t)src, sst, dst, bsize, nblocks, es, pe, fn);
    shmemi_ring(pe, dest, ((nblocks - 1) * (size_t)dst + bsize) * es);
}

void shmemi_ibget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                  size_t nblocks, size_t es, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    if (nothing_to_move(nblocks && bsize, pe, fn))
        return;
    if (dst < 0 || sst < 0)
        shmemi_fatal(fn, "negative strides are not supported");
    struct strided r = resolve_strided(src, sst, nblocks, bsize, es, pe, fn);
    check_buf(dest, nblocks, fn, "dest");
    move_blocks(ctx, 0, &r, dest, dst, sst, bsize, nblocks, es, pe, fn);
}

/* ---- put with signal: the data must be visible before the signal is ---- */
void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                       int sig_op, int pe, const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    struct shmemi_seg *ssg, *dsg = NULL;
    size_t soff, doff = 0;
    uint64_t *sig = (uint64_t *)(void *)shmemi_resolve(sig_addr, sizeof *sig_addr, pe, fn, &ssg, &soff);
    if (SHMEMI_UNLIKELY(ssg->kind == SHMEMI_MEM_DEVICE) && sig && !shmemi_gpu_native_amo(pe))
        sig = NULL; /* a signal is an atomic: as in shmemi_amo, pe applies it */
    if (SHMEMI_UNLIKELY(((uintptr_t)sig_addr - (uintptr_t)ssg->base) & 7))
        shmemi_fatal(fn, "sig_addr %p is not 8-byte aligned", (void *)sig_addr);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemi_fatal(fn, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
    char *d = NULL;
    if (nbytes) {
        d = shmemi_resolve(dest, nbytes, pe, fn, &dsg, &doff);
        check_buf(src, nbytes, fn, "source");
    }
    if (SHMEMI_UNLIKELY(shmemi_rt.gpu) &&
        (ssg->kind == SHMEMI_MEM_DEVICE ||
         (nbytes && (dsg->kind == SHMEMI_MEM_DEVICE || shmemi_dev_local_slow(src))))) {
        /* data and signal may be in different memory domains: the data is complete (GPU copies are synchronous; the
         * network's are quieted) before the signal is written */
        if (nbytes && !gpu_move(ctx, 1, d, dsg, doff, src, nbytes, pe, fn)) {
            if (d)
                shmemi_copy(d, src, nbytes);
            else
                shmemi_ofi_put(ctx, dsg, doff, src, nbytes, pe, 0);
        }
        if (nbytes && !d)
            shmemi_ofi_quiet(ctx);
        shmemi_store_fence();
        int op = sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD;
        if (ssg->kind == SHMEMI_MEM_DEVICE && sig && !shmemi_rt.gpu_cpu_max) {
            shmemi_gtl_amo(sig, op, signal, 0, 8, fn);
        } else if (!sig || shmemi_rt.amo_net) {
            if (!sig)
                no_remote_gpu(ssg, pe, fn);
            shmemi_ofi_amo(ctx, op, ssg, soff, signal, 0, 8, pe);
        } else {
            shmemi_amo_cpu(sig, op, signal, 0, 8);
        }
        shmemi_ring(pe, sig_addr, sizeof *sig_addr);
        if (d)
            shmemi_ring(pe, dest, nbytes);
        return;
    }
    if (nbytes) {
        if (!d && (!sig || shmemi_rt.amo_net)) { /* all on the network: the transport orders them */
            shmemi_ofi_put_signal(ctx, dsg, doff, src, nbytes, ssg, soff, signal, sig_op, pe);
            return;
        }
        if (d) {
            shmemi_copy(d, src, nbytes);
            shmemi_store_fence();
        } else {
            shmemi_ofi_put(ctx, dsg, doff, src, nbytes, pe, 1);
            shmemi_ofi_quiet(ctx);
        }
    }
    if (!sig || shmemi_rt.amo_net) /* signals are atomics: with the fabric's when it is in use */
        shmemi_ofi_amo(ctx, sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD, ssg, soff, signal, 0, 8, pe);
    else if (sig_op == SHMEM_SIGNAL_SET)
        __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(sig, signal, __ATOMIC_SEQ_CST);
    shmemi_ring(pe, sig_addr, sizeof *sig_addr);
    if (d)
        shmemi_ring(pe, dest, nbytes);
}

void shmemi_put_signal_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                           uint64_t signal, int sig_op, int pe, const char *fn) {
    shmemi_put_signal(ctx, dest, src, nbytes, sig_addr, signal, sig_op, pe, fn);
}

/* ---- atomics ---- */

uint64_t shmemi_amo(shmem_ctx_t ctx, int op, void *dest, uint64_t value, uint64_t cond, size_t size, int pe,
                    const char *fn) {
    pe = shmemi_ctx_pe(ctx, pe, fn);
    struct shmemi_seg *sg;
    size_t off;
    char *p = shmemi_resolve(dest, size, pe, fn, &sg, &off);
    if (SHMEMI_UNLIKELY(off & (size - 1)))
        shmemi_fatal(fn, "dest %p is not aligned to its %zu-byte type; atomics need naturally aligned objects", dest,
                     size);
    if (SHMEMI_UNLIKELY(sg->kind == SHMEMI_MEM_DEVICE) && p && !shmemi_gpu_native_amo(pe))
        p = NULL; /* no native P2P atomics: this GPU's would not be atomic with pe's own, so pe applies it */
    if (SHMEMI_UNLIKELY(sg->kind == SHMEMI_MEM_DEVICE) && !p) /* the network's (registered GPU memory), or an error */
        no_remote_gpu(sg, pe, fn);
    /* GPU atomics, so the GPU's own are atomic with them; on coherent GPU memory the CPU's are (system scope) */
    if (SHMEMI_UNLIKELY(sg->kind == SHMEMI_MEM_DEVICE) && p && !shmemi_rt.gpu_cpu_max) {
        uint64_t r = shmemi_gtl_amo(p, op, value, cond, size, fn);
        if (op != SHMEMI_AMO_FETCH)
            shmemi_ring(pe, dest, size);
        return r;
    }
    if (SHMEMI_UNLIKELY(!p || shmemi_rt.amo_net)) {
        uint64_t r = shmemi_ofi_amo(ctx, op, sg, off, value, cond, size, pe);
        if (p && op != SHMEMI_AMO_FETCH)
            shmemi_ring(pe, dest, size);
        return r;
    }
    uint64_t r = size == 8 ? shmemi_amo64((uint64_t *)(void *)p, op, value, cond)
                           : shmemi_amo32((uint32_t *)(void *)p, op, value, cond);
    if (op != SHMEMI_AMO_FETCH)
        shmemi_ring(pe, dest, size);
    return r;
}

void shmemi_amo_nbi(shmem_ctx_t ctx, int op, void *fetch, void *dest, uint64_t value, uint64_t cond, size_t size,
                    int pe, const char *fn) {
    if (SHMEMI_UNLIKELY(!fetch))
        shmemi_err_null(fn, "fetch");
    uint64_t r = shmemi_amo(ctx, op, dest, value, cond, size, pe, fn);
    uint32_t r32 = (uint32_t)r;
    const void *v = size == 8 ? (const void *)&r : (const void *)&r32;
    if (SHMEMI_UNLIKELY(shmemi_dev_local(fetch)))
        shmemi_gtl_copy(fetch, v, size, fn);
    else
        memcpy(fetch, v, size);
}

/* ---- ordering: a mapped peer's stores are visible once fenced; the network's complete at its quiet ---- */
void shmem_fence(void) {
    shmemi_store_fence();
    if (shmemi_ofi_up)
        shmemi_ofi_fence(SHMEM_CTX_DEFAULT);
}
void shmem_quiet(void) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (shmemi_ofi_up)
        shmemi_ofi_quiet(SHMEM_CTX_DEFAULT);
}
void shmem_ctx_fence(shmem_ctx_t ctx) {
    shmemi_store_fence();
    if (shmemi_ofi_up)
        shmemi_ofi_fence(ctx);
}
void shmem_ctx_quiet(shmem_ctx_t ctx) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (shmemi_ofi_up)
        shmemi_ofi_quiet(ctx);
}

void shmem_pe_quiet(const int *target_pes, size_t npes) { shmem_quiet(); }
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes) { shmem_ctx_quiet(ctx); }

void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) {}
void shmem_set_cache_line_inv(void *dest) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) {}
