/* rocshmem.hpp - rocSHMEM's API (namespace rocshmem) on gshmem, so a rocSHMEM program builds unchanged with hipcc for
 * an AMD GPU or with oshcc --emulate-gpu for the CPU: -I<prefix>/include/gshmem/compat. Names, signatures and constants
 * are rocSHMEM's public ones; every routine is a thin mapping onto gshmem's host API (shmem_*) or device API (shmemg_*:
 * _tg = rocSHMEM's _wg, _htg = _wave), one name for host and kernel as rocSHMEM has it. Kernels' contexts come from a
 * pool of device contexts rocshmem_init sets up (src/compat/rocshmem_pool.c). What is not provided stops compilation
 * with a message naming the routine. */
#ifndef GSHMEM_COMPAT_ROCSHMEM_HPP
#define GSHMEM_COMPAT_ROCSHMEM_HPP
#if !defined(__HIPCC__) && !defined(GSHMEM_EMULATE_GPU)
#error "<rocshmem/rocshmem.hpp> is for HIP code: compile with hipcc, or with oshcc --emulate-gpu"
#endif
#include <hip/hip_runtime.h>
#include <shmem.h>
#include <shmemg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gshmem/compat/rocshmem/pool.h>

/* rocSHMEM's header brings in <mpi.h> (its init takes a communicator), and its programs call MPI_Abort(MPI_COMM_WORLD,
 * e) on errors without including it. Where <mpi.h> is on the include path it comes in the same way (link the MPI
 * library, as with rocSHMEM); where it is not, no other part of the program can use MPI, and the one use that needs no
 * MPI library, aborting the whole job, is served by gshmem: MPI_Abort on MPI_COMM_WORLD is shmem_global_exit. */
#if !defined(GSHMEM_ROCSHMEM_NO_MPI) && defined(__has_include)
#if __has_include(<mpi.h>)
#include <mpi.h>
#endif
#endif
#if !defined(MPI_VERSION)
typedef struct gshmem_rocshmem_mpi_comm *MPI_Comm;
#define MPI_COMM_WORLD ((MPI_Comm)1)
inline int MPI_Abort(MPI_Comm comm, int errorcode) {
    if (comm != MPI_COMM_WORLD) {
        fprintf(stderr,
                "MPI_Abort: PE %d: only MPI_COMM_WORLD exists without MPI (no <mpi.h> on the include path); "
                "pass MPI_COMM_WORLD, or build with MPI\n",
                shmem_my_pe());
    }
    shmem_global_exit(errorcode);
    return errorcode;
}
#endif

#if defined(__HIPCC__) && !defined(GSHMEM_EMULATE_GPU)
#define ROCSHMEMI_HD __host__ __device__ inline
#define ROCSHMEMI_D __device__ inline
#define ROCSHMEMI_CONST __constant__
#else
#define ROCSHMEMI_HD inline
#define ROCSHMEMI_D inline
#define ROCSHMEMI_CONST
#endif
/* One name for host and kernel: the kernel's mapping in a device pass, the host's in a host pass; under the
 * emulation (one pass) the calling thread says which it is */
#if defined(__HIP_DEVICE_COMPILE__)
#define ROCSHMEMI_HD_BODY(dev, host) return dev;
#elif defined(GSHMEM_EMULATE_GPU)
#define ROCSHMEMI_HD_BODY(dev, host)                                                                                   \
    if (gshmem_emu_cur)                                                                                                \
        return dev;                                                                                                    \
    return host;
#else
#define ROCSHMEMI_HD_BODY(dev, host) return host;
#endif

