/* nvshmemx_gpu.h - the part of NVSHMEM's front end only GPU sources see (nvcc, hipcc, oshcc --emulate-gpu): the
 * block and warp forms (gshmem's _tg and _htg), the stream-ordered routines, the collective launch, and the routines
 * gshmem does not provide, which stop compilation naming themselves. Included by nvshmem.h. */
#ifndef GSHMEM_COMPAT_NVSHMEMX_GPU_H
#define GSHMEM_COMPAT_NVSHMEMX_GPU_H
#include <gshmem/compat/nvshmem.h>

/* What is not provided: a call stops compilation with the routine's name and the reason */
#if defined(__cplusplus)
namespace nvshmemi {
template <class...> struct not_provided { static const bool value = false; };
} // namespace nvshmemi
#if defined(__CUDACC__) || defined(__HIPCC__)
#define NVSHMEMI_NP_QUAL __host__ __device__
#else
#define NVSHMEMI_NP_QUAL
#endif
#define NVSHMEMI_NOT_PROVIDED(name, why)                                                                               \
    template <class... A> NVSHMEMI_NP_QUAL inline int name(A...) {                                                     \
        static_assert(nvshmemi::not_provided<A...>::value,                                                             \
                      #name " is not provided by gshmem's NVSHMEM front end: " why " (docs/porting.md)");              \
        return -1;                                                                                                     \
    }
/* InfiniBand GPUDirect Async: queue pairs a kernel drives itself; gshmem's kernels reach the network through its proxy
 */
NVSHMEMI_NOT_PROVIDED(nvshmemx_qp_create, "IBGDA queue pairs")
NVSHMEMI_NOT_PROVIDED(nvshmemx_qp_destroy, "IBGDA queue pairs")
NVSHMEMI_NOT_PROVIDED(nvshmemx_qp_get_handle, "IBGDA queue pairs")
/* loading cubins that call NVSHMEM: gshmem's device library is headers only, each unit gets its state at start-up */
NVSHMEMI_NOT_PROVIDED(nvshmemx_cumodule_init, "CUDA modules need no initialization (no device state to bind)")
NVSHMEMI_NOT_PROVIDED(nvshmemx_cumodule_finalize, "CUDA modules need no initialization (no device state to bind)")
NVSHMEMI_NOT_PROVIDED(nvshmemx_culibrary_init, "CUDA libraries need no initialization (no device state to bind)")
NVSHMEMI_NOT_PROVIDED(nvshmemx_culibrary_finalize, "CUDA libraries need no initialization (no device state to bind)")
/* tile-granular collectives on tensor tiles */
NVSHMEMI_NOT_PROVIDED(nvshmemx_tile_sum_allreduce_block, "tile collectives")
NVSHMEMI_NOT_PROVIDED(nvshmemx_tile_allgather_block, "tile collectives")
NVSHMEMI_NOT_PROVIDED(nvshmemx_tile_sum_reduce_block, "tile collectives")
/* NVLink SHARP multicast */
NVSHMEMI_NOT_PROVIDED(nvshmemx_mc_ptr, "multicast (NVLS) objects")
/* strided RMA */
NVSHMEMI_NOT_PROVIDED(nvshmem_int_iput, "strided RMA (iput/iget)")
NVSHMEMI_NOT_PROVIDED(nvshmem_int_iget, "strided RMA (iput/iget)")
#endif

#ifdef NVSHMEMI_GPU_CODE
/* ==== block and warp forms, in kernels only ==== */
#define NVSHMEMI_GRAN(X) X(block, _tg) X(warp, _htg)
#define NVSHMEMI_GROUP_RMA(G, S)                                                                                       \
    NVSHMEMI_DEV void nvshmemx_putmem_##G(void *dest, const void *source, size_t bytes, int pe) {                      \
        shmemg_putmem##S(dest, source, bytes, pe);                                                                     \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_getmem_##G(void *dest, const void *source, size_t bytes, int pe) {                      \
        shmemg_getmem##S(dest, source, bytes, pe);                                                                     \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_putmem_nbi_##G(void *dest, const void *source, size_t bytes, int pe) {                  \
        shmemg_putmem_nbi##S(dest, source, bytes, pe);                                                                 \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_getmem_nbi_##G(void *dest, const void *source, size_t bytes, int pe) {                  \
        shmemg_getmem_nbi##S(dest, source, bytes, pe);                                                                 \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_putmem_signal_##G(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,     \
                                                 uint64_t signal, int sig_op, int pe) {                                \
        shmemg_putmem_signal##S(dest, source, bytes, sig_addr, signal, nvshmemi_sigop(sig_op), pe);                    \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_putmem_signal_nbi_##G(void *dest, const void *source, size_t bytes, uint64_t *sig_addr, \
                                                     uint64_t signal, int sig_op, int pe) {                            \
        shmemg_putmem_signal_nbi##S(dest, source, bytes, sig_addr, signal, nvshmemi_sigop(sig_op), pe);                \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_flush_##G(void) { shmemg_quiet##S(); }                                                  \
    NVSHMEMI_DEV void nvshmemx_barrier_all_##G(void) { shmemgx_barrier_all##S(); }                                     \
    NVSHMEMI_DEV void nvshmemx_sync_all_##G(void) { (void)shmemg_sync_all##S(); }                                      \
    NVSHMEMI_DEV int nvshmemx_team_sync_##G(nvshmem_team_t team) {                                                     \
        return shmemg_team_sync##S(nvshmemi::dteam(team));                                                             \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_barrier_##G(nvshmem_team_t team) {                                                       \
        shmemg_quiet##S();                                                                                             \
        return shmemg_team_sync##S(nvshmemi::dteam(team));                                                             \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_fcollectmem_##G(nvshmem_team_t team, void *dest, const void *source, size_t bytes) {     \
        return shmemgx_fcollectmem##S(nvshmemi::dteam(team), dest, source, bytes);                                     \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_alltoallmem_##G(nvshmem_team_t team, void *dest, const void *source, size_t bytes) {     \
        return shmemgx_alltoallmem##S(nvshmemi::dteam(team), dest, source, bytes);                                     \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_broadcastmem_##G(nvshmem_team_t team, void *dest, const void *source, size_t bytes,      \
                                               int PE_root) {                                                          \
        return shmemgx_broadcastmem##S(nvshmemi::dteam(team), dest, source, bytes, PE_root);                           \
    }
