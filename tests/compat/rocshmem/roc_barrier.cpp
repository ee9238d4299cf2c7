/* roc_barrier.cpp - rocshmem_wg_barrier_all orders every PE's puts before everyone's reads: in each round a PE's
 * work-group writes round+me to every PE's slot, crosses the barrier, and must then see every PE's value for this
 * round (a barrier that does not complete the puts, or does not wait, shows an older round). */
#include "roc_common.h"

#define ROUNDS 20

__global__ void rounds(int *slots, int *fails) {
    rocshmem_wg_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    for (int r = 1; r <= ROUNDS; r++) {
        for (int p = (int)threadIdx.x; p < n; p += (int)blockDim.x)
            rocshmem_int_p(slots + me, r * 100 + me, p);
        rocshmem_wg_barrier_all();
        for (int p = (int)threadIdx.x; p < n; p += (int)blockDim.x)
            DCHECK(slots[p] == r * 100 + p, "round %d: slot %d holds %d", r, p, slots[p]);
        rocshmem_ctx_wg_barrier_all(ROCSHMEM_CTX_DEFAULT); /* every read of this round is done */
    }
    rocshmem_wg_sync_all();
    rocshmem_wg_finalize();
}

int main() {
    rocshmem_init();
    int *fails = roc_fails();
    int *slots = (int *)rocshmem_malloc(64 * sizeof(int));
    HIPOK(hipMemset(slots, 0, 64 * sizeof(int)));
    rocshmem_barrier_all();
    hipLaunchKernelGGL(rounds, dim3(1), dim3(64), 0, 0, slots, fails);
    HIPOK(hipGetLastError());
    HIPOK(hipDeviceSynchronize());
    rocshmem_barrier_all();
    rocshmem_free(slots);
    return roc_finish("roc_barrier", fails);
}