namespace rocshmem {

enum ROCSHMEM_STATUS { ROCSHMEM_SUCCESS = 0, ROCSHMEM_ERROR = 1 };
enum ROCSHMEM_OP {
    ROCSHMEM_SUM,
    ROCSHMEM_MAX,
    ROCSHMEM_MIN,
    ROCSHMEM_PROD,
    ROCSHMEM_AND,
    ROCSHMEM_OR,
    ROCSHMEM_XOR,
    ROCSHMEM_REPLACE
};
enum ROCSHMEM_SIGNAL_OPS { ROCSHMEM_SIGNAL_SET, ROCSHMEM_SIGNAL_ADD };
enum rocshmem_cmps {
    ROCSHMEM_CMP_EQ,
    ROCSHMEM_CMP_NE,
    ROCSHMEM_CMP_GT,
    ROCSHMEM_CMP_GE,
    ROCSHMEM_CMP_LT,
    ROCSHMEM_CMP_LE
};
enum rocshmem_thread_ops {
    ROCSHMEM_THREAD_SINGLE,
    ROCSHMEM_THREAD_FUNNELED,
    ROCSHMEM_THREAD_WG_FUNNELED,
    ROCSHMEM_THREAD_SERIALIZED,
    ROCSHMEM_THREAD_MULTIPLE
};
enum rocshmem_team_configs { ROCSHMEM_TEAM_DEFAULT_CONFIGS, ROCSHMEM_TEAM_NUM_CONTEXTS };
typedef struct {
    int num_contexts;
} rocshmem_team_config_t;
const int ROCSHMEM_CTX_ZERO = 0;
const int ROCSHMEM_CTX_NOSTORE = 1;
const int ROCSHMEM_CTX_SERIALIZED = 2;
const int ROCSHMEM_CTX_WG_PRIVATE = 4;
const int ROCSHMEM_CTX_SHARED = 8;
typedef struct {
    void *ctx_opaque;
    void *team_opaque;
} rocshmem_ctx_t;
typedef uint64_t *rocshmem_team_t;
const rocshmem_team_t ROCSHMEM_TEAM_INVALID = nullptr;
/* Work and sync array sizes in elements: rocSHMEM's values, which cover gshmem's own needs (checked below), so arrays
 * a program sizes by them serve gshmem's active-set routines. The sync value is gshmem's, not rocSHMEM's 0: gshmem's
 * active-set barrier counts up from SHMEM_SYNC_VALUE in pSync[0], and a program sets pSync by this name. */
constexpr size_t ROCSHMEM_REDUCE_MIN_WRKDATA_SIZE = 1024;
constexpr size_t ROCSHMEM_ATA_MAX_WRKDATA_SIZE = 4 * 1024 * 1024;
constexpr size_t ROCSHMEM_BARRIER_SYNC_SIZE = 256;
constexpr size_t ROCSHMEM_REDUCE_SYNC_SIZE = 256;
constexpr size_t ROCSHMEM_BCAST_SYNC_SIZE = 256;
constexpr size_t ROCSHMEM_ALLTOALL_SYNC_SIZE = 257;
constexpr size_t ROCSHMEM_FCOLLECT_SYNC_SIZE = 257;
constexpr long ROCSHMEM_SYNC_VALUE = SHMEM_SYNC_VALUE;
static_assert(ROCSHMEM_REDUCE_MIN_WRKDATA_SIZE >= SHMEM_REDUCE_MIN_WRKDATA_SIZE &&
                  ROCSHMEM_BARRIER_SYNC_SIZE >= SHMEM_BARRIER_SYNC_SIZE &&
                  ROCSHMEM_REDUCE_SYNC_SIZE >= SHMEM_REDUCE_SYNC_SIZE &&
                  ROCSHMEM_BCAST_SYNC_SIZE >= SHMEM_BCAST_SYNC_SIZE &&
                  ROCSHMEM_ALLTOALL_SYNC_SIZE >= SHMEM_ALLTOALL_SYNC_SIZE &&
                  ROCSHMEM_FCOLLECT_SYNC_SIZE >= SHMEM_COLLECT_SYNC_SIZE,
              "a rocSHMEM work or sync array is smaller than gshmem's active-set routines need");
/* (their comparison and signal operators are OpenSHMEM's numbers: passed on as they are) */
static_assert(ROCSHMEM_CMP_EQ == SHMEM_CMP_EQ && ROCSHMEM_CMP_NE == SHMEM_CMP_NE && ROCSHMEM_CMP_GT == SHMEM_CMP_GT &&
                  ROCSHMEM_CMP_GE == SHMEM_CMP_GE && ROCSHMEM_CMP_LT == SHMEM_CMP_LT &&
                  ROCSHMEM_CMP_LE == SHMEM_CMP_LE && ROCSHMEM_SIGNAL_SET == SHMEM_SIGNAL_SET &&
                  ROCSHMEM_SIGNAL_ADD == SHMEM_SIGNAL_ADD,
              "rocSHMEM's operators differ from OpenSHMEM's");

/* per translation unit, as the device library's state: filled in by rocshmem_init (a __constant__ on a GPU) */
static ROCSHMEMI_CONST rocshmem_ctx_t ROCSHMEM_CTX_DEFAULT;
static ROCSHMEMI_CONST rocshmem_team_t ROCSHMEM_TEAM_WORLD;
namespace rocshmemi {
static ROCSHMEMI_CONST struct gshmemx_rocshmem_pool *pool_tu;
#if !defined(__HIP_DEVICE_COMPILE__)
namespace {
inline int upload(const struct gshmemx_rocshmem_info *in) {
    rocshmem_ctx_t c = {in->ctx_default, in->team_world};
    rocshmem_team_t w = (rocshmem_team_t)in->team_world;
#if defined(__HIPCC__) && !defined(GSHMEM_EMULATE_GPU)
    if (hipMemcpyToSymbol(HIP_SYMBOL(ROCSHMEM_CTX_DEFAULT), &c, sizeof c) != hipSuccess ||
        hipMemcpyToSymbol(HIP_SYMBOL(ROCSHMEM_TEAM_WORLD), &w, sizeof w) != hipSuccess ||
        hipMemcpyToSymbol(HIP_SYMBOL(pool_tu), &in->pool, sizeof in->pool) != hipSuccess)
        return 1;
#endif
    ROCSHMEM_CTX_DEFAULT = c; /* (the host's copy: host code reads these too) */
    ROCSHMEM_TEAM_WORLD = w;
    pool_tu = in->pool;
    return 0;
}
struct unit_registration {
    unit_registration() { gshmemx_rocshmem_register_unit(&upload); }
};
static unit_registration unit_registration_instance;
} // namespace
#endif
/* (host code: a device pass parses them, and does not emit them) */
/* the host's context and team for a rocSHMEM handle: the kernels' default context is the host's default */
inline shmem_ctx_t hctx(rocshmem_ctx_t c) {
    return c.ctx_opaque == ROCSHMEM_CTX_DEFAULT.ctx_opaque ? SHMEM_CTX_DEFAULT : (shmem_ctx_t)c.ctx_opaque;
}
inline shmem_team_t hteam(rocshmem_team_t t) {
    return (void *)t == (void *)&gshmem_team_device_world ? SHMEM_TEAM_WORLD : (shmem_team_t)(void *)t;
}
ROCSHMEMI_HD shmem_ctx_t dctx(rocshmem_ctx_t c) { return (shmem_ctx_t)c.ctx_opaque; }
ROCSHMEMI_HD shmem_team_t dteam(rocshmem_team_t t) { return (shmem_team_t)(void *)t; }
ROCSHMEMI_D unsigned wg_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
template <class...> struct not_provided { static constexpr bool value = false; };
} // namespace rocshmemi

/* ==== host: library, memory, PEs, teams, contexts ==== */
inline void rocshmem_init_thread(int requested, int *provided) { gshmemx_rocshmem_init(requested, provided); }
inline void rocshmem_init() {
    int p;
    gshmemx_rocshmem_init(ROCSHMEM_THREAD_MULTIPLE, &p);
}
/* rocSHMEM bootstraps over MPI; gshmem over its own launcher (oshrun) or PMIx: the communicator is not used */
template <class Comm> inline void rocshmem_init(Comm) { rocshmem_init(); }
template <class Comm> inline void rocshmem_init_thread(int requested, int *provided, Comm) {
    rocshmem_init_thread(requested, provided);
}
inline void rocshmem_finalize() { gshmemx_rocshmem_finalize(); }
inline void *rocshmem_malloc(size_t size) { return shmemg_malloc(size); }
inline void rocshmem_free(void *ptr) { shmemg_free(ptr); }
inline void rocshmem_global_exit(int status) { shmem_global_exit(status); }
namespace rocshmemi {
/* rocSHMEM answers these on the host before rocshmem_init too (programs pick their GPU with them): the first such
 * question initializes the library, and rocshmem_init finds it done */
inline int host_pes(int mine) {
    if (shmem_my_pe() < 0) {
        int p;
        gshmemx_rocshmem_init(ROCSHMEM_THREAD_MULTIPLE, &p);
    }
    return mine ? shmem_my_pe() : shmem_n_pes();
}
} // namespace rocshmemi
ROCSHMEMI_HD int rocshmem_my_pe(){ROCSHMEMI_HD_BODY(shmemg_my_pe(), rocshmemi::host_pes(1))} ROCSHMEMI_HD
    int rocshmem_n_pes() {
    ROCSHMEMI_HD_BODY(shmemg_n_pes(), rocshmemi::host_pes(0))
}
inline int rocshmem_team_my_pe(rocshmem_team_t team) { return shmem_team_my_pe(rocshmemi::hteam(team)); }
inline int rocshmem_team_n_pes(rocshmem_team_t team) { return shmem_team_n_pes(rocshmemi::hteam(team)); }
inline int rocshmem_team_translate_pe(rocshmem_team_t src_team, int src_pe, rocshmem_team_t dest_team) {
    return shmem_team_translate_pe(rocshmemi::hteam(src_team), src_pe, rocshmemi::hteam(dest_team));
}
/* a team split from a device team is one kernels can use (docs/device.md); the contexts a config asks for come from the
 * pool, so num_contexts is not needed */
inline int rocshmem_team_split_strided(rocshmem_team_t parent_team, int start, int stride, int size,
                                       const rocshmem_team_config_t *config, long config_mask,
                                       rocshmem_team_t *new_team) {
    (void)config, (void)config_mask;
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int r = shmem_team_split_strided(rocshmemi::dteam(parent_team), start, stride, size, nullptr, 0, &t);
    *new_team = t == SHMEM_TEAM_INVALID ? ROCSHMEM_TEAM_INVALID : (rocshmem_team_t)(void *)t;
    return r;
}
inline void rocshmem_team_destroy(rocshmem_team_t team) { shmem_team_destroy(rocshmemi::dteam(team)); }
inline int rocshmem_ctx_create(int64_t options, rocshmem_ctx_t *ctx) {
    long o = ((options & ROCSHMEM_CTX_NOSTORE) ? SHMEM_CTX_NOSTORE : 0) |
             ((options & ROCSHMEM_CTX_SERIALIZED) ? SHMEM_CTX_SERIALIZED : 0) |
             ((options & ROCSHMEM_CTX_WG_PRIVATE) ? SHMEM_CTX_PRIVATE : 0);
    shmem_ctx_t c;
    int r = shmem_ctx_create(o, &c);
    if (!r) {
        ctx->ctx_opaque = (void *)c;
        ctx->team_opaque = (void *)ROCSHMEM_TEAM_WORLD;
    }
    return r;
}
inline void rocshmem_ctx_destroy(rocshmem_ctx_t ctx) { shmem_ctx_destroy(rocshmemi::hctx(ctx)); }
inline void rocshmem_barrier_all() { shmem_barrier_all(); }
inline void rocshmem_sync_all() { shmem_sync_all(); }

/* ==== ordering: host and kernel ==== */
ROCSHMEMI_HD void rocshmem_quiet(){ROCSHMEMI_HD_BODY(shmemg_quiet(), shmem_quiet())} ROCSHMEMI_HD
    void rocshmem_fence(){ROCSHMEMI_HD_BODY(shmemg_fence(), shmem_fence())} ROCSHMEMI_HD
    void rocshmem_ctx_quiet(rocshmem_ctx_t ctx){
        ROCSHMEMI_HD_BODY(shmemg_ctx_quiet(rocshmemi::dctx(ctx)), shmem_ctx_quiet(rocshmemi::hctx(ctx)))} ROCSHMEMI_HD
    void rocshmem_ctx_fence(rocshmem_ctx_t ctx){
        ROCSHMEMI_HD_BODY(shmemg_ctx_fence(rocshmemi::dctx(ctx)), shmem_ctx_fence(rocshmemi::hctx(ctx)))}
/* (a fence toward one PE: ordering toward all of them is stronger, and correct) */
ROCSHMEMI_D void rocshmem_fence(int) {
    shmemg_fence();
}
ROCSHMEMI_D void rocshmem_ctx_fence(rocshmem_ctx_t ctx, int) { shmemg_ctx_fence(rocshmemi::dctx(ctx)); }
ROCSHMEMI_D void rocshmem_threadfence_system() { __threadfence_system(); }
ROCSHMEMI_D void rocshmem_ctx_threadfence_system(rocshmem_ctx_t) { __threadfence_system(); }

/* ==== kernels: work-group setup, contexts from the pool, PEs, barriers ==== */
ROCSHMEMI_D void rocshmem_wg_init() { __syncthreads(); }
ROCSHMEMI_D void rocshmem_wg_finalize() { __syncthreads(); }
ROCSHMEMI_D void rocshmem_wg_init_thread(int requested, int *provided) {
    __syncthreads();
    *provided = requested;
}
/* The work-group takes a context no other work-group holds (0), or none is left (ROCSHMEM_ERROR: ctx untouched) */
ROCSHMEMI_D int rocshmem_wg_ctx_create(int64_t options, rocshmem_ctx_t *ctx) {
    __shared__ int slot;
    (void)options;
    __syncthreads();
    if (rocshmemi::wg_rank() == 0) {
        slot = -1;
        for (int i = 0; i < GSHMEM_ROCSHMEM_POOL && slot < 0; i++)
            if (rocshmemi::pool_tu->handle[i] && atomicCAS(&rocshmemi::pool_tu->used[i], 0u, 1u) == 0u)
                slot = i;
    }
    __syncthreads();
    int s = slot;
    __syncthreads(); /* (every thread has read it before another call writes it) */
    if (s < 0)
        return ROCSHMEM_ERROR;
    ctx->ctx_opaque = (void *)(uintptr_t)rocshmemi::pool_tu->handle[s];
    ctx->team_opaque = (void *)ROCSHMEM_TEAM_WORLD;
    return ROCSHMEM_SUCCESS;
}
/* its operations complete, then the context goes back to the pool */
ROCSHMEMI_D void rocshmem_wg_ctx_destroy(rocshmem_ctx_t *ctx) {
    shmemg_ctx_quiet_tg(rocshmemi::dctx(*ctx));
    if (rocshmemi::wg_rank() == 0)
        for (int i = 0; i < GSHMEM_ROCSHMEM_POOL; i++)
            if (rocshmemi::pool_tu->handle[i] == (uint64_t)(uintptr_t)ctx->ctx_opaque)
                atomicExch(&rocshmemi::pool_tu->used[i], 0u);
    __syncthreads();
}
ROCSHMEMI_D int rocshmem_ctx_my_pe(rocshmem_ctx_t) { return shmemg_my_pe(); }
ROCSHMEMI_D int rocshmem_ctx_n_pes(rocshmem_ctx_t) { return shmemg_n_pes(); }
ROCSHMEMI_D void *rocshmem_ptr(const void *dest, int pe) { return shmemg_ptr(dest, pe); }
ROCSHMEMI_D void rocshmem_wg_barrier_all() { shmemgx_barrier_all_tg(); }
ROCSHMEMI_D void rocshmem_ctx_wg_barrier_all(rocshmem_ctx_t) { shmemgx_barrier_all_tg(); }
ROCSHMEMI_D void rocshmem_wg_sync_all() { shmemg_sync_all_tg(); }
ROCSHMEMI_D void rocshmem_ctx_wg_sync_all(rocshmem_ctx_t) { shmemg_sync_all_tg(); }
ROCSHMEMI_D void rocshmem_wg_team_sync(rocshmem_team_t team) { shmemg_team_sync_tg(rocshmemi::dteam(team)); }
ROCSHMEMI_D void rocshmem_ctx_wg_team_sync(rocshmem_ctx_t, rocshmem_team_t team) {
    shmemg_team_sync_tg(rocshmemi::dteam(team));
}

/* ==== RMA: memory and typed; thread (host and kernel), _wave and _wg (kernel) ==== */
#define ROCSHMEMI_MEM(NAME)                                                                                            \
    ROCSHMEMI_HD void rocshmem_ctx_##NAME(rocshmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe){  \
        ROCSHMEMI_HD_BODY(shmemg_ctx_##NAME(rocshmemi::dctx(ctx), dest, source, nelems, pe),                           \
                          shmem_ctx_##NAME(rocshmemi::hctx(ctx), dest, source, nelems,                                 \
                                           pe))} ROCSHMEMI_HD void rocshmem_##NAME(void *dest, const void *source,     \
                                                                                   size_t nelems,                      \
                                                                                   int pe){ROCSHMEMI_HD_BODY(          \
        shmemg_##NAME(dest, source, nelems, pe),                                                                       \
        shmem_##NAME(dest, source, nelems, pe))} ROCSHMEMI_D void rocshmem_ctx_##NAME##_wave(rocshmem_ctx_t ctx,       \
                                                                                             void *dest,               \
                                                                                             const void *source,       \
                                                                                             size_t nelems, int pe) {  \
        shmemg_ctx_##NAME##_htg(rocshmemi::dctx(ctx), dest, source, nelems, pe);                                       \
    }                                                                                                                  \
    ROCSHMEMI_D void rocshmem_##NAME##_wave(void *dest, const void *source, size_t nelems, int pe) {                   \
        shmemg_##NAME##_htg(dest, source, nelems, pe);                                                                 \
    }                                                                                                                  \
    ROCSHMEMI_D void rocshmem_ctx_##NAME##_wg(rocshmem_ctx_t ctx, void *dest, const void *source, size_t nelems,       \
                                              int pe) {                                                                \
        shmemg_ctx_##NAME##_tg(rocshmemi::dctx(ctx), dest, source, nelems, pe);                                        \
    }                                                                                                                  \
    ROCSHMEMI_D void rocshmem_##NAME##_wg(void *dest, const void *source, size_t nelems, int pe) {                     \
        shmemg_##NAME##_tg(dest, source, nelems, pe);                                                                  \
    }
