/* cuda_bf16.hpp - the subset of CUDA's cuda_bf16.h that oshcc --emulate-gpu provides: __nv_bfloat16 and
 * __nv_bfloat162 (bfloat16: float's upper two bytes), conversions bit-exact with CUDA's, arithmetic, comparisons,
 * min/max and operators, with CUDA's implicit conversions and the macros that remove them
 * (__CUDA_NO_BFLOAT16_CONVERSIONS__, __CUDA_NO_BFLOAT16_OPERATORS__, __CUDA_NO_BFLOAT162_OPERATORS__). Made from
 * cuda_fp16.hpp's text by scripted renaming; arithmetic is float's rounded once (24 bits > 2 x 8 + 2: exact rounding).
 */
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

struct __attribute__((aligned(2))) __nv_bfloat16 {
  protected:
    unsigned short __x;

  public:
    __nv_bfloat16() = default;
    __host__ __device__ constexpr __nv_bfloat16(const __nv_bfloat16_raw &hr) : __x(hr.x) {}
    __host__ __device__ __nv_bfloat16 &operator=(const __nv_bfloat16_raw &hr) {
        __x = hr.x;
        return *this;
    }
    __host__ __device__ volatile __nv_bfloat16 &operator=(const __nv_bfloat16_raw &hr) volatile {
        __x = hr.x;
        return *this;
    }
    __host__ __device__ volatile __nv_bfloat16 &operator=(const volatile __nv_bfloat16_raw &hr) volatile {
        __x = hr.x;
        return *this;
    }
    __host__ __device__ operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }
    __host__ __device__ operator __nv_bfloat16_raw() const volatile { return __nv_bfloat16_raw{__x}; }
#if !defined(__CUDA_NO_BFLOAT16_CONVERSIONS__)
    explicit __host__ __device__ __nv_bfloat16(const __half f)
        : __x(gshmem_emu::fp::from_float<gshmem_emu::fp::bf16>(__half2float(f), gshmem_emu::fp::RN)) {}
    __host__ __device__ __nv_bfloat16(const float f)
        : __x(gshmem_emu::fp::from_float<gshmem_emu::fp::bf16>(f, gshmem_emu::fp::RN)) {}
    __host__ __device__ __nv_bfloat16(const double f)
        : __x(gshmem_emu::fp::from_double<gshmem_emu::fp::bf16>(f, gshmem_emu::fp::RN)) {}
    __host__ __device__ operator float() const { return gshmem_emu::fp::bf16_to_float(__x); }
    __host__ __device__ __nv_bfloat16 &operator=(const float f) { return *this = __nv_bfloat16(f); }
    __host__ __device__ __nv_bfloat16 &operator=(const double f) { return *this = __nv_bfloat16(f); }
    /* (nvcc has the integer conversions too: the emulation stands for it, not for a host compiler) */
#define GSHMEM_EMU_BF16_INT(I)                                                                                         \
    __host__ __device__ __nv_bfloat16(const I v)                                                                       \
        : __x(gshmem_emu::fp::from_integer<gshmem_emu::fp::bf16>(v, gshmem_emu::fp::RN)) {}                            \
    __host__ __device__ operator I() const { return gshmem_emu::fp::to_int_rz<I>(gshmem_emu::fp::bf16_to_float(__x)); }
    GSHMEM_EMU_BF16_INT(short)
    GSHMEM_EMU_BF16_INT(unsigned short)
    GSHMEM_EMU_BF16_INT(int)
    GSHMEM_EMU_BF16_INT(unsigned int)
    GSHMEM_EMU_BF16_INT(long)
    GSHMEM_EMU_BF16_INT(unsigned long)
    GSHMEM_EMU_BF16_INT(long long)
    GSHMEM_EMU_BF16_INT(unsigned long long)
#undef GSHMEM_EMU_BF16_INT
    __host__ __device__ operator signed char() const {
        return gshmem_emu::fp::to_int_rz<signed char>(gshmem_emu::fp::bf16_to_float(__x));
    }
    __host__ __device__ operator unsigned char() const {
        return gshmem_emu::fp::to_int_rz<unsigned char>(gshmem_emu::fp::bf16_to_float(__x));
    }
    __host__ __device__ operator char() const {
        return (char)gshmem_emu::fp::to_int_rz<std::conditional_t<((char)-1 < 0), signed char, unsigned char>>(
            gshmem_emu::fp::bf16_to_float(__x));
    }
    __host__ __device__ constexpr operator bool() const { return (__x & 0x7fffu) != 0; }
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

#if !defined(__CUDA_NO_HALF_CONVERSIONS__)
/* binary16 from bfloat16: through float, which holds every bfloat16 exactly (so one rounding) */
__host__ __device__ inline __half::__half(const __nv_bfloat16 f)
    : __x(gshmem_emu::fp::from_float<gshmem_emu::fp::f16>(
          gshmem_emu::fp::bf16_to_float(static_cast<__nv_bfloat16_raw>(f).x), gshmem_emu::fp::RN)) {}
