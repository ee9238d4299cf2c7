/* emu_fp16.cu - the emulation's cuda_fp16.h and cuda_bf16.h against CUDA's own: every conversion, arithmetic and
 * min/max result in the tables below is what nvcc 13.0's host code computes (ties, subnormals, overflow, inf, NaN),
 * checked bit for bit on the host and in a kernel; and the types' size, layout and implicit conversions are CUDA's. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <type_traits>

/* (nvcc 13.0 host) float bits -> __float2half, _rz, _rd, _ru; __float2bfloat16, _rz, _rd, _ru */
static const struct {
    uint32_t f;
    uint16_t h[4], b[4];
} f2h[] = {
    {0x00000000u, {0x0000, 0x0000, 0x0000, 0x0000}, {0x0000, 0x0000, 0x0000, 0x0000}},
    {0x80000000u, {0x8000, 0x8000, 0x8000, 0x8000}, {0x8000, 0x8000, 0x8000, 0x8000}},
    {0x3f800000u, {0x3c00, 0x3c00, 0x3c00, 0x3c00}, {0x3f80, 0x3f80, 0x3f80, 0x3f80}},
    {0xbf800000u, {0xbc00, 0xbc00, 0xbc00, 0xbc00}, {0xbf80, 0xbf80, 0xbf80, 0xbf80}},
    {0x477fe000u, {0x7bff, 0x7bff, 0x7bff, 0x7bff}, {0x4780, 0x477f, 0x477f, 0x4780}},
    {0x477fefffu, {0x7bff, 0x7bff, 0x7bff, 0x7c00}, {0x4780, 0x477f, 0x477f, 0x4780}},
    {0x477ff000u, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x4780, 0x477f, 0x477f, 0x4780}},
    {0xc77ff000u, {0xfc00, 0xfbff, 0xfc00, 0xfbff}, {0xc780, 0xc77f, 0xc780, 0xc77f}},
    {0x47800000u, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x4780, 0x4780, 0x4780, 0x4780}},
    {0x501502f9u, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x5015, 0x5015, 0x5015, 0x5016}},
    {0x7f7fffffu, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x7f80, 0x7f7f, 0x7f7f, 0x7f80}},
    {0x7f800000u, {0x7c00, 0x7c00, 0x7c00, 0x7c00}, {0x7f80, 0x7f80, 0x7f80, 0x7f80}},
    {0xff800000u, {0xfc00, 0xfc00, 0xfc00, 0xfc00}, {0xff80, 0xff80, 0xff80, 0xff80}},
    {0x7fc00000u, {0x7fff, 0x7fff, 0x7fff, 0x7fff}, {0x7fff, 0x7fff, 0x7fff, 0x7fff}},
    {0xffc00001u, {0x7fff, 0x7fff, 0x7fff, 0x7fff}, {0x7fff, 0x7fff, 0x7fff, 0x7fff}},
    {0x7f800001u, {0x7fff, 0x7fff, 0x7fff, 0x7fff}, {0x7fff, 0x7fff, 0x7fff, 0x7fff}},
    {0x33800000u, {0x0001, 0x0001, 0x0001, 0x0001}, {0x3380, 0x3380, 0x3380, 0x3380}},
    {0x33000000u, {0x0000, 0x0000, 0x0000, 0x0001}, {0x3300, 0x3300, 0x3300, 0x3300}},
    {0x33000001u, {0x0001, 0x0000, 0x0000, 0x0001}, {0x3300, 0x3300, 0x3300, 0x3301}},
    {0xb3000001u, {0x8001, 0x8000, 0x8001, 0x8000}, {0xb300, 0xb300, 0xb301, 0xb300}},
    {0x33c00000u, {0x0002, 0x0001, 0x0001, 0x0002}, {0x33c0, 0x33c0, 0x33c0, 0x33c0}},
    {0x34200000u, {0x0002, 0x0002, 0x0002, 0x0003}, {0x3420, 0x3420, 0x3420, 0x3420}},
    {0x38800000u, {0x0400, 0x0400, 0x0400, 0x0400}, {0x3880, 0x3880, 0x3880, 0x3880}},
    {0x387fc000u, {0x03ff, 0x03ff, 0x03ff, 0x03ff}, {0x3880, 0x387f, 0x387f, 0x3880}},
    {0x387fe000u, {0x0400, 0x03ff, 0x03ff, 0x0400}, {0x3880, 0x387f, 0x387f, 0x3880}},
    {0x3f801000u, {0x3c00, 0x3c00, 0x3c00, 0x3c01}, {0x3f80, 0x3f80, 0x3f80, 0x3f81}},
    {0x3f803000u, {0x3c02, 0x3c01, 0x3c01, 0x3c02}, {0x3f80, 0x3f80, 0x3f80, 0x3f81}},
    {0x3f801001u, {0x3c01, 0x3c00, 0x3c00, 0x3c01}, {0x3f80, 0x3f80, 0x3f80, 0x3f81}},
    {0x3f808000u, {0x3c04, 0x3c04, 0x3c04, 0x3c04}, {0x3f80, 0x3f80, 0x3f80, 0x3f81}},
    {0x3f818000u, {0x3c0c, 0x3c0c, 0x3c0c, 0x3c0c}, {0x3f82, 0x3f81, 0x3f81, 0x3f82}},
    {0x3f808001u, {0x3c04, 0x3c04, 0x3c04, 0x3c05}, {0x3f81, 0x3f80, 0x3f80, 0x3f81}},
    {0xbf808001u, {0xbc04, 0xbc04, 0xbc05, 0xbc04}, {0xbf81, 0xbf80, 0xbf81, 0xbf80}},
    {0x00000001u, {0x0000, 0x0000, 0x0000, 0x0001}, {0x0000, 0x0000, 0x0000, 0x0001}},
    {0x00008000u, {0x0000, 0x0000, 0x0000, 0x0001}, {0x0000, 0x0000, 0x0000, 0x0001}},
    {0x00018000u, {0x0000, 0x0000, 0x0000, 0x0001}, {0x0002, 0x0001, 0x0001, 0x0002}},
    {0x00010000u, {0x0000, 0x0000, 0x0000, 0x0001}, {0x0001, 0x0001, 0x0001, 0x0001}},
    {0x7f7f8000u, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x7f80, 0x7f7f, 0x7f7f, 0x7f80}},
    {0x7f7f7fffu, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x7f7f, 0x7f7f, 0x7f7f, 0x7f80}},
    {0x40490fdbu, {0x4248, 0x4248, 0x4248, 0x4249}, {0x4049, 0x4049, 0x4049, 0x404a}},
    {0x3dcccccdu, {0x2e66, 0x2e66, 0x2e66, 0x2e67}, {0x3dcd, 0x3dcc, 0x3dcc, 0x3dcd}},
    {0xc2f6e979u, {0xd7b7, 0xd7b7, 0xd7b8, 0xd7b7}, {0xc2f7, 0xc2f6, 0xc2f7, 0xc2f6}},
    {0x00800000u, {0x0000, 0x0000, 0x0000, 0x0001}, {0x0080, 0x0080, 0x0080, 0x0080}},
    {0x007fffffu, {0x0000, 0x0000, 0x0000, 0x0001}, {0x0080, 0x007f, 0x007f, 0x0080}},
};