ROCSHMEMI_MEM(putmem)
ROCSHMEMI_MEM(putmem_nbi)
ROCSHMEMI_MEM(getmem)
ROCSHMEMI_MEM(getmem_nbi)
#undef ROCSHMEMI_MEM

/* typed put/get (nelems elements) through the memory forms; p/g through the typed ones */
#define ROCSHMEMI_TYPED_RMA1(T, N, OP, SUF)                                                                            \
    ROCSHMEMI_HD void rocshmem_ctx_##N##_##OP##SUF(rocshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,        \
                                                   int pe) {                                                           \
        rocshmem_ctx_##OP##mem##SUF(ctx, dest, source, nelems * sizeof(T), pe);                                        \
    }                                                                                                                  \
    ROCSHMEMI_HD void rocshmem_##N##_##OP##SUF(T *dest, const T *source, size_t nelems, int pe) {                      \
        rocshmem_##OP##mem##SUF(dest, source, nelems * sizeof(T), pe);                                                 \
    }
#define ROCSHMEMI_TYPED_RMAX(T, N, OP, SUF)                                                                            \
    ROCSHMEMI_D void rocshmem_ctx_##N##_##OP##SUF(rocshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                                  int pe) {                                                            \
        rocshmem_ctx_##OP##mem##SUF(ctx, dest, source, nelems * sizeof(T), pe);                                        \
    }                                                                                                                  \
    ROCSHMEMI_D void rocshmem_##N##_##OP##SUF(T *dest, const T *source, size_t nelems, int pe) {                       \
        rocshmem_##OP##mem##SUF(dest, source, nelems * sizeof(T), pe);                                                 \
    }