#endif

namespace gshmem_emu {
namespace fp {
inline uint16_t hbits(const __nv_bfloat16 h) { return static_cast<__nv_bfloat16_raw>(h).x; }
inline __nv_bfloat16 bmake(uint16_t b) { return __nv_bfloat16(__nv_bfloat16_raw{b}); }
inline float bf(const __nv_bfloat16 h) { return bf16_to_float(hbits(h)); }
inline __nv_bfloat16 bround(float f) { return bmake(from_float<bf16>(f, RN)); }
inline bool bnan(const __nv_bfloat16 h) { return (hbits(h) & 0x7fffu) > 0x7f80u; }
} // namespace fp
} // namespace gshmem_emu

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)

/* ---- conversions ---- */
#define GSHMEM_EMU_H(expr) gshmem_emu::fp::bmake(expr)
__host__ __device__ inline __nv_bfloat16 __float2bfloat16(const float a) {
    return GSHMEM_EMU_H(gshmem_emu::fp::from_float<gshmem_emu::fp::bf16>(a, gshmem_emu::fp::RN));
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rn(const float a) { return __float2bfloat16(a); }
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rz(const float a) {
    return GSHMEM_EMU_H(gshmem_emu::fp::from_float<gshmem_emu::fp::bf16>(a, gshmem_emu::fp::RZ));
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_rd(const float a) {
    return GSHMEM_EMU_H(gshmem_emu::fp::from_float<gshmem_emu::fp::bf16>(a, gshmem_emu::fp::RD));
}
__host__ __device__ inline __nv_bfloat16 __float2bfloat16_ru(const float a) {
    return GSHMEM_EMU_H(gshmem_emu::fp::from_float<gshmem_emu::fp::bf16>(a, gshmem_emu::fp::RU));
}
__host__ __device__ inline __nv_bfloat16 __double2bfloat16(const double a) {
    return GSHMEM_EMU_H(gshmem_emu::fp::from_double<gshmem_emu::fp::bf16>(a, gshmem_emu::fp::RN));
}
__host__ __device__ inline float __bfloat162float(const __nv_bfloat16 a) { return gshmem_emu::fp::bf(a); }
#define GSHMEM_EMU_H_INT(N, I)                                                                                         \
    __host__ __device__ inline __nv_bfloat16 __##N##2bfloat16_rn(const I i) {                                          \
        return GSHMEM_EMU_H(gshmem_emu::fp::from_integer<gshmem_emu::fp::bf16>(i, gshmem_emu::fp::RN));                \
    }                                                                                                                  \
    __host__ __device__ inline __nv_bfloat16 __##N##2bfloat16_rz(const I i) {                                          \
        return GSHMEM_EMU_H(gshmem_emu::fp::from_integer<gshmem_emu::fp::bf16>(i, gshmem_emu::fp::RZ));                \
    }                                                                                                                  \
    __host__ __device__ inline __nv_bfloat16 __##N##2bfloat16_rd(const I i) {                                          \
        return GSHMEM_EMU_H(gshmem_emu::fp::from_integer<gshmem_emu::fp::bf16>(i, gshmem_emu::fp::RD));                \
    }                                                                                                                  \
    __host__ __device__ inline __nv_bfloat16 __##N##2bfloat16_ru(const I i) {                                          \
        return GSHMEM_EMU_H(gshmem_emu::fp::from_integer<gshmem_emu::fp::bf16>(i, gshmem_emu::fp::RU));                \
    }                                                                                                                  \
    __host__ __device__ inline I __bfloat162##N##_rz(const __nv_bfloat16 h) {                                          \
        return gshmem_emu::fp::to_int_rz<I>(__bfloat162float(h));                                                      \
    }
GSHMEM_EMU_H_INT(short, short)
GSHMEM_EMU_H_INT(ushort, unsigned short)
GSHMEM_EMU_H_INT(int, int)
GSHMEM_EMU_H_INT(uint, unsigned int)
GSHMEM_EMU_H_INT(ll, long long)
GSHMEM_EMU_H_INT(ull, unsigned long long)
#undef GSHMEM_EMU_H_INT
__host__ __device__ inline signed char __bfloat162char_rz(const __nv_bfloat16 h) {
    return gshmem_emu::fp::to_int_rz<signed char>(__bfloat162float(h));
}
__host__ __device__ inline unsigned char __bfloat162uchar_rz(const __nv_bfloat16 h) {
    return gshmem_emu::fp::to_int_rz<unsigned char>(__bfloat162float(h));
}
__host__ __device__ inline short __bfloat16_as_short(const __nv_bfloat16 h) { return (short)gshmem_emu::fp::hbits(h); }
__host__ __device__ inline unsigned short __bfloat16_as_ushort(const __nv_bfloat16 h) {
    return gshmem_emu::fp::hbits(h);
}
__host__ __device__ inline __nv_bfloat16 __short_as_bfloat16(const short i) { return GSHMEM_EMU_H((uint16_t)i); }
__host__ __device__ inline __nv_bfloat16 __ushort_as_bfloat16(const unsigned short i) { return GSHMEM_EMU_H(i); }