/* (nvcc 13.0 host) half bits -> __half2float bits, __half2int_rz, __half2ushort_rz, __half2char_rz; bf16 bits -> float
 * bits, __bfloat162int_rz */
static const struct {
    uint16_t x;
    uint32_t f;
    int i;
    unsigned us;
    int c;
    uint32_t bf;
    int bi;
} h2f[] = {
    {0x0000, 0x00000000u, 0, 0, 0, 0x00000000u, 0},
    {0x8000, 0x80000000u, 0, 0, 0, 0x80000000u, 0},
    {0x0001, 0x33800000u, 0, 0, 0, 0x00010000u, 0},
    {0x8001, 0xb3800000u, 0, 0, 0, 0x80010000u, 0},
    {0x03ff, 0x387fc000u, 0, 0, 0, 0x03ff0000u, 0},
    {0x0400, 0x38800000u, 0, 0, 0, 0x04000000u, 0},
    {0x3c00, 0x3f800000u, 1, 1, 1, 0x3c000000u, 0},
    {0x3c01, 0x3f802000u, 1, 1, 1, 0x3c010000u, 0},
    {0xc100, 0xc0200000u, -2, 0, -2, 0xc1000000u, -8},
    {0x4d00, 0x41a00000u, 20, 20, 20, 0x4d000000u, 134217728},
    {0x7bff, 0x477fe000u, 65504, 65504, 127, 0x7bff0000u, 2147483647},
    {0xfbff, 0xc77fe000u, -65504, 0, -128, 0xfbff0000u, -2147483648},
    {0x7c00, 0x7f800000u, 2147483647, 65535, 127, 0x7c000000u, 2147483647},
    {0xfc00, 0xff800000u, -2147483648, 0, -128, 0xfc000000u, -2147483648},
    {0x7e00, 0x7fffffffu, 0, 0, 0, 0x7e000000u, 2147483647},
    {0xfe01, 0x7fffffffu, 0, 0, 0, 0xfe010000u, -2147483648},
    {0x7c01, 0x7fffffffu, 0, 0, 0, 0x7c010000u, 2147483647},
    {0x5bff, 0x437fe000u, 255, 255, 127, 0x5bff0000u, 2147483647},
    {0x7800, 0x47000000u, 32768, 32768, 127, 0x78000000u, 2147483647},
    {0xb800, 0xbf000000u, 0, 0, 0, 0xb8000000u, 0},
};

