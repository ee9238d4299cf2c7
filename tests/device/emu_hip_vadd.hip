/* emu_hip_vadd.hip - a HIP program on the CPU emulation (oshcc --emulate-gpu), no OpenSHMEM: vector add launched by
 * hipLaunchKernelGGL and by <<<>>>, two streams ordered by an event, timing events, a wavefront reduction by
 * warpSize, and the HIP rules the emulation must keep (error codes, flags, hipGetLastError). hipcc compiles it too. */
#include <cstdio>
#include <cstdlib>
#include <hip/hip_runtime.h>

static int failures;
#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL line %d: ", __LINE__);                                                                        \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)
#define HIP(x)                                                                                                         \
    do {                                                                                                               \
        hipError_t e_ = (x);                                                                                           \
        CHECK(e_ == hipSuccess, "%s: %s", #x, hipGetErrorString(e_));                                                  \
    } while (0)

__global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
__global__ void scale(float *c, float k, int n) {
    int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    if (i < n)
        c[i] *= k;
}
/* the sum of each wavefront's lane numbers, by shuffles over warpSize lanes */
__global__ void wave_sum(int *out) {
    int v = (int)(threadIdx.x % warpSize);
    for (int d = warpSize / 2; d > 0; d /= 2)
        v += __shfl_down(v, d);
    unsigned long long all = __ballot(1); /* (every lane votes: a ballot in a branch counts only the lanes in it) */
    if (threadIdx.x % warpSize == 0)
        out[threadIdx.x / warpSize] = v;
    if (threadIdx.x == 0)
        out[blockDim.x / warpSize] = (int)(all == (warpSize == 64 ? ~0ull : (1ull << warpSize) - 1));
}
__global__ void spin(volatile int *flag, int *seen) {
    while (!*flag) {
    }
    *seen = 1;
}

int main() {
    const int n = 10000;
    float *a, *b, *c, *h = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    HIP(hipMalloc(&a, n * sizeof(float)));
    HIP(hipMalloc(&b, n * sizeof(float)));
    HIP(hipMalloc(&c, n * sizeof(float)));
    HIP(hipMemcpy(a, h, n * sizeof(float), hipMemcpyHostToDevice));
    HIP(hipMemset(b, 0, n * sizeof(float)));

    /* two streams: s2 scales what s1 added, once s1's event says the add is done */
    hipStream_t s1, s2;
    hipEvent_t added, t0, t1;
    HIP(hipStreamCreate(&s1));
    HIP(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
    HIP(hipEventCreateWithFlags(&added, hipEventDisableTiming));
    HIP(hipEventCreate(&t0));
    HIP(hipEventCreate(&t1));
    HIP(hipMemcpyAsync(b, h, n * sizeof(float), hipMemcpyHostToDevice, s1));
    HIP(hipEventRecord(t0, s1));
    hipLaunchKernelGGL(vadd, dim3((n + 255) / 256), dim3(256), 0, s1, a, b, c, n);
    HIP(hipGetLastError());
    HIP(hipEventRecord(added, s1));
    HIP(hipEventRecord(t1, s1));
    HIP(hipStreamWaitEvent(s2, added, 0));
    scale<<<(n + 127) / 128, 128, 0, s2>>>(c, 0.5f, n);
    HIP(hipGetLastError());
    HIP(hipStreamSynchronize(s2));
    for (int i = 0; i < n; i++)
        h[i] = -1;
    HIP(hipMemcpy(h, c, n * sizeof(float), hipMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += h[i] != (float)i;
    CHECK(bad == 0, "vector add then scale: %d of %d wrong (c[1] = %g)", bad, n, h[1]);
    float ms = -1;
    HIP(hipEventSynchronize(t1));
    HIP(hipEventElapsedTime(&ms, t0, t1));
    CHECK(ms >= 0, "elapsed time %g ms", ms);

    /* a wavefront is warpSize lanes, whatever that is; the emulated GPU says so everywhere */
    int ws = 0, nw = 0;
    HIP(hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0));
    hipDeviceProp_t prop;
    HIP(hipGetDeviceProperties(&prop, 0));
    CHECK(ws == prop.warpSize && (ws == 32 || ws == 64), "warp size %d, properties say %d", ws, prop.warpSize);
    nw = 128 / ws;
    int *ws_out;
    HIP(hipMalloc(&ws_out, (nw + 1) * sizeof(int)));
    hipLaunchKernelGGL(wave_sum, dim3(1), dim3(128), 0, 0, ws_out);
    HIP(hipDeviceSynchronize());
    int got[5] = {0};
    HIP(hipMemcpy(got, ws_out, (nw + 1) * sizeof(int), hipMemcpyDeviceToHost));
    for (int w = 0; w < nw; w++)
        CHECK(got[w] == ws * (ws - 1) / 2, "wavefront %d summed %d, expected %d", w, got[w], ws * (ws - 1) / 2);
    CHECK(got[nw] == 1, "__ballot(1) is not every lane of the wavefront");

    /* a stream runs in order while the host waits elsewhere: a kernel that spins until a later copy lands would hang
     * in one stream, so it runs on s1 and the flag arrives from s2 */
    int *flag, *seen, one = 1, s = 0;
    HIP(hipMalloc(&flag, sizeof(int)));
    HIP(hipMalloc(&seen, sizeof(int)));
    HIP(hipMemset(flag, 0, sizeof(int)));
    HIP(hipMemset(seen, 0, sizeof(int)));
    hipLaunchKernelGGL(spin, dim3(1), dim3(1), 0, s1, flag, seen);
    HIP(hipMemcpyAsync(flag, &one, sizeof one, hipMemcpyHostToDevice, s2));
    HIP(hipStreamSynchronize(s1));
    HIP(hipMemcpy(&s, seen, sizeof s, hipMemcpyDeviceToHost));
    CHECK(s == 1, "the spinning kernel did not see the other stream's copy");

    /* HIP's rules, as its documentation gives them */
    void *z = (void *)1;
    HIP(hipMalloc(&z, 0));
    CHECK(z == nullptr, "hipMalloc of 0 bytes must give nullptr");
    CHECK(hipMalloc((void **)nullptr, 8) == hipErrorInvalidValue, "hipMalloc(NULL, 8) accepted");
    CHECK(hipGetLastError() == hipErrorInvalidValue, "hipGetLastError does not return the last error");
    CHECK(hipGetLastError() == hipSuccess, "hipGetLastError does not reset the error");
    CHECK(hipMemcpy(h, c, 4, (hipMemcpyKind)7) == hipErrorInvalidMemcpyDirection, "a bad copy kind accepted");
    hipStream_t bs;
    CHECK(hipStreamCreateWithFlags(&bs, 0x10) == hipErrorInvalidValue, "unknown stream flags accepted");
    hipEvent_t be;
    CHECK(hipEventCreateWithFlags(&be, hipEventInterprocess) == hipErrorInvalidValue,
          "an interprocess event without hipEventDisableTiming accepted");
    CHECK(hipEventElapsedTime(&ms, t0, added) == hipErrorInvalidHandle,
          "elapsed time from an event made with hipEventDisableTiming");
    hipEvent_t never;
    HIP(hipEventCreate(&never));
    CHECK(hipEventElapsedTime(&ms, t0, never) == hipErrorInvalidHandle, "elapsed time to an event never recorded");
    CHECK(hipStreamWaitEvent(s2, added, 1) == hipErrorInvalidValue, "hipStreamWaitEvent flags must be 0");
    (void)hipGetLastError();
    hipLaunchKernelGGL(vadd, dim3(1), dim3(2048), 0, 0, a, b, c, n);
    CHECK(hipGetLastError() == hipErrorInvalidConfiguration, "a block of 2048 threads launched");
    HIP(hipEventDestroy(never));

    HIP(hipEventDestroy(added));
    HIP(hipEventDestroy(t0));
    HIP(hipEventDestroy(t1));
    HIP(hipStreamDestroy(s1));
    HIP(hipStreamDestroy(s2));
    HIP(hipFree(a));
    HIP(hipFree(b));
    HIP(hipFree(c));
    HIP(hipFree(ws_out));
    HIP(hipFree(flag));
    HIP(hipFree(seen));
    HIP(hipFree(nullptr));
    free(h);
    if (failures)
        printf("%d failures\n", failures);
    else
        printf("emu_hip_vadd: ok (warpSize %d)\n", ws);
    return failures != 0;
}
