/* shmemg_device.h - the GPU-centric OpenSHMEM API (the GPU auxiliary specification's shmemg_* device routines, and
 * gshmem's shmemgx_ extensions) as inline device functions: one source that nvcc, hipcc and the CPU emulation
 * (oshcc --emulate-gpu) compile. Headers only, so a .cu file needs no relocatable device code and no device link: each
 * translation unit holds its own copy of the device state, which the library fills in at shmem_init (every unit
 * registers itself before main; a shared library's when it is loaded).
 *
 * Paths: a peer whose GPU heap this PE maps (same node, several PEs per GPU included) is reached by the calling
 * threads' own loads, stores and system-scope atomics; any other goes through a ring of requests in host memory that
 * the PE's proxy thread serves with the host routines (src/proxy). Group forms (_tg: the block, _htg: the warp) spread
 * a copy over the group's threads and begin and end with the group's barrier. Included by shmemg.h for device code. */
#ifndef GSHMEM_SHMEMG_DEVICE_H
#define GSHMEM_SHMEMG_DEVICE_H

#include <gshmem/device/state.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#if defined(__CUDACC__) && !defined(GSHMEM_EMULATE_GPU)
#include <cuda_runtime.h>
#elif defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
#define SHMEMGI_D __device__ __forceinline__
#define SHMEMGI_CONST __constant__
#else /* the CPU emulation: plain C++ */
#define SHMEMGI_D inline
#define SHMEMGI_CONST
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define SHMEMGI_DEVICE_PASS 1
#endif

extern "C" {
/* host: a translation unit's way to receive the device state (libgshmem calls it at shmem_init and finalize) */
void gshmemx_device_register_unit(int (*upload)(const void *state, size_t len));
/* host: where this PE maps pe's copy of `remote`, when a stream-ordered copy of len bytes between it and `local` can be
 * the copy engine's (kernel-side communication up, both in the GPU heap, pe's mapped); else NULL: a kernel does it */
void *gshmemx_device_stream_peer(const void *remote, const void *local, size_t len, int pe);
#ifdef GSHMEM_EMULATE_GPU
/* the emulation reaches the library directly: report a misuse and end the job; wake the proxy */
void gshmemx_emu_device_fail(unsigned what, const char *fn, int pe, const void *addr, size_t len)
    __attribute__((noreturn));
void gshmemx_emu_proxy_doorbell(void);
#endif
}

namespace shmemgi {

template <int N> struct std_uint;
template <> struct std_uint<1> { typedef uint8_t type; };
template <> struct std_uint<2> { typedef uint16_t type; };
template <> struct std_uint<4> { typedef uint32_t type; };
template <> struct std_uint<8> { typedef uint64_t type; };

/* ---- the device state: one copy per translation unit ---- */
static SHMEMGI_CONST struct shmemgi_dstate state_tu;
SHMEMGI_D const struct shmemgi_dstate &st() { return state_tu; }

#if !defined(SHMEMGI_DEVICE_PASS)
namespace {
inline int upload(const void *src, size_t len) {
#if defined(GSHMEM_EMULATE_GPU)
    __builtin_memcpy((void *)&state_tu, src, len);
    return 0;
#elif defined(__CUDACC__)
    return cudaMemcpyToSymbol(state_tu, src, len) != cudaSuccess;
#elif defined(__HIPCC__)
    return hipMemcpyToSymbol(HIP_SYMBOL(state_tu), src, len) != hipSuccess;
#endif
}
struct unit_registration {
    unit_registration() { gshmemx_device_register_unit(&upload); }
};
static unit_registration unit_registration_instance;
} // namespace
#endif

/* ---- what the three compilers differ in ---- */
/* a poll's back-off: it leaves the SM's issue slots to other warps and thins the polling of memory others write; it
 * does not yield the GPU to another process's kernel (docs/device.md, Several PEs per GPU) */
SHMEMGI_D void pause() {
#if defined(GSHMEM_EMULATE_GPU)
    gshmem_emu_yield();
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __nanosleep(128);
#elif defined(__HIP_DEVICE_COMPILE__)
    __builtin_amdgcn_s_sleep(2);
#endif
}
SHMEMGI_D void fence_system() { __threadfence_system(); }
/* The memory model's pieces at system scope (peers' GPUs and the host proxy observe them), each as cheap as the
 * compiler allows: an acquire/release fence is enough to order a thread's accesses before and after it (a sequentially
 * consistent fence, __threadfence_system, is only needed where stores must be ordered before later loads of other
 * locations: nowhere in this library); loads with acquire and stores with release or relaxed semantics, where a
 * volatile access would be weaker than the model asks (a volatile load is relaxed: reading a result after a
 * volatile load of its flag may see the old result). */
SHMEMGI_D void fence_acq_rel() {
#if defined(GSHMEM_EMULATE_GPU)
    __atomic_thread_fence(__ATOMIC_ACQ_REL);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("fence.acq_rel.sys;" ::: "memory");
#elif defined(__HIP_DEVICE_COMPILE__)
    __atomic_thread_fence(__ATOMIC_ACQ_REL); /* (AMDGPU's default synchronization scope is the system) */
#else
    __threadfence_system();
#endif
}
SHMEMGI_D uint32_t ld_acquire32(const void *p) {
#if defined(GSHMEM_EMULATE_GPU) || defined(__HIP_DEVICE_COMPILE__)
    return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    uint32_t v;
    asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
#else
    uint32_t v = *(const volatile uint32_t *)p;
    __threadfence_system();
    return v;
#endif
}
SHMEMGI_D uint64_t ld_acquire64(const void *p) {
#if defined(GSHMEM_EMULATE_GPU) || defined(__HIP_DEVICE_COMPILE__)
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    uint64_t v;
    asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
#else
    uint64_t v = *(const volatile uint64_t *)p;
    __threadfence_system();
    return v;
#endif
}
SHMEMGI_D void st_release64(void *p, uint64_t v) {
#if defined(GSHMEM_EMULATE_GPU) || defined(__HIP_DEVICE_COMPILE__)
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#else
    __threadfence_system();
    *(volatile uint64_t *)p = v;
#endif
}
/* a store other PEs' waits may observe: relaxed at system scope (a plain store may stay in a cache or be merged
 * with a later one as far as the model is concerned); objects of other sizes than 1, 2, 4, 8 bytes are stored as
 * volatile words */
template <class T> SHMEMGI_D void st_relaxed(T *p, T v) {
#if defined(GSHMEM_EMULATE_GPU) || defined(__HIP_DEVICE_COMPILE__) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700)
    if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
        typedef typename std_uint<sizeof(T)>::type U;
        U u;
        __builtin_memcpy(&u, &v, sizeof u);
#if defined(GSHMEM_EMULATE_GPU) || defined(__HIP_DEVICE_COMPILE__)
        __atomic_store_n((U *)p, u, __ATOMIC_RELAXED);
#else
        if constexpr (sizeof(T) == 8)
            asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(p), "l"((uint64_t)u) : "memory");
        else if constexpr (sizeof(T) == 4)
            asm volatile("st.relaxed.sys.u32 [%0], %1;" ::"l"(p), "r"((uint32_t)u) : "memory");
        else if constexpr (sizeof(T) == 2)
            asm volatile("st.relaxed.sys.u16 [%0], %1;" ::"l"(p), "h"((uint16_t)u) : "memory");
        else
            asm volatile("st.relaxed.sys.u8 [%0], %1;" ::"l"(p), "r"((uint32_t)u) : "memory");
#endif
        return;
    }