NVSHMEMI_GRAN(NVSHMEMI_GROUP_RMA)
#undef NVSHMEMI_GROUP_RMA
#define NVSHMEMI_GROUP_TYPED(T, N)                                                                                     \
    NVSHMEMI_GROUP_TYPED_G(T, N, block, _tg)                                                                           \
    NVSHMEMI_GROUP_TYPED_G(T, N, warp, _htg)
#define NVSHMEMI_GROUP_TYPED_G(T, N, G, S)                                                                             \
    NVSHMEMI_DEV void nvshmemx_##N##_put_##G(T *dest, const T *source, size_t nelems, int pe) {                        \
        shmemg_putmem##S(dest, source, nelems * sizeof(T), pe);                                                        \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_##N##_get_##G(T *dest, const T *source, size_t nelems, int pe) {                        \
        shmemg_getmem##S(dest, source, nelems * sizeof(T), pe);                                                        \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_##N##_put_nbi_##G(T *dest, const T *source, size_t nelems, int pe) {                    \
        shmemg_putmem_nbi##S(dest, source, nelems * sizeof(T), pe);                                                    \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_##N##_get_nbi_##G(T *dest, const T *source, size_t nelems, int pe) {                    \
        shmemg_getmem_nbi##S(dest, source, nelems * sizeof(T), pe);                                                    \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_##N##_put_signal_##G(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,       \
                                                    uint64_t signal, int sig_op, int pe) {                             \
        shmemg_putmem_signal##S(dest, source, nelems * sizeof(T), sig_addr, signal, nvshmemi_sigop(sig_op), pe);       \
    }                                                                                                                  \
    NVSHMEMI_DEV void nvshmemx_##N##_put_signal_nbi_##G(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                                        uint64_t signal, int sig_op, int pe) {                         \
        shmemg_putmem_signal_nbi##S(dest, source, nelems * sizeof(T), sig_addr, signal, nvshmemi_sigop(sig_op), pe);   \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_##N##_fcollect_##G(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {       \
        return shmemgx_fcollectmem##S(nvshmemi::dteam(team), dest, source, nelems * sizeof(T));                        \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_##N##_alltoall_##G(nvshmem_team_t team, T *dest, const T *source, size_t nelems) {       \
        return shmemgx_alltoallmem##S(nvshmemi::dteam(team), dest, source, nelems * sizeof(T));                        \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_##N##_broadcast_##G(nvshmem_team_t team, T *dest, const T *source, size_t nelems,        \
                                                  int PE_root) {                                                       \
        return shmemgx_broadcastmem##S(nvshmemi::dteam(team), dest, source, nelems * sizeof(T), PE_root);              \
    }
