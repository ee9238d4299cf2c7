/* roc_wg_put.cpp - work-group and wavefront puts through contexts: each work-group takes a context from the pool
 * (rocshmem_wg_ctx_create), puts its slice to the next PE with rocshmem_ctx_putmem_wg and its wavefronts' halves with
 * rocshmem_ctx_int_put_wave, quiets and gives the context back; more work-groups than one run at once. */
#include "roc_common.h"

#define BLOCKS 4
#define PER 512 /* ints per work-group */

__global__ void wg_put(int *dst, int *dst2, const int *src, int *fails) {
    rocshmem_wg_init();
    rocshmem_ctx_t ctx;
    int r = rocshmem_wg_ctx_create(ROCSHMEM_CTX_WG_PRIVATE, &ctx);
    DCHECK(r == ROCSHMEM_SUCCESS, "rocshmem_wg_ctx_create: %d", r);
    if (r != ROCSHMEM_SUCCESS)
        ctx = ROCSHMEM_CTX_DEFAULT;
    int me = rocshmem_ctx_my_pe(ctx), n = rocshmem_ctx_n_pes(ctx);
    size_t off = (size_t)blockIdx.x * PER;
    rocshmem_ctx_putmem_wg(ctx, dst + off, src + off, PER * sizeof(int), (me + 1) % n);
    unsigned w = threadIdx.x / warpSize, nw = blockDim.x / warpSize, slice = PER / nw;
    rocshmem_ctx_int_put_wave(ctx, dst2 + off + w * slice, src + off + w * slice, slice, (me + n - 1) % n);
    rocshmem_ctx_quiet(ctx);
    if (r == ROCSHMEM_SUCCESS)
        rocshmem_wg_ctx_destroy(&ctx);
    rocshmem_wg_finalize();
}

int main() {
    rocshmem_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes();
    int *fails = roc_fails();
    int total = BLOCKS * PER;
    int *src = (int *)rocshmem_malloc(total * sizeof(int)), *dst = (int *)rocshmem_malloc(total * sizeof(int));
    int *dst2 = (int *)rocshmem_malloc(total * sizeof(int)), *h = (int *)malloc(total * sizeof(int));
    for (int i = 0; i < total; i++)
        h[i] = me * 1000000 + i;
    HIPOK(hipMemcpy(src, h, total * sizeof(int), hipMemcpyHostToDevice));
    HIPOK(hipMemset(dst, 0xff, total * sizeof(int)));
    HIPOK(hipMemset(dst2, 0xff, total * sizeof(int)));
    rocshmem_barrier_all();
    for (int round = 0; round < 5; round++) /* the pool's contexts come back: more rounds than it holds need it */
        hipLaunchKernelGGL(wg_put, dim3(BLOCKS), dim3(128), 0, 0, dst, dst2, src, fails);
    HIPOK(hipGetLastError());
    HIPOK(hipDeviceSynchronize());
    rocshmem_barrier_all();
    int bad = 0, bad2 = 0, prev = (me + n - 1) % n, next = (me + 1) % n;
    HIPOK(hipMemcpy(h, dst, total * sizeof(int), hipMemcpyDeviceToHost));
    for (int i = 0; i < total; i++)
        bad += h[i] != prev * 1000000 + i;
    HIPOK(hipMemcpy(h, dst2, total * sizeof(int), hipMemcpyDeviceToHost));
    for (int i = 0; i < total; i++)
        bad2 += h[i] != next * 1000000 + i;
    if (bad || bad2) {
        printf("FAIL PE %d: %d work-group and %d wavefront elements wrong\n", me, bad, bad2);
        int one = 1;
        HIPOK(hipMemcpy(fails, &one, sizeof one, hipMemcpyHostToDevice));
    }
    free(h);
    rocshmem_free(dst2);
    rocshmem_free(dst);
    rocshmem_free(src);
    return roc_finish("roc_wg_put", fails);
}
