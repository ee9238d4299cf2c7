/* dev_coll.cu - gshmem's collectives inside kernels (shmemgx_*), at thread, block and warp granularity, on the device
 * world team and on a team split from it (the even PEs): barrier_all, broadcastmem from each root, fcollectmem,
 * alltoallmem, and reductions (sum, prod, min, max, and, or, xor on several types), one longer than the library's
 * scratch, one in place; and two reductions at once, on two teams, by two blocks of one kernel. */
#include "dev_common.h"

#define N 40000 /* ints: 160 KB, more than one pass of the reduction scratch */
#define B 1000  /* bytes per member in the data collectives */

struct bufs {
    int *isrc, *idst;
    double *dsrc, *ddst;
    uint64_t *usrc, *udst;
    char *csrc, *cdst; /* [B * n] */
    int *count;
};

__device__ static int ival(int pe, size_t i) { return (int)(pe * 7 + i % 1000) - 300; }
__device__ static char cval(int pe, int to, size_t i) { return (char)(pe * 13 + to * 5 + i); }

/* the world's barrier where the team is the world; a team_sync on a split team */
__device__ static void barrier(shmem_team_t team, int world, int gran) {
    if (world)
        gran == 1 ? shmemgx_barrier_all_tg() : gran == 2 ? shmemgx_barrier_all_htg() : shmemgx_barrier_all();
    else
        gran == 1   ? (void)shmemg_team_sync_tg(team)
        : gran == 2 ? (void)shmemg_team_sync_htg(team)
                    : (void)shmemg_team_sync(team);
}

/* every member has checked before anyone's next collective writes into its dest */
__device__ static void settle(shmem_team_t team, int lead, int gran) {
    __syncthreads();
    if (lead)
        gran == 1   ? (void)shmemg_team_sync_tg(team)
        : gran == 2 ? (void)shmemg_team_sync_htg(team)
                    : (void)shmemg_team_sync(team);
    __syncthreads();
}

/* lead: this thread takes part (all of a block for _tg, warp 0 for _htg, thread 0 alone otherwise) */
#define GX(gran, call) ((gran) == 1 ? shmemgx_##call##_tg : (gran) == 2 ? shmemgx_##call##_htg : shmemgx_##call)

__global__ void k_data(shmem_team_t team, int world, int tme, int tn, int gran, bufs b, int *fails) {
    int lead = gran == 1 ? 1 : gran == 2 ? threadIdx.x < 32 : threadIdx.x == 0;
    for (int i = threadIdx.x; i < B * tn; i += blockDim.x) {
        b.csrc[i] = cval(tme, i / B, i % B);
        b.cdst[i] = 0;
    }
    __syncthreads();
    if (lead) { /* (the world's barrier where the team is the world; a team_sync on a split team) */
        barrier(team, world, gran);
    }
    __syncthreads();
    for (int root = 0; root < tn; root++) { /* broadcast from every root */
        if (lead)
            DCHECK(GX(gran, broadcastmem)(team, b.cdst, b.csrc, B, root) == 0, "broadcast returned nonzero");
        __syncthreads();
        for (int i = threadIdx.x; i < B; i += blockDim.x)
            DCHECK(b.cdst[i] == cval(root, 0, i), "broadcast from %d: [%d] = %d", root, i, b.cdst[i]);
        settle(team, lead, gran);
    }
    if (lead)
        GX(gran, fcollectmem)(team, b.cdst, b.csrc, B);
    __syncthreads();
    for (int i = threadIdx.x; i < B * tn; i += blockDim.x)
        DCHECK(b.cdst[i] == cval(i / B, 0, i % B), "fcollect [%d] = %d", i, b.cdst[i]);
    settle(team, lead, gran);
    if (lead)
        GX(gran, alltoallmem)(team, b.cdst, b.csrc, B);
    __syncthreads();
    for (int i = threadIdx.x; i < B * tn; i += blockDim.x) /* block j came from member j, the one it made for me */
        DCHECK(b.cdst[i] == cval(i / B, tme, i % B), "alltoall [%d] = %d", i, b.cdst[i]);
    __syncthreads();
    if (lead) { /* nobody starts the next test's writes before everyone checked */
        barrier(team, world, gran);
    }
}

