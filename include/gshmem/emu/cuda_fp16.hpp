/* cuda_fp16.hpp - the subset of CUDA's cuda_fp16.h that oshcc --emulate-gpu provides: __half and __half2 (IEEE
 * binary16 in two bytes), their conversions (bit-exact with CUDA's), arithmetic, comparisons, min/max and operators,
 * with the implicit conversions and operators CUDA has and the macros that remove them (__CUDA_NO_HALF_CONVERSIONS__,
 * __CUDA_NO_HALF_OPERATORS__, __CUDA_NO_HALF2_OPERATORS__). Here are CUDA's names and binary16's constants; the code
 * behind them, shared with cuda_bf16.hpp, is fp16_common.hpp's. */
#ifndef GSHMEM_EMU_CUDA_FP16_HPP
#define GSHMEM_EMU_CUDA_FP16_HPP
#include <gshmem/emu/cuda.hpp>
#include <gshmem/emu/fp16_common.hpp>
#define __CUDA_FP16_H__ 1
#define __CUDA_FP16_HPP__ 1

typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __half_raw;
typedef struct __attribute__((aligned(4))) {
    unsigned short x, y;
} __half2_raw;

struct __nv_bfloat16; /* __half's explicit conversion from it is in cuda_bf16.h, as in CUDA */
struct __half;
__host__ __device__ inline __half __float2half(const float a);
__host__ __device__ inline __half __double2half(const double a);
__host__ __device__ inline float __half2float(const __half a);

/* __half's members are fp16_common.hpp's bases: __CUDA_NO_HALF_CONVERSIONS__ leaves it the one without conversions */
template <> struct gshmem_emu::fp::traits<__half> {
    using fmt = f16;
    using raw = __half_raw;
};
namespace gshmem_emu {
namespace fp_members {
#if defined(__CUDA_NO_HALF_CONVERSIONS__)
using half_base = storage<__half, __half_raw>;
#else
using half_base = convertible<__half, __half_raw, fp::f16>;
#endif
} // namespace fp_members
} // namespace gshmem_emu

struct __attribute__((aligned(2))) __half : gshmem_emu::fp_members::half_base {
    __half() = default;
    using gshmem_emu::fp_members::half_base::half_base;
    using gshmem_emu::fp_members::half_base::operator=;
#if !defined(__CUDA_NO_HALF_CONVERSIONS__)
    explicit __host__ __device__ __half(const __nv_bfloat16 f);
#endif
};

struct __attribute__((aligned(4))) __half2 {
    __half x, y;
    __half2() = default;
    __host__ __device__ constexpr __half2(const __half &a, const __half &b) : x(a), y(b) {}
    __host__ __device__ __half2(const __half2_raw &r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
    __host__ __device__ __half2 &operator=(const __half2_raw &r) { return *this = __half2(r); }
    __host__ __device__ operator __half2_raw() const {
        return __half2_raw{static_cast<__half_raw>(x).x, static_cast<__half_raw>(y).x};
    }
};

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;
typedef __half nv_half;
typedef __half2 nv_half2;

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)

/* ---- conversions ---- */
__host__ __device__ inline __half __float2half(const float a) { return gshmem_emu::fp::rn<__half>(a); }
__host__ __device__ inline __half __float2half_rn(const float a) { return gshmem_emu::fp::rn<__half>(a); }
__host__ __device__ inline __half __float2half_rz(const float a) { return gshmem_emu::fp::rz<__half>(a); }
__host__ __device__ inline __half __float2half_rd(const float a) { return gshmem_emu::fp::rd<__half>(a); }
__host__ __device__ inline __half __float2half_ru(const float a) { return gshmem_emu::fp::ru<__half>(a); }
__host__ __device__ inline __half __double2half(const double a) { return gshmem_emu::fp::rn<__half>(a); }
__host__ __device__ inline float __half2float(const __half a) { return gshmem_emu::fp::to_float(a); }
#define GSHMEM_EMU_H_INT(N, I)                                                                                         \
    __host__ __device__ inline __half __##N##2half_rn(const I i) { return gshmem_emu::fp::rn<__half>(i); }             \
    __host__ __device__ inline __half __##N##2half_rz(const I i) { return gshmem_emu::fp::rz<__half>(i); }             \
    __host__ __device__ inline __half __##N##2half_rd(const I i) { return gshmem_emu::fp::rd<__half>(i); }             \
    __host__ __device__ inline __half __##N##2half_ru(const I i) { return gshmem_emu::fp::ru<__half>(i); }             \
    __host__ __device__ inline I __half2##N##_rz(const __half h) { return gshmem_emu::fp::to_i<I>(h); }