#endif
    *(volatile T *)p = v;
}
SHMEMGI_D unsigned tg_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
SHMEMGI_D unsigned tg_size() { return blockDim.x * blockDim.y * blockDim.z; }
SHMEMGI_D void tg_sync() { __syncthreads(); }
SHMEMGI_D unsigned htg_rank() { return tg_rank() % (unsigned)warpSize; }
SHMEMGI_D unsigned htg_size() {
    unsigned base = tg_rank() - htg_rank(), n = tg_size() - base;
    return n < (unsigned)warpSize ? n : (unsigned)warpSize;
}
SHMEMGI_D void htg_sync() {
#if defined(__HIPCC__)
    __builtin_amdgcn_wave_barrier();
#else
    __syncwarp(htg_size() == 32 ? 0xffffffffu : (1u << htg_size()) - 1);
#endif
}
SHMEMGI_D uint64_t htg_bcast(uint64_t v) {
#if defined(__HIPCC__)
    return __shfl(v, 0);
#else
    return __shfl_sync(htg_size() == 32 ? 0xffffffffu : (1u << htg_size()) - 1, v, 0);
#endif
}
/* A calling group: this thread's rank in it, its size, its barrier. One type per kind of group, so the routines
 * that take one are templates whose barrier is inlined (through a function pointer, every group routine made an
 * indirect call, which a GPU compiler cannot inline and which keeps registers live across it). */
struct grp_thread {
    unsigned rank, size;
    SHMEMGI_D void sync() const {}
};
struct grp_tg {
    unsigned rank, size;
    SHMEMGI_D void sync() const { tg_sync(); }
};
struct grp_htg {
    unsigned rank, size;
    SHMEMGI_D void sync() const { htg_sync(); }
};
SHMEMGI_D grp_thread thread_grp() { return grp_thread{0, 1}; }
SHMEMGI_D grp_tg tg_grp() { return grp_tg{tg_rank(), tg_size()}; }
SHMEMGI_D grp_htg htg_grp() { return grp_htg{htg_rank(), htg_size()}; }
SHMEMGI_D uint64_t vload64(const void *p) { return *(const volatile uint64_t *)p; }
SHMEMGI_D uint32_t vload32(const void *p) { return *(const volatile uint32_t *)p; }
SHMEMGI_D void vstore64(void *p, uint64_t v) { *(volatile uint64_t *)p = v; }
SHMEMGI_D void vstore32(void *p, uint32_t v) { *(volatile uint32_t *)p = v; }
typedef unsigned long long ull;

/* ---- misuse: reported through the host, then the job ends ---- */
/* Out of line and never returning: every check of every routine calls it, so inlined (as SHMEMGI_D is) its body was
 * copied hundreds of times into each kernel; one copy per translation unit (it reads that unit's device state, so it
 * is static, and a .cu file still needs no device link). */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SHMEMGI_COLD static __device__ __noinline__ __attribute__((noreturn, cold))
#else
#define SHMEMGI_COLD static inline __attribute__((noinline, noreturn, cold))
#endif
SHMEMGI_COLD void fail(unsigned what, const char *fn, int pe, const void *addr, size_t len) {
#if defined(GSHMEM_EMULATE_GPU)
    gshmemx_emu_device_fail(what, fn, pe, addr, len);
#else
    const struct shmemgi_dstate &s = st();
    struct shmemgi_derror *e = s.err;
    if (!e) { /* no state: kernel-side communication was not set up; the launch fails with this trap */
#if defined(__HIPCC__)
        __builtin_trap();
#else
        __trap();
#endif
    }
    if (atomicCAS(s.err_claim, 0u, 1u) == 0u) { /* the first report is the one printed */
        e->pe = pe;
        e->addr = (uint64_t)(uintptr_t)addr;
        e->len = len;
        e->what = what;
        int i = 0;
        for (; fn && fn[i] && i < (int)sizeof e->fn - 1; i++)
            e->fn[i] = fn[i];
        e->fn[i] = '\0';
        fence_system();
        vstore32(&e->flag, 1);
    }
    for (;;) /* the proxy prints it and ends the job */
        pause();
#endif
}

SHMEMGI_D void check_init(const char *fn) {
#if defined(GSHMEM_EMULATE_GPU)
    if (gshmem_emu_cur) /* (a plain store on the CPU: shmem_finalize names it if the kernel is still running) */
        __atomic_store_n(&gshmem_emu_cur->routine, fn, __ATOMIC_RELAXED);
#endif
    if (st().magic != SHMEMGI_DSTATE_MAGIC)
        fail(SHMEMGI_ERR_NOT_INIT, fn, -1, nullptr, 0);
}

/* The segment holding [p, p+len), and p's offset in it; a misuse otherwise. */
SHMEMGI_D const struct shmemgi_dseg &seg_of(const void *p, size_t len, uint64_t *off, const char *fn, int pe) {
    const struct shmemgi_dstate &s = st();
    uint64_t a = (uint64_t)(uintptr_t)p;
    for (int i = 0; i < s.nsegs; i++) {
        uint64_t o = a - s.seg[i].base;
        if (o < s.seg[i].size && len <= s.seg[i].size - o) {
            *off = o;
            return s.seg[i];
        }
    }
    fail(SHMEMGI_ERR_ADDR, fn, pe, p, len);
    return s.seg[0];
}

/* ---- teams and contexts: the host's handles, looked up in the tables the library keeps for the device ---- */
SHMEMGI_D const struct shmemgi_dteam &team_of(shmem_team_t t, const char *fn) {
    const struct shmemgi_dstate &s = st();
    uint64_t h = (uint64_t)(uintptr_t)t;
    for (int i = 0; i < SHMEMGI_MAX_DTEAMS; i++)
        if (s.teams[i].handle == h && h)
            return s.teams[i];
    fail(SHMEMGI_ERR_TEAM, fn, -1, (const void *)t, 0);
    return s.teams[0];
}
/* Not a context the table holds: one the host destroyed while kernels ran keeps its entry, its handle's bits
 * inverted (never a live handle: host pointers have their top bit clear), until the entry is needed again */
SHMEMGI_COLD void ctx_fail(uint64_t h, const char *fn) {
    const struct shmemgi_dstate &s = st();
    for (int i = 1; i < SHMEMGI_MAX_DCTX; i++)
        if (s.ctxs[i].handle == ~h && h)
            fail(SHMEMGI_ERR_CTX_GONE, fn, -1, (const void *)(uintptr_t)h, 0);
    fail(SHMEMGI_ERR_CTX, fn, -1, (const void *)(uintptr_t)h, 0);
}
SHMEMGI_D int ctx_index(shmem_ctx_t c, const char *fn) {
    const struct shmemgi_dstate &s = st();
    uint64_t h = (uint64_t)(uintptr_t)c;
    if (h == s.ctx_default)
        return 0;
    for (int i = 1; i < SHMEMGI_MAX_DCTX; i++)
        if (s.ctxs[i].handle == h && h)
            return i;
    ctx_fail(h, fn);
    return 0;
}
SHMEMGI_D int team_world_pe(const struct shmemgi_dteam &t, int i) { return t.pes ? t.pes[i] : t.start + i * t.stride; }
/* a context's team-relative PE -> world PE, checked */
SHMEMGI_D int world_pe(int ctx, int pe, const char *fn) {
    const struct shmemgi_dstate &s = st();
    if (ctx == 0) {
        if ((unsigned)pe >= (unsigned)s.n_pes)
            fail(SHMEMGI_ERR_PE, fn, pe, nullptr, 0);
        return pe;
    }
    const struct shmemgi_dteam &t = s.teams[s.ctxs[ctx].team];
    if ((unsigned)pe >= (unsigned)t.size)
        fail(SHMEMGI_ERR_PE, fn, pe, nullptr, 0);
    return team_world_pe(t, pe);
}

