/* nv_wait_sets.cu - NVSHMEM's set tests and vector waits in a kernel: test_all/any/some before and after every PE
 * has written its flag on every PE, with status masks, and wait_until_{all,any,some}_vector / test_*_vector against a
 * value per flag (PE i writes i + 1 into flag i). NVSHMEM declares these for the device only. */
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdint.h>

#include "nv_common.h"

#define MAXPE 64

/* res: what each call gave, in the order the host checks them */
__global__ void before(uint64_t *flags, int n, size_t *res) {
    size_t idx[MAXPE];
    res[0] = nvshmem_uint64_test_any(flags, n, NULL, NVSHMEM_CMP_NE, 0);
    res[1] = nvshmem_uint64_test_all(flags, n, NULL, NVSHMEM_CMP_EQ, 0);
    res[2] = nvshmem_uint64_test_all(flags, n, NULL, NVSHMEM_CMP_NE, 0);
    res[3] = nvshmem_uint64_test_some(flags, n, idx, NULL, NVSHMEM_CMP_GT, 0);
}

__global__ void after(uint64_t *flags, int n, uint64_t *want, int *status, size_t *res) {
    size_t idx[MAXPE];
    nvshmem_uint64_wait_until_all_vector(flags, n, NULL, NVSHMEM_CMP_EQ, want);
    res[0] = nvshmem_uint64_test_all_vector(flags, n, NULL, NVSHMEM_CMP_EQ, want);
    res[1] = nvshmem_uint64_test_all(flags, n, NULL, NVSHMEM_CMP_GE, 1);
    res[2] = nvshmem_uint64_test_all(flags, n, NULL, NVSHMEM_CMP_GE, 2); /* flag 0 holds 1 */
    /* every flag but the last masked: any finds the last one */
    for (int i = 0; i < n; i++)
        status[i] = i != n - 1;
    res[3] = nvshmem_uint64_test_any(flags, n, status, NVSHMEM_CMP_GT, 0);
    res[4] = nvshmem_uint64_wait_until_any_vector(flags, n, status, NVSHMEM_CMP_EQ, want);
    /* flags above 1 (all but flag 0), with flag 1 masked: n - 2 of them, from index 2 on */
    for (int i = 0; i < n; i++)
        status[i] = i == 1;
    size_t k = nvshmem_uint64_test_some(flags, n, idx, status, NVSHMEM_CMP_GT, 1);
    res[5] = k;
    res[6] = k ? idx[0] : 0;
    res[7] = nvshmem_uint64_test_some_vector(flags, n, idx, NULL, NVSHMEM_CMP_LT, want); /* none below its value */
    res[8] = nvshmem_uint64_wait_until_some_vector(flags, n, idx, NULL, NVSHMEM_CMP_LE, want);
    res[9] = nvshmem_uint64_test_any_vector(flags, n, NULL, NVSHMEM_CMP_NE, want);
    /* every flag masked: all holds (nothing to test), any finds none */
    for (int i = 0; i < n; i++)
        status[i] = 1;
    res[10] = nvshmem_uint64_test_all(flags, n, status, NVSHMEM_CMP_EQ, 12345);
    res[11] = nvshmem_uint64_test_any(flags, n, status, NVSHMEM_CMP_GE, 0);
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    if (n > MAXPE) {
        if (me == 0)
            fprintf(stderr, "nv_wait_sets: at most %d PEs\n", MAXPE);
        nvshmem_finalize();
        return 0;
    }
    CUDA_CHECK(cudaSetDevice(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE)));
    uint64_t *flags = (uint64_t *)nvshmem_calloc((size_t)n, sizeof(uint64_t));
    uint64_t *want;
    int *status;
    size_t *res, h[16];
    CUDA_CHECK(cudaMalloc(&want, n * sizeof(uint64_t)));
    CUDA_CHECK(cudaMalloc(&status, n * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&res, sizeof h));
    uint64_t hw[MAXPE];
    for (int i = 0; i < n; i++)
        hw[i] = (uint64_t)i + 1;
    CUDA_CHECK(cudaMemcpy(want, hw, n * sizeof(uint64_t), cudaMemcpyHostToDevice));
    nvshmem_barrier_all();

    before<<<1, 1>>>(flags, n, res);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h, res, 4 * sizeof(size_t), cudaMemcpyDeviceToHost));
    EXPECT(h[0] == SIZE_MAX, "test_any(NE 0) on zero flags gave %zu, not SIZE_MAX", h[0]);
    EXPECT(h[1] == 1, "test_all(EQ 0) on zero flags gave %zu", h[1]);
    EXPECT(h[2] == 0, "test_all(NE 0) on zero flags gave %zu", h[2]);
    EXPECT(h[3] == 0, "test_some(GT 0) on zero flags found %zu", h[3]);
    nvshmem_barrier_all(); /* every PE has looked before any writes */

    for (int pe = 0; pe < n; pe++)
        nvshmem_uint64_p(&flags[me], (uint64_t)me + 1, pe);
    nvshmem_quiet();
    after<<<1, 1>>>(flags, n, want, status, res);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h, res, 12 * sizeof(size_t), cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 1, "test_all_vector(EQ i+1) gave %zu after wait_until_all_vector", h[0]);
    EXPECT(h[1] == 1, "test_all(GE 1) gave %zu", h[1]);
    EXPECT(h[2] == 0, "test_all(GE 2) gave %zu with flag 0 holding 1", h[2]);
    EXPECT(h[3] == (size_t)(n - 1), "test_any with all but flag %d masked gave %zu", n - 1, h[3]);
    EXPECT(h[4] == (size_t)(n - 1), "wait_until_any_vector with all but flag %d masked gave %zu", n - 1, h[4]);
    EXPECT(h[5] == (size_t)(n > 2 ? n - 2 : 0), "test_some(GT 1), flag 1 masked, found %zu of %d", h[5],
           n > 2 ? n - 2 : 0);
    if (n > 2)
        EXPECT(h[6] == 2, "test_some's first index is %zu, not 2", h[6]);
    EXPECT(h[7] == 0, "test_some_vector(LT i+1) found %zu", h[7]);
    EXPECT(h[8] == (size_t)n, "wait_until_some_vector(LE i+1) found %zu of %d", h[8], n);
    EXPECT(h[9] == SIZE_MAX, "test_any_vector(NE i+1) gave %zu", h[9]);
    EXPECT(h[10] == 1, "test_all with every flag masked gave %zu", h[10]);
    EXPECT(h[11] == SIZE_MAX, "test_any with every flag masked gave %zu", h[11]);

    nvshmem_barrier_all();
    CUDA_CHECK(cudaFree(want));
    CUDA_CHECK(cudaFree(status));
    CUDA_CHECK(cudaFree(res));
    nvshmem_free(flags);
    nvshmem_finalize();
    if (nv_fails)
        return 1;
    if (me == 0)
        printf("nv_wait_sets: ok (%d PEs)\n", n);
    return 0;
}
