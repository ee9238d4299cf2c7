/* fp_convert.hpp - the rounding under the emulated cuda_fp16.h and cuda_bf16.h: any float, double or integer to the
 * IEEE binary16 or bfloat16 bit pattern, in CUDA's four rounding modes, as its conversions round (bit-exact). */
#ifndef GSHMEM_EMU_FP_CONVERT_HPP
#define GSHMEM_EMU_FP_CONVERT_HPP
#include <cstdint>
#include <cstring>

namespace gshmem_emu {
namespace fp {
enum mode { RN, RZ, RD, RU };
/* a 16-bit format: F fraction bits, exponent bias B (binary16: 10, 15; bfloat16: 7, 127) */
template <int F_, int B_> struct fmt {
    static constexpr int F = F_, B = B_;
    static constexpr unsigned EXP_ALL = (2u * B + 1u);        /* the all-ones exponent field: inf and NaN */
    static constexpr uint16_t INF = (uint16_t)(EXP_ALL << F); /* +inf */
    static constexpr uint16_t MAXF = (uint16_t)(INF - 1u);    /* the largest finite */
    static constexpr uint16_t QNAN = (uint16_t)(0x7fffu);     /* the NaN CUDA's conversions return */
};
using f16 = fmt<10, 15>;
using bf16 = fmt<7, 127>;

/* m * 2^e (m > 0), negative if neg, rounded to the format as IEEE 754 rounds (ties to even for RN): the quantum of
 * the result's binade, or of the subnormals below the smallest normal; beyond the largest finite, inf or the largest
 * finite as the mode says */
template <class T> inline uint16_t round_bits(bool neg, uint64_t m, int e, mode md) {
    constexpr int F = T::F, B = T::B;
    const uint16_t s = neg ? 0x8000u : 0u;
    int msb = 63 - __builtin_clzll(m);
    int E = msb + e;                         /* the value is in [2^E, 2^(E+1)) */
    int qexp = (E >= 1 - B ? E : 1 - B) - F; /* the quantum's exponent */
    int shift = qexp - e;
    uint64_t q, rem = 0, half = 0;
    if (shift <= 0) {
        q = m << -shift; /* exact (only small integers get here) */
    } else if (shift >= 64) {
        q = 0;
        rem = 1; /* below half a quantum, and not zero */
        half = (uint64_t)1 << 63;
    } else {
        q = m >> shift;
        rem = m & (((uint64_t)1 << shift) - 1);
        half = (uint64_t)1 << (shift - 1);
    }
    bool up = false;
    if (rem) {
        switch (md) {
        case RN: up = rem > half || (rem == half && (q & 1)); break;
        case RZ: break;
        case RD: up = neg; break;
        case RU: up = !neg; break;
        }
    }
    q += up;
    bool inf_on_overflow = md == RN || (md == RU && !neg) || (md == RD && neg);
    if (E + B >= (int)T::EXP_ALL) /* beyond any binade the format has */
        return (uint16_t)(s | (inf_on_overflow ? T::INF : T::MAXF));
    /* q holds the implicit bit of a normal, so adding it to (biased exponent - 1) carries a rounding into the next
     * binade, and a subnormal rounding up to the smallest normal, by itself */
    uint64_t r = (E >= 1 - B ? ((uint64_t)(E + B - 1) << F) : 0) + q;
    if (r >= T::INF)
        return (uint16_t)(s | (inf_on_overflow ? T::INF : T::MAXF));
    return (uint16_t)(s | r);
}
template <class T> inline uint16_t from_double(double d, mode md) {
    uint64_t x;
    std::memcpy(&x, &d, 8);
    bool neg = x >> 63;
    uint32_t ex = (uint32_t)(x >> 52) & 0x7ff;
    uint64_t fr = x & 0xfffffffffffffull;
    if (ex == 0x7ff)
        return fr ? T::QNAN : (uint16_t)((neg ? 0x8000u : 0u) | T::INF);
    if (ex == 0 && fr == 0)
        return neg ? 0x8000u : 0u;
    uint64_t m = ex ? (fr | 0x10000000000000ull) : fr;
    int e = ex ? (int)ex - 1075 : -1074;
    return round_bits<T>(neg, m, e, md);
}
/* a float is exactly a double (its subnormals are double's normals, its NaNs stay NaNs), so one rounding serves */
template <class T> inline uint16_t from_float(float f, mode md) { return from_double<T>((double)f, md); }
template <class T> inline uint16_t from_int(bool neg, uint64_t mag, mode md) {
    if (mag == 0)
        return 0;
    return round_bits<T>(neg, mag, 0, md);
}
template <class T, class I> inline uint16_t from_integer(I v, mode md) {
    if constexpr (I(-1) < I(0))
        return from_int<T>(v < 0, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, md);
    else
        return from_int<T>(false, (unsigned long long)v, md);
}
/* binary16 to float: exact; a NaN becomes 0x7fffffff, as CUDA's host conversion makes it */
inline float half_to_float(uint16_t h) {
    uint32_t s = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1f, fr = h & 0x3ffu, u;
    if (ex == 0x1f)
        u = fr ? 0x7fffffffu : (s | 0x7f800000u);
    else if (ex == 0) {
        if (!fr)
            u = s;
        else { /* subnormal: renormalize */
            int k = 0;
            while (!(fr & 0x400u)) {
                fr <<= 1;
                k++;
            }
            u = s | ((uint32_t)(113 - k) << 23) | ((fr & 0x3ffu) << 13);
        }
    } else
        u = s | ((ex + 112u) << 23) | (fr << 13);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline float bf16_to_float(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
/* either format to float, exactly: binary16 (10 fraction bits) has subnormals to renormalize, bfloat16 is float's upper
 * half */
template <class T> inline float widen(uint16_t b) {
    if constexpr (T::F == 10)
        return half_to_float(b);
    else
        return bf16_to_float(b);
}
/* to an integer type, truncating: NaN is 0, out of range saturates (CUDA's cvt.rzi) */
template <class I> inline I to_int_rz(float f) {
    if (f != f)
        return 0;
    const I lo = (I)(I(0) < I(-1) ? 0 : (I)1 << (sizeof(I) * 8 - 1));
    const I hi = (I)~lo;
    if (f >= (float)hi) /* (float)hi rounds up to a power of two, which is out of range) */
        return hi;
    if (f <= (float)lo)
        return lo;
    return (I)f;
}
} // namespace fp
} // namespace gshmem_emu
#endif