/* ---- the proxy: a request in the ring; blocking ones wait for the proxy's answer (res: all 16 bytes of it) ---- */
SHMEMGI_D uint64_t proxy(struct shmemgi_req r, int ctx, uint64_t *res = nullptr) {
    const struct shmemgi_dstate &s = st();
    struct shmemgi_ring *R = s.ring;
    atomicAdd((ull *)&s.issued[ctx], 1ull); /* before it can be executed: a quiet that sees every issued request
                                               executed and quieted can be skipped */
    uint64_t t = atomicAdd((ull *)s.ring_tail, 1ull);
    struct shmemgi_req *q = &R->slot[t % SHMEMGI_RING_SLOTS];
    while (ld_acquire64(&q->seq) != t) /* the ring is full: wait for the proxy to free this slot (acquire: what
                                          we write below comes after the proxy's last reads of it) */
        pause();
    r.ctx = ctx;
    r.done = 0;
    const uint64_t *src = (const uint64_t *)&r;
    volatile uint64_t *dst = (volatile uint64_t *)q;
    for (unsigned i = 1; i < sizeof r / 8; i++) /* everything but seq */
        dst[i] = src[i];
    st_release64(&q->seq, t + 1); /* the request, then its sequence number */
#if defined(GSHMEM_EMULATE_GPU)
    gshmemx_emu_proxy_doorbell();
#endif
    if (!r.wait)
        return 0;
    while (!ld_acquire32(&q->done)) /* acquire: the answer's words are read after the flag says they are there */
        pause();
    uint64_t lo = vload64(&q->result[0]);
    if (res) {
        res[0] = lo;
        res[1] = vload64(&q->result[1]);
    }
    st_release64(&q->seq, t + SHMEMGI_RING_SLOTS); /* free for the ticket one turn later, after the reads above */
    return lo;
}

/* ---- data movement ---- */
SHMEMGI_D void copy_range(void *dst, const void *src, size_t n, unsigned rank, unsigned size) {
    char *d = (char *)dst;
    const char *s = (const char *)src;
    if (!(((uintptr_t)d | (uintptr_t)s) & 15)) {
        size_t n16 = n / 16;
        for (size_t i = rank; i < n16; i += size) {
            const ull *a = (const ull *)(s + i * 16);
            ull *b = (ull *)(d + i * 16);
            ull x = a[0], y = a[1];
            b[0] = x;
            b[1] = y;
        }
        for (size_t i = n16 * 16 + rank; i < n; i += size)
            d[i] = s[i];
    } else if (!(((uintptr_t)d | (uintptr_t)s) & 7)) {
        size_t n8 = n / 8;
        for (size_t i = rank; i < n8; i += size)
            ((ull *)d)[i] = ((const ull *)s)[i];
        for (size_t i = n8 * 8 + rank; i < n; i += size)
            d[i] = s[i];
    } else {
        for (size_t i = rank; i < n; i += size)
            d[i] = s[i];
    }
}

/* the address of pe's copy of p if this PE maps it, else nullptr */
SHMEMGI_D char *mapped_addr(const void *p, size_t len, int pe, const char *fn) {
    uint64_t off;
    const struct shmemgi_dseg &g = seg_of(p, len, &off, fn, pe);
    uint64_t b = g.peer[pe];
    return b ? (char *)(uintptr_t)(b + off) : nullptr;
}
/* the same for data movement, which SHMEM_DEVICE_PROXY_ALL sends through the proxy even to mapped peers */
SHMEMGI_D char *peer_addr(const void *p, size_t len, int pe, const char *fn) {
    char *a = mapped_addr(p, len, pe, fn);
    return st().proxy_all ? nullptr : a;
}

enum { PUT, GET };
SHMEMGI_D void quiet(int ctx);
/* put or get of n bytes by a group of `size` threads (1 for the thread form), this thread being `rank` */
SHMEMGI_D void rma(int dir, int ctx, void *dest, const void *src, size_t n, int pe, int nbi, unsigned rank,
                   unsigned size, const char *fn) {
    check_init(fn);
    int wpe = world_pe(ctx, pe, fn);
    const void *remote = dir == PUT ? dest : src;
    const void *local = dir == PUT ? src : dest;
    uint64_t off;
    seg_of(local, n, &off, fn, wpe); /* the local buffer must be in the GPU heap too */
    char *p = peer_addr(remote, n, wpe, fn);
    if (p && st().copy_cutover && n >= st().copy_cutover)
        p = nullptr; /* large enough for the copy engine: the proxy hands it to the host path (a GPU copy) */
    if (p) {
        if (dir == PUT)
            copy_range(p, src, n, rank, size);
        else
            copy_range(dest, p, n, rank, size);
        return;
    }
    if (rank == 0) {
        struct shmemgi_req r = {};
        r.op = dir == PUT ? SHMEMGI_OP_PUT : SHMEMGI_OP_GET;
        r.pe = wpe;
        r.dst = (uint64_t)(uintptr_t)dest;
        r.src = (uint64_t)(uintptr_t)src;
        r.len = n;
        r.wait = !nbi;
        proxy(r, ctx);
    }
}

SHMEMGI_D uint64_t amo_direct(void *p, int op, uint64_t v, uint64_t c, int size) {
    if (size == 4) {
        unsigned *q = (unsigned *)p, x = (unsigned)v, y = (unsigned)c;
        switch (op) {
        case SHMEMGI_AMO_FETCH: return atomicOr_system(q, 0u);
        case SHMEMGI_AMO_SET: atomicExch_system(q, x); return 0;
        case SHMEMGI_AMO_SWAP: return atomicExch_system(q, x);
        case SHMEMGI_AMO_CSWAP: return atomicCAS_system(q, y, x);
        case SHMEMGI_AMO_FETCH_INC:
        case SHMEMGI_AMO_INC: return atomicAdd_system(q, 1u);
        case SHMEMGI_AMO_FETCH_ADD:
        case SHMEMGI_AMO_ADD: return atomicAdd_system(q, x);
        case SHMEMGI_AMO_FETCH_AND:
        case SHMEMGI_AMO_AND: return atomicAnd_system(q, x);
        case SHMEMGI_AMO_FETCH_OR:
        case SHMEMGI_AMO_OR: return atomicOr_system(q, x);
        default: return atomicXor_system(q, x);
        }
    }
    ull *q = (ull *)p, x = (ull)v, y = (ull)c;
    switch (op) {
    case SHMEMGI_AMO_FETCH: return atomicOr_system(q, 0ull);
    case SHMEMGI_AMO_SET: atomicExch_system(q, x); return 0;
    case SHMEMGI_AMO_SWAP: return atomicExch_system(q, x);
    case SHMEMGI_AMO_CSWAP: return atomicCAS_system(q, y, x);
    case SHMEMGI_AMO_FETCH_INC:
    case SHMEMGI_AMO_INC: return atomicAdd_system(q, 1ull);
    case SHMEMGI_AMO_FETCH_ADD:
    case SHMEMGI_AMO_ADD: return atomicAdd_system(q, x);
    case SHMEMGI_AMO_FETCH_AND:
    case SHMEMGI_AMO_AND: return atomicAnd_system(q, x);
    case SHMEMGI_AMO_FETCH_OR:
    case SHMEMGI_AMO_OR: return atomicOr_system(q, x);
    default: return atomicXor_system(q, x);
    }
}

SHMEMGI_D int amo_fetches(int op) {
    return op == SHMEMGI_AMO_FETCH || op == SHMEMGI_AMO_SWAP || op == SHMEMGI_AMO_CSWAP ||
           op == SHMEMGI_AMO_FETCH_INC || op == SHMEMGI_AMO_FETCH_ADD || op == SHMEMGI_AMO_FETCH_AND ||
           op == SHMEMGI_AMO_FETCH_OR || op == SHMEMGI_AMO_FETCH_XOR;
}

/* whether this PE's atomics on pe's mapped GPU memory may be its GPU's own: the same GPU, or native atomics over the
 * link (state.h's peer_amo); else they go to the proxy, whose host path has pe apply them */
SHMEMGI_D bool peer_native_amo(int pe) { return st().peer_amo[pe]; }