GSHMEM_EMU_H_INT(short, short)
GSHMEM_EMU_H_INT(ushort, unsigned short)
GSHMEM_EMU_H_INT(int, int)
GSHMEM_EMU_H_INT(uint, unsigned int)
GSHMEM_EMU_H_INT(ll, long long)
GSHMEM_EMU_H_INT(ull, unsigned long long)
#undef GSHMEM_EMU_H_INT
__host__ __device__ inline signed char __half2char_rz(const __half h) { return gshmem_emu::fp::to_i<signed char>(h); }
__host__ __device__ inline unsigned char __half2uchar_rz(const __half h) {
    return gshmem_emu::fp::to_i<unsigned char>(h);
}
__host__ __device__ inline short __half_as_short(const __half h) { return (short)gshmem_emu::fp::bits(h); }
__host__ __device__ inline unsigned short __half_as_ushort(const __half h) { return gshmem_emu::fp::bits(h); }
__host__ __device__ inline __half __short_as_half(const short i) { return gshmem_emu::fp::make<__half>((uint16_t)i); }
__host__ __device__ inline __half __ushort_as_half(const unsigned short i) { return gshmem_emu::fp::make<__half>(i); }

/* ---- arithmetic, comparisons, min and max ---- */
__host__ __device__ inline __half __hadd(const __half a, const __half b) {
    return gshmem_emu::fp::arith(a, b, gshmem_emu::fp::ADD);
}
__host__ __device__ inline __half __hsub(const __half a, const __half b) {
    return gshmem_emu::fp::arith(a, b, gshmem_emu::fp::SUB);
}
__host__ __device__ inline __half __hmul(const __half a, const __half b) {
    return gshmem_emu::fp::arith(a, b, gshmem_emu::fp::MUL);
}
__host__ __device__ inline __half __hdiv(const __half a, const __half b) {
    return gshmem_emu::fp::arith(a, b, gshmem_emu::fp::DIV);
}
__host__ __device__ inline __half __hadd_rn(const __half a, const __half b) { return __hadd(a, b); }
__host__ __device__ inline __half __hsub_rn(const __half a, const __half b) { return __hsub(a, b); }
__host__ __device__ inline __half __hmul_rn(const __half a, const __half b) { return __hmul(a, b); }
__host__ __device__ inline __half __hneg(const __half a) { return gshmem_emu::fp::neg(a); }
__host__ __device__ inline __half __habs(const __half a) { return gshmem_emu::fp::abs(a); }
__host__ __device__ inline bool __hisnan(const __half a) { return gshmem_emu::fp::is_nan(a); }
__host__ __device__ inline int __hisinf(const __half a) { return gshmem_emu::fp::is_inf(a); }
#define GSHMEM_EMU_H_CMP(N, C)                                                                                         \
    __host__ __device__ inline bool __h##N(const __half a, const __half b) {                                           \
        return gshmem_emu::fp::ordered(a, b, gshmem_emu::fp::C);                                                       \
    }                                                                                                                  \
    __host__ __device__ inline bool __h##N##u(const __half a, const __half b) {                                        \
        return gshmem_emu::fp::unordered(a, b, gshmem_emu::fp::C);                                                     \
    }