#define ROCSHMEMI_TYPED(T, N)                                                                                          \
    ROCSHMEMI_TYPED_RMA1(T, N, put, )                                                                                  \
    ROCSHMEMI_TYPED_RMA1(T, N, put, _nbi)                                                                              \
    ROCSHMEMI_TYPED_RMA1(T, N, get, )                                                                                  \
    ROCSHMEMI_TYPED_RMA1(T, N, get, _nbi)                                                                              \
    ROCSHMEMI_TYPED_RMAX(T, N, put, _wave)                                                                             \
    ROCSHMEMI_TYPED_RMAX(T, N, put, _nbi_wave)                                                                         \
    ROCSHMEMI_TYPED_RMAX(T, N, get, _wave)                                                                             \
    ROCSHMEMI_TYPED_RMAX(T, N, get, _nbi_wave)                                                                         \
    ROCSHMEMI_TYPED_RMAX(T, N, put, _wg)                                                                               \
    ROCSHMEMI_TYPED_RMAX(T, N, put, _nbi_wg)                                                                           \
    ROCSHMEMI_TYPED_RMAX(T, N, get, _wg)                                                                               \
    ROCSHMEMI_TYPED_RMAX(T, N, get, _nbi_wg)                                                                           \
    ROCSHMEMI_HD void rocshmem_ctx_##N##_p(rocshmem_ctx_t ctx, T *dest, T value, int pe){                              \
        ROCSHMEMI_HD_BODY(shmemg_ctx_##N##_p(rocshmemi::dctx(ctx), dest, value, pe),                                   \
                          shmem_ctx_##N##_p(rocshmemi::hctx(ctx), dest, value,                                         \
                                            pe))} ROCSHMEMI_HD void rocshmem_##N##_p(T *dest, T value, int pe){        \
        ROCSHMEMI_HD_BODY(shmemg_##N##_p(dest, value, pe), shmem_##N##_p(dest, value, pe))} ROCSHMEMI_HD T             \
        rocshmem_ctx_##N##_g(rocshmem_ctx_t ctx, const T *source, int pe){ROCSHMEMI_HD_BODY(                           \
            shmemg_ctx_##N##_g(rocshmemi::dctx(ctx), source, pe),                                                      \
            shmem_ctx_##N##_g(rocshmemi::hctx(ctx), source, pe))} ROCSHMEMI_HD T rocshmem_##N##_g(const T *source,     \
                                                                                                  int pe) {            \
        ROCSHMEMI_HD_BODY(shmemg_##N##_g(source, pe), shmem_##N##_g(source, pe))                                       \
    }
ROCSHMEMI_TYPED(float, float)
ROCSHMEMI_TYPED(double, double)
ROCSHMEMI_TYPED(char, char)
ROCSHMEMI_TYPED(signed char, schar)
ROCSHMEMI_TYPED(short, short)
ROCSHMEMI_TYPED(int, int)
ROCSHMEMI_TYPED(long, long)
ROCSHMEMI_TYPED(long long, longlong)
ROCSHMEMI_TYPED(unsigned char, uchar)
ROCSHMEMI_TYPED(unsigned short, ushort)
ROCSHMEMI_TYPED(unsigned int, uint)
ROCSHMEMI_TYPED(unsigned long, ulong)
ROCSHMEMI_TYPED(unsigned long long, ulonglong)
#undef ROCSHMEMI_TYPED
#undef ROCSHMEMI_TYPED_RMA1
#undef ROCSHMEMI_TYPED_RMAX

/* ==== put with signal (kernel), signal fetch ==== */
#define ROCSHMEMI_SIG(SUF, GSUF)                                                                                       \
    ROCSHMEMI_D void rocshmem_putmem_signal##SUF(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,    \
                                                 uint64_t signal, int sig_op, int pe) {                                \
        shmemg_putmem_signal##GSUF(dest, source, nelems, sig_addr, signal, sig_op, pe);                                \
    }                                                                                                                  \
    ROCSHMEMI_D void rocshmem_ctx_putmem_signal##SUF(rocshmem_ctx_t ctx, void *dest, const void *source,               \
                                                     size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                                     int pe) {                                                         \
        shmemg_ctx_putmem_signal##GSUF(rocshmemi::dctx(ctx), dest, source, nelems, sig_addr, signal, sig_op, pe);      \
    }
