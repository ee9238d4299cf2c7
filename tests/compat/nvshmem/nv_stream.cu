/* nv_stream.cu - stream-ordered communication as NVSHMEM's on-stream example has it: a kernel fills a buffer, a put
 * to the next PE and a barrier are queued behind it on the stream, a second kernel consumes what arrived; a put with
 * signal and a signal wait on the stream; a sum reduction on the stream; the _nbi, sized (put64/get64) and flush
 * forms. Nothing blocks the host until the end. */
#include <nvshmem.h>
#include <nvshmemx.h>

#include "nv_common.h"

#define N 1024

__global__ void fill(long *buf, int me) {
    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < N; i += blockDim.x * gridDim.x)
        buf[i] = (long)me * N + i;
}
__global__ void consume(const long *in, long *out) {
    for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < N; i += blockDim.x * gridDim.x)
        out[i] = in[i] * 2;
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    long *src = (long *)nvshmem_malloc(N * sizeof(long)), *dst = (long *)nvshmem_calloc(N, sizeof(long));
    long *out = (long *)nvshmem_calloc(N, sizeof(long)), *dst2 = (long *)nvshmem_calloc(N, sizeof(long));
    uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    int *red = (int *)nvshmem_malloc(2 * sizeof(int));

    fill<<<2, 64, 0, stream>>>(src, me);
    nvshmemx_long_put_on_stream(dst, src, N, (me + 1) % n, stream);
    nvshmemx_barrier_all_on_stream(stream);
    consume<<<2, 64, 0, stream>>>(dst, out);
    nvshmemx_long_put_signal_on_stream(dst2, src, N, sig, 7, NVSHMEM_SIGNAL_SET, (me + n - 1) % n, stream);
    nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_EQ, 7, stream);
    int one = me + 1;
    CUDA_CHECK(cudaMemcpyAsync(red, &one, sizeof one, cudaMemcpyHostToDevice, stream));
    nvshmemx_int_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, red + 1, red, 1, stream);
    long *h = (long *)malloc(2 * N * sizeof(long));
    int sum = 0;
    CUDA_CHECK(cudaMemcpyAsync(h, out, N * sizeof(long), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(h + N, dst2, N * sizeof(long), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(&sum, red + 1, sizeof sum, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    int prev = (me + n - 1) % n, next = (me + 1) % n;
    for (int i = 0; i < N; i++) {
        EXPECT(h[i] == 2 * ((long)prev * N + i), "out[%d] = %ld, expected %ld", i, h[i], 2 * ((long)prev * N + i));
        EXPECT(h[N + i] == (long)next * N + i, "dst2[%d] = %ld, expected %ld", i, h[N + i], (long)next * N + i);
    }
    EXPECT(sum == n * (n + 1) / 2, "sum reduction on the stream gave %d, expected %d", sum, n * (n + 1) / 2);

    /* the non-blocking, sized and signal forms: done by the quiet or the signal wait behind them on the stream */
    long *dst3 = (long *)nvshmem_calloc(N, sizeof(long)), *got = (long *)nvshmem_calloc(N, sizeof(long));
    long *dst4 = (long *)nvshmem_calloc(N, sizeof(long));
    uint64_t *sig2 = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    nvshmemx_barrier_all_on_stream(stream);
    nvshmemx_long_put_nbi_on_stream(dst3, src, N / 2, next, stream);
    nvshmemx_put64_nbi_on_stream(dst3 + N / 2, src + N / 2, N / 2, next, stream);
    nvshmemx_quiet_on_stream(stream);
    nvshmemx_long_put_signal_nbi_on_stream(dst4, src, N / 2, sig2, 2, NVSHMEM_SIGNAL_ADD, next, stream);
    nvshmemx_putmem_signal_nbi_on_stream(dst4 + N / 2, src + N / 2, N / 2 * sizeof(long), sig2, 3,
                                         NVSHMEM_SIGNAL_ADD, next, stream);
    nvshmemx_signal_wait_until_on_stream(sig2, NVSHMEM_CMP_EQ, 5, stream);
    nvshmemx_long_get_nbi_on_stream(got, src, N / 2, next, stream);
    nvshmemx_get64_on_stream(got + N / 2, src + N / 2, N / 2, next, stream);
    nvshmemx_flush_on_stream(stream);
    nvshmemx_barrier_all_on_stream(stream);
    long *h3 = (long *)malloc(3 * N * sizeof(long));
    CUDA_CHECK(cudaMemcpyAsync(h3, dst3, N * sizeof(long), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(h3 + N, dst4, N * sizeof(long), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(h3 + 2 * N, got, N * sizeof(long), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < N; i++) {
        EXPECT(h3[i] == (long)prev * N + i, "put_nbi: dst3[%d] = %ld, expected %ld", i, h3[i], (long)prev * N + i);
        EXPECT(h3[N + i] == (long)prev * N + i, "put_signal_nbi: dst4[%d] = %ld, expected %ld", i, h3[N + i],
               (long)prev * N + i);
        EXPECT(h3[2 * N + i] == (long)next * N + i, "get_nbi: got[%d] = %ld, expected %ld", i, h3[2 * N + i],
               (long)next * N + i);
    }
    free(h3);
    nvshmemx_barrier_all_on_stream(stream); /* nobody frees while a peer may still put */
    CUDA_CHECK(cudaStreamSynchronize(stream));
    free(h);
    nvshmem_free(sig2);
    nvshmem_free(dst4);
    nvshmem_free(got);
    nvshmem_free(dst3);
    nvshmem_free(red);
    nvshmem_free(sig);
    nvshmem_free(dst2);
    nvshmem_free(out);
    nvshmem_free(dst);
    nvshmem_free(src);
    CUDA_CHECK(cudaStreamDestroy(stream));
    printf("PE %d: %s\n", me, nv_fails ? "FAILED" : "ok");
    nvshmem_finalize();
    return nv_fails ? 1 : 0;
}