/* an atomic on pe's copy of dest; fetch (nbi fetching forms) receives the old value, else it is returned */
SHMEMGI_D uint64_t amo(int ctx, int op, void *dest, uint64_t v, uint64_t c, int size, int pe, void *fetch,
                       const char *fn) {
    check_init(fn);
    int wpe = world_pe(ctx, pe, fn);
    if ((uintptr_t)dest & (size_t)(size - 1))
        fail(SHMEMGI_ERR_ALIGN, fn, wpe, dest, (size_t)size);
    if (fetch) {
        uint64_t off;
        seg_of(fetch, (size_t)size, &off, fn, wpe);
    }
    /* A mapped peer's object is updated by this thread's system-scope atomic whenever its GPU may (the same GPU, or
     * native atomics over the link): through the proxy the host would have to launch a kernel for it (the CPU cannot
     * reach a discrete GPU's memory), which needs a free SM and never gets one while the calling kernel holds them
     * all and waits for the answer. Without native atomics the proxy has the owner apply it (over the network). */
    char *p = mapped_addr(dest, (size_t)size, wpe, fn);
    if (p && peer_native_amo(wpe)) {
        uint64_t old = amo_direct(p, op, v, c, size);
        if (fetch) {
            if (size == 4)
                *(unsigned *)fetch = (unsigned)old;
            else
                *(ull *)fetch = old;
        }
        return old;
    }
    struct shmemgi_req r = {};
    r.op = SHMEMGI_OP_AMO;
    r.amo = (uint32_t)op;
    r.size = (uint32_t)size;
    r.pe = wpe;
    r.dst = (uint64_t)(uintptr_t)dest;
    r.src = (uint64_t)(uintptr_t)fetch; /* nbi fetching: where the proxy stores the old value */
    r.value = v;
    r.cond = c;
    r.wait = amo_fetches(op) && !fetch;
    return proxy(r, ctx);
}

template <class G>
SHMEMGI_D void put_signal(const G &g, int ctx, void *dest, const void *src, size_t n, uint64_t *sig, uint64_t signal,
                          int sig_op, int pe, int nbi, const char *fn) {
    const unsigned rank = g.rank, size = g.size;
    check_init(fn);
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        fail(SHMEMGI_ERR_SIGOP, fn, pe, sig, (size_t)sig_op);
    int wpe = world_pe(ctx, pe, fn);
    uint64_t off;
    seg_of(src, n, &off, fn, wpe);
    char *ps = mapped_addr(sig, 8, wpe, fn);
    if (ps && peer_native_amo(wpe)) { /* the signal is this thread's atomic, as any atomic on such a peer (amo) */
        char *p = peer_addr(dest, n, wpe, fn);
        if (p)
            copy_range(p, src, n, rank, size);
        else if (rank == 0 && n) { /* (SHMEM_DEVICE_PROXY_ALL) the data through the proxy, delivered before */
            rma(PUT, ctx, dest, src, n, pe, 1, 0, 1, fn);
            quiet(ctx);
        }
        g.sync(); /* every thread's part is written */
        if (rank == 0) {
            fence_acq_rel(); /* the data before the signal */
            if (sig_op == SHMEM_SIGNAL_SET)
                atomicExch_system((ull *)ps, (ull)signal);
            else
                atomicAdd_system((ull *)ps, (ull)signal);
        }
        return;
    }
    if (rank == 0) {
        struct shmemgi_req r = {};
        r.op = SHMEMGI_OP_PUT_SIGNAL;
        r.amo = (uint32_t)sig_op;
        r.pe = wpe;
        r.dst = (uint64_t)(uintptr_t)dest;
        r.src = (uint64_t)(uintptr_t)src;
        r.len = n;
        r.sig = (uint64_t)(uintptr_t)sig;
        r.value = signal;
        r.wait = !nbi;
        proxy(r, ctx);
    }
}

/* ---- ordering ----
 * Whether a context has requests the proxy may not have completed: both counters are in device memory (the count of
 * requests handed over, and the count the last quiet's answer said were complete), so a kernel whose peers are all
 * mapped never reads host memory across PCIe to order its operations. */
SHMEMGI_D int in_flight(int ctx) {
    const struct shmemgi_dstate &s = st();
    return vload64(&s.issued[ctx]) != vload64(&s.quieted[ctx]);
}
SHMEMGI_D void quiet(int ctx) {
    fence_acq_rel(); /* the calling thread's direct stores and atomics, before whatever follows */
    if (in_flight(ctx)) {
        struct shmemgi_req r = {};
        r.op = SHMEMGI_OP_QUIET;
        r.pe = -1;
        r.wait = 1;
        uint64_t done = proxy(r, ctx); /* the context's requests the proxy had completed, this quiet included */
        atomicMax((ull *)&st().quieted[ctx], (ull)done);
    }
}
SHMEMGI_D void fence(int ctx) {
    fence_acq_rel(); /* the calling thread's direct stores and atomics are ordered */
    if (!in_flight(ctx))
        return;
    if (st().fence_quiet) { /* a later operation to the same PE may take the direct path, past the proxy's queue:
                               what is queued must have landed first */
        quiet(ctx);
        return;
    }
    struct shmemgi_req r = {}; /* every operation to those PEs goes through the proxy: it orders them */
    r.op = SHMEMGI_OP_FENCE;
    r.pe = -1;
    proxy(r, ctx);
}

/* ---- waits on local objects ---- */
template <class T> SHMEMGI_D T load(const T *p) { return *(const volatile T *)p; }
template <class T> SHMEMGI_D int cmp(T a, int op, T b) {
    switch (op) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return a > b;
    case SHMEM_CMP_GE: return a >= b;
    case SHMEM_CMP_LT: return a < b;
    default: return a <= b;
    }
}
template <class T> SHMEMGI_D void check_wait(const T *ivar, int op, const char *fn) {
    check_init(fn);
    if (op < SHMEM_CMP_EQ || op > SHMEM_CMP_LE)
        fail(SHMEMGI_ERR_CMP, fn, op, ivar, 0);
    uint64_t off;
    seg_of(ivar, sizeof(T), &off, fn, -1);
}
template <class T> SHMEMGI_D T wait_until(const T *ivar, int op, T v, const char *fn) {
    check_wait(ivar, op, fn);
    T x;
    while (!cmp(x = load(ivar), op, v))
        pause();
    fence_acq_rel(); /* what the writer stored before the value is seen after it */
    return x;
}
template <class T> SHMEMGI_D int test(const T *ivar, int op, T v, const char *fn) {
    check_wait(ivar, op, fn);
    int r = cmp(load(ivar), op, v);
    if (r)
        fence_acq_rel();
    return r;
}

/* ---- barriers of device teams: dissemination, a counter per round in each member's GPU heap ---- */
SHMEMGI_D int team_sync(const struct shmemgi_dteam &t, const char *fn) {
    const struct shmemgi_dstate &s = st();
    fence_acq_rel(); /* memory stores before the barrier are seen after it */
    int n = t.size, me = t.my_pe;
    if (n <= 1)
        return 0;
    uint64_t e = ++s.epoch[t.index];
    uint64_t *row = s.sync + (size_t)t.index * SHMEMGI_SYNC_ROUNDS;
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        amo(0, SHMEMGI_AMO_ADD, &row[k], 1, 0, 8, team_world_pe(t, (me + d) % n), nullptr, fn);
        while (load(&row[k]) < e)
            pause();
    }
    fence_acq_rel();
    return 0;
}