GSHMEM_EMU_H_CMP(eq, EQ)
GSHMEM_EMU_H_CMP(ne, NE)
GSHMEM_EMU_H_CMP(lt, LT)
GSHMEM_EMU_H_CMP(le, LE)
GSHMEM_EMU_H_CMP(gt, GT)
GSHMEM_EMU_H_CMP(ge, GE)
#undef GSHMEM_EMU_H_CMP
__host__ __device__ inline __half __hmax(const __half a, const __half b) { return gshmem_emu::fp::max_min(a, b, true); }
__host__ __device__ inline __half __hmin(const __half a, const __half b) {
    return gshmem_emu::fp::max_min(a, b, false);
}
__host__ __device__ inline __half __hmax_nan(const __half a, const __half b) {
    return gshmem_emu::fp::max_min_nan(a, b, true);
}
__host__ __device__ inline __half __hmin_nan(const __half a, const __half b) {
    return gshmem_emu::fp::max_min_nan(a, b, false);
}

/* ---- __half2 ---- */
__host__ __device__ inline __half2 __halves2half2(const __half a, const __half b) { return __half2(a, b); }
__host__ __device__ inline __half2 make_half2(const __half x, const __half y) { return __half2(x, y); }
__host__ __device__ inline __half2 __half2half2(const __half a) { return __half2(a, a); }
__host__ __device__ inline __half2 __float2half2_rn(const float a) { return __half2(__float2half(a), __float2half(a)); }
__host__ __device__ inline __half2 __floats2half2_rn(const float a, const float b) {
    return __half2(__float2half(a), __float2half(b));
}
__host__ __device__ inline __half2 __float22half2_rn(const float2 a) { return __floats2half2_rn(a.x, a.y); }
__host__ __device__ inline float2 __half22float2(const __half2 a) {
    return float2{__half2float(a.x), __half2float(a.y)};
}
__host__ __device__ inline __half __low2half(const __half2 a) { return a.x; }
__host__ __device__ inline __half __high2half(const __half2 a) { return a.y; }
__host__ __device__ inline float __low2float(const __half2 a) { return __half2float(a.x); }
__host__ __device__ inline float __high2float(const __half2 a) { return __half2float(a.y); }
__host__ __device__ inline __half2 __lowhigh2highlow(const __half2 a) { return __half2(a.y, a.x); }
#define GSHMEM_EMU_H2(N2, N)                                                                                           \
    __host__ __device__ inline __half2 N2(const __half2 a, const __half2 b) {                                          \
        return __half2(N(a.x, b.x), N(a.y, b.y));                                                                      \
    }
