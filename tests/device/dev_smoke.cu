/* dev_smoke.cu - first contact: kernels that ask who they are, put around the ring, take tickets with an atomic and
 * meet in a device barrier. */
#include <cstdio>
#include <shmem.h>
#include <shmemg.h>

__global__ void who(int *out) {
    out[0] = shmemg_my_pe();
    out[1] = shmemg_n_pes();
}

__global__ void ring(long *dest, long *src, long *ticket, long *counter) {
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    *src = 1000 + me;
    shmemg_putmem(dest, src, sizeof(long), (me + 1) % n);
    shmemg_quiet();
    *ticket = shmemg_long_atomic_fetch_add(counter, 1, 0);
    shmemg_sync_all();
}

int main() {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_KERNEL_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_KERNEL_INIT)) {
#ifdef GSHMEM_EMULATE_GPU
        printf("kernel-side communication not provided\n");
        shmem_global_exit(1);
#else /* a GPU build on a machine without a GPU: a skip */
        if (shmem_my_pe() == 0)
            printf("SKIP: no kernel-side communication here (no GPU)\n");
        shmem_finalize();
        return 77;
#endif
    }
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *ids = (int *)shmemg_malloc(2 * sizeof(int));
    long *dest = (long *)shmemg_calloc(4, sizeof(long)), *src = dest + 1, *ticket = dest + 2, *counter = dest + 3;
    who<<<1, 1>>>(ids);
    int h[2];
    cudaMemcpy(h, ids, sizeof h, cudaMemcpyDeviceToHost);
    if (h[0] != me || h[1] != n) {
        printf("FAIL PE %d: kernel sees PE %d of %d\n", me, h[0], h[1]);
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    ring<<<1, 1>>>(dest, src, ticket, counter);
    cudaDeviceSynchronize();
    shmem_barrier_all();
    long v[4];
    cudaMemcpy(v, dest, sizeof v, cudaMemcpyDeviceToHost);
    if (v[0] != 1000 + (me + n - 1) % n || v[2] < 0 || v[2] >= n || (me == 0 && v[3] != n)) {
        printf("FAIL PE %d: dest %ld ticket %ld counter %ld\n", me, v[0], v[2], v[3]);
        shmem_global_exit(1);
    }
    shmemg_free(dest);
    shmemg_free(ids);
    if (me == 0)
        printf("dev_smoke: ok\n");
    shmem_finalize();
    return 0;
}