/* ---- arithmetic (one rounding of float's result), comparisons, min and max ---- */
__host__ __device__ inline __nv_bfloat16 __hadd(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::bround(__bfloat162float(a) + __bfloat162float(b));
}
__host__ __device__ inline __nv_bfloat16 __hsub(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::bround(__bfloat162float(a) - __bfloat162float(b));
}
__host__ __device__ inline __nv_bfloat16 __hmul(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::bround(__bfloat162float(a) * __bfloat162float(b));
}
__host__ __device__ inline __nv_bfloat16 __hdiv(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return gshmem_emu::fp::bround(__bfloat162float(a) / __bfloat162float(b));
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
__host__ __device__ inline __nv_bfloat16 __hneg(const __nv_bfloat16 a) {
    return GSHMEM_EMU_H((uint16_t)(gshmem_emu::fp::hbits(a) ^ 0x8000u));
}
__host__ __device__ inline __nv_bfloat16 __habs(const __nv_bfloat16 a) {
    return GSHMEM_EMU_H((uint16_t)(gshmem_emu::fp::hbits(a) & 0x7fffu));
}
__host__ __device__ inline bool __hisnan(const __nv_bfloat16 a) { return gshmem_emu::fp::bnan(a); }
__host__ __device__ inline int __hisinf(const __nv_bfloat16 a) {
    uint16_t b = gshmem_emu::fp::hbits(a);
    return b == 0x7f80u ? 1 : b == 0xff80u ? -1 : 0;
}
/* ordered comparisons are false with a NaN, unordered (..u) true */
#define GSHMEM_EMU_H_CMP(N, OP)                                                                                        \
    __host__ __device__ inline bool __h##N(const __nv_bfloat16 a, const __nv_bfloat16 b) {                             \
        return __bfloat162float(a) OP __bfloat162float(b);                                                             \
    }                                                                                                                  \
    __host__ __device__ inline bool __h##N##u(const __nv_bfloat16 a, const __nv_bfloat16 b) {                          \
        return __hisnan(a) || __hisnan(b) || (__bfloat162float(a) OP __bfloat162float(b));                             \
    }
GSHMEM_EMU_H_CMP(eq, ==)
GSHMEM_EMU_H_CMP(lt, <)
GSHMEM_EMU_H_CMP(le, <=)
GSHMEM_EMU_H_CMP(gt, >)
GSHMEM_EMU_H_CMP(ge, >=)
#undef GSHMEM_EMU_H_CMP
__host__ __device__ inline bool __hne(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return !__hisnan(a) && !__hisnan(b) && __bfloat162float(a) != __bfloat162float(b);
}
__host__ __device__ inline bool __hneu(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return __bfloat162float(a) != __bfloat162float(b);
}
/* a NaN loses to a number (both NaN: the canonical NaN); +0 is above -0 */
__host__ __device__ inline __nv_bfloat16 __hmax(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    if (__hisnan(a) && __hisnan(b))
        return CUDART_NAN_BF16;
    if (__hisnan(a) || __hisnan(b))
        return __hisnan(a) ? b : a;
    if (__heq(a, b))
        return (gshmem_emu::fp::hbits(a) & 0x8000u) ? b : a;
    return __hgt(a, b) ? a : b;
}
__host__ __device__ inline __nv_bfloat16 __hmin(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    if (__hisnan(a) && __hisnan(b))
        return CUDART_NAN_BF16;
    if (__hisnan(a) || __hisnan(b))
        return __hisnan(a) ? b : a;
    if (__heq(a, b))
        return (gshmem_emu::fp::hbits(a) & 0x8000u) ? a : b;
    return __hlt(a, b) ? a : b;
}
/* the _nan forms: a NaN wins */
__host__ __device__ inline __nv_bfloat16 __hmax_nan(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return __hisnan(a) || __hisnan(b) ? CUDART_NAN_BF16 : __hmax(a, b);
}
__host__ __device__ inline __nv_bfloat16 __hmin_nan(const __nv_bfloat16 a, const __nv_bfloat16 b) {
    return __hisnan(a) || __hisnan(b) ? CUDART_NAN_BF16 : __hmin(a, b);
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
#undef GSHMEM_EMU_H
#endif