/* (nvcc 13.0 host) integer -> __ll2half_rn, _rz, _rd, _ru; __ll2bfloat16_rn */
static const struct {
    long long v;
    uint16_t h[4], b[1];
} i2h[] = {
    {0LL, {0x0000, 0x0000, 0x0000, 0x0000}, {0x0000}},
    {1LL, {0x3c00, 0x3c00, 0x3c00, 0x3c00}, {0x3f80}},
    {-1LL, {0xbc00, 0xbc00, 0xbc00, 0xbc00}, {0xbf80}},
    {2049LL, {0x6800, 0x6800, 0x6800, 0x6801}, {0x4500}},
    {2051LL, {0x6802, 0x6801, 0x6801, 0x6802}, {0x4500}},
    {-2049LL, {0xe800, 0xe800, 0xe801, 0xe800}, {0xc500}},
    {2047LL, {0x67ff, 0x67ff, 0x67ff, 0x67ff}, {0x4500}},
    {4097LL, {0x6c00, 0x6c00, 0x6c00, 0x6c01}, {0x4580}},
    {65504LL, {0x7bff, 0x7bff, 0x7bff, 0x7bff}, {0x4780}},
    {65519LL, {0x7bff, 0x7bff, 0x7bff, 0x7c00}, {0x4780}},
    {65520LL, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x4780}},
    {-65520LL, {0xfc00, 0xfbff, 0xfc00, 0xfbff}, {0xc780}},
    {65536LL, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x4780}},
    {16777216LL, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x4b80}},
    {16777217LL, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x4b80}},
    {33554435LL, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x4c00}},
    {2147483647LL, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x4f00}},
    {-2147483648LL, {0xfc00, 0xfbff, 0xfc00, 0xfbff}, {0xcf00}},
    {9007199254740993LL, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x5a00}},
    {-9007199254740993LL, {0xfc00, 0xfbff, 0xfc00, 0xfbff}, {0xda00}},
    {9223372036854775807LL, {0x7c00, 0x7bff, 0x7bff, 0x7c00}, {0x5f00}},
    {257LL, {0x5c04, 0x5c04, 0x5c04, 0x5c04}, {0x4380}},
    {259LL, {0x5c0c, 0x5c0c, 0x5c0c, 0x5c0c}, {0x4382}},
    {-259LL, {0xdc0c, 0xdc0c, 0xdc0c, 0xdc0c}, {0xc382}},
};

