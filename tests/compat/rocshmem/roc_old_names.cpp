/* roc_old_names.cpp - a program written against rocSHMEM's older names (<roc_shmem/roc_shmem.hpp>, roc_shmem_*,
 * ROC_SHMEM_*): each PE's kernel writes its number into the next PE through the default context, and checks what
 * the previous one wrote after a work-group barrier; then the host broadcasts PE 0's number on the active set of all
 * PEs with a pSync sized and set by the older constants. */
#include <cstdio>
#include <hip/hip_runtime.h>
#include <roc_shmem/roc_shmem.hpp>

using namespace rocshmem;

__global__ void ring(int *slot, int *bad) {
    roc_shmem_wg_init();
    int me = roc_shmem_my_pe(), n = roc_shmem_n_pes();
    if (threadIdx.x == 0)
        roc_shmem_ctx_int_p(ROC_SHMEM_CTX_DEFAULT, slot, 7 + me, (me + 1) % n);
    roc_shmem_wg_barrier_all();
    if (threadIdx.x == 0 && *slot != 7 + (me + n - 1) % n)
        *bad = 1;
    roc_shmem_wg_finalize();
}

int main() {
    roc_shmem_init();
    int *slot = (int *)roc_shmem_malloc(2 * sizeof(int)), bad = 0;
    if (hipMemset(slot, 0, 2 * sizeof(int)) != hipSuccess)
        bad = 1;
    roc_shmem_barrier_all();
    hipLaunchKernelGGL(ring, dim3(1), dim3(32), 0, 0, slot, slot + 1);
    if (hipDeviceSynchronize() != hipSuccess || hipMemcpy(&bad, slot + 1, sizeof bad, hipMemcpyDeviceToHost))
        bad = 1;
    int me = roc_shmem_my_pe(), n = roc_shmem_n_pes();
    long *psync = (long *)roc_shmem_malloc(ROC_SHMEM_BCAST_SYNC_SIZE * sizeof(long)), init[ROC_SHMEM_BCAST_SYNC_SIZE];
    long *word = (long *)roc_shmem_malloc(2 * sizeof(long)), got[2] = {100 + me, -7};
    for (size_t i = 0; i < ROC_SHMEM_BCAST_SYNC_SIZE; i++)
        init[i] = ROC_SHMEM_SYNC_VALUE;
    if (hipMemcpy(psync, init, sizeof init, hipMemcpyHostToDevice) != hipSuccess ||
        hipMemcpy(word, got, sizeof got, hipMemcpyHostToDevice) != hipSuccess)
        bad = 1;
    roc_shmem_barrier_all();
    roc_shmem_ctx_long_broadcast(ROC_SHMEM_CTX_DEFAULT, word + 1, word, 1, 0, 0, 0, n, psync);
    if (hipMemcpy(got, word, sizeof got, hipMemcpyDeviceToHost) != hipSuccess || got[1] != (me ? 100 : -7))
        bad = 1;
    roc_shmem_barrier_all();
    roc_shmem_free(word);
    roc_shmem_free(psync);
    roc_shmem_free(slot);
    roc_shmem_finalize();
    if (bad)
        printf("FAIL PE %d: the ring under the older names\n", me);
    else if (me == 0)
        printf("roc_old_names: ok\n");
    return bad;
}
