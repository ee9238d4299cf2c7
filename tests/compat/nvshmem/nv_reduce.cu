/* nv_reduce.cu - reductions: host nvshmem_TYPE_OP_reduce on GPU buffers over NVSHMEM_TEAM_WORLD and over a team of
 * the even PEs split with nvshmem_team_split_strided, block-wide nvshmemx_TYPE_OP_reduce_block in a kernel on both
 * teams (the integer handle passed to the kernel). */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "nv_common.h"

#define N 100

__global__ void dev_reduce(nvshmem_team_t team, int *isrc, int *idst, double *dsrc, double *ddst) {
    nvshmemx_int_max_reduce_block(team, idst, isrc, N);
    nvshmemx_double_sum_reduce_block(team, ddst, dsrc, N);
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int *isrc = (int *)nvshmem_malloc(N * sizeof(int)), *idst = (int *)nvshmem_malloc(N * sizeof(int));
    double *dsrc = (double *)nvshmem_malloc(N * sizeof(double)), *ddst = (double *)nvshmem_malloc(N * sizeof(double));
    int hi[N];
    double hd[N];
    for (int i = 0; i < N; i++) {
        hi[i] = (me * 37 + i * 11) % 97;
        hd[i] = me + 0.5 * i;
    }
    CUDA_CHECK(cudaMemcpy(isrc, hi, sizeof hi, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dsrc, hd, sizeof hd, cudaMemcpyHostToDevice));
    nvshmem_team_t even = NVSHMEM_TEAM_INVALID;
    int ne = (n + 1) / 2;
    nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, ne, NULL, 0, &even);
    EXPECT((me % 2 == 0) == (even != NVSHMEM_TEAM_INVALID), "team of the even PEs: handle %d", (int)even);
    if (even != NVSHMEM_TEAM_INVALID)
        EXPECT(nvshmem_team_my_pe(even) == me / 2 && nvshmem_team_n_pes(even) == ne &&
                   nvshmem_team_translate_pe(even, nvshmem_team_my_pe(even), NVSHMEM_TEAM_WORLD) == me,
               "even team: my_pe %d n_pes %d", nvshmem_team_my_pe(even), nvshmem_team_n_pes(even));

    for (int round = 0; round < 2; round++) {
        nvshmem_team_t team = round ? even : NVSHMEM_TEAM_WORLD;
        int members = round ? ne : n, step = round ? 2 : 1;
        nvshmem_barrier_all();
        if (team == NVSHMEM_TEAM_INVALID)
            continue;
        /* host */
        nvshmem_int_sum_reduce(team, idst, isrc, N);
        CUDA_CHECK(cudaMemcpy(hi, idst, sizeof hi, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int p = 0; p < members; p++)
                want += (p * step * 37 + i * 11) % 97;
            EXPECT(hi[i] == want, "team %d: host int sum [%d] = %d, expected %d", (int)team, i, hi[i], want);
        }
        nvshmem_double_min_reduce(team, ddst, dsrc, N);
        CUDA_CHECK(cudaMemcpy(hd, ddst, sizeof hd, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            EXPECT(hd[i] == 0.5 * i, "team %d: host double min [%d] = %g", (int)team, i, hd[i]);
        /* device, one block */
        dev_reduce<<<1, 64>>>(team, isrc, idst, dsrc, ddst);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(hi, idst, sizeof hi, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(hd, ddst, sizeof hd, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) {
            int want = 0;
            double dw = 0;
            for (int p = 0; p < members; p++) {
                int v = (p * step * 37 + i * 11) % 97;
                want = v > want ? v : want;
                dw += p * step + 0.5 * i;
            }
            EXPECT(hi[i] == want, "team %d: device int max [%d] = %d, expected %d", (int)team, i, hi[i], want);
            EXPECT(hd[i] == dw, "team %d: device double sum [%d] = %g, expected %g", (int)team, i, hd[i], dw);
        }
    }
    nvshmem_barrier_all();
    nvshmem_team_destroy(even);
    nvshmem_free(ddst);
    nvshmem_free(dsrc);
    nvshmem_free(idst);
    nvshmem_free(isrc);
    printf("PE %d: %s\n", me, nv_fails ? "FAILED" : "ok");
    nvshmem_finalize();
    return nv_fails ? 1 : 0;
}
