/* kernels.cu - the device kernels the host runtime launches: one OpenSHMEM atomic on a word of device memory (own
 * or IPC-mapped), and the element-wise reduction step acc[i] = acc[i] OP in[i] of collectives on GPU memory. Built
 * to PTX at build time (with -fmad=false, so float results match the host's reduction bit for bit) and embedded in
 * the library, loaded through the driver at run time, so the library links against no CUDA library. Op codes are
 * gtl_cuda.c's; reduction kernels are named gshmemi_red_<op>_<type> as gtl_cuda.c looks them up. The same source is
 * compiled by hipcc into AMD code objects for gtl_hip.c (HIP has the same atomics and fences; the few differences
 * are the macros below). */
#if defined(__HIP__) || defined(__HIPCC__)
#include <hip/hip_runtime.h>
/* kernel arguments live in the read-only kernarg segment on AMD GPUs: read in place already */
#define __grid_constant__
#endif

template <typename T> __device__ T do_amo(T *p, int op, T v, T c) {
    switch (op) {
    case 0: return *(volatile T *)p;                          /* fetch */
    case 1: atomicExch(p, v); return 0;                       /* set */
    case 2: return atomicExch(p, v);                          /* swap */
    case 3: return atomicCAS(p, c, v);                        /* compare-swap */
    case 4: return atomicAdd(p, v);                           /* add (inc is add 1) */
    case 5: return atomicAnd(p, v);
    case 6: return atomicOr(p, v);
    case 7: return atomicXor(p, v);
    }
    return 0;
}

extern "C" __global__ void gshmemi_amo32(unsigned int *p, int op, unsigned int v, unsigned int c, unsigned long long *out) {
    *out = do_amo<unsigned int>(p, op, v, c);
    __threadfence_system();
}

extern "C" __global__ void gshmemi_amo64(unsigned long long *p, int op, unsigned long long v, unsigned long long c,
                                         unsigned long long *out) {
    *out = do_amo<unsigned long long>(p, op, v, c);
    __threadfence_system();
}

/* ---- small copies as kernels (SHMEM_GPU_COPY_CUTOVER): host data up to 64 or 3968 bytes travels inside the launch
 * (the parameters stay under the driver's 4 KiB; __grid_constant__: read in place, not copied per thread); other
 * copies are a grid-stride loop. Each moves the widest words the addresses and length allow, so an aligned 4- or
 * 8-byte element is stored and loaded whole: waits and signal fetches read single elements with copies while peers'
 * atomics change them, and a byte-wise copy could show them a value that never existed. ---- */
struct __align__(8) gshmemi_inline64 { unsigned char b[64]; };
struct __align__(8) gshmemi_inline4k { unsigned char b[3968]; };

template <typename T>
__device__ void copy_as(unsigned char *dst, const unsigned char *src, unsigned long long n, unsigned long long i,
                        unsigned long long step) {
    for (n /= sizeof(T); i < n; i += step)
        ((T *)dst)[i] = ((const T *)src)[i];
}

__device__ void copy_words(unsigned char *dst, const unsigned char *src, unsigned long long n, unsigned long long i,
                           unsigned long long step) {
    unsigned long long a = (unsigned long long)dst | (unsigned long long)src | n;
    if (!(a & 7))
        copy_as<unsigned long long>(dst, src, n, i, step);
    else if (!(a & 3))
        copy_as<unsigned int>(dst, src, n, i, step);
    else if (!(a & 1))
        copy_as<unsigned short>(dst, src, n, i, step);
    else
        copy_as<unsigned char>(dst, src, n, i, step);
}

extern "C" __global__ void gshmemi_put_inline64(unsigned char *dst, unsigned long long n,
                                                 const __grid_constant__ gshmemi_inline64 d) {
    copy_words(dst, d.b, n, threadIdx.x, blockDim.x);
    __threadfence_system();
}

extern "C" __global__ void gshmemi_put_inline4k(unsigned char *dst, unsigned long long n,
                                                 const __grid_constant__ gshmemi_inline4k d) {
    copy_words(dst, d.b, n, threadIdx.x, blockDim.x);
    __threadfence_system();
}

extern "C" __global__ void gshmemi_copy_sm(unsigned char *dst, const unsigned char *src, unsigned long long n) {
    copy_words(dst, src, n, blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x,
               (unsigned long long)gridDim.x * blockDim.x);
    __threadfence_system();
}

/* ---- reductions: a grid-stride loop over n elements ---- */
struct cf { float re, im; };
struct cd { double re, im; };

#define RED(name, T, EXPR)                                                                                             \
    extern "C" __global__ void gshmemi_red_##name(T *a, const T *b, unsigned long long n) {                           \
        for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;                  \
             i += (unsigned long long)gridDim.x * blockDim.x)                                                          \
            EXPR;                                                                                                      \
    }

/* integer sums, products and bitwise ops do not depend on signedness (they wrap, as the host's do) */
#define UINT_OPS(t, T)                                                                                                 \
    RED(and_##t, T, a[i] = (T)(a[i] & b[i]))                                                                           \
    RED(or_##t, T, a[i] = (T)(a[i] | b[i]))                                                                            \
    RED(xor_##t, T, a[i] = (T)(a[i] ^ b[i]))                                                                           \
    RED(sum_##t, T, a[i] = (T)(a[i] + b[i]))                                                                           \
    RED(prod_##t, T, a[i] = (T)(a[i] * b[i]))
#define ORDER_OPS(t, T)                                                                                                \
    RED(max_##t, T, a[i] = b[i] > a[i] ? b[i] : a[i])                                                                  \
    RED(min_##t, T, a[i] = b[i] < a[i] ? b[i] : a[i])

UINT_OPS(u8, unsigned char)
UINT_OPS(u16, unsigned short)
UINT_OPS(u32, unsigned int)
UINT_OPS(u64, unsigned long long)
ORDER_OPS(u8, unsigned char)
ORDER_OPS(u16, unsigned short)
ORDER_OPS(u32, unsigned int)
ORDER_OPS(u64, unsigned long long)
ORDER_OPS(i8, signed char)
ORDER_OPS(i16, short)
ORDER_OPS(i32, int)
ORDER_OPS(i64, long long)
ORDER_OPS(f32, float)
ORDER_OPS(f64, double)
RED(sum_f32, float, a[i] += b[i])
RED(prod_f32, float, a[i] *= b[i])
RED(sum_f64, double, a[i] += b[i])
RED(prod_f64, double, a[i] *= b[i])
RED(sum_c32, cf, (a[i].re += b[i].re, a[i].im += b[i].im))
RED(sum_c64, cd, (a[i].re += b[i].re, a[i].im += b[i].im))
#define CPROD(T, F)                                                                                                    \
    do {                                                                                                               \
        F re = a[i].re * b[i].re - a[i].im * b[i].im, im = a[i].re * b[i].im + a[i].im * b[i].re;                      \
        a[i].re = re;                                                                                                  \
        a[i].im = im;                                                                                                  \
    } while (0)
RED(prod_c32, cf, CPROD(cf, float))
RED(prod_c64, cd, CPROD(cd, double))