GSHMEM_EMU_H2(__hadd2, __hadd)
GSHMEM_EMU_H2(__hsub2, __hsub)
GSHMEM_EMU_H2(__hmul2, __hmul)
GSHMEM_EMU_H2(__h2div, __hdiv)
GSHMEM_EMU_H2(__hmax2, __hmax)
GSHMEM_EMU_H2(__hmin2, __hmin)
#undef GSHMEM_EMU_H2
__host__ __device__ inline __half2 __hneg2(const __half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
__host__ __device__ inline __half2 __habs2(const __half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
#define GSHMEM_EMU_H2B(N2, N)                                                                                          \
    __host__ __device__ inline bool N2(const __half2 a, const __half2 b) { return N(a.x, b.x) && N(a.y, b.y); }
GSHMEM_EMU_H2B(__hbeq2, __heq)
GSHMEM_EMU_H2B(__hbne2, __hne)
GSHMEM_EMU_H2B(__hblt2, __hlt)
GSHMEM_EMU_H2B(__hble2, __hle)
GSHMEM_EMU_H2B(__hbgt2, __hgt)
GSHMEM_EMU_H2B(__hbge2, __hge)
GSHMEM_EMU_H2B(__hbneu2, __hneu)
#undef GSHMEM_EMU_H2B

/* ---- operators ---- */
#if !defined(__CUDA_NO_HALF_OPERATORS__)
__host__ __device__ inline __half operator+(const __half &l, const __half &r) { return __hadd(l, r); }
__host__ __device__ inline __half operator-(const __half &l, const __half &r) { return __hsub(l, r); }
__host__ __device__ inline __half operator*(const __half &l, const __half &r) { return __hmul(l, r); }
__host__ __device__ inline __half operator/(const __half &l, const __half &r) { return __hdiv(l, r); }
__host__ __device__ inline __half &operator+=(__half &l, const __half &r) { return l = __hadd(l, r); }
__host__ __device__ inline __half &operator-=(__half &l, const __half &r) { return l = __hsub(l, r); }
__host__ __device__ inline __half &operator*=(__half &l, const __half &r) { return l = __hmul(l, r); }
__host__ __device__ inline __half &operator/=(__half &l, const __half &r) { return l = __hdiv(l, r); }
__host__ __device__ inline __half &operator++(__half &h) { return h = __hadd(h, CUDART_ONE_FP16); }
__host__ __device__ inline __half &operator--(__half &h) { return h = __hsub(h, CUDART_ONE_FP16); }
__host__ __device__ inline __half operator++(__half &h, const int) {
    const __half r = h;
    h = __hadd(h, CUDART_ONE_FP16);
    return r;
}
__host__ __device__ inline __half operator--(__half &h, const int) {
    const __half r = h;
    h = __hsub(h, CUDART_ONE_FP16);
    return r;
}
__host__ __device__ inline __half operator+(const __half &h) { return h; }
__host__ __device__ inline __half operator-(const __half &h) { return __hneg(h); }
__host__ __device__ inline bool operator==(const __half &l, const __half &r) { return __heq(l, r); }
__host__ __device__ inline bool operator!=(const __half &l, const __half &r) { return __hneu(l, r); }
__host__ __device__ inline bool operator>(const __half &l, const __half &r) { return __hgt(l, r); }
__host__ __device__ inline bool operator<(const __half &l, const __half &r) { return __hlt(l, r); }
__host__ __device__ inline bool operator>=(const __half &l, const __half &r) { return __hge(l, r); }
__host__ __device__ inline bool operator<=(const __half &l, const __half &r) { return __hle(l, r); }
#endif
#if !defined(__CUDA_NO_HALF2_OPERATORS__)
__host__ __device__ inline __half2 operator+(const __half2 &l, const __half2 &r) { return __hadd2(l, r); }
__host__ __device__ inline __half2 operator-(const __half2 &l, const __half2 &r) { return __hsub2(l, r); }
__host__ __device__ inline __half2 operator*(const __half2 &l, const __half2 &r) { return __hmul2(l, r); }
__host__ __device__ inline __half2 operator/(const __half2 &l, const __half2 &r) { return __h2div(l, r); }
__host__ __device__ inline __half2 &operator+=(__half2 &l, const __half2 &r) { return l = __hadd2(l, r); }
__host__ __device__ inline __half2 &operator-=(__half2 &l, const __half2 &r) { return l = __hsub2(l, r); }
__host__ __device__ inline __half2 &operator*=(__half2 &l, const __half2 &r) { return l = __hmul2(l, r); }
__host__ __device__ inline __half2 &operator/=(__half2 &l, const __half2 &r) { return l = __h2div(l, r); }
__host__ __device__ inline __half2 operator+(const __half2 &h) { return h; }
__host__ __device__ inline __half2 operator-(const __half2 &h) { return __hneg2(h); }
__host__ __device__ inline bool operator==(const __half2 &l, const __half2 &r) { return __hbeq2(l, r); }
__host__ __device__ inline bool operator!=(const __half2 &l, const __half2 &r) { return __hbneu2(l, r); }
__host__ __device__ inline bool operator>(const __half2 &l, const __half2 &r) { return __hbgt2(l, r); }
__host__ __device__ inline bool operator<(const __half2 &l, const __half2 &r) { return __hblt2(l, r); }
__host__ __device__ inline bool operator>=(const __half2 &l, const __half2 &r) { return __hbge2(l, r); }
__host__ __device__ inline bool operator<=(const __half2 &l, const __half2 &r) { return __hble2(l, r); }
#endif
#endif