__global__ void k_reduce(shmem_team_t team, int tme, int tn, int gran, bufs b, int *fails) {
    int lead = gran == 1 ? 1 : gran == 2 ? threadIdx.x < 32 : threadIdx.x == 0;
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        b.isrc[i] = ival(tme, i);
    for (int i = threadIdx.x; i < 64; i += blockDim.x) {
        b.dsrc[i] = 1.0 + tme + i * 0.5;
        b.usrc[i] = (1ull << ((tme + i) % 64)) | ((uint64_t)tme << 56);
    }
    __syncthreads();
    if (lead) {
        DCHECK(GX(gran, int_sum_reduce)(team, b.idst, b.isrc, N) == 0, "int sum returned nonzero");
        GX(gran, double_max_reduce)(team, b.ddst, b.dsrc, 64);
        GX(gran, uint64_xor_reduce)(team, b.udst, b.usrc, 64);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        int want = 0;
        for (int p = 0; p < tn; p++)
            want += ival(p, i);
        DCHECK(b.idst[i] == want, "int sum [%d] = %d, expected %d", i, b.idst[i], want);
    }
    for (int i = threadIdx.x; i < 64; i += blockDim.x) {
        uint64_t x = 0;
        for (int p = 0; p < tn; p++)
            x ^= (1ull << ((p + i) % 64)) | ((uint64_t)p << 56);
        DCHECK(b.ddst[i] == tn + i * 0.5, "double max [%d] = %g", i, b.ddst[i]);
        DCHECK(b.udst[i] == x, "uint64 xor [%d]", i);
    }
    settle(team, lead, gran);
    /* in place, and the other operations on small arrays */
    for (int i = threadIdx.x; i < 64; i += blockDim.x)
        b.isrc[i] = tme + 1 + i;
    __syncthreads();
    if (lead)
        GX(gran, int_min_reduce)(team, b.isrc, b.isrc, 64);
    __syncthreads();
    for (int i = threadIdx.x; i < 64; i += blockDim.x)
        DCHECK(b.isrc[i] == 1 + i, "int min in place [%d] = %d", i, b.isrc[i]);
    settle(team, lead, gran);
    for (int i = threadIdx.x; i < 64; i += blockDim.x) {
        b.usrc[i] = 0xffull << (8 * (tme % 8)) | 1;
        b.dsrc[i] = 1.0 + (tme == 0 ? 1.0 : 0.0);
    }
    __syncthreads();
    if (lead) {
        GX(gran, uint64_or_reduce)(team, b.udst, b.usrc, 64);
        GX(gran, double_prod_reduce)(team, b.ddst, b.dsrc, 64);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 64; i += blockDim.x) {
        uint64_t o = 1;
        for (int p = 0; p < tn; p++)
            o |= 0xffull << (8 * (p % 8));
        DCHECK(b.udst[i] == o, "uint64 or [%d]", i);
        DCHECK(b.ddst[i] == 2.0, "double prod [%d] = %g", i, b.ddst[i]);
    }
    settle(team, lead, gran);
    if (lead) {
        GX(gran, uint64_and_reduce)(team, b.udst, b.usrc, 64);
        GX(gran, int_max_reduce)(team, b.idst, b.isrc, 64);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 64; i += blockDim.x)
        DCHECK(b.udst[i] == (tn == 1 ? (0xffull | 1) : 1ull), "uint64 and [%d] = %#llx", i,
               (unsigned long long)b.udst[i]);
    settle(team, lead, gran);
}

/* block 0 sums over the world while block 1 takes the maximum over a second team of the same PEs: each team's
 * reduction has its own scratch, or the two overwrite each other's partial results */
