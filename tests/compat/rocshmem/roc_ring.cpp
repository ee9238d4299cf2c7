/* roc_ring.cpp - a rocSHMEM ring: each PE's kernel puts its number to the next PE with rocshmem_int_p and a block
 * with rocshmem_putmem, quiets, and waits (rocshmem_int_wait_until) for the previous PE's flag; then a work-group's
 * put with signal (rocshmem_int_put_signal_wg, a signal add) around the ring, waited for on the signal. */
#include "roc_common.h"

__global__ void ring(int *data, int *flag, long *blockbuf, int *sdata, uint64_t *sig, int *fails) {
    rocshmem_wg_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes(), next = (me + 1) % n, prev = (me + n - 1) % n;
    if (threadIdx.x == 0) {
        long mine[4] = {me * 10L, me * 10L + 1, me * 10L + 2, me * 10L + 3};
        blockbuf[4] = 0;
        for (int i = 0; i < 4; i++)
            blockbuf[4 + i] = mine[i];
        rocshmem_putmem(blockbuf, blockbuf + 4, 4 * sizeof(long), next);
        rocshmem_int_p(data, 100 + me, next);
        rocshmem_fence();
        rocshmem_int_p(flag, 1, next);
        rocshmem_quiet();
        rocshmem_int_wait_until(flag, ROCSHMEM_CMP_EQ, 1);
        DCHECK(*data == 100 + prev, "data %d, expected %d", *data, 100 + prev);
        DCHECK(rocshmem_int_g(data, next) == 100 + me, "g from the next PE");
        for (int i = 0; i < 4; i++)
            DCHECK(blockbuf[i] == prev * 10L + i, "block[%d] = %ld", i, blockbuf[i]);
    }
    for (int i = (int)threadIdx.x; i < 64; i += (int)blockDim.x)
        sdata[64 + i] = me * 1000 + i;
    rocshmem_int_put_signal_wg(sdata, sdata + 64, 64, sig, 5, ROCSHMEM_SIGNAL_ADD, next);
    if (threadIdx.x == 0) {
        rocshmem_ulong_wait_until((unsigned long *)sig, ROCSHMEM_CMP_EQ, 5);
        DCHECK(rocshmem_signal_fetch(sig) == 5, "signal %lu", (unsigned long)rocshmem_signal_fetch(sig));
    }
    __syncthreads();
    for (int i = (int)threadIdx.x; i < 64; i += (int)blockDim.x)
        DCHECK(sdata[i] == prev * 1000 + i, "signalled data[%d] = %d", i, sdata[i]);
    rocshmem_wg_finalize();
}

int main() {
    rocshmem_init();
    int *fails = roc_fails();
    int *data = (int *)rocshmem_malloc(2 * sizeof(int));
    long *blockbuf = (long *)rocshmem_malloc(8 * sizeof(long));
    int *sdata = (int *)rocshmem_malloc(128 * sizeof(int));
    uint64_t *sig = (uint64_t *)rocshmem_malloc(sizeof(uint64_t));
    HIPOK(hipMemset(data, 0, 2 * sizeof(int)));
    HIPOK(hipMemset(sig, 0, sizeof(uint64_t)));
    rocshmem_barrier_all();
    hipLaunchKernelGGL(ring, dim3(1), dim3(64), 0, 0, data, data + 1, blockbuf, sdata, sig, fails);
    HIPOK(hipGetLastError());
    HIPOK(hipDeviceSynchronize());
    rocshmem_barrier_all();
    rocshmem_free(sig);
    rocshmem_free(sdata);
    rocshmem_free(blockbuf);
    rocshmem_free(data);
    return roc_finish("roc_ring", fails);
}