/* (nvcc 13.0 host) double -> __double2half, __double2bfloat16 */
static const struct {
    double d;
    uint16_t h, b;
} d2h[] = {
    {0.10000000000000001, 0x2e66, 0x3dcd},
    {1.00048828125, 0x3c00, 0x3f80},
    {1.0004882812510001, 0x3c01, 0x3f80},
    {65519.999999990003, 0x7bff, 0x4780},
    {65520, 0x7c00, 0x4780},
    {5.9604644775390625e-08, 0x0001, 0x3380},
    {2.9802322387695312e-08, 0x0000, 0x3300},
    {1.0000000000000001e+300, 0x7c00, 0x7f80},
    {-1e-300, 0x8000, 0x8000},
    {3.0000000000000004, 0x4200, 0x4040},
    {1.00390625, 0x3c04, 0x3f80},
    {1.0039062500000011, 0x3c04, 0x3f81},
};

/* (nvcc 13.0 host) half a, b -> __hadd, __hsub, __hmul, __hdiv, __hmax, __hmin; the same bits as bfloat16 */
static const struct {
    uint16_t a, b, h[6], bf[6];
} ops[] = {
    {0x3c00,
     0x3c00,
     {0x4000, 0x0000, 0x3c00, 0x3c00, 0x3c00, 0x3c00},
     {0x3c80, 0x0000, 0x3880, 0x3f80, 0x3c00, 0x3c00}},
    {0x7bff,
     0x7bff,
     {0x7c00, 0x0000, 0x7c00, 0x3c00, 0x7bff, 0x7bff},
     {0x7c7f, 0x0000, 0x7f80, 0x3f80, 0x7bff, 0x7bff}},
    {0x3c00,
     0x1400,
     {0x3c01, 0x3bfe, 0x1400, 0x6400, 0x3c00, 0x1400},
     {0x3c00, 0x3c00, 0x1080, 0x6780, 0x3c00, 0x1400}},
    {0x3c00,
     0x1000,
     {0x3c00, 0x3bff, 0x1000, 0x6800, 0x3c00, 0x1000},
     {0x3c00, 0x3c00, 0x0c80, 0x6b80, 0x3c00, 0x1000}},
    {0x0001,
     0x0001,
     {0x0002, 0x0000, 0x0000, 0x3c00, 0x0001, 0x0001},
     {0x0002, 0x0000, 0x0000, 0x3f80, 0x0001, 0x0001}},
    {0x8000,
     0x0000,
     {0x0000, 0x8000, 0x8000, 0x7fff, 0x0000, 0x8000},
     {0x0000, 0x8000, 0x8000, 0x7fff, 0x0000, 0x8000}},
    {0x0000,
     0x8000,
     {0x0000, 0x0000, 0x8000, 0x7fff, 0x0000, 0x8000},
     {0x0000, 0x0000, 0x8000, 0x7fff, 0x0000, 0x8000}},
    {0x7e00,
     0x3c00,
     {0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x3c00, 0x3c00},
     {0x7e00, 0x7e00, 0x7a80, 0x7f80, 0x7e00, 0x3c00}},
    {0x3c00,
     0x7e00,
     {0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x3c00, 0x3c00},
     {0x7e00, 0xfe00, 0x7a80, 0x0002, 0x7e00, 0x3c00}},
    {0x7e00,
     0xfe00,
     {0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x7fff},
     {0x0000, 0x7e80, 0xff80, 0xbf80, 0x7e00, 0xfe00}},
    {0x7c00,
     0xfc00,
     {0x7fff, 0x7c00, 0xfc00, 0x7fff, 0x7c00, 0xfc00},
     {0x0000, 0x7c80, 0xff80, 0xbf80, 0x7c00, 0xfc00}},
    {0x3555,
     0x4248,
     {0x42f3, 0xc19d, 0x3c30, 0x2ecb, 0x4248, 0x3555},
     {0x4248, 0xc248, 0x3826, 0x3288, 0x4248, 0x3555}},
    {0x0400,
     0x8001,
     {0x03ff, 0x0401, 0x8000, 0xe400, 0x0400, 0x8001},
     {0x0400, 0x0400, 0x8000, 0xc680, 0x0400, 0x8001}},
    {0xbc00,
     0x3c00,
     {0x0000, 0xc000, 0xbc00, 0xbc00, 0x3c00, 0xbc00},
     {0x0000, 0xbc80, 0xb880, 0xbf80, 0x3c00, 0xbc00}},
};

