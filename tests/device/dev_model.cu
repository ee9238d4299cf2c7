/* dev_model.cu - compiled to PTX by nvcc_build.sh to check how the device library speaks the GPU's memory model: the
 * proxy's answer read after an acquire load of its flag, requests published by release stores, p() a relaxed
 * system-scope store, acquire/release fences where __threadfence_system (a sequentially consistent fence) is not
 * needed, and a group's barrier called directly (no indirect calls, which a GPU compiler cannot inline). */
#include <shmem.h>
#include <shmemg.h>

__global__ void k_g(long *x, long *out, int pe) { *out = shmemg_long_g(x, pe); }
__global__ void k_p(long *x, int pe) { shmemg_long_p(x, 1, pe); }
__global__ void k_signal_tg(char *d, const char *s, size_t n, uint64_t *sig, int pe) {
    shmemg_putmem_signal_tg(d, s, n, sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmemg_fence();
    shmemg_quiet();
}
