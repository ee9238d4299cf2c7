/* dev_bigblock.cu - the largest blocks CUDA allows (1024 threads) in a grid much larger than the device holds at once:
 * every thread adds to its block's shared sum between barriers and the block puts the sum to the next PE, so each
 * block needs all its threads at once; the first blocks wait (up to about two seconds) until as many have started as
 * the device holds at once (occupancy x SMs), so that many are resident together; then the same with 1024 threads as
 * 32 x 32 and a grid of 2 x 128. */
#include "dev_common.h"

__global__ void big(int *fails, long *sums, int salt, int *started, int resident) {
    __shared__ long sum;
    unsigned t = threadIdx.x + blockDim.x * threadIdx.y, n = blockDim.x * blockDim.y;
    unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
    if (t == 0) {
        sum = 0;
        atomicAdd(started, 1);
        long long t0 = clock64();
        while ((int)b < resident && atomicAdd(started, 0) < resident && clock64() - t0 < 2000000000ll)
            __nanosleep(10000);
    }
    __syncthreads();
    atomicAdd((unsigned long long *)&sum, (unsigned long long)(t + 1 + salt));
    __syncthreads();
    long want = (long)n * (n + 1) / 2 + (long)n * salt;
    DCHECK(sum == want, "block %u: sum %ld, expected %ld", b, sum, want);
    __syncthreads();
    if (t == 0)
        shmemg_long_p(&sums[b], sum + b, (shmemg_my_pe() + 1) % shmemg_n_pes());
}

int main() {
    dev_init();
    const int nb = 256;
    long *sums = (long *)shmemg_calloc(nb, sizeof(long)), h[nb];
    int *started = nullptr;
    HCHECK(sums && cudaMalloc(&started, sizeof(int)) == cudaSuccess, "allocations");
    int sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, big, 1024, 0);
    int resident = per_sm * sms < nb ? per_sm * sms : nb;
    for (int round = 0; round < 2; round++) {
        shmem_barrier_all();
        cudaMemset(started, 0, sizeof(int));
        if (round == 0)
            big<<<nb, 1024>>>(dev_fail, sums, 0, started, resident);
        else
            big<<<dim3(2, nb / 2), dim3(32, 32)>>>(dev_fail, sums, 5, started, resident);
        HCHECK(cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess, "round %d: %s", round,
               cudaGetErrorString(cudaGetLastError()));
        dev_check("1024-thread blocks");
        shmem_barrier_all();
        cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost);
        long base = 1024L * 1025 / 2 + 1024L * (round ? 5 : 0);
        for (int b = 0; b < nb; b++)
            HCHECK(h[b] == base + b, "round %d: block %d put %ld, expected %ld", round, b, h[b], base + b);
    }
    if (shmem_my_pe() == 0)
        printf("dev_bigblock: ok (%d blocks of 1024 threads, twice, %d resident)\n", nb, resident);
    shmemg_free(sums);
    cudaFree(started);
    shmem_finalize();
    return 0;
}
