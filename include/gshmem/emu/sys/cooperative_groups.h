/* cooperative_groups.h - for programs built with oshcc --emulate-gpu: CUDA's cooperative groups on gshmem's CPU
 * emulation (thread blocks, tiles of up to a warp, the grid under cudaLaunchCooperativeKernel); the rest stops
 * compilation, naming what it is. */
#ifndef GSHMEM_EMU_COOPERATIVE_GROUPS_H
#define GSHMEM_EMU_COOPERATIVE_GROUPS_H

#include <gshmem/emu/cuda.hpp>

#include <cstdio>

namespace cooperative_groups {
namespace details {
template <class...> struct not_emulated : std::false_type {};
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned block_rank_of_thread() { return gshmem_emu_cur->lin; }
/* the lanes of the warp-aligned tile of n threads holding this thread */
inline unsigned tile_mask(unsigned n) {
    unsigned base = gshmem_emu_cur->lane & ~(n - 1);
    return (n >= 32 ? ~0u : (1u << n) - 1) << base;
}
[[noreturn]] inline void bad_tile(unsigned n) {
    static thread_local char msg[160];
    std::snprintf(msg, sizeof msg,
                  "cooperative_groups::tiled_partition(parent, %u): the size must be a power of two of at most 32 "
                  "and at most the parent's (a GPU traps)",
                  n);
    gshmem_emu_trap(msg);
}
/* a value of any trivially copyable type through the warp, 8 bytes at a time */
template <class T> inline T shfl(unsigned mask, const T &v, int kind, int arg, int width) {
    static_assert(std::is_trivially_copyable<T>::value, "cooperative_groups shuffles take trivially copyable types");
    uint64_t in[(sizeof(T) + 7) / 8] = {}, out[(sizeof(T) + 7) / 8];
    std::memcpy(in, &v, sizeof v);
    for (size_t i = 0; i < (sizeof(T) + 7) / 8; i++)
        out[i] = gshmem_emu_shfl(mask, in[i], kind, arg, width);
    T r;
    std::memcpy(&r, out, sizeof r);
    return r;
}
} // namespace details

/* Any group: the thread block, or a tile of it (at most a warp) */
class thread_group {
  protected:
    unsigned mask_; /* a tile's lanes in its warp; 0 for the block */
    unsigned size_, meta_rank_, meta_size_;
    thread_group(unsigned mask, unsigned size, unsigned meta_rank, unsigned meta_size)
        : mask_(mask), size_(size), meta_rank_(meta_rank), meta_size_(meta_size) {}
    friend thread_group tiled_partition(const thread_group &parent, unsigned n);

  public:
    unsigned long long size() const { return mask_ ? size_ : details::block_threads(); }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const {
        return mask_ ? details::block_rank_of_thread() % size_ : details::block_rank_of_thread();
    }
    void sync() const {
        if (mask_)
            __syncwarp(mask_);
        else
            __syncthreads();
    }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }
};

class thread_block : public thread_group {
    thread_block() : thread_group(0, 0, 0, 1) {}
    friend thread_block this_thread_block();

  public:
    static void sync() { __syncthreads(); }
    static unsigned size() { return details::block_threads(); }
    static unsigned num_threads() { return size(); }
    static unsigned thread_rank() { return details::block_rank_of_thread(); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    static dim3 dim_threads() { return group_dim(); }
};
inline thread_block this_thread_block() { return thread_block(); }

/* The grid: valid, and sync() allowed, only in a kernel launched by cudaLaunchCooperativeKernel */
class grid_group {
    grid_group() {}
    friend grid_group this_grid();

