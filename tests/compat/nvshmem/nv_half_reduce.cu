/* nv_half_reduce.cu - half and bfloat16 reductions: nvshmem_{half,bfloat16}_{sum,prod,min,max}_reduce from the host,
 * their _block and _warp forms in kernels and their _on_stream forms, over NVSHMEM_TEAM_WORLD and a team of the even
 * PEs. Sources are small integers and powers of two, so every result is exact; one element's sum needs a rounding
 * (2048 + 1 + 1 + 1 in half, 256 + 1 + 1 + 1 in bfloat16) and must be the exact sum rounded once. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include "nv_common.h"

#define N 40
enum { SUM, PROD, MIN, MAX, NOPS };
static const char *const op_name[NOPS] = {"sum", "prod", "min", "max"};

#define FORMS(T, NAME)                                                                                                 \
    static int red_host(int op, nvshmem_team_t t, T *d, const T *s, size_t n) {                                        \
        return op == SUM    ? nvshmem_##NAME##_sum_reduce(t, d, s, n)                                                  \
               : op == PROD ? nvshmem_##NAME##_prod_reduce(t, d, s, n)                                                 \
               : op == MIN  ? nvshmem_##NAME##_min_reduce(t, d, s, n)                                                  \
                            : nvshmem_##NAME##_max_reduce(t, d, s, n);                                                  \
    }                                                                                                                  \
    static int red_stream(int op, nvshmem_team_t t, T *d, const T *s, size_t n, cudaStream_t st) {                     \
        return op == SUM    ? nvshmemx_##NAME##_sum_reduce_on_stream(t, d, s, n, st)                                   \
               : op == PROD ? nvshmemx_##NAME##_prod_reduce_on_stream(t, d, s, n, st)                                  \
               : op == MIN  ? nvshmemx_##NAME##_min_reduce_on_stream(t, d, s, n, st)                                   \
                            : nvshmemx_##NAME##_max_reduce_on_stream(t, d, s, n, st);                                   \
    }                                                                                                                  \
    __device__ int red_block(int op, nvshmem_team_t t, T *d, const T *s, size_t n) {                                   \
        return op == SUM    ? nvshmemx_##NAME##_sum_reduce_block(t, d, s, n)                                           \
               : op == PROD ? nvshmemx_##NAME##_prod_reduce_block(t, d, s, n)                                          \
               : op == MIN  ? nvshmemx_##NAME##_min_reduce_block(t, d, s, n)                                           \
                            : nvshmemx_##NAME##_max_reduce_block(t, d, s, n);                                           \
    }                                                                                                                  \
    __device__ int red_warp(int op, nvshmem_team_t t, T *d, const T *s, size_t n) {                                    \
        return op == SUM    ? nvshmemx_##NAME##_sum_reduce_warp(t, d, s, n)                                            \
               : op == PROD ? nvshmemx_##NAME##_prod_reduce_warp(t, d, s, n)                                           \
               : op == MIN  ? nvshmemx_##NAME##_min_reduce_warp(t, d, s, n)                                            \
                            : nvshmemx_##NAME##_max_reduce_warp(t, d, s, n);                                            \
    }                                                                                                                  \
    __device__ int red_one(int op, nvshmem_team_t t, T *d, const T *s, size_t n) {                                     \
        return op == SUM    ? nvshmem_##NAME##_sum_reduce(t, d, s, n)                                                  \
               : op == PROD ? nvshmem_##NAME##_prod_reduce(t, d, s, n)                                                 \
               : op == MIN  ? nvshmem_##NAME##_min_reduce(t, d, s, n)                                                  \
                            : nvshmem_##NAME##_max_reduce(t, d, s, n);                                                  \
    }
FORMS(half, half)
FORMS(__nv_bfloat16, bfloat16)

static float tof(half v) { return __half2float(v); }
static float tof(__nv_bfloat16 v) { return __bfloat162float(v); }
static void fromf(float f, half *out) { *out = __float2half(f); }
static void fromf(float f, __nv_bfloat16 *out) { *out = __float2bfloat16(f); }

/* form 1: the block form in a 64-thread block; 2: the warp form in one warp; 3: the plain form in one thread */
template <class T> __global__ void k_reduce(int form, int op, nvshmem_team_t t, T *d, const T *s, size_t n) {
    if (form == 1)
        red_block(op, t, d, s, n);
    else if (form == 2)
        red_warp(op, t, d, s, n);
    else if (threadIdx.x == 0)
        red_one(op, t, d, s, n);
}