NVSHMEMI_RMA_TYPES(NVSHMEMI_GROUP_TYPED)
#undef NVSHMEMI_GROUP_TYPED
#undef NVSHMEMI_GROUP_TYPED_G
#define NVSHMEMI_GROUP_REDUCE(T, N, OP)                                                                                \
    NVSHMEMI_DEV int nvshmemx_##N##_##OP##_reduce_block(nvshmem_team_t team, T *dest, const T *source,                 \
                                                        size_t nreduce) {                                              \
        return shmemgx_##N##_##OP##_reduce_tg(nvshmemi::dteam(team), dest, source, nreduce);                           \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_##N##_##OP##_reduce_warp(nvshmem_team_t team, T *dest, const T *source,                  \
                                                       size_t nreduce) {                                               \
        return shmemgx_##N##_##OP##_reduce_htg(nvshmemi::dteam(team), dest, source, nreduce);                          \
    }
#define NVSHMEMI_GROUP_REDUCE_ARITH(T, N)                                                                              \
    NVSHMEMI_GROUP_REDUCE(T, N, sum)                                                                                   \
    NVSHMEMI_GROUP_REDUCE(T, N, prod) NVSHMEMI_GROUP_REDUCE(T, N, min) NVSHMEMI_GROUP_REDUCE(T, N, max)
#define NVSHMEMI_GROUP_REDUCE_BIT(T, N)                                                                                \
    NVSHMEMI_GROUP_REDUCE(T, N, and) NVSHMEMI_GROUP_REDUCE(T, N, or) NVSHMEMI_GROUP_REDUCE(T, N, xor)
NVSHMEMI_ARITH_TYPES(NVSHMEMI_GROUP_REDUCE_ARITH)
NVSHMEMI_BIT_TYPES(NVSHMEMI_GROUP_REDUCE_BIT)
#undef NVSHMEMI_GROUP_REDUCE
#undef NVSHMEMI_GROUP_REDUCE_ARITH
#undef NVSHMEMI_GROUP_REDUCE_BIT

/* ==== stream-ordered (host) ==== */
NVSHMEMI_HOST void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t s) {
    shmemx_putmem_on_stream(dest, source, bytes, pe, (shmemx_stream_t)s);
}
NVSHMEMI_HOST void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t s) {
    shmemx_getmem_on_stream(dest, source, bytes, pe, (shmemx_stream_t)s);
}
NVSHMEMI_HOST void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                                    uint64_t signal, int sig_op, int pe, cudaStream_t s) {
    shmemx_putmem_signal_on_stream(dest, source, bytes, sig_addr, signal, nvshmemi_sigop(sig_op), pe,
                                   (shmemx_stream_t)s);
}
NVSHMEMI_HOST void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                                cudaStream_t s) {
    shmemx_putmem_signal_on_stream(sig_addr, sig_addr, 0, sig_addr, signal, nvshmemi_sigop(sig_op), pe,
                                   (shmemx_stream_t)s);
}
NVSHMEMI_HOST void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                                        cudaStream_t s) {
    shmemx_signal_wait_until_on_stream(sig_addr, nvshmemi_cmp(cmp), cmp_value, (shmemx_stream_t)s);
}
NVSHMEMI_HOST void nvshmemx_quiet_on_stream(cudaStream_t s) { shmemx_quiet_on_stream((shmemx_stream_t)s); }
/* The _nbi forms: gshmem's stream-ordered transfers are complete when the stream passes them, which is all a later
 * quiet on the stream would add; flush (the sources free to reuse) is a quiet for the same reason */
