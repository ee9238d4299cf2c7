/* dev_two_b.cu - the second translation unit of dev_two (see dev_two_a.cu) */
#include <cstdio>
#include <shmem.h>
#include <shmemg.h>

__global__ void k_b(long *dest, int *fails) {
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    shmemg_long_p(&dest[1], 200 + me, (me + n - 1) % n);
    shmemg_quiet();
    shmemg_sync_all();
    if (dest[1] != 200 + (me + 1) % n) {
        printf("FAIL PE %d: unit b got %ld\n", me, dest[1]);
        atomicAdd(fails, 1);
    }
}

int two_b_run(long *dest, int *fails) {
    k_b<<<1, 1>>>(dest, fails);
    return cudaDeviceSynchronize() != cudaSuccess;
}
