/* spec_examples.cu - the GPU auxiliary specification's example programs, rewritten here (one kernel each, same
 * behaviour, each with its check): query, ring put, direct store through shmemg_ptr, ticket counter, message with a
 * signal, flag handshake, put + device barrier, an explicit device context, and the annex's GPU-centric put. */
#include "dev_common.h"

__global__ void ex_setup(int *out) {
    out[0] = shmemg_my_pe();
    out[1] = shmemg_n_pes();
}
__global__ void ex_rma(long *dest, long *src) {
    int me = shmemg_my_pe();
    *src = me;
    shmemg_putmem(dest, src, sizeof(long), (me + 1) % shmemg_n_pes());
    shmemg_quiet();
}
__global__ void ex_ptr(long *dest, long *stage) {
    int me = shmemg_my_pe(), peer = (me + 1) % shmemg_n_pes();
    long *p = (long *)shmemg_ptr(dest, peer);
    if (p) {
        *p = me;
        __threadfence_system();
    } else { /* (the source of a put must be in the GPU heap: a staged copy, not the kernel's own variable) */
        *stage = me;
        shmemg_putmem(dest, stage, sizeof(long), peer);
        shmemg_quiet();
    }
}
__global__ void ex_amo(long *counter, long *ticket) { *ticket = shmemg_long_atomic_fetch_add(counter, 1, 0); }
__global__ void ex_signal(char *dest, char *src, uint64_t *sig, int *fails) {
    int me = shmemg_my_pe();
    if (me == 0) {
        for (int i = 0; i < 256; i++)
            src[i] = (char)i;
        shmemg_putmem_signal(dest, src, 256, sig, 1, SHMEM_SIGNAL_SET, 1);
        shmemg_quiet();
    } else if (me == 1) {
        while (shmemg_signal_fetch(sig) == 0)
            ;
        for (int i = 0; i < 256; i++)
            DCHECK(dest[i] == (char)i, "message byte %d = %d", i, dest[i]);
    }
}
__global__ void ex_p2p(long *flag, long *val) {
    int me = shmemg_my_pe();
    if (me == 0) {
        shmemg_putmem(flag, val, sizeof(long), 1);
        shmemg_quiet();
    } else if (me == 1) {
        shmemg_long_wait_until(flag, SHMEM_CMP_EQ, 1);
    }
}
__global__ void ex_coll(long *dest, long *src, int *fails) {
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    *src = 10 + me;
    shmemg_putmem(dest, src, sizeof(long), (me + 1) % n);
    shmemg_quiet();
    shmemg_sync_all();
    DCHECK(*dest == 10 + (me + n - 1) % n, "after the device barrier: %ld", *dest);
}
__global__ void ex_ctx(shmem_ctx_t ctx, int *dest, int *src) {
    int me = shmemg_my_pe();
    *src = 1000 + me;
    shmemg_ctx_putmem(ctx, dest, src, sizeof(int), (me + 1) % shmemg_n_pes());
    shmemg_ctx_quiet(ctx);
}

int main() {
    dev_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), left = (me + n - 1) % n;
    long *l = (long *)shmemg_calloc(8, sizeof(long));
    int *iv = (int *)shmemg_calloc(4, sizeof(int));
    char *msg = (char *)shmemg_calloc(512, 1);
    uint64_t *sig = (uint64_t *)shmemg_calloc(1, sizeof(uint64_t));
    long h[8];
    int hi[4];

    ex_setup<<<1, 1>>>(iv);
    cudaDeviceSynchronize();
    cudaMemcpy(hi, iv, 2 * sizeof(int), cudaMemcpyDeviceToHost);
    HCHECK(hi[0] == me && hi[1] == n, "setup: %d of %d", hi[0], hi[1]);

    ex_rma<<<1, 1>>>(&l[0], &l[1]);
    cudaDeviceSynchronize();
    shmem_barrier_all();
    cudaMemcpy(h, l, sizeof h, cudaMemcpyDeviceToHost);
    HCHECK(h[0] == left, "rma: %ld", h[0]);

    ex_ptr<<<1, 1>>>(&l[2], &l[3]);
    cudaDeviceSynchronize();
    shmem_barrier_all();
    cudaMemcpy(h, l, sizeof h, cudaMemcpyDeviceToHost);
    HCHECK(h[2] == left, "ptr: %ld", h[2]);

    ex_amo<<<1, 1>>>(&l[4], &l[5]);
    cudaDeviceSynchronize();
    shmem_barrier_all();
    cudaMemcpy(h, l, sizeof h, cudaMemcpyDeviceToHost);
    HCHECK(h[5] >= 0 && h[5] < n && (me != 0 || h[4] == n), "amo: ticket %ld, counter %ld", h[5], h[4]);

    if (n > 1) {
        ex_signal<<<1, 1>>>(msg, msg + 256, sig, dev_fail);
        dev_check("signaling");
        shmem_barrier_all();
        long one = 1;
        cudaMemcpy(&l[7], &one, sizeof one, cudaMemcpyHostToDevice);
        shmem_barrier_all();
        ex_p2p<<<1, 1>>>(&l[6], &l[7]);
        cudaDeviceSynchronize();
        shmem_barrier_all();
    }
    ex_coll<<<1, 1>>>(&l[0], &l[1], dev_fail);
    dev_check("collectives");
    shmem_barrier_all();

    shmem_ctx_t ctx;
    HCHECK(shmem_team_create_ctx(SHMEM_DEVICE_TEAM_WORLD, SHMEM_DEVICE_CTX, &ctx) == 0, "device context");
    ex_ctx<<<1, 1>>>(ctx, &iv[2], &iv[3]);
    cudaDeviceSynchronize();
    shmem_barrier_all();
    cudaMemcpy(hi, iv, sizeof hi, cudaMemcpyDeviceToHost);
    HCHECK(hi[2] == 1000 + left, "context: %d", hi[2]);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("spec_examples: ok (%d PEs)\n", n);
    shmem_finalize();
    return 0;
}