ROCSHMEMI_SIG(, )
ROCSHMEMI_SIG(_wave, _htg)
ROCSHMEMI_SIG(_wg, _tg)
ROCSHMEMI_SIG(_nbi, _nbi)
ROCSHMEMI_SIG(_nbi_wave, _nbi_htg)
ROCSHMEMI_SIG(_nbi_wg, _nbi_tg)
#undef ROCSHMEMI_SIG
ROCSHMEMI_D uint64_t rocshmem_signal_fetch(const uint64_t *sig_addr) { return shmemg_signal_fetch(sig_addr); }
#define ROCSHMEMI_TSIG(T, N, SUF)                                                                                      \
    ROCSHMEMI_D void rocshmem_##N##_put_signal##SUF(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,       \
                                                    uint64_t signal, int sig_op, int pe) {                             \
        rocshmem_putmem_signal##SUF(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);                   \
    }                                                                                                                  \
    ROCSHMEMI_D void rocshmem_ctx_##N##_put_signal##SUF(rocshmem_ctx_t ctx, T *dest, const T *source, size_t nelems,   \
                                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe) {     \
        rocshmem_ctx_putmem_signal##SUF(ctx, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);          \
    }
#define ROCSHMEMI_TSIGS(T, N)                                                                                          \
    ROCSHMEMI_TSIG(T, N, )                                                                                             \
    ROCSHMEMI_TSIG(T, N, _wave)                                                                                        \
    ROCSHMEMI_TSIG(T, N, _wg)                                                                                          \
    ROCSHMEMI_TSIG(T, N, _nbi)                                                                                         \
    ROCSHMEMI_TSIG(T, N, _nbi_wave)                                                                                    \
    ROCSHMEMI_TSIG(T, N, _nbi_wg)
ROCSHMEMI_TSIGS(float, float)
ROCSHMEMI_TSIGS(double, double)
ROCSHMEMI_TSIGS(char, char)
ROCSHMEMI_TSIGS(signed char, schar)
ROCSHMEMI_TSIGS(short, short)
ROCSHMEMI_TSIGS(int, int)
ROCSHMEMI_TSIGS(long, long)
ROCSHMEMI_TSIGS(long long, longlong)
ROCSHMEMI_TSIGS(unsigned char, uchar)
ROCSHMEMI_TSIGS(unsigned short, ushort)
ROCSHMEMI_TSIGS(unsigned int, uint)
ROCSHMEMI_TSIGS(unsigned long, ulong)
ROCSHMEMI_TSIGS(unsigned long long, ulonglong)
#undef ROCSHMEMI_TSIGS
#undef ROCSHMEMI_TSIG

