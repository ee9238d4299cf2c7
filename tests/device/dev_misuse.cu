/* dev_misuse.cu - misuses the library can catch in a kernel (or at the host/device boundary), one per run, each of
 * which must end the job with a line naming the routine, the PE and the fix, never a hang or a crash.
 * Usage: dev_misuse MODE (pe, addr, team, ctx, cmp, align, sigop, noinit, hostctx, negpe, ctxgone) */
#include <cstring>
#include <shmem.h>
#include <shmemg.h>

/* (host handles reach the kernel as arguments: nvcc refuses to name a host object in device code) */
__global__ void k_misuse(int mode, long *sym, long *priv, int *dummy, shmem_team_t host_team, shmem_ctx_t host_ctx) {
    int n = shmemg_n_pes();
    if (threadIdx.x != 0 || shmemg_my_pe() != n - 1)
        return;
    switch (mode) {
    case 0: shmemg_putmem(sym, sym + 1, 8, n + 2); break;                   /* PE out of range */
    case 1: shmemg_putmem(priv, sym, 8, 0); break;                          /* cudaMalloc'd, not symmetric */
    case 2: shmemg_team_sync(host_team); break;                             /* a host team */
    case 3: shmemg_ctx_putmem(host_ctx, sym, sym + 1, 8, 0); break;         /* a host context */
    case 4: shmemg_long_wait_until(sym, 42, 0); break;                      /* no such comparison */
    case 5: shmemg_long_atomic_add((long *)((char *)sym + 4), 1, 0); break; /* misaligned */
    case 6: shmemg_putmem_signal(sym, sym + 1, 8, (uint64_t *)sym + 2, 1, 7, 0); break;
    case 9: shmemg_long_p(sym, 1, -1); break;
    }
    *dummy = 1;
}

__global__ void k_early(int *out) { out[0] = shmemg_my_pe(); }

/* a device context used by a kernel still running when its host destroys it: the kernel's next use after the
 * destroy (the host then sets *go) must say so */
__global__ void k_ctxgone(shmem_ctx_t ctx, long *sym, int *go) {
    if (threadIdx.x != 0 || shmemg_my_pe() != shmemg_n_pes() - 1)
        return;
    shmemg_ctx_putmem(ctx, sym, sym + 1, 8, 0);
    shmemg_int_wait_until(go, SHMEM_CMP_EQ, 1);
    shmemg_ctx_putmem(ctx, sym, sym + 1, 8, 0);
}

int main(int argc, char **argv) {
    static const char *modes[] = {"pe",    "addr",   "team",    "ctx",   "cmp",    "align",
                                  "sigop", "noinit", "hostctx", "negpe", "ctxgone"};
    int mode = -1;
    for (int i = 0; i < 11 && argc > 1; i++)
        if (!strcmp(argv[1], modes[i]))
            mode = i;
    if (mode == 7) { /* a kernel before shmem_init */
        int *o;
        cudaMalloc(&o, sizeof(int));
        k_early<<<1, 1>>>(o);
        cudaDeviceSynchronize();
        return 0;
    }
    int provided;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_KERNEL_INIT, &provided);
    long *sym = (long *)shmemg_calloc(8, sizeof(long));
    long *priv;
    int *dummy;
    cudaMalloc(&priv, 64);
    cudaMalloc(&dummy, 64);
    if (mode == 10) {
        int *go = (int *)shmemg_calloc(1, sizeof(int));
        shmem_ctx_t c;
        shmem_ctx_create(SHMEM_DEVICE_CTX, &c);
        cudaStream_t s;
        cudaStreamCreate(&s);
        k_ctxgone<<<1, 32, 0, s>>>(c, sym, go);
        shmem_ctx_destroy(c);
        shmem_int_p(go, 1, shmem_my_pe());
        cudaStreamSynchronize(s);
    } else if (mode == 8) { /* a device context in a host routine */
        shmem_ctx_t c;
        shmem_ctx_create(SHMEM_DEVICE_CTX, &c);
        shmem_ctx_long_p(c, sym, 1, 0);
    } else {
        k_misuse<<<1, 32>>>(mode, sym, priv, dummy, SHMEM_TEAM_WORLD, SHMEM_CTX_DEFAULT);
        cudaDeviceSynchronize();
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
