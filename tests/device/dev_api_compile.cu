/* dev_api_compile.cu - every family of the device API in one kernel, and the stream-ordered routines on the host:
 * compiled (not run) by hipcc and nvcc to show the device headers build for AMD and NVIDIA alike (nvcc_build.sh). */
#include <shmem.h>
#include <shmemg.h>

__global__ void k_all(char *buf, uint64_t *sig, long *l, shmem_ctx_t ctx, shmem_team_t team) {
    int me = shmemg_my_pe(), n = shmemg_n_pes(), pe = (me + 1) % n;
    void *p = shmemg_ptr(buf, pe);
    (void)p;
    shmemg_putmem(buf, buf + 64, 8, pe);
    shmemg_ctx_getmem_nbi_tg(ctx, buf, buf + 64, 8, pe);
    shmemg_putmem_htg(buf, buf + 64, 8, pe);
    shmemg_putmem_signal_nbi(buf, buf + 64, 8, sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmemg_ctx_putmem_signal_tg(ctx, buf, buf + 64, 8, sig, 1, SHMEM_SIGNAL_SET, pe);
    shmemg_long_p(l, 1, pe);
    long g = shmemg_ctx_long_g(ctx, l, pe);
    long f = shmemg_long_atomic_fetch_add(l, g, pe);
    shmemg_ulonglong_atomic_xor((unsigned long long *)l, 3, pe);
    shmemg_int_atomic_and((int *)l, 3, pe); /* bitwise on every standard AMO type, as the auxiliary spec has them */
    shmemg_ctx_ptrdiff_atomic_fetch_xor_nbi(ctx, (ptrdiff_t *)l + 1, (ptrdiff_t *)l, -1, pe);
    shmemg_double_atomic_set((double *)l, 1.0, pe);
    shmemg_long_atomic_compare_swap_nbi(l + 1, l, f, 2, pe);
    shmemg_long_wait_until_tg(l, SHMEM_CMP_GE, 0);
    (void)shmemg_int_test_htg((int *)l, SHMEM_CMP_EQ, 0);
    (void)shmemg_signal_wait_until_htg(sig, SHMEM_CMP_GE, 1);
    (void)shmemg_signal_fetch(sig);
    shmemg_fence_tg();
    shmemg_ctx_quiet_htg(ctx);
    shmemg_team_sync_tg(team);
    shmemg_sync_all_htg();
    shmemgx_barrier_all_tg();
    shmemgx_alltoallmem_htg(team, buf, buf + 64, 8);
    shmemgx_long_sum_reduce_tg(team, l, l + 2, 2);
    shmemgx_uint64_xor_reduce(team, (uint64_t *)l, (uint64_t *)l + 1, 1);
}

void host_side(char *buf, shmemx_stream_t s) {
    shmemx_putmem_on_stream(buf, buf + 64, 8, 0, s);
    shmemx_barrier_all_on_stream(s);
    shmemx_long_sum_reduce_on_stream(SHMEM_DEVICE_TEAM_WORLD, (long *)buf, (long *)buf + 8, 2, s);
}