/* ==== atomics: host and kernel ==== */
#define ROCSHMEMI_AMO_FETCH(T, N, OP, ...)                                                                             \
    ROCSHMEMI_HD T rocshmem_ctx_##N##_atomic_##OP(rocshmem_ctx_t ctx, T *dest ROCSHMEMI_PARAMS_##OP(T),                \
                                                  int pe){ROCSHMEMI_HD_BODY(                                           \
        shmemg_ctx_##N##_atomic_##OP(rocshmemi::dctx(ctx), dest ROCSHMEMI_ARGS_##OP, pe),                              \
        shmem_ctx_##N##_atomic_##OP(rocshmemi::hctx(ctx), dest ROCSHMEMI_ARGS_##OP, pe))} ROCSHMEMI_HD T               \
        rocshmem_##N##_atomic_##OP(T *dest ROCSHMEMI_PARAMS_##OP(T), int pe) {                                         \
        ROCSHMEMI_HD_BODY(shmemg_##N##_atomic_##OP(dest ROCSHMEMI_ARGS_##OP, pe),                                      \
                          shmem_##N##_atomic_##OP(dest ROCSHMEMI_ARGS_##OP, pe))                                       \
    }
#define ROCSHMEMI_AMO_VOID(T, N, OP)                                                                                   \
    ROCSHMEMI_HD void rocshmem_ctx_##N##_atomic_##OP(rocshmem_ctx_t ctx, T *dest ROCSHMEMI_PARAMS_##OP(T), int pe){    \
        ROCSHMEMI_HD_BODY(shmemg_ctx_##N##_atomic_##OP(rocshmemi::dctx(ctx), dest ROCSHMEMI_ARGS_##OP, pe),            \
                          shmem_ctx_##N##_atomic_##OP(                                                                 \
                              rocshmemi::hctx(ctx), dest ROCSHMEMI_ARGS_##OP,                                          \
                              pe))} ROCSHMEMI_HD void rocshmem_##N##_atomic_##OP(T *dest ROCSHMEMI_PARAMS_##OP(T),     \
                                                                                 int pe) {                             \
        ROCSHMEMI_HD_BODY(shmemg_##N##_atomic_##OP(dest ROCSHMEMI_ARGS_##OP, pe),                                      \
                          shmem_##N##_atomic_##OP(dest ROCSHMEMI_ARGS_##OP, pe))                                       \
    }
#define ROCSHMEMI_PARAMS_fetch(T)
#define ROCSHMEMI_ARGS_fetch
#define ROCSHMEMI_PARAMS_fetch_inc(T)
#define ROCSHMEMI_ARGS_fetch_inc
#define ROCSHMEMI_PARAMS_inc(T)
#define ROCSHMEMI_ARGS_inc
#define ROCSHMEMI_PARAMS_compare_swap(T) , T cond, T value
#define ROCSHMEMI_ARGS_compare_swap , cond, value
#define ROCSHMEMI_PARAMS_fetch_add(T) , T value
#define ROCSHMEMI_ARGS_fetch_add , value
#define ROCSHMEMI_PARAMS_add(T) , T value
#define ROCSHMEMI_ARGS_add , value
#define ROCSHMEMI_PARAMS_set(T) , T value
#define ROCSHMEMI_ARGS_set , value
#define ROCSHMEMI_PARAMS_swap(T) , T value
#define ROCSHMEMI_ARGS_swap , value
#define ROCSHMEMI_PARAMS_fetch_and(T) , T value
#define ROCSHMEMI_ARGS_fetch_and , value
#define ROCSHMEMI_PARAMS_fetch_or(T) , T value
#define ROCSHMEMI_ARGS_fetch_or , value
#define ROCSHMEMI_PARAMS_fetch_xor(T) , T value
#define ROCSHMEMI_ARGS_fetch_xor , value
#define ROCSHMEMI_PARAMS_and(T) , T value
#define ROCSHMEMI_ARGS_and , value
#define ROCSHMEMI_PARAMS_or(T) , T value
#define ROCSHMEMI_ARGS_or , value
#define ROCSHMEMI_PARAMS_xor(T) , T value
#define ROCSHMEMI_ARGS_xor , value
#define ROCSHMEMI_AMO_STD(T, N)                                                                                        \
    ROCSHMEMI_AMO_FETCH(T, N, fetch)                                                                                   \
    ROCSHMEMI_AMO_VOID(T, N, set)                                                                                      \
    ROCSHMEMI_AMO_FETCH(T, N, swap)                                                                                    \
    ROCSHMEMI_AMO_FETCH(T, N, compare_swap)                                                                            \
    ROCSHMEMI_AMO_FETCH(T, N, fetch_inc)                                                                               \
    ROCSHMEMI_AMO_VOID(T, N, inc)                                                                                      \
    ROCSHMEMI_AMO_FETCH(T, N, fetch_add)                                                                               \
    ROCSHMEMI_AMO_VOID(T, N, add)
#define ROCSHMEMI_AMO_BIT(T, N)                                                                                        \
    ROCSHMEMI_AMO_FETCH(T, N, fetch_and)                                                                               \
    ROCSHMEMI_AMO_VOID(T, N, and)                                                                                      \
    ROCSHMEMI_AMO_FETCH(T, N, fetch_or)                                                                                \
    ROCSHMEMI_AMO_VOID(T, N, or)                                                                                       \
    ROCSHMEMI_AMO_FETCH(T, N, fetch_xor)                                                                               \
    ROCSHMEMI_AMO_VOID(T, N, xor)
ROCSHMEMI_AMO_STD(int, int)
ROCSHMEMI_AMO_STD(long, long)
ROCSHMEMI_AMO_STD(long long, longlong)
ROCSHMEMI_AMO_STD(unsigned int, uint)
ROCSHMEMI_AMO_STD(unsigned long, ulong)
ROCSHMEMI_AMO_STD(unsigned long long, ulonglong)
ROCSHMEMI_AMO_STD(int32_t, int32)
ROCSHMEMI_AMO_STD(int64_t, int64)
ROCSHMEMI_AMO_STD(uint32_t, uint32)
ROCSHMEMI_AMO_STD(uint64_t, uint64)
ROCSHMEMI_AMO_STD(size_t, size)
ROCSHMEMI_AMO_STD(ptrdiff_t, ptrdiff)
ROCSHMEMI_AMO_BIT(unsigned int, uint)
ROCSHMEMI_AMO_BIT(unsigned long, ulong)
ROCSHMEMI_AMO_BIT(unsigned long long, ulonglong)
ROCSHMEMI_AMO_BIT(int32_t, int32)
ROCSHMEMI_AMO_BIT(int64_t, int64)
ROCSHMEMI_AMO_BIT(uint32_t, uint32)
ROCSHMEMI_AMO_BIT(uint64_t, uint64)
ROCSHMEMI_AMO_FETCH(float, float, fetch)
ROCSHMEMI_AMO_VOID(float, float, set)
ROCSHMEMI_AMO_FETCH(float, float, swap)
ROCSHMEMI_AMO_FETCH(double, double, fetch)
ROCSHMEMI_AMO_VOID(double, double, set)
ROCSHMEMI_AMO_FETCH(double, double, swap)
#undef ROCSHMEMI_AMO_STD
#undef ROCSHMEMI_AMO_BIT

/* ==== point-to-point synchronization: host and kernel ==== */
#define ROCSHMEMI_WAIT(T, N)                                                                                           \
    ROCSHMEMI_HD void rocshmem_##N##_wait_until(T *ivars, int cmp, T val){ROCSHMEMI_HD_BODY(                           \
        shmemg_##N##_wait_until(ivars, cmp, val),                                                                      \
        shmem_##N##_wait_until(ivars, cmp, val))} ROCSHMEMI_HD int rocshmem_##N##_test(T *ivars, int cmp, T val) {     \
        ROCSHMEMI_HD_BODY(shmemg_##N##_test(ivars, cmp, val), shmem_##N##_test(ivars, cmp, val))                       \
    }
ROCSHMEMI_WAIT(int, int)
ROCSHMEMI_WAIT(long, long)
ROCSHMEMI_WAIT(long long, longlong)
ROCSHMEMI_WAIT(unsigned int, uint)
ROCSHMEMI_WAIT(unsigned long, ulong)
ROCSHMEMI_WAIT(unsigned long long, ulonglong)
#undef ROCSHMEMI_WAIT

/* ==== collectives: work-group forms in kernels, team forms on the host ==== */
#define ROCSHMEMI_STR(x) #x
namespace rocshmemi {
/* rocSHMEM's host broadcast on an active set, over OpenSHMEM's deprecated sized ones; a byte count no word size divides
 * (1- and 2-byte types) is fetched from the root by the other members between two barriers of the set, the second
 * keeping the root's source in place until every member has it. As OpenSHMEM's, the root's dest is not written. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
inline void broadcast_aset(const char *fn, void *dest, const void *source, size_t nbytes, int root, int start, int logs,
                           int size, long *psync) {
    if (root < 0 || root >= size) {
        fprintf(stderr, "%s: PE %d: pe_root %d is not an ordinal of the active set: pass 0..%d\n", fn, shmem_my_pe(), root,
                size - 1);
        shmem_global_exit(1);
    }
    if (nbytes % 8 == 0) {
        shmem_broadcast64(dest, source, nbytes / 8, root, start, logs, size, psync);
    } else if (nbytes % 4 == 0) {
        shmem_broadcast32(dest, source, nbytes / 4, root, start, logs, size, psync);
    } else {
        shmem_barrier(start, logs, size, psync);
        int me = shmem_my_pe(), from = start + root * (1 << logs);
        if (me != from)
            shmem_getmem(dest, source, nbytes, from);
        shmem_barrier(start, logs, size, psync);
    }
}
#pragma GCC diagnostic pop
} // namespace rocshmemi
/* N: rocSHMEM's type name; G: gshmem's for the arithmetic reductions, B: for the bitwise ones (OpenSHMEM's bitwise
 * reductions take fixed-width types) */
#define ROCSHMEMI_COLL(T, N)                                                                                           \
    ROCSHMEMI_D void rocshmem_ctx_##N##_wg_broadcast(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,   \
                                                     int nelems, int pe_root) {                                        \
        shmemgx_broadcastmem_tg(rocshmemi::dteam(team), dest, source, (size_t)nelems * sizeof(T), pe_root);            \
    }                                                                                                                  \
    ROCSHMEMI_D void rocshmem_ctx_##N##_wg_alltoall(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,    \
                                                    int nelems) {                                                      \
        shmemgx_alltoallmem_tg(rocshmemi::dteam(team), dest, source, (size_t)nelems * sizeof(T));                      \
    }                                                                                                                  \
    ROCSHMEMI_D void rocshmem_ctx_##N##_wg_fcollect(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,    \
                                                    int nelems) {                                                      \
        shmemgx_fcollectmem_tg(rocshmemi::dteam(team), dest, source, (size_t)nelems * sizeof(T));                      \
    }                                                                                                                  \
    inline void rocshmem_ctx_##N##_broadcast(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,           \
                                             int nelems, int pe_root) {                                                \
        shmem_##N##_broadcast(rocshmemi::hteam(team), dest, source, (size_t)nelems, pe_root);                          \
    }                                                                                                                  \
    inline void rocshmem_ctx_##N##_broadcast(rocshmem_ctx_t, T *dest, const T *source, int nelems, int pe_root,        \
                                             int pe_start, int log_pe_stride, int pe_size, long *p_sync) {             \
        rocshmemi::broadcast_aset(ROCSHMEMI_STR(rocshmem_ctx_##N##_broadcast), dest, source, (size_t)nelems * sizeof(T), \
                                  pe_root, pe_start, log_pe_stride, pe_size, p_sync);                                  \
    }
ROCSHMEMI_COLL(float, float)
ROCSHMEMI_COLL(double, double)
ROCSHMEMI_COLL(char, char)
ROCSHMEMI_COLL(signed char, schar)
ROCSHMEMI_COLL(short, short)
ROCSHMEMI_COLL(int, int)
ROCSHMEMI_COLL(long, long)
ROCSHMEMI_COLL(long long, longlong)
ROCSHMEMI_COLL(unsigned char, uchar)
ROCSHMEMI_COLL(unsigned short, ushort)
ROCSHMEMI_COLL(unsigned int, uint)
ROCSHMEMI_COLL(unsigned long, ulong)
ROCSHMEMI_COLL(unsigned long long, ulonglong)
#undef ROCSHMEMI_COLL
#undef ROCSHMEMI_STR
#define ROCSHMEMI_REDS(T, N, B)                                                                                        \
    ROCSHMEMI_D int rocshmem_ctx_##N##_sum_wg_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,   \
                                                     int nreduce) {                                                    \
        return shmemgx_##N##_sum_reduce_tg(rocshmemi::dteam(team), dest, source, (size_t)nreduce);                     \
    }                                                                                                                  \
    ROCSHMEMI_D int rocshmem_ctx_##N##_prod_wg_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,  \
                                                      int nreduce) {                                                   \
        return shmemgx_##N##_prod_reduce_tg(rocshmemi::dteam(team), dest, source, (size_t)nreduce);                    \
    }                                                                                                                  \
    ROCSHMEMI_D int rocshmem_ctx_##N##_min_wg_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,   \
                                                     int nreduce) {                                                    \
        return shmemgx_##N##_min_reduce_tg(rocshmemi::dteam(team), dest, source, (size_t)nreduce);                     \
    }                                                                                                                  \
    ROCSHMEMI_D int rocshmem_ctx_##N##_max_wg_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,   \
                                                     int nreduce) {                                                    \
        return shmemgx_##N##_max_reduce_tg(rocshmemi::dteam(team), dest, source, (size_t)nreduce);                     \
    }                                                                                                                  \
    inline int rocshmem_ctx_##N##_sum_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,           \
                                             int nreduce) {                                                            \
        return shmem_##N##_sum_reduce(rocshmemi::hteam(team), dest, source, (size_t)nreduce);                          \
    }                                                                                                                  \
    inline int rocshmem_ctx_##N##_prod_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,          \
                                              int nreduce) {                                                           \
        return shmem_##N##_prod_reduce(rocshmemi::hteam(team), dest, source, (size_t)nreduce);                         \
    }                                                                                                                  \
    inline int rocshmem_ctx_##N##_min_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,           \
                                             int nreduce) {                                                            \
        return shmem_##N##_min_reduce(rocshmemi::hteam(team), dest, source, (size_t)nreduce);                          \
    }                                                                                                                  \
    inline int rocshmem_ctx_##N##_max_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,           \
                                             int nreduce) {                                                            \
        return shmem_##N##_max_reduce(rocshmemi::hteam(team), dest, source, (size_t)nreduce);                          \
    }
