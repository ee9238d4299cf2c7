/* cuda_bf16.hpp - the subset of CUDA's cuda_bf16.h that oshcc --emulate-gpu provides: __nv_bfloat16 and
 * __nv_bfloat162 (bfloat16: float's upper two bytes), conversions bit-exact with CUDA's, arithmetic, comparisons,
 * min/max and operators, with CUDA's implicit conversions and the macros that remove them
 * (__CUDA_NO_BFLOAT16_CONVERSIONS__, __CUDA_NO_BFLOAT16_OPERATORS__, __CUDA_NO_BFLOAT162_OPERATORS__). Here are
 * CUDA's names and bfloat16's constants; the code behind them, shared with cuda_fp16.hpp, is fp16_common.hpp's. */
#ifndef GSHMEM_EMU_CUDA_BF16_HPP
#define GSHMEM_EMU_CUDA_BF16_HPP
#include <gshmem/emu/cuda.hpp>
#include <gshmem/emu/cuda_fp16.hpp> /* CUDA's cuda_bf16.h includes cuda_fp16.h */
#define __CUDA_BF16_H__ 1
#define __CUDA_BF16_HPP__ 1

typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __nv_bfloat16_raw;
typedef struct __attribute__((aligned(4))) {
    unsigned short x, y;
} __nv_bfloat162_raw;

struct __nv_bfloat16;
__host__ __device__ inline __nv_bfloat16 __float2bfloat16(const float a);
__host__ __device__ inline __nv_bfloat16 __double2bfloat16(const double a);
__host__ __device__ inline float __bfloat162float(const __nv_bfloat16 a);

/* __nv_bfloat16's members are fp16_common.hpp's bases: __CUDA_NO_BFLOAT16_CONVERSIONS__ leaves it the one without
 * conversions */
template <> struct gshmem_emu::fp::traits<__nv_bfloat16> {
    using fmt = bf16;
    using raw = __nv_bfloat16_raw;
};
namespace gshmem_emu {
namespace fp_members {
#if defined(__CUDA_NO_BFLOAT16_CONVERSIONS__)
using bfloat16_base = storage<__nv_bfloat16, __nv_bfloat16_raw>;
#else
using bfloat16_base = convertible<__nv_bfloat16, __nv_bfloat16_raw, fp::bf16>;
#endif
} // namespace fp_members
} // namespace gshmem_emu

struct __attribute__((aligned(2))) __nv_bfloat16 : gshmem_emu::fp_members::bfloat16_base {
    __nv_bfloat16() = default;
    using gshmem_emu::fp_members::bfloat16_base::bfloat16_base;
    using gshmem_emu::fp_members::bfloat16_base::operator=;
#if !defined(__CUDA_NO_BFLOAT16_CONVERSIONS__)
    explicit __host__ __device__ __nv_bfloat16(const __half f);
#endif
};

struct __attribute__((aligned(4))) __nv_bfloat162 {
    __nv_bfloat16 x, y;
    __nv_bfloat162() = default;
    __host__ __device__ constexpr __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
    __host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw &r)
        : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
    __host__ __device__ __nv_bfloat162 &operator=(const __nv_bfloat162_raw &r) { return *this = __nv_bfloat162(r); }
    __host__ __device__ operator __nv_bfloat162_raw() const {
        return __nv_bfloat162_raw{static_cast<__nv_bfloat16_raw>(x).x, static_cast<__nv_bfloat16_raw>(y).x};
    }
};

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* from one format to the other through float, which holds both exactly (so one rounding) */
#if !defined(__CUDA_NO_HALF_CONVERSIONS__)
__host__ __device__ inline __half::__half(const __nv_bfloat16 f)
    : gshmem_emu::fp_members::half_base(gshmem_emu::fp::rn<__half>(gshmem_emu::fp::to_float(f))) {}
#endif
#if !defined(__CUDA_NO_BFLOAT16_CONVERSIONS__)
__host__ __device__ inline __nv_bfloat16::__nv_bfloat16(const __half f)
    : gshmem_emu::fp_members::bfloat16_base(gshmem_emu::fp::rn<__nv_bfloat16>(gshmem_emu::fp::to_float(f))) {}