static_assert(sizeof(__half) == 2 && alignof(__half) == 2 && sizeof(__half2) == 4 && alignof(__half2) == 4, "");
static_assert(sizeof(__nv_bfloat16) == 2 && sizeof(__nv_bfloat162) == 4 && alignof(__nv_bfloat162) == 4, "");
static_assert(std::is_trivially_copyable<__half>::value && std::is_trivially_copyable<__nv_bfloat16>::value, "");
/* what CUDA converts implicitly, explicitly, or not at all */
static_assert(std::is_convertible<float, __half>::value && std::is_convertible<int, __half>::value, "");
static_assert(std::is_convertible<__half, float>::value && std::is_convertible<__half, int>::value, "");
static_assert(std::is_convertible<double, __nv_bfloat16>::value && std::is_convertible<__nv_bfloat16, float>::value,
              "");
static_assert(!std::is_convertible<__nv_bfloat16, __half>::value && std::is_constructible<__half, __nv_bfloat16>::value,
              "bfloat16 to half is explicit");
static_assert(!std::is_convertible<__half, __nv_bfloat16>::value, "half to bfloat16 is explicit");
static_assert(!std::is_constructible<__half2, float>::value, "no __half2 from one float");

struct result {
    int fails;
    char first[160];
};
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond) && r->fails++ == 0)                                                                                \
            snprintf(r->first, sizeof r->first, __VA_ARGS__);                                                          \
    } while (0)