/* ---- typed helpers (shmemg_device_typed.h calls them) ---- */
template <class T> SHMEMGI_D uint64_t bits(T v) {
    uint64_t u = 0;
    __builtin_memcpy(&u, &v, sizeof v);
    return u;
}
template <class T> SHMEMGI_D T from_bits(uint64_t u) {
    T v;
    __builtin_memcpy(&v, &u, sizeof v);
    return v;
}
template <class T> SHMEMGI_D void p(int ctx, T *dest, T value, int pe, const char *fn) {
    check_init(fn);
    int wpe = world_pe(ctx, pe, fn);
    char *q = peer_addr(dest, sizeof(T), wpe, fn);
    if (q) {
        st_relaxed((T *)q, value); /* waiters on the peer load it (volatile): a plain store may be cached or merged */
        return;
    }
    struct shmemgi_req r = {};
    r.op = SHMEMGI_OP_PUT;
    r.pe = wpe;
    r.dst = (uint64_t)(uintptr_t)dest;
    r.len = sizeof(T);
    r.size = 1; /* the data travels in the request (value, then cond for 16-byte types) */
    uint64_t v[2] = {0, 0};
    __builtin_memcpy(v, &value, sizeof value);
    r.value = v[0];
    r.cond = v[1];
    proxy(r, ctx);
}
template <class T> SHMEMGI_D T g(int ctx, const T *src, int pe, const char *fn) {
    check_init(fn);
    int wpe = world_pe(ctx, pe, fn);
    const char *q = peer_addr(src, sizeof(T), wpe, fn);
    if (q)
        return *(const volatile T *)q;
    struct shmemgi_req r = {};
    r.op = SHMEMGI_OP_GET;
    r.pe = wpe;
    r.src = (uint64_t)(uintptr_t)src;
    r.len = sizeof(T);
    r.size = 1; /* the data comes back in the request (result, then pad) */
    r.wait = 1;
    uint64_t res[2] = {0, 0};
    proxy(r, ctx, res);
    T v;
    __builtin_memcpy(&v, res, sizeof v);
    return v;
}
template <class T> SHMEMGI_D T amo_t(int ctx, int op, T *dest, T value, T cond, int pe, T *fetch, const char *fn) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "OpenSHMEM atomics are on 4- and 8-byte objects");
    return from_bits<T>(amo(ctx, op, dest, bits(value), bits(cond), (int)sizeof(T), pe, fetch, fn));
}
template <class T> SHMEMGI_D void wait_until_tg(const T *ivar, int op, T v, const char *fn) {
    tg_sync();
    if (tg_rank() == 0)
        wait_until(ivar, op, v, fn);
    tg_sync();
}
template <class T> SHMEMGI_D void wait_until_htg(const T *ivar, int op, T v, const char *fn) {
    htg_sync();
    if (htg_rank() == 0)
        wait_until(ivar, op, v, fn);
    htg_sync();
    fence_acq_rel();
}
template <class T> SHMEMGI_D int test_tg(const T *ivar, int op, T v, const char *fn) {
    __shared__ int r;
    tg_sync();
    if (tg_rank() == 0)
        r = test(ivar, op, v, fn);
    tg_sync();
    int x = r;
    tg_sync();
    return x;
}
template <class T> SHMEMGI_D int test_htg(const T *ivar, int op, T v, const char *fn) {
    int r = 0;
    htg_sync();
    if (htg_rank() == 0)
        r = test(ivar, op, v, fn);
    r = (int)htg_bcast((uint64_t)r);
    fence_acq_rel();
    return r;
}

} // namespace shmemgi

/* ==== the specification's device routines (untyped; typed ones in shmemg_device_typed.h) ==== */
#define SHMEMGI_API SHMEMGI_D

#if defined(SHMEMGI_DEVICE_PASS)
#undef SHMEM_DEVICE_CTX_DEFAULT
#undef SHMEM_DEVICE_TEAM_WORLD
#undef SHMEM_DEVICE_TEAM_SHARED
#define SHMEM_DEVICE_CTX_DEFAULT ((shmem_ctx_t)(uintptr_t)shmemgi::st().ctx_default)
#define SHMEM_DEVICE_TEAM_WORLD ((shmem_team_t)(uintptr_t)shmemgi::st().team_world)
#define SHMEM_DEVICE_TEAM_SHARED ((shmem_team_t)(uintptr_t)shmemgi::st().team_shared)
#endif

SHMEMGI_API int shmemg_my_pe(void) {
    shmemgi::check_init("shmemg_my_pe");
    return shmemgi::st().my_pe;
}
SHMEMGI_API int shmemg_n_pes(void) {
    shmemgi::check_init("shmemg_n_pes");
    return shmemgi::st().n_pes;
}
SHMEMGI_API void *shmemg_ptr(const void *dest, int pe) {
    shmemgi::check_init("shmemg_ptr");
    if ((unsigned)pe >= (unsigned)shmemgi::st().n_pes)
        shmemgi::fail(SHMEMGI_ERR_PE, "shmemg_ptr", pe, dest, 0);
    uint64_t off; /* (a pointer whatever SHMEM_DEVICE_PROXY_ALL says: it only routes operations) */
    const struct shmemgi_dseg &g = shmemgi::seg_of(dest, 1, &off, "shmemg_ptr", pe);
    return g.peer[pe] ? (void *)(uintptr_t)(g.peer[pe] + off) : nullptr;
}

namespace shmemgi {
/* a put or get by a group (between its barriers: every thread's part of the source is written before, and the whole
 * destination after), or by one thread */
template <class G>
SHMEMGI_D void rma_grp(const G &g, int dir, shmem_ctx_t ctx, int ctx_form, void *dest, const void *src, size_t n,
                       int pe, int nbi, const char *fn) {
    check_init(fn);
    int c = ctx_form ? ctx_index(ctx, fn) : 0;
    g.sync();
    rma(dir, c, dest, src, n, pe, nbi, g.rank, g.size, fn);
    g.sync();
}
template <class G>
SHMEMGI_D void put_signal_grp(const G &g, shmem_ctx_t ctx, int ctx_form, void *dest, const void *src, size_t n,
                              uint64_t *sig, uint64_t signal, int sig_op, int pe, int nbi, const char *fn) {
    check_init(fn);
    int c = ctx_form ? ctx_index(ctx, fn) : 0;
    g.sync();
    put_signal(g, c, dest, src, n, sig, signal, sig_op, pe, nbi, fn);
    g.sync();
}
} // namespace shmemgi

