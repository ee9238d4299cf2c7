/* reduce_ops.c - the element-wise reduction kernels: acc[i] = acc[i] OP in[i] for every type of the team-based and
 * active-set reduction tables. Integer sums and products wrap (computed in uint64_t, so signed overflow is not
 * undefined behaviour); MAX/MIN are defined on real types; SUM/PROD also on complex types. */
#include <complex.h>

#include "coll.h"

#define LOOP(T, EXPR)                                                                                                  \
    do {                                                                                                               \
        T *a = acc;                                                                                                    \
        const T *b = in;                                                                                               \
        for (size_t i = 0; i < n; i++)                                                                                 \
            EXPR;                                                                                                      \
        return;                                                                                                        \
    } while (0)

#define INT_KERNEL(name, T)                                                                                            \
    static void red_##name(int op, void *acc, const void *in, size_t n) {                                              \
        switch (op) {                                                                                                  \
        case SHMEMI_OP_AND: LOOP(T, a[i] = (T)(a[i] & b[i]));                                                          \
        case SHMEMI_OP_OR: LOOP(T, a[i] = (T)(a[i] | b[i]));                                                           \
        case SHMEMI_OP_XOR: LOOP(T, a[i] = (T)(a[i] ^ b[i]));                                                          \
        case SHMEMI_OP_MAX: LOOP(T, a[i] = b[i] > a[i] ? b[i] : a[i]);                                                 \
        case SHMEMI_OP_MIN: LOOP(T, a[i] = b[i] < a[i] ? b[i] : a[i]);                                                 \
        case SHMEMI_OP_SUM: LOOP(T, a[i] = (T)((uint64_t)a[i] + (uint64_t)b[i]));                                      \
        case SHMEMI_OP_PROD: LOOP(T, a[i] = (T)((uint64_t)a[i] * (uint64_t)b[i]));                                     \
        }                                                                                                              \
    }

#define REAL_KERNEL(name, T)                                                                                           \
    static void red_##name(int op, void *acc, const void *in, size_t n) {                                              \
        switch (op) {                                                                                                  \
        case SHMEMI_OP_MAX: LOOP(T, a[i] = b[i] > a[i] ? b[i] : a[i]);                                                 \
        case SHMEMI_OP_MIN: LOOP(T, a[i] = b[i] < a[i] ? b[i] : a[i]);                                                 \
        case SHMEMI_OP_SUM: LOOP(T, a[i] += b[i]);                                                                     \
        case SHMEMI_OP_PROD: LOOP(T, a[i] *= b[i]);                                                                    \
        }                                                                                                              \
    }

#define COMPLEX_KERNEL(name, T)                                                                                        \
    static void red_##name(int op, void *acc, const void *in, size_t n) {                                              \
        switch (op) {                                                                                                  \
        case SHMEMI_OP_SUM: LOOP(T, a[i] += b[i]);                                                                     \
        case SHMEMI_OP_PROD: LOOP(T, a[i] *= b[i]);                                                                    \
        }                                                                                                              \
    }

INT_KERNEL(char, char)
INT_KERNEL(schar, signed char)
INT_KERNEL(short, short)
INT_KERNEL(int, int)
INT_KERNEL(long, long)
INT_KERNEL(longlong, long long)
INT_KERNEL(uchar, unsigned char)
INT_KERNEL(ushort, unsigned short)
INT_KERNEL(uint, unsigned int)
INT_KERNEL(ulong, unsigned long)
INT_KERNEL(ulonglong, unsigned long long)
INT_KERNEL(int8, int8_t)
INT_KERNEL(int16, int16_t)
INT_KERNEL(int32, int32_t)
INT_KERNEL(int64, int64_t)
INT_KERNEL(uint8, uint8_t)
INT_KERNEL(uint16, uint16_t)
INT_KERNEL(uint32, uint32_t)
INT_KERNEL(uint64, uint64_t)
INT_KERNEL(size, size_t)
INT_KERNEL(ptrdiff, ptrdiff_t)
REAL_KERNEL(float, float)
REAL_KERNEL(double, double)
REAL_KERNEL(longdouble, long double)
COMPLEX_KERNEL(complexf, float _Complex)
COMPLEX_KERNEL(complexd, double _Complex)

typedef void (*kernel_fn)(int, void *, const void *, size_t);
enum kind { K_INT, K_REAL, K_COMPLEX };

static const struct {
    kernel_fn fn;
    unsigned char size, kind;
} kernels[SHMEMI_DT_COUNT] = {
#define K(DT, name, T, kind) [SHMEMI_DT_##DT] = {red_##name, sizeof(T), kind}
    K(CHAR, char, char, K_INT),
    K(SCHAR, schar, signed char, K_INT),
    K(SHORT, short, short, K_INT),
    K(INT, int, int, K_INT),
    K(LONG, long, long, K_INT),
    K(LONGLONG, longlong, long long, K_INT),
    K(UCHAR, uchar, unsigned char, K_INT),
    K(USHORT, ushort, unsigned short, K_INT),
    K(UINT, uint, unsigned int, K_INT),
    K(ULONG, ulong, unsigned long, K_INT),
    K(ULONGLONG, ulonglong, unsigned long long, K_INT),
    K(INT8, int8, int8_t, K_INT),
    K(INT16, int16, int16_t, K_INT),
    K(INT32, int32, int32_t, K_INT),
    K(INT64, int64, int64_t, K_INT),
    K(UINT8, uint8, uint8_t, K_INT),
    K(UINT16, uint16, uint16_t, K_INT),
    K(UINT32, uint32, uint32_t, K_INT),
    K(UINT64, uint64, uint64_t, K_INT),
    K(SIZE, size, size_t, K_INT),
    K(PTRDIFF, ptrdiff, ptrdiff_t, K_INT),
    K(FLOAT, float, float, K_REAL),
    K(DOUBLE, double, double, K_REAL),
    K(LONGDOUBLE, longdouble, long double, K_REAL),
    K(COMPLEXF, complexf, float _Complex, K_COMPLEX),
    K(COMPLEXD, complexd, double _Complex, K_COMPLEX),
#undef K
};

size_t shmemi_dtype_size(int dtype) { return kernels[dtype].size; }

int shmemi_reduce_valid(int op, int dtype) {
    if (dtype < 0 || dtype >= SHMEMI_DT_COUNT || op < SHMEMI_OP_AND || op > SHMEMI_OP_PROD)
        return 0;
    switch (kernels[dtype].kind) {
    case K_INT: return 1;
    case K_REAL: return op >= SHMEMI_OP_MAX;
    default: return op >= SHMEMI_OP_SUM;
    }
}

void shmemi_reduce_apply(int op, int dtype, void *acc, const void *in, size_t n) { kernels[dtype].fn(op, acc, in, n); }