NVSHMEMI_HOST void nvshmemx_flush_on_stream(cudaStream_t s) { shmemx_quiet_on_stream((shmemx_stream_t)s); }
NVSHMEMI_HOST void nvshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                                 cudaStream_t s) {
    nvshmemx_putmem_on_stream(dest, source, bytes, pe, s);
}
NVSHMEMI_HOST void nvshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                                 cudaStream_t s) {
    nvshmemx_getmem_on_stream(dest, source, bytes, pe, s);
}
NVSHMEMI_HOST void nvshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t bytes,
                                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                                        cudaStream_t s) {
    nvshmemx_putmem_signal_on_stream(dest, source, bytes, sig_addr, signal, sig_op, pe, s);
}
/* the sized forms: nelems elements of BITS bits */
#define NVSHMEMI_STREAM_SIZED(BITS)                                                                                    \
    NVSHMEMI_HOST void nvshmemx_put##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe,           \
                                                      cudaStream_t s) {                                                \
        nvshmemx_putmem_on_stream(dest, source, nelems * (BITS / 8), pe, s);                                           \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_put##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,       \
                                                          cudaStream_t s) {                                            \
        nvshmemx_putmem_on_stream(dest, source, nelems * (BITS / 8), pe, s);                                           \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_get##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe,           \
                                                      cudaStream_t s) {                                                \
        nvshmemx_getmem_on_stream(dest, source, nelems * (BITS / 8), pe, s);                                           \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_get##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,       \
                                                          cudaStream_t s) {                                            \
        nvshmemx_getmem_on_stream(dest, source, nelems * (BITS / 8), pe, s);                                           \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_put##BITS##_signal_on_stream(void *dest, const void *source, size_t nelems,            \
                                                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,  \
                                                             cudaStream_t s) {                                         \
        nvshmemx_putmem_signal_on_stream(dest, source, nelems * (BITS / 8), sig_addr, signal, sig_op, pe, s);          \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_put##BITS##_signal_nbi_on_stream(void *dest, const void *source, size_t nelems,        \
                                                                 uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                                                 int pe, cudaStream_t s) {                             \
        nvshmemx_putmem_signal_on_stream(dest, source, nelems * (BITS / 8), sig_addr, signal, sig_op, pe, s);          \
    }
NVSHMEMI_STREAM_SIZED(8)
NVSHMEMI_STREAM_SIZED(16)
NVSHMEMI_STREAM_SIZED(32)
NVSHMEMI_STREAM_SIZED(64)
NVSHMEMI_STREAM_SIZED(128)
#undef NVSHMEMI_STREAM_SIZED
NVSHMEMI_HOST void nvshmemx_barrier_all_on_stream(cudaStream_t s) { shmemx_barrier_all_on_stream((shmemx_stream_t)s); }
NVSHMEMI_HOST void nvshmemx_sync_all_on_stream(cudaStream_t s) { shmemx_sync_all_on_stream((shmemx_stream_t)s); }
NVSHMEMI_HOST int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t bytes,
                                                 cudaStream_t s) {
    return shmemx_fcollectmem_on_stream(gshmemx_nv_team(team, "nvshmemx_fcollectmem_on_stream"), dest, source, bytes,
                                        (shmemx_stream_t)s);
}
NVSHMEMI_HOST int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t bytes,
                                                 cudaStream_t s) {
    return shmemx_alltoallmem_on_stream(gshmemx_nv_team(team, "nvshmemx_alltoallmem_on_stream"), dest, source, bytes,
                                        (shmemx_stream_t)s);
}
NVSHMEMI_HOST int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t bytes,
                                                  int PE_root, cudaStream_t s) {
    return shmemx_broadcastmem_on_stream(gshmemx_nv_team(team, "nvshmemx_broadcastmem_on_stream"), dest, source, bytes,
                                         PE_root, (shmemx_stream_t)s);
}
#define NVSHMEMI_STREAM_TYPED(T, N)                                                                                    \
    NVSHMEMI_HOST void nvshmemx_##N##_put_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t s) { \
        nvshmemx_putmem_on_stream(dest, source, nelems * sizeof(T), pe, s);                                            \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_##N##_get_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t s) { \
        nvshmemx_getmem_on_stream(dest, source, nelems * sizeof(T), pe, s);                                            \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_##N##_put_signal_on_stream(T *dest, const T *source, size_t nelems,                    \
                                                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,    \
                                                           cudaStream_t s) {                                           \
        nvshmemx_putmem_signal_on_stream(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe, s);           \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_##N##_put_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe,               \
                                                        cudaStream_t s) {                                              \
        nvshmemx_putmem_on_stream(dest, source, nelems * sizeof(T), pe, s);                                            \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_##N##_get_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe,               \
                                                        cudaStream_t s) {                                              \
        nvshmemx_getmem_on_stream(dest, source, nelems * sizeof(T), pe, s);                                            \
    }                                                                                                                  \
    NVSHMEMI_HOST void nvshmemx_##N##_put_signal_nbi_on_stream(T *dest, const T *source, size_t nelems,                \
                                                               uint64_t *sig_addr, uint64_t signal, int sig_op,        \
                                                               int pe, cudaStream_t s) {                               \
        nvshmemx_putmem_signal_on_stream(dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe, s);           \
    }                                                                                                                  \
    NVSHMEMI_HOST int nvshmemx_##N##_fcollect_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,  \
                                                        cudaStream_t s) {                                              \
        return nvshmemx_fcollectmem_on_stream(team, dest, source, nelems * sizeof(T), s);                              \
    }                                                                                                                  \
    NVSHMEMI_HOST int nvshmemx_##N##_alltoall_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,  \
                                                        cudaStream_t s) {                                              \
        return nvshmemx_alltoallmem_on_stream(team, dest, source, nelems * sizeof(T), s);                              \
    }                                                                                                                  \
    NVSHMEMI_HOST int nvshmemx_##N##_broadcast_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems, \
                                                         int PE_root, cudaStream_t s) {                                \
        return nvshmemx_broadcastmem_on_stream(team, dest, source, nelems * sizeof(T), PE_root, s);                    \
    }