#define SHMEMGI_RMA_FORMS(NAME, DIR, NBI, SUFFIX, GRP)                                                                 \
    SHMEMGI_API void shmemg_##NAME##SUFFIX(void *dest, const void *source, size_t nelems, int pe) {                    \
        shmemgi::rma_grp(shmemgi::GRP(), shmemgi::DIR, nullptr, 0, dest, source, nelems, pe, NBI,                      \
                         "shmemg_" #NAME #SUFFIX);                                                                     \
    }                                                                                                                  \
    SHMEMGI_API void shmemg_ctx_##NAME##SUFFIX(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,         \
                                               int pe) {                                                               \
        shmemgi::rma_grp(shmemgi::GRP(), shmemgi::DIR, ctx, 1, dest, source, nelems, pe, NBI,                          \
                         "shmemg_ctx_" #NAME #SUFFIX);                                                                 \
    }
#define SHMEMGI_RMA_GRANS(NAME, DIR, NBI)                                                                              \
    SHMEMGI_RMA_FORMS(NAME, DIR, NBI, , thread_grp)                                                                    \
    SHMEMGI_RMA_FORMS(NAME, DIR, NBI, _tg, tg_grp)                                                                     \
    SHMEMGI_RMA_FORMS(NAME, DIR, NBI, _htg, htg_grp)
SHMEMGI_RMA_GRANS(putmem, PUT, 0)
SHMEMGI_RMA_GRANS(putmem_nbi, PUT, 1)
SHMEMGI_RMA_GRANS(getmem, GET, 0)
SHMEMGI_RMA_GRANS(getmem_nbi, GET, 1)
#undef SHMEMGI_RMA_GRANS
#undef SHMEMGI_RMA_FORMS

#define SHMEMGI_SIGNAL_FORMS(NAME, NBI, SUFFIX, GRP)                                                                   \
    SHMEMGI_API void shmemg_##NAME##SUFFIX(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,          \
                                           uint64_t signal, int sig_op, int pe) {                                      \
        shmemgi::put_signal_grp(shmemgi::GRP(), nullptr, 0, dest, source, nelems, sig_addr, signal, sig_op, pe, NBI,   \
                                "shmemg_" #NAME #SUFFIX);                                                              \
    }                                                                                                                  \
    SHMEMGI_API void shmemg_ctx_##NAME##SUFFIX(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,         \
                                               uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {              \
        shmemgi::put_signal_grp(shmemgi::GRP(), ctx, 1, dest, source, nelems, sig_addr, signal, sig_op, pe, NBI,       \
                                "shmemg_ctx_" #NAME #SUFFIX);                                                          \
    }
#define SHMEMGI_SIGNAL_GRANS(NAME, NBI)                                                                                \
    SHMEMGI_SIGNAL_FORMS(NAME, NBI, , thread_grp)                                                                      \
    SHMEMGI_SIGNAL_FORMS(NAME, NBI, _tg, tg_grp)                                                                       \
    SHMEMGI_SIGNAL_FORMS(NAME, NBI, _htg, htg_grp)
SHMEMGI_SIGNAL_GRANS(putmem_signal, 0)
SHMEMGI_SIGNAL_GRANS(putmem_signal_nbi, 1)
#undef SHMEMGI_SIGNAL_GRANS
#undef SHMEMGI_SIGNAL_FORMS

SHMEMGI_API uint64_t shmemg_signal_fetch(const uint64_t *sig_addr) {
    shmemgi::check_init("shmemg_signal_fetch");
    uint64_t off;
    shmemgi::seg_of(sig_addr, 8, &off, "shmemg_signal_fetch", -1);
    uint64_t v = shmemgi::load(sig_addr);
    shmemgi::fence_acq_rel();
    return v;
}
SHMEMGI_API uint64_t shmemg_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    return shmemgi::wait_until<uint64_t>(sig_addr, cmp, cmp_value, "shmemg_signal_wait_until");
}
SHMEMGI_API uint64_t shmemg_signal_wait_until_tg(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    __shared__ uint64_t seen;
    shmemgi::tg_sync();
    if (shmemgi::tg_rank() == 0)
        seen = shmemgi::wait_until<uint64_t>(sig_addr, cmp, cmp_value, "shmemg_signal_wait_until_tg");
    shmemgi::tg_sync();
    uint64_t v = seen;
    shmemgi::tg_sync();
    return v;
}
SHMEMGI_API uint64_t shmemg_signal_wait_until_htg(uint64_t *sig_addr, int cmp, uint64_t cmp_value) {
    uint64_t v = 0;
    shmemgi::htg_sync();
    if (shmemgi::htg_rank() == 0)
        v = shmemgi::wait_until<uint64_t>(sig_addr, cmp, cmp_value, "shmemg_signal_wait_until_htg");
    v = shmemgi::htg_bcast(v);
    shmemgi::fence_acq_rel();
    return v;
}

namespace shmemgi {
/* fence or quiet by a group: its first thread does it for all, between the group's barriers */
template <class G>
SHMEMGI_D void order(const G &g, shmem_ctx_t ctx, int ctx_form, int is_quiet, const char *fn) {
    if (ctx_form && !ctx) /* SHMEM_CTX_INVALID: nothing to order or complete */
        return;
    check_init(fn);
    int c = ctx_form ? ctx_index(ctx, fn) : 0;
    g.sync();
    if (g.rank == 0) {
        if (is_quiet)
            quiet(c);
        else
            fence(c);
    }
    g.sync();
}
template <class G>
SHMEMGI_D int team_sync_grp(const G &g, shmem_team_t team, const char *fn) {
    check_init(fn);
    const struct shmemgi_dteam &t = team_of(team, fn);
    g.sync();
    int r = g.rank == 0 ? team_sync(t, fn) : 0;
    g.sync();
    return r;
}
} // namespace shmemgi

#define SHMEMGI_ORDER_FORMS(NAME, Q, SUFFIX, GRP)                                                                      \
    SHMEMGI_API void shmemg_##NAME##SUFFIX(void) {                                                                     \
        shmemgi::order(shmemgi::GRP(), nullptr, 0, Q, "shmemg_" #NAME #SUFFIX);                                        \
    }                                                                                                                  \
    SHMEMGI_API void shmemg_ctx_##NAME##SUFFIX(shmem_ctx_t ctx) {                                                      \
        shmemgi::order(shmemgi::GRP(), ctx, 1, Q, "shmemg_ctx_" #NAME #SUFFIX);                                        \
    }
SHMEMGI_ORDER_FORMS(fence, 0, , thread_grp)
SHMEMGI_ORDER_FORMS(fence, 0, _tg, tg_grp)
SHMEMGI_ORDER_FORMS(fence, 0, _htg, htg_grp)
SHMEMGI_ORDER_FORMS(quiet, 1, , thread_grp)
SHMEMGI_ORDER_FORMS(quiet, 1, _tg, tg_grp)
SHMEMGI_ORDER_FORMS(quiet, 1, _htg, htg_grp)
#undef SHMEMGI_ORDER_FORMS

SHMEMGI_API int shmemg_team_sync(shmem_team_t team) {
    return shmemgi::team_sync_grp(shmemgi::thread_grp(), team, "shmemg_team_sync");
}
SHMEMGI_API int shmemg_team_sync_tg(shmem_team_t team) {
    return shmemgi::team_sync_grp(shmemgi::tg_grp(), team, "shmemg_team_sync_tg");
}
SHMEMGI_API int shmemg_team_sync_htg(shmem_team_t team) {
    return shmemgi::team_sync_grp(shmemgi::htg_grp(), team, "shmemg_team_sync_htg");
}
SHMEMGI_API int shmemg_sync_all(void) { return shmemg_team_sync(SHMEM_DEVICE_TEAM_WORLD); }
SHMEMGI_API int shmemg_sync_all_tg(void) { return shmemg_team_sync_tg(SHMEM_DEVICE_TEAM_WORLD); }
SHMEMGI_API int shmemg_sync_all_htg(void) { return shmemg_team_sync_htg(SHMEM_DEVICE_TEAM_WORLD); }

/* ==== gshmem extensions: collectives inside kernels on device teams (shmemgx_*), at thread, block (_tg) and warp
 * (_htg) granularity. One calling entity (thread, block or warp) per PE per collective, as for team_sync; like the
 * host's team collectives they complete on return (a barrier at the end), and the data moves with the same puts and
 * gets as the RMA routines (direct to mapped peers, the proxy otherwise). ==== */
namespace shmemgi {

/* the group's puts are complete everywhere, then every member of the team has arrived */
template <class G>
SHMEMGI_D void coll_end(const G &g, const struct shmemgi_dteam &t, const char *fn) {
    g.sync();
    if (g.rank == 0) {
        quiet(0);
        team_sync(t, fn);
    }
    g.sync();
}
template <class G>
SHMEMGI_D void coll_begin(const G &g, const struct shmemgi_dteam &t, const char *fn) {
    g.sync(); /* every thread's part of the source is written */
    (void)t;
    (void)fn;
}

template <class G>
SHMEMGI_D void barrier_all(const G &g, const char *fn) {
    check_init(fn);
    coll_end(g, team_of(SHMEM_DEVICE_TEAM_WORLD, fn), fn);
}

template <class G>
SHMEMGI_D int broadcastmem(const G &g, shmem_team_t team, void *dest, const void *src, size_t n, int root,
                           const char *fn) {
    check_init(fn);
    const struct shmemgi_dteam &t = team_of(team, fn);
    if ((unsigned)root >= (unsigned)t.size)
        fail(SHMEMGI_ERR_PE, fn, root, nullptr, 0);
    coll_begin(g, t, fn);
    if (t.my_pe == root)
        for (int i = 0; i < t.size; i++)
            rma(PUT, 0, dest, src, n, team_world_pe(t, i), 1, g.rank, g.size, fn);
    coll_end(g, t, fn);
    return 0;
}

/* every member sends one n-byte block to every member, starting with the next one so not everyone writes to the
 * same PE at once; block i of src goes to member i (alltoall, src_stride n) or the one block to all (fcollect, 0) */
template <class G>
SHMEMGI_D int exchangemem(const G &g, shmem_team_t team, void *dest, const void *src, size_t n, size_t src_stride,
                          const char *fn) {
    check_init(fn);
    const struct shmemgi_dteam &t = team_of(team, fn);
    coll_begin(g, t, fn);
    for (int k = 0; k < t.size; k++) {
        int i = (t.my_pe + k) % t.size;
        rma(PUT, 0, (char *)dest + (size_t)t.my_pe * n, (const char *)src + (size_t)i * src_stride, n,
            team_world_pe(t, i), 1, g.rank, g.size, fn);
    }
    coll_end(g, t, fn);
    return 0;
}

enum { RED_SUM, RED_PROD, RED_MIN, RED_MAX, RED_AND, RED_OR, RED_XOR };
template <class T, int OP> SHMEMGI_D T red_op(T a, T b) {
    if constexpr (OP == RED_SUM)
        return a + b;
    else if constexpr (OP == RED_PROD)
        return a * b;
    else if constexpr (OP == RED_MIN)
        return b < a ? b : a;
    else if constexpr (OP == RED_MAX)
        return b > a ? b : a;
    else if constexpr (OP == RED_AND)
        return (T)(a & b);
    else if constexpr (OP == RED_OR)
        return (T)(a | b);
    else
        return (T)(a ^ b);
}
/* The type a reduction of T accumulates in, and the conversions there and back: T itself, unless a specialization
 * says otherwise (the NVSHMEM front end's half and bfloat16 accumulate in float and round once at the end). */
template <class T> struct red_acc {
    typedef T type;
    static SHMEMGI_D T to(T v) { return v; }
    static SHMEMGI_D T from(T v) { return v; }
};
/* Each member reads every member's source (its own loads where mapped, gets through the proxy into the scratch
 * otherwise) and reduces into its scratch; the result reaches dest after a barrier, so dest may be the source. */
template <class T, int OP, class G>
SHMEMGI_D int reduce(const G &g, shmem_team_t team, T *dest, const T *src, size_t nreduce, const char *fn) {
    typedef red_acc<T> R;
    typedef typename R::type A;
    static_assert(sizeof(A) >= sizeof(T), "a peer's piece must fit where its accumulators do");
    check_init(fn);
    const struct shmemgi_dstate &s = st();
    const struct shmemgi_dteam &t = team_of(team, fn);
    uint64_t off;
    seg_of(dest, nreduce * sizeof(T), &off, fn, -1);
    seg_of(src, nreduce * sizeof(T), &off, fn, -1);
    size_t chunk = s.coll_half / sizeof(A);
    A *acc = (A *)t.scratch;
    T *piece = (T *)(t.scratch + s.coll_half);
    for (size_t base = 0; base < nreduce || (base == 0 && nreduce == 0); base += chunk) {
        size_t m = nreduce - base < chunk ? nreduce - base : chunk;
        g.sync();
        if (g.rank == 0)
            team_sync(t, fn); /* every member's source is ready (and the last chunk's reads are done) */
        g.sync();
        for (size_t i = g.rank; i < m; i += g.size)
            acc[i] = R::to(src[base + i]);
        for (int k = 1; k < t.size; k++) {
            int pe = team_world_pe(t, (t.my_pe + k) % t.size);
            const T *p = (const T *)peer_addr(src + base, m * sizeof(T), pe, fn);
            if (!p) { /* through the proxy, into the scratch */
                g.sync();
                if (g.rank == 0) { /* (the scratch is outside the GPU heap: the request directly) */
                    struct shmemgi_req r = {};
                    r.op = SHMEMGI_OP_GET;
                    r.pe = pe;
                    r.dst = (uint64_t)(uintptr_t)piece;
                    r.src = (uint64_t)(uintptr_t)(src + base);
                    r.len = m * sizeof(T);
                    r.wait = 1;
                    proxy(r, 0);
                }
                g.sync();
                p = piece;
            }
            for (size_t i = g.rank; i < m; i += g.size)
                acc[i] = red_op<A, OP>(acc[i], R::to(*(const volatile T *)&p[i]));
            g.sync();
        }
        g.sync();
        if (g.rank == 0)
            team_sync(t, fn); /* every member has read this chunk of every source: dest may be written */
        g.sync();
        for (size_t i = g.rank; i < m; i += g.size)
            dest[base + i] = R::from(acc[i]);
        if (nreduce == 0)
            break;
    }
    g.sync();
    return 0;
}
} // namespace shmemgi

#define SHMEMGI_GX_FORMS(SUFFIX, GRP)                                                                                  \
    SHMEMGI_API void shmemgx_barrier_all##SUFFIX(void) {                                                               \
        shmemgi::barrier_all(shmemgi::GRP(), "shmemgx_barrier_all" #SUFFIX);                                           \
    }                                                                                                                  \
    SHMEMGI_API int shmemgx_broadcastmem##SUFFIX(shmem_team_t team, void *dest, const void *source, size_t nelems,     \
                                                 int pe_root) {                                                        \
        return shmemgi::broadcastmem(shmemgi::GRP(), team, dest, source, nelems, pe_root,                              \
                                     "shmemgx_broadcastmem" #SUFFIX);                                                  \
    }                                                                                                                  \
    SHMEMGI_API int shmemgx_fcollectmem##SUFFIX(shmem_team_t team, void *dest, const void *source, size_t nelems) {    \
        return shmemgi::exchangemem(shmemgi::GRP(), team, dest, source, nelems, 0, "shmemgx_fcollectmem" #SUFFIX);        \
    }                                                                                                                  \
    SHMEMGI_API int shmemgx_alltoallmem##SUFFIX(shmem_team_t team, void *dest, const void *source, size_t nelems) {    \
        return shmemgi::exchangemem(shmemgi::GRP(), team, dest, source, nelems, nelems, "shmemgx_alltoallmem" #SUFFIX);        \
    }
SHMEMGI_GX_FORMS(, thread_grp)
SHMEMGI_GX_FORMS(_tg, tg_grp)
SHMEMGI_GX_FORMS(_htg, htg_grp)
#undef SHMEMGI_GX_FORMS

/* ==== stream-ordered host routines (shmemx_*_on_stream) ====
 * Each is a template of one defaulted parameter, called as a plain function, and so is each kernel it launches: a
 * kernel is compiled only into the translation units that call its routine. (As plain inline functions, every unit
 * including this header compiled all 49 of them for the GPU, whatever it used.) Collectives, waits and quiet are a
 * one-block kernel of this library on the stream; a put or get to a peer whose GPU heap this PE maps is the copy
 * engine's (cudaMemcpyAsync / hipMemcpyAsync on the stream, to the peer's mapped address), at link speed instead of
 * one block's, and ordered with the stream's kernels and captured into graphs as they are; other peers' go through a
 * one-block kernel and the proxy. */
#include <shmemx.h>
#define SHMEMGI_OS_THREADS 256
#if defined(GSHMEM_EMULATE_GPU)
#define SHMEMGI_LAUNCH_N(k, nt, s, ...)                                                                                \
    (k << ::gshmem_emu::cfg(1, nt, 0, (cudaStream_t)(s)) << ::gshmem_emu::args(__VA_ARGS__))
#elif defined(__HIPCC__)
#define SHMEMGI_LAUNCH_N(k, nt, s, ...) hipLaunchKernelGGL(k, 1, nt, 0, (hipStream_t)(s), __VA_ARGS__)
#else
#define SHMEMGI_LAUNCH_N(k, nt, s, ...) k<<<1, nt, 0, (cudaStream_t)(s)>>>(__VA_ARGS__)
#endif
#define SHMEMGI_LAUNCH(k, s, ...) SHMEMGI_LAUNCH_N(k, SHMEMGI_OS_THREADS, s, __VA_ARGS__)
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SHMEMGI_KERNEL static __global__ void
#else
#define SHMEMGI_KERNEL static void
#endif
#define SHMEMGI_HOST template <int = 0> static inline

namespace shmemgi {
/* put (and its quiet: the data is delivered before the stream's later work), get, put with signal */
template <int = 0> SHMEMGI_KERNEL os_put(void *d, const void *s, size_t n, int pe) {
    shmemg_putmem_tg(d, s, n, pe);
    shmemg_quiet_tg();
}
template <int = 0> SHMEMGI_KERNEL os_get(void *d, const void *s, size_t n, int pe) { shmemg_getmem_tg(d, s, n, pe); }
template <int = 0>
SHMEMGI_KERNEL os_put_signal(void *d, const void *s, size_t n, uint64_t *sig, uint64_t v, int op, int pe) {
    shmemg_putmem_signal_tg(d, s, n, sig, v, op, pe);
}
/* the signal after a copy engine's put (already complete: the stream ran it first); stream memory operations
 * (cuStreamWriteValue64) are the driver API's and only set a value, where the signal may be an add */
template <int = 0>
SHMEMGI_KERNEL os_signal(void *d, const void *s, uint64_t *sig, uint64_t v, int op, int pe) {
    shmemg_putmem_signal(d, s, 0, sig, v, op, pe);
}
template <int = 0> SHMEMGI_KERNEL os_signal_wait(uint64_t *sig, int cmp, uint64_t v) {
    shmemg_signal_wait_until_tg(sig, cmp, v);
}
template <int = 0> SHMEMGI_KERNEL os_quiet(int) { shmemg_quiet_tg(); }
template <int = 0> SHMEMGI_KERNEL os_barrier_all(int) { shmemgx_barrier_all_tg(); }
template <int = 0> SHMEMGI_KERNEL os_sync_all(int) { shmemg_sync_all_tg(); }
template <int = 0> SHMEMGI_KERNEL os_broadcast(shmem_team_t t, void *d, const void *s, size_t n, int root) {
    shmemgx_broadcastmem_tg(t, d, s, n, root);
}
template <int = 0> SHMEMGI_KERNEL os_fcollect(shmem_team_t t, void *d, const void *s, size_t n) {
    shmemgx_fcollectmem_tg(t, d, s, n);
}
template <int = 0> SHMEMGI_KERNEL os_alltoall(shmem_team_t t, void *d, const void *s, size_t n) {
    shmemgx_alltoallmem_tg(t, d, s, n);
}
template <class T, int OP> SHMEMGI_KERNEL os_reduce(shmem_team_t t, T *d, const T *s, size_t n) {
    reduce<T, OP>(tg_grp(), t, d, s, n, "shmemx_reduce_on_stream");
}
/* a copy on the stream, after its earlier work and before its later work, as a kernel there would be */
static inline void os_copy(void *d, const void *s, size_t n, shmemx_stream_t st) {
#if defined(__HIPCC__) && !defined(GSHMEM_EMULATE_GPU)
    (void)hipMemcpyAsync(d, s, n, hipMemcpyDefault, (hipStream_t)st);
#else
    (void)cudaMemcpyAsync(d, s, n, cudaMemcpyDefault, (cudaStream_t)st);
#endif
}
} // namespace shmemgi

SHMEMGI_HOST void shmemx_putmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                          shmemx_stream_t stream) {
    if (void *p = gshmemx_device_stream_peer(dest, source, nelems, pe))
        shmemgi::os_copy(p, source, nelems, stream);
    else
        SHMEMGI_LAUNCH(shmemgi::os_put<0>, stream, dest, source, nelems, pe);
}
SHMEMGI_HOST void shmemx_getmem_on_stream(void *dest, const void *source, size_t nelems, int pe,
                                          shmemx_stream_t stream) {
    if (void *p = gshmemx_device_stream_peer(source, dest, nelems, pe))
        shmemgi::os_copy(dest, p, nelems, stream);
    else
        SHMEMGI_LAUNCH(shmemgi::os_get<0>, stream, dest, source, nelems, pe);
}
SHMEMGI_HOST void shmemx_putmem_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                                 uint64_t signal, int sig_op, int pe, shmemx_stream_t stream) {
    if (void *p = gshmemx_device_stream_peer(dest, source, nelems, pe)) {
        shmemgi::os_copy(p, source, nelems, stream);
        SHMEMGI_LAUNCH_N(shmemgi::os_signal<0>, 1, stream, dest, source, sig_addr, signal, sig_op, pe);
    } else {
        SHMEMGI_LAUNCH(shmemgi::os_put_signal<0>, stream, dest, source, nelems, sig_addr, signal, sig_op, pe);
    }
}
SHMEMGI_HOST void shmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                                     shmemx_stream_t stream) {
    SHMEMGI_LAUNCH(shmemgi::os_signal_wait<0>, stream, sig_addr, cmp, cmp_value);
}
SHMEMGI_HOST void shmemx_quiet_on_stream(shmemx_stream_t stream) { SHMEMGI_LAUNCH(shmemgi::os_quiet<0>, stream, 0); }
SHMEMGI_HOST void shmemx_barrier_all_on_stream(shmemx_stream_t stream) {
    SHMEMGI_LAUNCH(shmemgi::os_barrier_all<0>, stream, 0);
}
SHMEMGI_HOST void shmemx_sync_all_on_stream(shmemx_stream_t stream) {
    SHMEMGI_LAUNCH(shmemgi::os_sync_all<0>, stream, 0);
}
SHMEMGI_HOST int shmemx_broadcastmem_on_stream(shmem_team_t team, void *dest, const void *source, size_t nelems,
                                               int pe_root, shmemx_stream_t stream) {
    SHMEMGI_LAUNCH(shmemgi::os_broadcast<0>, stream, team, dest, source, nelems, pe_root);
    return 0;
}
SHMEMGI_HOST int shmemx_fcollectmem_on_stream(shmem_team_t team, void *dest, const void *source, size_t nelems,
                                              shmemx_stream_t stream) {
    SHMEMGI_LAUNCH(shmemgi::os_fcollect<0>, stream, team, dest, source, nelems);
    return 0;
}
SHMEMGI_HOST int shmemx_alltoallmem_on_stream(shmem_team_t team, void *dest, const void *source, size_t nelems,
                                              shmemx_stream_t stream) {
    SHMEMGI_LAUNCH(shmemgi::os_alltoall<0>, stream, team, dest, source, nelems);
    return 0;
}

/* ==== long double for the typed p/g (gc_rma.tex gives them every standard RMA type) ====
 * nvcc and hipcc compile a kernel's long double as a double: 8 bytes, arrays of it 8 bytes apart, though nvcc's sizeof
 * still says 16, so p<long double> would move 16 bytes and overwrite the next element. The kernel's object is moved as
 * what it is there (a double), which agrees with every other kernel's long double and not with the host's (x87); the
 * CPU emulation has the host's long double on both sides. */
namespace shmemgi {
#if defined(SHMEMGI_DEVICE_PASS)
typedef double kernel_long_double;
#else
typedef long double kernel_long_double;
#endif
SHMEMGI_D void p_ld(int ctx, long double *dest, long double value, int pe, const char *fn) {
    p<kernel_long_double>(ctx, (kernel_long_double *)dest, (kernel_long_double)value, pe, fn);
}
SHMEMGI_D long double g_ld(int ctx, const long double *src, int pe, const char *fn) {
    return g<kernel_long_double>(ctx, (const kernel_long_double *)src, pe, fn);
}
} // namespace shmemgi

#include <gshmem/device/shmemg_device_typed.h>

#endif