#define NC 20000
__global__ void k_two(shmem_team_t other, int np, int *src, int *sum, int *max, int *fails) {
    int me = shmemg_my_pe();
    for (size_t i = threadIdx.x; i < NC; i += blockDim.x)
        src[i] = ival(me, i);
    __syncthreads();
    if (blockIdx.x == 0)
        shmemgx_int_sum_reduce_tg(SHMEM_DEVICE_TEAM_WORLD, sum, src, NC);
    else
        shmemgx_int_max_reduce_tg(other, max, src, NC);
    __syncthreads();
    for (size_t i = threadIdx.x; i < NC; i += blockDim.x) {
        int want_sum = 0, want_max = ival(0, i);
        for (int pe = 0; pe < np; pe++) {
            want_sum += ival(pe, i);
            want_max = ival(pe, i) > want_max ? ival(pe, i) : want_max;
        }
        if (blockIdx.x == 0)
            DCHECK(sum[i] == want_sum, "concurrent sum [%lu]: %d, expected %d", (unsigned long)i, sum[i], want_sum);
        else
            DCHECK(max[i] == want_max, "concurrent max [%lu]: %d, expected %d", (unsigned long)i, max[i], want_max);
    }
}

int main() {
    dev_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    bufs b;
    b.isrc = (int *)shmemg_calloc(N, sizeof(int));
    b.idst = (int *)shmemg_calloc(N, sizeof(int));
    b.dsrc = (double *)shmemg_calloc(64, sizeof(double));
    b.ddst = (double *)shmemg_calloc(64, sizeof(double));
    b.usrc = (uint64_t *)shmemg_calloc(64, sizeof(uint64_t));
    b.udst = (uint64_t *)shmemg_calloc(64, sizeof(uint64_t));
    b.csrc = (char *)shmemg_calloc((size_t)B * np, 1);
    b.cdst = (char *)shmemg_calloc((size_t)B * np, 1);
    HCHECK(b.isrc && b.idst && b.cdst, "shmemg_calloc failed");
    shmem_team_t even = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_DEVICE_TEAM_WORLD, 0, 2, (np + 1) / 2, nullptr, 0, &even);
    for (int gran = 0; gran < 3; gran++) {
        k_data<<<1, 64>>>(SHMEM_DEVICE_TEAM_WORLD, 1, me, np, gran, b, dev_fail);
        dev_check("k_data");
        k_reduce<<<1, 64>>>(SHMEM_DEVICE_TEAM_WORLD, me, np, gran, b, dev_fail);
        dev_check("k_reduce");
        shmem_barrier_all();
        if (even != SHMEM_TEAM_INVALID) { /* the even PEs' own team, while the odd ones wait on the host */
            k_data<<<1, 64>>>(even, 0, shmem_team_my_pe(even), shmem_team_n_pes(even), gran, b, dev_fail);
            dev_check("k_data (split team)");
            k_reduce<<<1, 64>>>(even, shmem_team_my_pe(even), shmem_team_n_pes(even), gran, b, dev_fail);
            dev_check("k_reduce (split team)");
        }
        shmem_barrier_all();
    }
    shmem_team_t dup = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_DEVICE_TEAM_WORLD, 0, 1, np, nullptr, 0, &dup);
    HCHECK(dup != SHMEM_TEAM_INVALID, "splitting a second world team failed");
    int *two = (int *)shmemg_calloc(3 * (size_t)NC, sizeof(int));
    for (int rep = 0; rep < 4; rep++) { /* (the two overlap at random: more tries, more chances to collide) */
        k_two<<<2, 128>>>(dup, np, two, two + NC, two + 2 * NC, dev_fail);
        dev_check("k_two");
        shmem_barrier_all();
    }
    shmemg_free(two);
    shmem_team_destroy(dup);
    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    if (me == 0)
        printf("dev_coll: ok (%d PEs)\n", np);
    shmem_finalize();
    return 0;
}