#endif

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)

/* ---- conversions ---- */
__host__ __device__ inline __nv_bfloat16 __float2bfloat16(const float a) {
    return gshmem_emu::fp::rn<__nv_bfloat16>(a);
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rn(const float a) {
    return gshmem_emu::fp::rn<__nv_bfloat16>(a);
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rz(const float a) {
    return gshmem_emu::fp::rz<__nv_bfloat16>(a);
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rd(const float a) {
    return gshmem_emu::fp::rd<__nv_bfloat16>(a);
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_ru(const float a) {
    return gshmem_emu::fp::ru<__nv_bfloat16>(a);
}
__host__ __device__ inline __nv_bfloat16 __double2bfloat16(const double a) {
    return gshmem_emu::fp::rn<__nv_bfloat16>(a);
}
__host__ __device__ inline float __bfloat162float(const __nv_bfloat16 a) { return gshmem_emu::fp::to_float(a); }
#define GSHMEM_EMU_B_INT(N, I)                                                                                         \
    __host__ __device__ inline __nv_bfloat16 __##N##2bfloat16_rn(const I i) {                                          \
        return gshmem_emu::fp::rn<__nv_bfloat16>(i);                                                                   \
    }                                                                                                                  \
    __host__ __device__ inline __nv_bfloat16 __##N##2bfloat16_rz(const I i) {                                          \
        return gshmem_emu::fp::rz<__nv_bfloat16>(i);                                                                   \
    }                                                                                                                  \
    __host__ __device__ inline __nv_bfloat16 __##N##2bfloat16_rd(const I i) {                                          \
        return gshmem_emu::fp::rd<__nv_bfloat16>(i);                                                                   \
    }                                                                                                                  \
    __host__ __device__ inline __nv_bfloat16 __##N##2bfloat16_ru(const I i) {                                          \
        return gshmem_emu::fp::ru<__nv_bfloat16>(i);                                                                   \
    }                                                                                                                  \
    __host__ __device__ inline I __bfloat162##N##_rz(const __nv_bfloat16 h) { return gshmem_emu::fp::to_i<I>(h); }
GSHMEM_EMU_B_INT(short, short)
GSHMEM_EMU_B_INT(ushort, unsigned short)
GSHMEM_EMU_B_INT(int, int)
GSHMEM_EMU_B_INT(uint, unsigned int)
GSHMEM_EMU_B_INT(ll, long long)
GSHMEM_EMU_B_INT(ull, unsigned long long)
#undef GSHMEM_EMU_B_INT
__host__ __device__ inline signed char __bfloat162char_rz(const __nv_bfloat16 h) {
    return gshmem_emu::fp::to_i<signed char>(h);
}
__host__ __device__ inline unsigned char __bfloat162uchar_rz(const __nv_bfloat16 h) {
    return gshmem_emu::fp::to_i<unsigned char>(h);
}
__host__ __device__ inline short __bfloat16_as_short(const __nv_bfloat16 h) { return (short)gshmem_emu::fp::bits(h); }
__host__ __device__ inline unsigned short __bfloat16_as_ushort(const __nv_bfloat16 h) {
    return gshmem_emu::fp::bits(h);
}
__host__ __device__ inline __nv_bfloat16 __short_as_bfloat16(const short i) {
    return gshmem_emu::fp::make<__nv_bfloat16>((uint16_t)i);
}
__host__ __device__ inline __nv_bfloat16 __ushort_as_bfloat16(const unsigned short i) {
    return gshmem_emu::fp::make<__nv_bfloat16>(i);
}