static __host__ __device__ uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static __host__ __device__ float bitsf(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static __host__ __device__ void check_all(result *r) {
    for (const auto &t : f2h) {
        float f = bitsf(t.f);
        const uint16_t h[4] = {__half_as_ushort(__float2half(f)), __half_as_ushort(__float2half_rz(f)),
                               __half_as_ushort(__float2half_rd(f)), __half_as_ushort(__float2half_ru(f))};
        const uint16_t b[4] = {__bfloat16_as_ushort(__float2bfloat16(f)), __bfloat16_as_ushort(__float2bfloat16_rz(f)),
                               __bfloat16_as_ushort(__float2bfloat16_rd(f)),
                               __bfloat16_as_ushort(__float2bfloat16_ru(f))};
        for (int m = 0; m < 4; m++) {
            CHECK(h[m] == t.h[m], "float 0x%08x to half, mode %d: 0x%04x, CUDA 0x%04x", t.f, m, h[m], t.h[m]);
            CHECK(b[m] == t.b[m], "float 0x%08x to bfloat16, mode %d: 0x%04x, CUDA 0x%04x", t.f, m, b[m], t.b[m]);
        }
        CHECK(__half_as_ushort(__float2half_rn(f)) == t.h[0] && __half_as_ushort(__half(f)) == t.h[0] &&
                  __bfloat16_as_ushort(__float2bfloat16_rn(f)) == t.b[0] &&
                  __bfloat16_as_ushort(__nv_bfloat16(f)) == t.b[0],
              "float 0x%08x: _rn or the constructor differs from __float2half/__float2bfloat16", t.f);
    }
    for (const auto &t : h2f) {
        __half a = __ushort_as_half(t.x);
        __nv_bfloat16 b = __ushort_as_bfloat16(t.x);
        CHECK(fbits(__half2float(a)) == t.f && fbits((float)a) == t.f, "half 0x%04x to float: 0x%08x, CUDA 0x%08x", t.x,
              fbits(__half2float(a)), t.f);
        CHECK(__half2int_rz(a) == t.i && (int)a == t.i, "half 0x%04x to int: %d, CUDA %d", t.x, __half2int_rz(a), t.i);
        CHECK(__half2ushort_rz(a) == t.us, "half 0x%04x to ushort: %u, CUDA %u", t.x, (unsigned)__half2ushort_rz(a),
              t.us);
        CHECK(__half2char_rz(a) == t.c, "half 0x%04x to char: %d, CUDA %d", t.x, (int)__half2char_rz(a), t.c);
        CHECK(fbits(__bfloat162float(b)) == t.bf, "bfloat16 0x%04x to float: 0x%08x, CUDA 0x%08x", t.x,
              fbits(__bfloat162float(b)), t.bf);
        CHECK(__bfloat162int_rz(b) == t.bi, "bfloat16 0x%04x to int: %d, CUDA %d", t.x, __bfloat162int_rz(b), t.bi);
    }
    for (const auto &t : i2h) {
        const uint16_t h[4] = {__half_as_ushort(__ll2half_rn(t.v)), __half_as_ushort(__ll2half_rz(t.v)),
                               __half_as_ushort(__ll2half_rd(t.v)), __half_as_ushort(__ll2half_ru(t.v))};
        for (int m = 0; m < 4; m++)
            CHECK(h[m] == t.h[m], "%lld to half, mode %d: 0x%04x, CUDA 0x%04x", t.v, m, h[m], t.h[m]);
        CHECK(__bfloat16_as_ushort(__ll2bfloat16_rn(t.v)) == t.b[0], "%lld to bfloat16: 0x%04x, CUDA 0x%04x", t.v,
              __bfloat16_as_ushort(__ll2bfloat16_rn(t.v)), t.b[0]);
        if (t.v == (int)t.v)
            CHECK(__half_as_ushort(__int2half_rn((int)t.v)) == t.h[0] && __half_as_ushort(__half((int)t.v)) == t.h[0],
                  "%lld: __int2half_rn or __half(int) differs from __ll2half_rn", t.v);
    }
    for (const auto &t : d2h) {
        CHECK(__half_as_ushort(__double2half(t.d)) == t.h, "double %.17g to half: 0x%04x, CUDA 0x%04x", t.d,
              __half_as_ushort(__double2half(t.d)), t.h);
        CHECK(__bfloat16_as_ushort(__double2bfloat16(t.d)) == t.b, "double %.17g to bfloat16: 0x%04x, CUDA 0x%04x", t.d,
              __bfloat16_as_ushort(__double2bfloat16(t.d)), t.b);
    }
    for (const auto &t : ops) {
        __half a = __ushort_as_half(t.a), b = __ushort_as_half(t.b);
        __nv_bfloat16 c = __ushort_as_bfloat16(t.a), d = __ushort_as_bfloat16(t.b);
        const uint16_t h[6] = {__half_as_ushort(a + b), __half_as_ushort(a - b),        __half_as_ushort(a * b),
                               __half_as_ushort(a / b), __half_as_ushort(__hmax(a, b)), __half_as_ushort(__hmin(a, b))};
        const uint16_t bf[6] = {__bfloat16_as_ushort(c + d),        __bfloat16_as_ushort(c - d),
                                __bfloat16_as_ushort(c * d),        __bfloat16_as_ushort(c / d),
                                __bfloat16_as_ushort(__hmax(c, d)), __bfloat16_as_ushort(__hmin(c, d))};
        for (int k = 0; k < 6; k++) {
            CHECK(h[k] == t.h[k], "half 0x%04x op%d 0x%04x: 0x%04x, CUDA 0x%04x", t.a, k, t.b, h[k], t.h[k]);
            CHECK(bf[k] == t.bf[k], "bfloat16 0x%04x op%d 0x%04x: 0x%04x, CUDA 0x%04x", t.a, k, t.b, bf[k], t.bf[k]);
        }
        CHECK(__half_as_ushort(__hadd(a, b)) == t.h[0] && __half_as_ushort(__hmul(a, b)) == t.h[2] &&
                  __bfloat16_as_ushort(__hadd(c, d)) == t.bf[0],
              "0x%04x, 0x%04x: __hadd/__hmul differ from the operators", t.a, t.b);
        bool nan = __hisnan(a) || __hisnan(b);
        CHECK((a < b) == (!nan && __half2float(a) < __half2float(b)) &&
                  (a == b) == (!nan && __half2float(a) == __half2float(b)) &&
                  (a != b) == (nan || __half2float(a) != __half2float(b)),
              "half 0x%04x, 0x%04x: comparisons", t.a, t.b);
    }
    /* __half2 and __nv_bfloat162: element-wise */
    __half2 p = __floats2half2_rn(1.5f, -2.0f), q = __halves2half2(__float2half(0.25f), __float2half(3.0f));
    __half2 s = p * q + p;
    CHECK(__low2float(s) == 1.875f && __high2float(s) == -8.0f, "__half2: %g %g", __low2float(s), __high2float(s));
    __nv_bfloat162 u = __floats2bfloat162_rn(1.5f, -2.0f),
                   v = __halves2bfloat162(__float2bfloat16(0.25f), __float2bfloat16(3.0f));
    __nv_bfloat162 w = u * v + u;
    CHECK(__low2float(w) == 1.875f && __high2float(w) == -8.0f, "__nv_bfloat162: %g %g", __low2float(w),
          __high2float(w));
    /* the constants are each format's own (bfloat16 has float's exponent, not half's), and ++ adds one */
    CHECK(__half2float(CUDART_ONE_FP16) == 1.0f && __half2float(CUDART_MAX_NORMAL_FP16) == 65504.0f &&
              __half2float(CUDART_INF_FP16) > 3e38f && __half2float(CUDART_MIN_DENORM_FP16) == 0x1p-24f,
          "half constants");
    CHECK(__bfloat162float(CUDART_ONE_BF16) == 1.0f && __bfloat162float(CUDART_MAX_NORMAL_BF16) == 0x1.fep127f &&
              __bfloat16_as_ushort(CUDART_INF_BF16) == __bfloat16_as_ushort(__float2bfloat16(INFINITY)) &&
              __bfloat162float(CUDART_MIN_DENORM_BF16) == 0x1p-133f,
          "bfloat16 constants: one %g, max %g", __bfloat162float(CUDART_ONE_BF16),
          __bfloat162float(CUDART_MAX_NORMAL_BF16));
    __half hi = __float2half(2.0f);
    __nv_bfloat16 bi = __float2bfloat16(2.0f);
    ++hi;
    bi++;
    CHECK(__half2float(hi) == 3.0f && __bfloat162float(bi) == 3.0f, "2 + 1 is %g (half), %g (bfloat16)",
          __half2float(hi), __bfloat162float(bi));
}

/* warp shuffles move the two-byte types as CUDA's overloads do */
__global__ void shuffle(__half *h, __nv_bfloat162 *b) {
    __half v = __int2half_rn((int)threadIdx.x);
    h[threadIdx.x] = __shfl_xor_sync(0xffffffffu, v, 1);
    __nv_bfloat162 w = __floats2bfloat162_rn((float)threadIdx.x, -(float)threadIdx.x);
    b[threadIdx.x] = __shfl_sync(0xffffffffu, w, 31 - (int)threadIdx.x);
}

__global__ void in_kernel(result *r) {
    if (threadIdx.x == 0)
        check_all(r);
}

int main(void) {
    result host = {0, ""}, *dev = nullptr;
    check_all(&host);
    if (cudaMallocManaged(&dev, sizeof *dev) != cudaSuccess)
        return 1;
    *dev = result{0, ""};
    in_kernel<<<1, 32>>>(dev);
    if (cudaDeviceSynchronize() != cudaSuccess)
        return 1;
    __half *h = nullptr;
    __nv_bfloat162 *b = nullptr;
    if (cudaMallocManaged(&h, 32 * sizeof *h) != cudaSuccess || cudaMallocManaged(&b, 32 * sizeof *b) != cudaSuccess)
        return 1;
    shuffle<<<1, 32>>>(h, b);
    if (cudaDeviceSynchronize() != cudaSuccess)
        return 1;
    for (int i = 0; i < 32; i++)
        if (__half2float(h[i]) != (float)(i ^ 1) || __low2float(b[i]) != (float)(31 - i) ||
            __high2float(b[i]) != -(float)(31 - i)) {
            printf("FAIL: lane %d after the shuffles: %g, (%g, %g)\n", i, __half2float(h[i]), __low2float(b[i]),
                   __high2float(b[i]));
            host.fails++;
            break;
        }
    cudaFree(b);
    cudaFree(h);
    if (host.fails)
        printf("FAIL (host): %d wrong, the first: %s\n", host.fails, host.first);
    if (dev->fails)
        printf("FAIL (kernel): %d wrong, the first: %s\n", dev->fails, dev->first);
    printf("%s\n", host.fails || dev->fails ? "FAILED" : "ok: half and bfloat16 conversions and arithmetic are CUDA's");
    int rc = host.fails || dev->fails;
    cudaFree(dev);
    return rc;
}
