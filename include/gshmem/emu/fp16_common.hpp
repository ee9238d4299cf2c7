/* fp16_common.hpp - what the emulated cuda_fp16.h and cuda_bf16.h share, written once over the format: the members
 * of __half and __nv_bfloat16 (bases they derive from) and the code behind CUDA's arithmetic, comparisons, min/max and
 * conversions, which each header binds to its own names and types. Arithmetic is float's, rounded once to the format:
 * float's 24 bits are more than 2 x 11 + 2 (binary16) and 2 x 8 + 2 (bfloat16), so +, -, *, / round as the hardware
 * does (no double-rounding error). CUDA's names stay non-template functions in the headers: nvcc's overload set (a
 * float argument converting, __half + float ambiguous, ::__hadd) is what user code compiles against. */
#ifndef GSHMEM_EMU_FP16_COMMON_HPP
#define GSHMEM_EMU_FP16_COMMON_HPP
#include <gshmem/emu/fp_convert.hpp>
#include <type_traits>

/* the bases live in a namespace of their own that holds no function, so that argument-dependent lookup on __half
 * (which reaches its bases' namespace) finds nothing more than with nvcc */
namespace gshmem_emu {
namespace fp_members {
/* the raw bits (a protected __x, as CUDA has it, so a class deriving from __half reaches it) and the _raw struct's
 * conversions: all that __CUDA_NO_HALF_CONVERSIONS__ leaves. D: the type, R: its _raw struct */
template <class D, class R> struct storage {
  protected:
    unsigned short __x;

  public:
    storage() = default;
    constexpr storage(const R &hr) : __x(hr.x) {}
    D &operator=(const R &hr) {
        __x = hr.x;
        return static_cast<D &>(*this);
    }
    volatile D &operator=(const R &hr) volatile {
        __x = hr.x;
        return static_cast<volatile D &>(*this);
    }
    volatile D &operator=(const volatile R &hr) volatile {
        __x = hr.x;
        return static_cast<volatile D &>(*this);
    }
    operator R() const { return R{__x}; }
    operator R() const volatile { return R{__x}; }
};

/* CUDA's implicit conversions from and to float, double and the integer types (nvcc has the integer ones too: the
 * emulation stands for it, not for a host compiler). One non-template member per type, as CUDA declares them, so
 * that an argument of another type (char, an enum) promotes or converts as it does under nvcc. T: the format */
template <class D, class R, class T> struct convertible : storage<D, R> {
    using storage<D, R>::storage;
    using storage<D, R>::operator=;
    convertible() = default;
    convertible(const float f) : storage<D, R>(R{fp::from_float<T>(f, fp::RN)}) {}
    convertible(const double f) : storage<D, R>(R{fp::from_double<T>(f, fp::RN)}) {}
    operator float() const { return fp::widen<T>(this->__x); }
    D &operator=(const float f) { return static_cast<D &>(*this) = D(f); }
    D &operator=(const double f) { return static_cast<D &>(*this) = D(f); }
#define GSHMEM_EMU_FP16_INT(I)                                                                                         \
    convertible(const I v) : storage<D, R>(R{fp::from_integer<T>(v, fp::RN)}) {}                                       \
    operator I() const { return fp::to_int_rz<I>(fp::widen<T>(this->__x)); }
    GSHMEM_EMU_FP16_INT(short)
    GSHMEM_EMU_FP16_INT(unsigned short)
    GSHMEM_EMU_FP16_INT(int)
    GSHMEM_EMU_FP16_INT(unsigned int)
    GSHMEM_EMU_FP16_INT(long)
    GSHMEM_EMU_FP16_INT(unsigned long)
    GSHMEM_EMU_FP16_INT(long long)
    GSHMEM_EMU_FP16_INT(unsigned long long)
#undef GSHMEM_EMU_FP16_INT
    operator signed char() const { return fp::to_int_rz<signed char>(fp::widen<T>(this->__x)); }
    operator unsigned char() const { return fp::to_int_rz<unsigned char>(fp::widen<T>(this->__x)); }
    operator char() const {
        return (char)fp::to_int_rz<std::conditional_t<((char)-1 < 0), signed char, unsigned char>>(
            fp::widen<T>(this->__x));
    }
    constexpr operator bool() const { return (this->__x & 0x7fffu) != 0; }
};
} // namespace fp_members

namespace fp {
/* what each header says of its type H: fmt (the format), raw (its _raw struct) */
template <class H> struct traits;
template <class H> using fmt_of = typename traits<H>::fmt;

template <class H> inline uint16_t bits(const H h) { return static_cast<typename traits<H>::raw>(h).x; }
template <class H> inline H make(uint16_t b) { return H(typename traits<H>::raw{b}); }
template <class H> inline float to_float(const H h) { return widen<fmt_of<H>>(bits(h)); }
/* a float, double or integer to H, rounded once in CUDA's mode md (rn, rz, rd, ru below) */
template <class H, class V> inline H round_to(const V v, const mode md) {
    if constexpr (std::is_same_v<V, float>)
        return make<H>(from_float<fmt_of<H>>(v, md));
    else if constexpr (std::is_same_v<V, double>)
        return make<H>(from_double<fmt_of<H>>(v, md));
    else
        return make<H>(from_integer<fmt_of<H>>(v, md));
}
template <class H, class V> inline H rn(const V v) { return round_to<H>(v, RN); }
template <class H, class V> inline H rz(const V v) { return round_to<H>(v, RZ); }
template <class H, class V> inline H rd(const V v) { return round_to<H>(v, RD); }
template <class H, class V> inline H ru(const V v) { return round_to<H>(v, RU); }
template <class I, class H> inline I to_i(const H h) { return to_int_rz<I>(to_float(h)); }
template <class H> inline bool is_nan(const H h) { return (bits(h) & 0x7fffu) > fmt_of<H>::INF; }
template <class H> inline int is_inf(const H h) {
    const uint16_t b = bits(h);
    return b == fmt_of<H>::INF ? 1 : b == (0x8000u | fmt_of<H>::INF) ? -1 : 0;
}
template <class H> inline H neg(const H h) { return make<H>((uint16_t)(bits(h) ^ 0x8000u)); }
template <class H> inline H abs(const H h) { return make<H>((uint16_t)(bits(h) & 0x7fffu)); }

enum op { ADD, SUB, MUL, DIV };
template <class H> inline H arith(const H a, const H b, const op o) {
    const float x = to_float(a), y = to_float(b);
    return rn<H>(o == ADD ? x + y : o == SUB ? x - y : o == MUL ? x * y : x / y);
}

/* ordered comparisons are false with a NaN, unordered ones (CUDA's ..u) true */
enum cmp { EQ, NE, LT, LE, GT, GE };
inline bool compare(const float x, const float y, const cmp c) {
    switch (c) {
    case EQ: return x == y;
    case NE: return x != y;
    case LT: return x < y;
    case LE: return x <= y;
    case GT: return x > y;
    case GE: return x >= y;
    }
    return false;
}
template <class H> inline bool ordered(const H a, const H b, const cmp c) {
    return !is_nan(a) && !is_nan(b) && compare(to_float(a), to_float(b), c);
}
template <class H> inline bool unordered(const H a, const H b, const cmp c) {
    return is_nan(a) || is_nan(b) || compare(to_float(a), to_float(b), c);
}

/* a NaN loses to a number (both NaN: the canonical NaN); +0 is above -0; the _nan forms: a NaN wins */
template <class H> inline H max_min(const H a, const H b, const bool max) {
    if (is_nan(a) && is_nan(b))
        return make<H>(fmt_of<H>::QNAN);
    if (is_nan(a) || is_nan(b))
        return is_nan(a) ? b : a;
    if (to_float(a) == to_float(b))
        return ((bits(a) & 0x8000u) != 0) == max ? b : a;
    return (to_float(a) > to_float(b)) == max ? a : b;
}
template <class H> inline H max_min_nan(const H a, const H b, const bool max) {
    return is_nan(a) || is_nan(b) ? make<H>(fmt_of<H>::QNAN) : max_min(a, b, max);
}
} // namespace fp
} // namespace gshmem_emu
#endif
