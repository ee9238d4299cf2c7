/* dev_cg.cu - cooperative groups in kernels: the thread block, tiles of 1 to 32 threads (ranks, shuffles of small and
 * large values, votes, matches, tiles of one warp that synchronize apart), tiles sized at run time, and the grid of a
 * cooperative launch as large as the device holds, whose blocks meet in grid barriers between rounds of puts to the
 * next PE; one block more is refused. Modes: "nocoop" calls grid sync in an ordinary launch (a GPU traps). */
#include <cooperative_groups.h>
#include <cstring>

#include "dev_common.h"

namespace cg = cooperative_groups;

template <unsigned N, class Parent> __device__ void tile_checks(const Parent &parent, int *fails) {
    cg::thread_block_tile<N> t = cg::tiled_partition<N>(parent);
    unsigned pr = (unsigned)parent.thread_rank(), r = t.thread_rank();
    DCHECK(r == pr % N && t.size() == N && t.num_threads() == N, "tile<%u>: rank %u size %u", N, r, (unsigned)t.size());
    DCHECK(t.meta_group_rank() == pr / N && t.meta_group_size() == ((unsigned)parent.size() + N - 1) / N,
           "tile<%u>: meta group %u of %u", N, t.meta_group_rank(), t.meta_group_size());
    int v = (int)r + 1;
    for (unsigned off = N / 2; off > 0; off /= 2)
        v += t.shfl_down(v, off);
    if (r == 0)
        DCHECK(v == (int)(N * (N + 1) / 2), "tile<%u>: sum by shfl_down %d", N, v);
    DCHECK(t.shfl((int)r * 3, (int)N - 1) == (int)(N - 1) * 3, "tile<%u>: shfl from the last", N);
    DCHECK(t.shfl_up((int)r, 1) == (int)(r ? r - 1 : r), "tile<%u>: shfl_up", N);
    DCHECK(t.shfl_xor((int)r, 1) == (int)(N > 1 ? r ^ 1 : r), "tile<%u>: shfl_xor", N);
    unsigned odd = 0xaaaaaaaau & (N == 32 ? ~0u : (1u << N) - 1);
    DCHECK(t.ballot((int)(r & 1)) == odd, "tile<%u>: ballot %#x", N, t.ballot((int)(r & 1)));
    DCHECK(t.any(r == N - 1) && t.all(r < N) && t.all(r == 0) == (N == 1), "tile<%u>: votes", N);
    if (N > 1)
        DCHECK(t.match_any(r / 2) == 3u << (r & ~1u), "tile<%u>: match_any %#x", N, t.match_any(r / 2));
    int pred = 0;
    t.match_all(7, pred);
    DCHECK(pred == 1, "tile<%u>: match_all of equal values", N);
    double d = t.shfl(1.5 * r, (int)N - 1);
    DCHECK(d == 1.5 * (N - 1), "tile<%u>: shfl of a double %g", N, d);
    struct wide {
        long a, b, c;
    } w = {(long)r, 2L * r, 3L * r};
    w = t.shfl(w, (int)N - 1);
    DCHECK(w.a == (long)N - 1 && w.b == 2L * (N - 1) && w.c == 3L * (N - 1), "tile<%u>: shfl of 24 bytes", N);
    /* tiles of one warp apart: only every other one synchronizes and shuffles here */
    if (t.meta_group_rank() % 2 == 0) {
        DCHECK(t.shfl((int)r + 100, 0) == 100, "tile<%u>: shfl in a branch of even tiles", N);
        t.sync();
        DCHECK(t.ballot(1) == (N == 32 ? ~0u : (1u << N) - 1), "tile<%u>: ballot in a branch", N);
    }
}

__global__ void block_and_tiles(int *fails, int *scratch) {
    cg::thread_block b = cg::this_thread_block();
    unsigned rank = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y;
    DCHECK(b.thread_rank() == rank && b.size() == n && b.num_threads() == n, "block: rank %u size %u",
           b.thread_rank(), b.size());
    DCHECK(b.group_index().x == blockIdx.x && b.thread_index().y == threadIdx.y && b.group_dim().x == blockDim.x,
           "block: indices");
    int *s = scratch + blockIdx.x * n;
    s[rank] = (int)(rank * 7 + blockIdx.x);
    b.sync();
    DCHECK(s[(rank + 1) % n] == (int)(((rank + 1) % n) * 7 + blockIdx.x), "block: a neighbour's value after sync");
    cg::sync(b);
    DCHECK(cg::thread_rank(b) == rank && cg::group_size(b) == n, "block: free functions");
    cg::grid_group g = cg::this_grid();
    DCHECK(!g.is_valid(), "the grid of an ordinary launch is valid");
    DCHECK(g.num_blocks() == gridDim.x && g.block_rank() == blockIdx.x && g.thread_rank() == blockIdx.x * n + rank,
           "grid: ranks in an ordinary launch");
    tile_checks<1>(b, fails);
    tile_checks<2>(b, fails);
    tile_checks<4>(b, fails);
    tile_checks<8>(b, fails);
    tile_checks<16>(b, fails);
    tile_checks<32>(b, fails);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(b);
    tile_checks<4>(warp, fails); /* a tile of a tile */
    cg::thread_group g8 = cg::tiled_partition(b, 8);
    DCHECK(g8.thread_rank() == rank % 8 && g8.size() == 8, "tiled_partition(block, 8): rank %llu size %llu",
           g8.thread_rank(), g8.size());
    g8.sync();
    cg::thread_group g2 = cg::tiled_partition(g8, 2);
    DCHECK(g2.thread_rank() == rank % 2 && g2.size() == 2, "tiled_partition(tile, 2)");
    g2.sync();
    cg::thread_group whole = b;
    DCHECK(whole.size() == n && whole.thread_rank() == rank, "the block as a thread_group");
    whole.sync();
}

