/* dev_lib.cu - kernels in a shared library (see dev_two_a.cu): its unit registers when the library is loaded. */
#include <cstdio>
#include <shmem.h>
#include <shmemg.h>

__global__ void k_lib(long *dest, int *fails) {
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    long v = shmemg_long_atomic_fetch_add(&dest[2], 1, 0);
    if (v < 0 || v >= n) {
        printf("FAIL PE %d: library kernel ticket %ld\n", me, v);
        atomicAdd(fails, 1);
    }
}

extern "C" int lib_run(long *dest, int *fails) {
    k_lib<<<1, 1>>>(dest, fails);
    return cudaDeviceSynchronize() != cudaSuccess;
}