ROCSHMEMI_REDS(short, short, int16)
ROCSHMEMI_REDS(int, int, int32)
ROCSHMEMI_REDS(long, long, int64)
ROCSHMEMI_REDS(long long, longlong, int64)
ROCSHMEMI_REDS(float, float, )
ROCSHMEMI_REDS(double, double, )
#undef ROCSHMEMI_REDS
#define ROCSHMEMI_BITRED(T, N, B, BT, OP)                                                                              \
    ROCSHMEMI_D int rocshmem_ctx_##N##_##OP##_wg_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest,                 \
                                                        const T *source, int nreduce) {                                \
        return shmemgx_##B##_##OP##_reduce_tg(rocshmemi::dteam(team), (BT *)dest, (const BT *)source,                  \
                                              (size_t)nreduce);                                                        \
    }                                                                                                                  \
    inline int rocshmem_ctx_##N##_##OP##_reduce(rocshmem_ctx_t, rocshmem_team_t team, T *dest, const T *source,        \
                                                int nreduce) {                                                         \
        return shmem_##B##_##OP##_reduce(rocshmemi::hteam(team), (BT *)dest, (const BT *)source, (size_t)nreduce);     \
    }
#define ROCSHMEMI_BITREDS(T, N, B, BT)                                                                                 \
    static_assert(sizeof(T) == sizeof(BT), #N " is not " #B " here");                                                  \
    ROCSHMEMI_BITRED(T, N, B, BT, and)                                                                                 \
    ROCSHMEMI_BITRED(T, N, B, BT, or)                                                                                  \
    ROCSHMEMI_BITRED(T, N, B, BT, xor)
ROCSHMEMI_BITREDS(short, short, int16, int16_t)
ROCSHMEMI_BITREDS(int, int, int32, int32_t)
ROCSHMEMI_BITREDS(long, long, int64, int64_t)
ROCSHMEMI_BITREDS(long long, longlong, int64, int64_t)
#undef ROCSHMEMI_BITREDS
#undef ROCSHMEMI_BITRED

/* ==== not provided: a call stops compilation naming the routine ==== */
#define ROCSHMEMI_NOT_PROVIDED(name, why)                                                                              \
    template <class... A> ROCSHMEMI_HD void name(A...) {                                                               \
        static_assert(rocshmemi::not_provided<A...>::value,                                                            \
                      #name " is not provided by gshmem's rocSHMEM front end: " why " (docs/porting.md)");            \
    }
ROCSHMEMI_NOT_PROVIDED(rocshmem_dump_stats, "gshmem keeps no per-routine statistics")
ROCSHMEMI_NOT_PROVIDED(rocshmem_reset_stats, "gshmem keeps no per-routine statistics")
ROCSHMEMI_NOT_PROVIDED(rocshmem_wg_team_create_ctx, "contexts on a team other than the world")
ROCSHMEMI_NOT_PROVIDED(rocshmem_int_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_int_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_signal_fetch_wg, "the group forms of rocshmem_signal_fetch")
ROCSHMEMI_NOT_PROVIDED(rocshmem_query_thread, "the thread level query")
ROCSHMEMI_NOT_PROVIDED(rocshmem_char_test, "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_char_wait_until,
                       "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_char_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_char_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_char_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_char_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_char_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_char_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_double_test, "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_double_wait_until,
                       "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_double_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_double_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_double_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_double_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_double_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_double_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_float_test, "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_float_wait_until,
                       "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_float_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_float_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_float_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_float_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_float_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_float_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_int_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_int_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_int_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_int_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_long_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_long_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_long_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_long_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_long_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_long_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_longlong_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_longlong_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_longlong_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_longlong_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_longlong_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_longlong_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_schar_test, "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_schar_wait_until,
                       "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_schar_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_schar_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_schar_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_schar_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_schar_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_schar_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_short_test, "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_short_wait_until,
                       "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_short_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_short_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_short_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_short_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_short_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_short_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uchar_test, "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uchar_wait_until,
                       "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uchar_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uchar_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uchar_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uchar_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uchar_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uchar_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uint_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uint_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uint_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uint_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uint_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_uint_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulong_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulong_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulong_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulong_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulong_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulong_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulonglong_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulonglong_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulonglong_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulonglong_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulonglong_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ulonglong_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ushort_test, "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ushort_wait_until,
                       "waits and tests on this type (OpenSHMEM has none, or deprecates them)")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ushort_wait_until_all, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ushort_wait_until_all_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ushort_wait_until_any, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ushort_wait_until_any_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ushort_wait_until_some, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_ushort_wait_until_some_vector, "the multi-variable waits")
ROCSHMEMI_NOT_PROVIDED(rocshmem_signal_fetch_wave, "the group forms of rocshmem_signal_fetch")
#undef ROCSHMEMI_NOT_PROVIDED

} // namespace rocshmem
#endif