NVSHMEMI_RMA_TYPES(NVSHMEMI_STREAM_TYPED)
#undef NVSHMEMI_STREAM_TYPED
/* gshmem's stream-ordered reductions are sum, min and max */
#define NVSHMEMI_STREAM_REDUCE(T, N, OP)                                                                               \
    NVSHMEMI_HOST int nvshmemx_##N##_##OP##_reduce_on_stream(nvshmem_team_t team, T *dest, const T *source,            \
                                                             size_t nreduce, cudaStream_t s) {                         \
        return shmemx_##N##_##OP##_reduce_on_stream(gshmemx_nv_team(team, "nvshmemx_" #N "_" #OP "_reduce_on_stream"), \
                                                    dest, source, nreduce, (shmemx_stream_t)s);                        \
    }
#define NVSHMEMI_STREAM_REDUCE3(T, N)                                                                                  \
    NVSHMEMI_STREAM_REDUCE(T, N, sum) NVSHMEMI_STREAM_REDUCE(T, N, min) NVSHMEMI_STREAM_REDUCE(T, N, max)
NVSHMEMI_ARITH_TYPES(NVSHMEMI_STREAM_REDUCE3)
#undef NVSHMEMI_STREAM_REDUCE
#undef NVSHMEMI_STREAM_REDUCE3

/* ==== half and bfloat16 reductions (CUDA and its emulation: the types are cuda_fp16.h's and cuda_bf16.h's) ====
 * The device library's reduction over these element types, accumulating in float: each element is converted to
 * float, the team's values are combined there and the result is rounded once to the element type (exact for min and
 * max, and for sums and products whose result and partial results float holds exactly). The host form is that
 * reduction as a one-block kernel on the default stream, waited for; the stream form, the same kernel on the stream. */