  public:
    bool is_valid() const { return gshmem_emu_grid_valid() != 0; }
    void sync() const { gshmem_emu_grid_sync(); }
    static unsigned long long num_blocks() { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    static unsigned long long num_threads() { return num_blocks() * details::block_threads(); }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long block_rank() {
        return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
    static unsigned long long thread_rank() {
        return block_rank() * details::block_threads() + details::block_rank_of_thread();
    }
    static dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 dim_threads() { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
    static dim3 thread_index() {
        return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                    blockIdx.z * blockDim.z + threadIdx.z);
    }
    static dim3 group_dim() { return dim_threads(); }
};
inline grid_group this_grid() { return grid_group(); }

/* A tile of N threads (1, 2, 4, ..., 32) of a block or of a larger tile: consecutive thread ranks, within one warp */
template <unsigned N, class ParentT = void> class thread_block_tile;
template <unsigned N> class thread_block_tile<N, void> : public thread_group {
    static_assert(N != 64 && N != 128 && N != 256 && N != 512,
                  "thread_block_tile larger than a warp (64 to 512 threads) is not emulated by oshcc --emulate-gpu "
                  "(docs/device.md lists what is)");
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "Size must be one of 1/2/4/8/16/32");

  protected:
    thread_block_tile(unsigned meta_rank, unsigned meta_size)
        : thread_group(details::tile_mask(N), N, meta_rank, meta_size) {}
    template <unsigned M, class P> friend thread_block_tile<M, P> tiled_partition(const P &parent);

  public:
    static constexpr unsigned num_threads() { return N; }
    static constexpr unsigned size() { return N; }
    static unsigned thread_rank() { return details::block_rank_of_thread() % N; }
    void sync() const { __syncwarp(mask_); }
    unsigned get_mask() const { return mask_; }
    template <class T> T shfl(T v, int src) const { return details::shfl(mask_, v, GSHMEM_EMU_SHFL_IDX, src, (int)N); }
    template <class T> T shfl_up(T v, unsigned delta) const {
        return details::shfl(mask_, v, GSHMEM_EMU_SHFL_UP, (int)delta, (int)N);
    }
    template <class T> T shfl_down(T v, unsigned delta) const {
        return details::shfl(mask_, v, GSHMEM_EMU_SHFL_DOWN, (int)delta, (int)N);
    }
    template <class T> T shfl_xor(T v, unsigned lane_mask) const {
        return details::shfl(mask_, v, GSHMEM_EMU_SHFL_XOR, (int)lane_mask, (int)N);
    }
    /* by tile rank, as the tile's own lanes */
    unsigned ballot(int pred) const {
        return gshmem_emu_vote(mask_, GSHMEM_EMU_VOTE_BALLOT, pred) >> (gshmem_emu_cur->lane & ~(N - 1));
    }
    int any(int pred) const { return (int)gshmem_emu_vote(mask_, GSHMEM_EMU_VOTE_ANY, pred); }
    int all(int pred) const { return (int)gshmem_emu_vote(mask_, GSHMEM_EMU_VOTE_ALL, pred); }
    template <class T> unsigned match_any(T v) const {
        static_assert(std::is_integral<T>::value || std::is_floating_point<T>::value,
                      "match_any takes an integral or floating-point value");
        unsigned m = 0;
        for (unsigned r = 0; r < N; r++)
            m |= (unsigned)(shfl(v, (int)r) == v) << r;
        return m;
    }
    template <class T> unsigned match_all(T v, int &pred) const {
        unsigned full = N >= 32 ? ~0u : (1u << N) - 1;
        pred = match_any(v) == full;
        return pred ? full : 0;
    }
};
/* (a tile that knows its parent's type converts to the plain one) */
template <unsigned N, class ParentT> class thread_block_tile : public thread_block_tile<N, void> {
    thread_block_tile(unsigned meta_rank, unsigned meta_size) : thread_block_tile<N, void>(meta_rank, meta_size) {}
    template <unsigned M, class P> friend thread_block_tile<M, P> tiled_partition(const P &parent);
};

namespace details {
template <unsigned N, class P> struct tile_fits : std::true_type {};
template <unsigned N, unsigned M, class PP>
struct tile_fits<N, thread_block_tile<M, PP>> : std::integral_constant<bool, N <= M> {};
} // namespace details

template <unsigned N, class ParentT> inline thread_block_tile<N, ParentT> tiled_partition(const ParentT &parent) {
    static_assert(details::tile_fits<N, ParentT>::value, "a tile cannot be larger than its parent tile");
    unsigned rank = (unsigned)parent.thread_rank(), n = (unsigned)parent.num_threads();
    return thread_block_tile<N, ParentT>(rank / N, (n + N - 1) / N);
}

/* The same with the size known at run time: a thread_group */
inline thread_group tiled_partition(const thread_group &parent, unsigned n) {
    unsigned psize = (unsigned)parent.size();
    if (n == 0 || n > 32 || (n & (n - 1)) || n > psize)
        details::bad_tile(n);
    unsigned rank = (unsigned)parent.thread_rank();
    return thread_group(details::tile_mask(n), n, rank / n, (psize + n - 1) / n);
}
inline thread_group tiled_partition(const thread_block &parent, unsigned n) {
    return tiled_partition(static_cast<const thread_group &>(parent), n);
}

template <class G> inline void sync(const G &g) { g.sync(); }
template <class G> inline auto thread_rank(const G &g) -> decltype(g.thread_rank()) { return g.thread_rank(); }
template <class G> inline auto group_size(const G &g) -> decltype(g.num_threads()) { return g.num_threads(); }

/* Not emulated: a call stops compilation with the feature's name */
#define GSHMEM_EMU_CG_NOT_EMULATED(name, what)                                                                         \
    template <class... A> inline int name(A...) {                                                                      \
        static_assert(details::not_emulated<A...>::value, "cooperative_groups::" #name ": " what                       \
                                                          " is not emulated by oshcc --emulate-gpu (docs/device.md "   \
                                                          "lists what is)");                                           \
        return 0;                                                                                                      \
    }
/* (the emulation's threads never diverge, so it cannot say which ones a branch holds) */
GSHMEM_EMU_CG_NOT_EMULATED(coalesced_threads, "coalesced_group")
GSHMEM_EMU_CG_NOT_EMULATED(this_cluster, "thread block clusters")
GSHMEM_EMU_CG_NOT_EMULATED(this_multi_grid, "multi-device grids")
GSHMEM_EMU_CG_NOT_EMULATED(binary_partition, "binary_partition")
GSHMEM_EMU_CG_NOT_EMULATED(labeled_partition, "labeled_partition")
/* (reduce, scan and memcpy_async: their headers stop compilation, cooperative_groups/ beside this one) */
#undef GSHMEM_EMU_CG_NOT_EMULATED
} // namespace cooperative_groups

#endif
