/* emu_hip_ring.hip - a HIP program calling gshmem's device API (shmemg_*) from kernels, on the CPU emulation at 1-4
 * PEs: a ring of single-thread puts, of work-group puts (_tg) and of wavefront puts (_htg, one per wavefront of
 * warpSize lanes), launched by hipLaunchKernelGGL and <<<>>> on a stream, results read back with hipMemcpy. hipcc
 * compiles the same source. */
#include <cstdio>
#include <hip/hip_runtime.h>
#include <shmem.h>
#include <shmemg.h>

#define N 1024 /* ints per block put */
static int bad;
#define HIPOK(x)                                                                                                       \
    do {                                                                                                               \
        if ((x) != hipSuccess) {                                                                                       \
            printf("FAIL PE %d line %d: %s\n", shmem_my_pe(), __LINE__, #x);                                           \
            bad++;                                                                                                     \
        }                                                                                                              \
    } while (0)

__global__ void ring_thread(long *dest, long *src) {
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    *src = 1000 + me;
    shmemg_putmem(dest, src, sizeof(long), (me + 1) % n);
    shmemg_quiet();
    shmemg_sync_all();
}
__global__ void ring_wg(int *dest, const int *src) {
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    shmemg_putmem_tg(dest, src, N * sizeof(int), (me + 1) % n);
    shmemg_quiet_tg();
    shmemg_sync_all_tg();
}
/* every wavefront puts its own slice of the block's data to the PE before this one */
__global__ void ring_wave(int *dest, const int *src) {
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    unsigned w = threadIdx.x / warpSize, nw = blockDim.x / warpSize, slice = N / nw;
    shmemg_putmem_htg(dest + w * slice, src + w * slice, slice * sizeof(int), (me + n - 1) % n);
    shmemg_quiet_htg();
    __syncthreads();
    shmemg_sync_all_tg();
}

int main() {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_KERNEL_INIT, &provided);
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (!(provided & SHMEM_DEVICE_KERNEL_INIT)) {
#ifdef GSHMEM_EMULATE_GPU
        printf("FAIL PE %d: SHMEM_DEVICE_KERNEL_INIT not provided on the emulated GPU\n", me);
        shmem_global_exit(1);
#endif
        shmem_finalize();
        return 77;
    }
    long *lb = (long *)shmemg_calloc(2, sizeof(long)), got = -1;
    int *dst = (int *)shmemg_calloc(N, sizeof(int)), *src = (int *)shmemg_malloc(N * sizeof(int));
    int h[N];
    hipStream_t st;
    if (hipStreamCreate(&st) != hipSuccess) {
        printf("FAIL PE %d: hipStreamCreate\n", me);
        shmem_global_exit(1);
    }
    hipLaunchKernelGGL(ring_thread, dim3(1), dim3(1), 0, st, lb, lb + 1);
    HIPOK(hipGetLastError());
    HIPOK(hipStreamSynchronize(st));
    HIPOK(hipMemcpy(&got, lb, sizeof got, hipMemcpyDeviceToHost));
    if (got != 1000 + (me + n - 1) % n) {
        printf("FAIL PE %d: thread ring got %ld, expected %d\n", me, got, 1000 + (me + n - 1) % n);
        bad++;
    }

    for (int i = 0; i < N; i++)
        h[i] = me * 100000 + i;
    HIPOK(hipMemcpy(src, h, sizeof h, hipMemcpyHostToDevice));
    shmem_barrier_all(); /* every PE's source is written before anyone puts */
    ring_wg<<<1, 256, 0, st>>>(dst, src);
    HIPOK(hipGetLastError());
    HIPOK(hipStreamSynchronize(st));
    HIPOK(hipMemcpy(h, dst, sizeof h, hipMemcpyDeviceToHost));
    int from = (me + n - 1) % n, wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += h[i] != from * 100000 + i;
    if (wrong) {
        printf("FAIL PE %d: work-group ring: %d of %d wrong (h[0] = %d)\n", me, wrong, N, h[0]);
        bad++;
    }

    HIPOK(hipMemset(dst, 0, N * sizeof(int)));
    shmem_barrier_all();
    hipLaunchKernelGGL(ring_wave, dim3(1), dim3(128), 0, 0, dst, src);
    HIPOK(hipDeviceSynchronize());
    HIPOK(hipMemcpy(h, dst, sizeof h, hipMemcpyDeviceToHost));
    from = (me + 1) % n, wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += h[i] != from * 100000 + i;
    if (wrong) {
        printf("FAIL PE %d: wavefront ring: %d of %d wrong (h[0] = %d)\n", me, wrong, N, h[0]);
        bad++;
    }
    HIPOK(hipStreamDestroy(st));
    shmemg_free(src);
    shmemg_free(dst);
    shmemg_free(lb);
    int all = 0;
    static int bad_s;
    bad_s = bad;
    shmem_barrier_all();
    for (int p = 0; p < n; p++)
        all += shmem_int_g(&bad_s, p);
    shmem_finalize();
    if (me == 0 && !all)
        printf("emu_hip_ring: ok on %d PEs\n", n);
    return all != 0;
}
