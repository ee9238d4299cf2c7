/* roc_program_habits.cpp - what public rocSHMEM programs do besides calling the routines: ask rocshmem_my_pe/n_pes
 * before rocshmem_init (to pick their GPU), abort through MPI_Abort(MPI_COMM_WORLD, ...) without including <mpi.h>, and
 * run work-group collectives on a team split from the world with rocshmem_team_split_strided. */
#include <iostream>

#include "roc_common.h"

#define CHECK_HIP(condition)                                                                                           \
    {                                                                                                                  \
        hipError_t error = condition;                                                                                  \
        if (error != hipSuccess) {                                                                                     \
            fprintf(stderr, "HIP error: %d line: %d\n", error, __LINE__);                                              \
            MPI_Abort(MPI_COMM_WORLD, error);                                                                          \
        }                                                                                                              \
    }
#define NR 33

__global__ void team_sum(int *src, int *dst, rocshmem_team_t team, int team_pe, int team_n, int *fails) {
    rocshmem_wg_init();
    rocshmem_ctx_t ctx = ROCSHMEM_CTX_DEFAULT; /* (left as it is when the pool is empty) */
    int have = rocshmem_wg_ctx_create(ROCSHMEM_CTX_WG_PRIVATE, &ctx) == 0;
    for (int i = (int)threadIdx.x; i < NR; i += (int)blockDim.x)
        src[i] = (team_pe + 1) * 100 + i;
    __syncthreads();
    rocshmem_ctx_int_sum_wg_reduce(ctx, team, dst, src, NR);
    for (int i = (int)threadIdx.x; i < NR; i += (int)blockDim.x)
        DCHECK(dst[i] == 100 * team_n * (team_n + 1) / 2 + team_n * i, "team sum [%d] = %d", i, dst[i]);
    if (have)
        rocshmem_wg_ctx_destroy(&ctx);
    rocshmem_wg_finalize();
}

int main() {
    int early_pe = rocshmem_my_pe(), early_n = rocshmem_n_pes();
    int ndevices = 0;
    CHECK_HIP(hipGetDeviceCount(&ndevices));
    CHECK_HIP(hipSetDevice(early_pe % ndevices));
    rocshmem_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    int *fails = roc_fails();
    if (early_pe != me || early_n != n) {
        printf("FAIL PE %d: before rocshmem_init rocshmem_my_pe/n_pes said %d of %d, after %d of %d\n", me, early_pe,
               early_n, me, n);
        int one = 1;
        HIPOK(hipMemcpy(fails, &one, sizeof one, hipMemcpyHostToDevice));
    }
    int *src = (int *)rocshmem_malloc(NR * sizeof(int)), *dst = (int *)rocshmem_malloc(NR * sizeof(int));
    /* every PE takes part in both splits (collective over the parent); the odd PEs' team exists where n > 1 */
    rocshmem_team_t dup = ROCSHMEM_TEAM_INVALID, odd = ROCSHMEM_TEAM_INVALID;
    if (rocshmem_team_split_strided(ROCSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &dup) != 0 ||
        dup == ROCSHMEM_TEAM_INVALID) {
        printf("FAIL PE %d: the world's duplicate was not made\n", me);
        rocshmem_global_exit(1);
    }
    rocshmem_team_split_strided(ROCSHMEM_TEAM_WORLD, 1, 2, n / 2, nullptr, 0, &odd);
    if ((me % 2 == 1) != (odd != ROCSHMEM_TEAM_INVALID)) {
        printf("FAIL PE %d: in the odd PEs' team: %d\n", me, odd != ROCSHMEM_TEAM_INVALID);
        rocshmem_global_exit(1);
    }
    hipLaunchKernelGGL(team_sum, dim3(1), dim3(64), 0, 0, src, dst, dup, rocshmem_team_my_pe(dup),
                       rocshmem_team_n_pes(dup), fails);
    CHECK_HIP(hipDeviceSynchronize());
    if (odd != ROCSHMEM_TEAM_INVALID) {
        hipLaunchKernelGGL(team_sum, dim3(1), dim3(64), 0, 0, src, dst, odd, rocshmem_team_my_pe(odd),
                           rocshmem_team_n_pes(odd), fails);
        CHECK_HIP(hipDeviceSynchronize());
        if (rocshmem_team_my_pe(odd) != me / 2)
            std::cout << "FAIL PE " << me << ": odd team rank " << rocshmem_team_my_pe(odd) << std::endl;
        rocshmem_team_destroy(odd);
    }
    rocshmem_team_destroy(dup);
    rocshmem_barrier_all();
    rocshmem_free(dst);
    rocshmem_free(src);
    return roc_finish("roc_program_habits", fails);
}