/* PE p's source for an operation */
static float source(int op, int p, int i, float big) {
    switch (op) {
    case SUM: return i == N - 1 ? (p == 0 ? big : 1.0f) : (float)((p + 1) * (i % 8 + 1));
    case PROD: return (float)(1 << ((p + i) % 3)) / 2; /* 0.5, 1, 2 */
    default: return (float)((p * 7 + i * 3) % 11 - 5);
    }
}

template <class T> static void run(const char *type, float big, nvshmem_team_t team, int members, int step) {
    int me = nvshmem_my_pe();
    T *src = (T *)nvshmem_malloc(N * sizeof(T)), *dst = (T *)nvshmem_malloc(N * sizeof(T));
    cudaStream_t st;
    CUDA_CHECK(cudaStreamCreate(&st));
    static const char *const form_name[5] = {"host", "block", "warp", "thread", "on_stream"};
    for (int op = 0; op < NOPS; op++) {
        T h[N];
        for (int i = 0; i < N; i++)
            fromf(source(op, me, i, big), &h[i]);
        CUDA_CHECK(cudaMemcpy(src, h, sizeof h, cudaMemcpyHostToDevice));
        for (int form = 0; form < 5; form++) {
            CUDA_CHECK(cudaMemset(dst, 0xff, N * sizeof(T)));
            nvshmem_barrier_all();
            if (team != NVSHMEM_TEAM_INVALID) {
                if (form == 0)
                    EXPECT(red_host(op, team, dst, src, N) == 0, "%s %s host: nonzero return", type, op_name[op]);
                else if (form == 4) {
                    EXPECT(red_stream(op, team, dst, src, N, st) == 0, "%s %s on_stream: nonzero", type, op_name[op]);
                    CUDA_CHECK(cudaStreamSynchronize(st));
                } else {
                    k_reduce<T><<<1, form == 1 ? 64 : 32>>>(form, op, team, dst, src, N);
                    CUDA_CHECK(cudaGetLastError());
                    CUDA_CHECK(cudaDeviceSynchronize());
                }
                CUDA_CHECK(cudaMemcpy(h, dst, sizeof h, cudaMemcpyDeviceToHost));
                for (int i = 0; i < N; i++) {
                    double want = op == SUM ? 0 : op == PROD ? 1 : op == MIN ? 1e9 : -1e9;
                    for (int k = 0; k < members; k++) {
                        double v = source(op, k * step, i, big);
                        want = op == SUM    ? want + v
                               : op == PROD ? want * v
                               : op == MIN  ? (v < want ? v : want)
                                            : (v > want ? v : want);
                    }
                    T w;
                    fromf((float)want, &w); /* exact but for the one rounded sum: the exact sum rounded once */
                    EXPECT(tof(h[i]) == tof(w), "team %d: %s %s %s [%d] = %g, expected %g", (int)team, type,
                           op_name[op], form_name[form], i, tof(h[i]), tof(w));
                }
            }
        }
    }
    nvshmem_barrier_all();
    CUDA_CHECK(cudaStreamDestroy(st));
    nvshmem_free(dst);
    nvshmem_free(src);
}

int main(void) {
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    nvshmem_team_t even = NVSHMEM_TEAM_INVALID;
    int ne = (n + 1) / 2;
    nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, ne, NULL, 0, &even);
    for (int round = 0; round < 2; round++) {
        nvshmem_team_t team = round ? even : NVSHMEM_TEAM_WORLD;
        run<half>("half", 2048, team, round ? ne : n, round ? 2 : 1);
        run<__nv_bfloat16>("bfloat16", 256, team, round ? ne : n, round ? 2 : 1);
    }
    nvshmem_barrier_all();
    nvshmem_team_destroy(even);
    printf("PE %d: %s\n", me, nv_fails ? "FAILED" : "ok");
    nvshmem_finalize();
    return nv_fails ? 1 : 0;
}