/* ---- arithmetic, comparisons, min and max ---- */
__host__ __device__ inline __nv_bfloat16 __hadd(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::arith(a, b, gshmem_emu::fp::ADD);
}
__host__ __device__ inline __nv_bfloat16 __hsub(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::arith(a, b, gshmem_emu::fp::SUB);
}
__host__ __device__ inline __nv_bfloat16 __hmul(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::arith(a, b, gshmem_emu::fp::MUL);
}
__host__ __device__ inline __nv_bfloat16 __hdiv(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::arith(a, b, gshmem_emu::fp::DIV);
}
__host__ __device__ inline __nv_bfloat16 __hadd_rn(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return __hadd(a, b);
}
__host__ __device__ inline __nv_bfloat16 __hsub_rn(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return __hsub(a, b);
}
__host__ __device__ inline __nv_bfloat16 __hmul_rn(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return __hmul(a, b);
}
__host__ __device__ inline __nv_bfloat16 __hneg(const __nv_bfloat16 a) { return gshmem_emu::fp::neg(a); }
__host__ __device__ inline __nv_bfloat16 __habs(const __nv_bfloat16 a) { return gshmem_emu::fp::abs(a); }
__host__ __device__ inline bool __hisnan(const __nv_bfloat16 a) { return gshmem_emu::fp::is_nan(a); }
__host__ __device__ inline int __hisinf(const __nv_bfloat16 a) { return gshmem_emu::fp::is_inf(a); }
#define GSHMEM_EMU_B_CMP(N, C)                                                                                         \
    __host__ __device__ inline bool __h##N(const __nv_bfloat16 a, const __nv_bfloat16 b) {                             \
        return gshmem_emu::fp::ordered(a, b, gshmem_emu::fp::C);                                                       \
    }                                                                                                                  \
    __host__ __device__ inline bool __h##N##u(const __nv_bfloat16 a, const __nv_bfloat16 b) {                          \
        return gshmem_emu::fp::unordered(a, b, gshmem_emu::fp::C);                                                     \
    }
GSHMEM_EMU_B_CMP(eq, EQ)
GSHMEM_EMU_B_CMP(ne, NE)
GSHMEM_EMU_B_CMP(lt, LT)
GSHMEM_EMU_B_CMP(le, LE)
GSHMEM_EMU_B_CMP(gt, GT)
GSHMEM_EMU_B_CMP(ge, GE)
#undef GSHMEM_EMU_B_CMP
__host__ __device__ inline __nv_bfloat16 __hmax(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::max_min(a, b, true);
}
__host__ __device__ inline __nv_bfloat16 __hmin(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::max_min(a, b, false);
}
__host__ __device__ inline __nv_bfloat16 __hmax_nan(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::max_min_nan(a, b, true);
}
__host__ __device__ inline __nv_bfloat16 __hmin_nan(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::max_min_nan(a, b, false);
}