/* rounds of: a put of this block's value into the next PE's inbox, a grid barrier, one thread of the grid in a
 * barrier of all PEs, a grid barrier, every block checks what the previous PE put (inboxes alternate by round, so
 * the next round's puts cannot overwrite what is being checked) */
__global__ void rounds(int *fails, int *inbox, int *cells, int *ran, int nrounds) {
    cg::grid_group g = cg::this_grid();
    DCHECK(g.is_valid(), "the grid of a cooperative launch is not valid");
    unsigned nb = (unsigned)g.num_blocks(), b = (unsigned)g.block_rank();
    int me = shmemg_my_pe(), np = shmemg_n_pes(), left = (me + np - 1) % np;
    if (g.thread_rank() == 0)
        atomicAdd(ran, 1);
    for (int r = 0; r < nrounds; r++) {
        int *box = inbox + (r & 1) * nb;
        if (threadIdx.x == 0) {
            cells[b] = r * 1000 + (int)b;
            shmemg_int_p(&box[b], r * 1000 + me * 100 + (int)b, (me + 1) % np);
            shmemg_quiet();
        }
        g.sync();
        if (threadIdx.x == 0) {
            unsigned nx = (b + 1) % nb;
            DCHECK(cells[nx] == r * 1000 + (int)nx, "round %d: block %u's cell is %d after the grid barrier", r, nx,
                   cells[nx]);
        }
        if (g.thread_rank() == 0)
            shmemgx_barrier_all();
        g.sync();
        if (threadIdx.x == 0)
            DCHECK(box[b] == r * 1000 + left * 100 + (int)b, "round %d: inbox %u holds %d", r, b, box[b]);
        g.sync();
    }
}

__global__ void grid_sync_uncooperative() { cg::this_grid().sync(); }

static int launch_rounds(dim3 grid, dim3 block, int *inbox, int *cells, int *ran, int nrounds) {
    int *fails = dev_fail;
    void *args[] = {&fails, &inbox, &cells, &ran, &nrounds};
    return (int)cudaLaunchCooperativeKernel(rounds, grid, block, args, 0, nullptr);
}

int main(int argc, char **argv) {
    dev_init();
    int me = shmem_my_pe();
    if (argc > 1 && !strcmp(argv[1], "nocoop")) {
        grid_sync_uncooperative<<<2, 32>>>();
        cudaDeviceSynchronize();
        HCHECK(0, "grid sync in an ordinary launch returned");
    }
    int *scratch = nullptr;
    dim3 blk(16, 8);
    HCHECK(cudaMalloc(&scratch, 3 * 128 * sizeof(int)) == cudaSuccess, "cudaMalloc");
    block_and_tiles<<<3, blk>>>(dev_fail, scratch);
    dev_check("block and tiles");

    int attr = 0, sms = 0, per_sm = 0, threads = 64;
    HCHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrCooperativeLaunch, 0) == cudaSuccess && attr == 1,
           "cudaDevAttrCooperativeLaunch is %d", attr);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    HCHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds, threads, 0) == cudaSuccess && per_sm >= 1,
           "cudaOccupancyMaxActiveBlocksPerMultiprocessor: %d", per_sm);
    int most = per_sm * sms;
    int *inbox = (int *)shmemg_calloc(2 * (size_t)most, sizeof(int)), *cells = nullptr, *ran = nullptr;
    HCHECK(inbox && cudaMalloc(&cells, most * sizeof(int)) == cudaSuccess &&
               cudaMalloc(&ran, sizeof(int)) == cudaSuccess && cudaMemset(ran, 0, sizeof(int)) == cudaSuccess,
           "allocations");
    shmem_barrier_all();

    /* one block more than the device holds at once: refused, and nothing runs */
    int e = launch_rounds(dim3(most + 1), dim3(threads), inbox, cells, ran, 1);
    HCHECK(e == cudaErrorCooperativeLaunchTooLarge && cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge,
           "a cooperative launch of %d blocks (the device holds %d x %d) returned %d (%s)", most + 1, per_sm, sms, e,
           cudaGetErrorName((cudaError_t)e));
    /* as many as it holds, a few rounds; then a few blocks, many rounds */
    HCHECK(launch_rounds(dim3(most), dim3(threads), inbox, cells, ran, 3) == cudaSuccess,
           "a cooperative launch of %d blocks: %s", most, cudaGetErrorString(cudaGetLastError()));
    dev_check("rounds on the largest cooperative grid");
    shmem_barrier_all();
    HCHECK(launch_rounds(dim3(4), dim3(2 * threads), inbox, cells, ran, 40) == cudaSuccess,
           "a cooperative launch of 4 blocks: %s", cudaGetErrorString(cudaGetLastError()));
    dev_check("rounds on 4 blocks");
    int nran = 0;
    cudaMemcpy(&nran, ran, sizeof nran, cudaMemcpyDeviceToHost);
    HCHECK(nran == 2, "%d cooperative kernels ran, expected 2 (the refused one must not)", nran);
    shmem_barrier_all();
    if (me == 0)
        printf("dev_cg: ok (a cooperative grid of at most %d blocks of %d threads)\n", most, threads);
    shmemg_free(inbox);
    cudaFree(cells);
    cudaFree(ran);
    cudaFree(scratch);
    shmem_finalize();
    return 0;
}