#if !defined(__HIPCC__)
#if defined(GSHMEM_EMULATE_GPU)
#include <gshmem/emu/cuda_bf16.hpp>
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif
namespace shmemgi {
template <> struct red_acc<__half> {
    typedef float type;
    static SHMEMGI_D float to(__half v) { return __half2float(v); }
    static SHMEMGI_D __half from(float v) { return __float2half_rn(v); }
};
template <> struct red_acc<__nv_bfloat16> {
    typedef float type;
    static SHMEMGI_D float to(__nv_bfloat16 v) { return __bfloat162float(v); }
    static SHMEMGI_D __nv_bfloat16 from(float v) { return __float2bfloat16_rn(v); }
};
} // namespace shmemgi
namespace nvshmemi {
template <class T, int OP>
NVSHMEMI_HOST int reduce16_host(nvshmem_team_t team, T *dest, const T *source, size_t nreduce, const char *fn) {
    SHMEMGI_LAUNCH((shmemgi::os_reduce<T, OP>), (shmemx_stream_t)0, gshmemx_nv_team(team, fn), dest, source, nreduce);
    return cudaStreamSynchronize(0) != cudaSuccess;
}
} // namespace nvshmemi
#define NVSHMEMI_REDUCE16(T, N, OP, ROP)                                                                               \
    NVSHMEMI_HD int nvshmem_##N##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source, size_t nreduce) {       \
        return NVSHMEMI_BOTH(                                                                                          \
            (shmemgi::reduce<T, shmemgi::ROP>(shmemgi::thread_grp(), nvshmemi::dteam(team), dest, source, nreduce,     \
                                              "nvshmem_" #N "_" #OP "_reduce")),                                       \
            (nvshmemi::reduce16_host<T, shmemgi::ROP>(team, dest, source, nreduce, "nvshmem_" #N "_" #OP "_reduce"))); \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_##N##_##OP##_reduce_block(nvshmem_team_t team, T *dest, const T *source,                 \
                                                        size_t nreduce) {                                              \
        return shmemgi::reduce<T, shmemgi::ROP>(shmemgi::tg_grp(), nvshmemi::dteam(team), dest, source, nreduce,       \
                                                "nvshmemx_" #N "_" #OP "_reduce_block");                               \
    }                                                                                                                  \
    NVSHMEMI_DEV int nvshmemx_##N##_##OP##_reduce_warp(nvshmem_team_t team, T *dest, const T *source,                  \
                                                       size_t nreduce) {                                               \
        return shmemgi::reduce<T, shmemgi::ROP>(shmemgi::htg_grp(), nvshmemi::dteam(team), dest, source, nreduce,      \
                                                "nvshmemx_" #N "_" #OP "_reduce_warp");                                \
    }                                                                                                                  \
    NVSHMEMI_HOST int nvshmemx_##N##_##OP##_reduce_on_stream(nvshmem_team_t team, T *dest, const T *source,            \
                                                             size_t nreduce, cudaStream_t s) {                         \
        SHMEMGI_LAUNCH((shmemgi::os_reduce<T, shmemgi::ROP>), (shmemx_stream_t)s,                                      \
                       gshmemx_nv_team(team, "nvshmemx_" #N "_" #OP "_reduce_on_stream"), dest, source, nreduce);      \
        return 0;                                                                                                      \
    }
#define NVSHMEMI_REDUCE16_ALL(T, N)                                                                                    \
    NVSHMEMI_REDUCE16(T, N, sum, RED_SUM)                                                                              \
    NVSHMEMI_REDUCE16(T, N, prod, RED_PROD) NVSHMEMI_REDUCE16(T, N, min, RED_MIN) NVSHMEMI_REDUCE16(T, N, max, RED_MAX)
NVSHMEMI_REDUCE16_ALL(half, half)
NVSHMEMI_REDUCE16_ALL(__nv_bfloat16, bfloat16)
#undef NVSHMEMI_REDUCE16
#undef NVSHMEMI_REDUCE16_ALL
#endif

/* ==== collective launch: a cooperative launch, so every block is resident and may wait on the others ==== */
NVSHMEMI_HOST int nvshmemx_collective_launch_query_gridsize(const void *func, dim3 blockDims, void **args,
                                                            size_t sharedMem, int *gridsize) {
    (void)args;
    int per_sm = 0, sms = 0, dev = 0;
    if (!gridsize)
        return NVSHMEMX_ERROR_INVALID_VALUE;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)(blockDims.x * blockDims.y * blockDims.z),
                                                      sharedMem) != cudaSuccess)
        return NVSHMEMX_ERROR_INTERNAL;
    *gridsize = per_sm * sms;
    return NVSHMEMX_SUCCESS;
}
NVSHMEMI_HOST int nvshmemx_collective_launch(const void *func, dim3 gridDims, dim3 blockDims, void **args,
                                             size_t sharedMem, cudaStream_t stream) {
    if (gridDims.x == 0 && gridDims.y == 0 && gridDims.z == 0) { /* the largest grid that fits */
        int n = 0;
        if (nvshmemx_collective_launch_query_gridsize(func, blockDims, args, sharedMem, &n) || n <= 0)
            return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
        gridDims = dim3((unsigned)n, 1, 1);
    }
    return cudaLaunchCooperativeKernel(func, gridDims, blockDims, args, sharedMem, stream) == cudaSuccess
               ? NVSHMEMX_SUCCESS
               : NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
}
#endif /* NVSHMEMI_GPU_CODE */
#endif