/* ---- __nv_bfloat162 ---- */
__host__ __device__ inline __nv_bfloat162 __halves2bfloat162(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return __nv_bfloat162(a, b);
}
__host__ __device__ inline __nv_bfloat162 make_bfloat162(const __nv_bfloat16 x, const __nv_bfloat16 y) {
    return __nv_bfloat162(x, y);
}
__host__ __device__ inline __nv_bfloat162 __bfloat162bfloat162(const __nv_bfloat16 a) { return __nv_bfloat162(a, a); }
__host__ __device__ inline __nv_bfloat162 __float2bfloat162_rn(const float a) {
    return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(a));
}
__host__ __device__ inline __nv_bfloat162 __floats2bfloat162_rn(const float a, const float b) {
    return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
__host__ __device__ inline __nv_bfloat162 __float22bfloat162_rn(const float2 a) {
    return __floats2bfloat162_rn(a.x, a.y);
}
__host__ __device__ inline float2 __bfloat1622float2(const __nv_bfloat162 a) {
    return float2{__bfloat162float(a.x), __bfloat162float(a.y)};
}
__host__ __device__ inline __nv_bfloat16 __low2bfloat16(const __nv_bfloat162 a) { return a.x; }
__host__ __device__ inline __nv_bfloat16 __high2bfloat16(const __nv_bfloat162 a) { return a.y; }
__host__ __device__ inline float __low2float(const __nv_bfloat162 a) { return __bfloat162float(a.x); }
__host__ __device__ inline float __high2float(const __nv_bfloat162 a) { return __bfloat162float(a.y); }
__host__ __device__ inline __nv_bfloat162 __lowhigh2highlow(const __nv_bfloat162 a) { return __nv_bfloat162(a.y, a.x); }
#define GSHMEM_EMU_H2(N2, N)                                                                                           \
    __host__ __device__ inline __nv_bfloat162 N2(const __nv_bfloat162 a, const __nv_bfloat162 b) {                     \
        return __nv_bfloat162(N(a.x, b.x), N(a.y, b.y));                                                               \
    }
GSHMEM_EMU_H2(__hadd2, __hadd)
GSHMEM_EMU_H2(__hsub2, __hsub)
GSHMEM_EMU_H2(__hmul2, __hmul)
GSHMEM_EMU_H2(__h2div, __hdiv)
GSHMEM_EMU_H2(__hmax2, __hmax)
GSHMEM_EMU_H2(__hmin2, __hmin)
#undef GSHMEM_EMU_H2
__host__ __device__ inline __nv_bfloat162 __hneg2(const __nv_bfloat162 a) {
    return __nv_bfloat162(__hneg(a.x), __hneg(a.y));
}
__host__ __device__ inline __nv_bfloat162 __habs2(const __nv_bfloat162 a) {
    return __nv_bfloat162(__habs(a.x), __habs(a.y));
}
#define GSHMEM_EMU_H2B(N2, N)                                                                                          \
    __host__ __device__ inline bool N2(const __nv_bfloat162 a, const __nv_bfloat162 b) {                               \
        return N(a.x, b.x) && N(a.y, b.y);                                                                             \
    }
GSHMEM_EMU_H2B(__hbeq2, __heq)
GSHMEM_EMU_H2B(__hbne2, __hne)
GSHMEM_EMU_H2B(__hblt2, __hlt)
GSHMEM_EMU_H2B(__hble2, __hle)
GSHMEM_EMU_H2B(__hbgt2, __hgt)
GSHMEM_EMU_H2B(__hbge2, __hge)
GSHMEM_EMU_H2B(__hbneu2, __hneu)
#undef GSHMEM_EMU_H2B

/* ---- operators ---- */
#if !defined(__CUDA_NO_BFLOAT16_OPERATORS__)
__host__ __device__ inline __nv_bfloat16 operator+(const __nv_bfloat16 &l, const __nv_bfloat16 &r) {
    return __hadd(l, r);
}
__host__ __device__ inline __nv_bfloat16 operator-(const __nv_bfloat16 &l, const __nv_bfloat16 &r) {
    return __hsub(l, r);
}
__host__ __device__ inline __nv_bfloat16 operator*(const __nv_bfloat16 &l, const __nv_bfloat16 &r) {
    return __hmul(l, r);
}
__host__ __device__ inline __nv_bfloat16 operator/(const __nv_bfloat16 &l, const __nv_bfloat16 &r) {
    return __hdiv(l, r);
}
__host__ __device__ inline __nv_bfloat16 &operator+=(__nv_bfloat16 &l, const __nv_bfloat16 &r) {
    return l = __hadd(l, r);
}
__host__ __device__ inline __nv_bfloat16 &operator-=(__nv_bfloat16 &l, const __nv_bfloat16 &r) {
    return l = __hsub(l, r);
}
__host__ __device__ inline __nv_bfloat16 &operator*=(__nv_bfloat16 &l, const __nv_bfloat16 &r) {
    return l = __hmul(l, r);
}
__host__ __device__ inline __nv_bfloat16 &operator/=(__nv_bfloat16 &l, const __nv_bfloat16 &r) {
    return l = __hdiv(l, r);
}
__host__ __device__ inline __nv_bfloat16 &operator++(__nv_bfloat16 &h) { return h = __hadd(h, CUDART_ONE_BF16); }
__host__ __device__ inline __nv_bfloat16 &operator--(__nv_bfloat16 &h) { return h = __hsub(h, CUDART_ONE_BF16); }
__host__ __device__ inline __nv_bfloat16 operator++(__nv_bfloat16 &h, const int) {
    const __nv_bfloat16 r = h;
    h = __hadd(h, CUDART_ONE_BF16);
    return r;
}
__host__ __device__ inline __nv_bfloat16 operator--(__nv_bfloat16 &h, const int) {
    const __nv_bfloat16 r = h;
    h = __hsub(h, CUDART_ONE_BF16);
    return r;
}
__host__ __device__ inline __nv_bfloat16 operator+(const __nv_bfloat16 &h) { return h; }
__host__ __device__ inline __nv_bfloat16 operator-(const __nv_bfloat16 &h) { return __hneg(h); }
__host__ __device__ inline bool operator==(const __nv_bfloat16 &l, const __nv_bfloat16 &r) { return __heq(l, r); }
__host__ __device__ inline bool operator!=(const __nv_bfloat16 &l, const __nv_bfloat16 &r) { return __hneu(l, r); }
__host__ __device__ inline bool operator>(const __nv_bfloat16 &l, const __nv_bfloat16 &r) { return __hgt(l, r); }
__host__ __device__ inline bool operator<(const __nv_bfloat16 &l, const __nv_bfloat16 &r) { return __hlt(l, r); }
__host__ __device__ inline bool operator>=(const __nv_bfloat16 &l, const __nv_bfloat16 &r) { return __hge(l, r); }
__host__ __device__ inline bool operator<=(const __nv_bfloat16 &l, const __nv_bfloat16 &r) { return __hle(l, r); }
#endif
#if !defined(__CUDA_NO_BFLOAT162_OPERATORS__)
__host__ __device__ inline __nv_bfloat162 operator+(const __nv_bfloat162 &l, const __nv_bfloat162 &r) {
    return __hadd2(l, r);
}
__host__ __device__ inline __nv_bfloat162 operator-(const __nv_bfloat162 &l, const __nv_bfloat162 &r) {
    return __hsub2(l, r);
}
__host__ __device__ inline __nv_bfloat162 operator*(const __nv_bfloat162 &l, const __nv_bfloat162 &r) {
    return __hmul2(l, r);
}
__host__ __device__ inline __nv_bfloat162 operator/(const __nv_bfloat162 &l, const __nv_bfloat162 &r) {
    return __h2div(l, r);
}
__host__ __device__ inline __nv_bfloat162 &operator+=(__nv_bfloat162 &l, const __nv_bfloat162 &r) {
    return l = __hadd2(l, r);
}
__host__ __device__ inline __nv_bfloat162 &operator-=(__nv_bfloat162 &l, const __nv_bfloat162 &r) {
    return l = __hsub2(l, r);
}
__host__ __device__ inline __nv_bfloat162 &operator*=(__nv_bfloat162 &l, const __nv_bfloat162 &r) {
    return l = __hmul2(l, r);
}
__host__ __device__ inline __nv_bfloat162 &operator/=(__nv_bfloat162 &l, const __nv_bfloat162 &r) {
    return l = __h2div(l, r);
}
__host__ __device__ inline __nv_bfloat162 operator+(const __nv_bfloat162 &h) { return h; }
__host__ __device__ inline __nv_bfloat162 operator-(const __nv_bfloat162 &h) { return __hneg2(h); }
__host__ __device__ inline bool operator==(const __nv_bfloat162 &l, const __nv_bfloat162 &r) { return __hbeq2(l, r); }
__host__ __device__ inline bool operator!=(const __nv_bfloat162 &l, const __nv_bfloat162 &r) { return __hbneu2(l, r); }
__host__ __device__ inline bool operator>(const __nv_bfloat162 &l, const __nv_bfloat162 &r) { return __hbgt2(l, r); }
__host__ __device__ inline bool operator<(const __nv_bfloat162 &l, const __nv_bfloat162 &r) { return __hblt2(l, r); }
__host__ __device__ inline bool operator>=(const __nv_bfloat162 &l, const __nv_bfloat162 &r) { return __hbge2(l, r); }
__host__ __device__ inline bool operator<=(const __nv_bfloat162 &l, const __nv_bfloat162 &r) { return __hble2(l, r); }
#endif
#endif
