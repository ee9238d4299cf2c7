/* ops.c - computation every layer uses: the element-wise reduction kernels (acc[i] = acc[i] OP in[i] for every type
 * of the team-based and active-set reduction tables; integer sums and products wrap, computed in uint64_t so signed
 * overflow is not undefined behaviour; MAX/MIN on real types; SUM/PROD also on complex types) and the CPU atomics on
 * a word that the shared-memory path, the libfabric transport and the emulated GPU apply. */
#include <complex.h>

#include "cpu_amo.h"
#include "state.h"

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

/* every reduction type: dtype code, name, C type, kernel kind */
#define REDUCE_TYPES(X)                                                                                                \
    X(CHAR, char, char, INT)                                                                                           \
    X(SCHAR, schar, signed char, INT)                                                                                  \
    X(SHORT, short, short, INT)                                                                                        \
    X(INT, int, int, INT)                                                                                              \
    X(LONG, long, long, INT)                                                                                           \
    X(LONGLONG, longlong, long long, INT)                                                                              \
    X(UCHAR, uchar, unsigned char, INT)                                                                                \
    X(USHORT, ushort, unsigned short, INT)                                                                             \
    X(UINT, uint, unsigned int, INT)                                                                                   \
    X(ULONG, ulong, unsigned long, INT)                                                                                \
    X(ULONGLONG, ulonglong, unsigned long long, INT)                                                                   \
    X(INT8, int8, int8_t, INT)                                                                                         \
    X(INT16, int16, int16_t, INT)                                                                                      \
    X(INT32, int32, int32_t, INT)                                                                                      \
    X(INT64, int64, int64_t, INT)                                                                                      \
    X(UINT8, uint8, uint8_t, INT)                                                                                      \
    X(UINT16, uint16, uint16_t, INT)                                                                                   \
    X(UINT32, uint32, uint32_t, INT)                                                                                   \
    X(UINT64, uint64, uint64_t, INT)                                                                                   \
    X(SIZE, size, size_t, INT)                                                                                         \
    X(PTRDIFF, ptrdiff, ptrdiff_t, INT)                                                                                \
    X(FLOAT, float, float, REAL)                                                                                       \
    X(DOUBLE, double, double, REAL)                                                                                    \
    X(LONGDOUBLE, longdouble, long double, REAL)                                                                       \
    X(COMPLEXF, complexf, float _Complex, COMPLEX)                                                                     \
    X(COMPLEXD, complexd, double _Complex, COMPLEX)

#define DEFINE_KERNEL(DT, name, T, kind) kind##_KERNEL(name, T)
REDUCE_TYPES(DEFINE_KERNEL)

typedef void (*kernel_fn)(int, void *, const void *, size_t);
enum kind { K_INT, K_REAL, K_COMPLEX };

static const struct {
    kernel_fn fn;
    unsigned char size, kind;
} kernels[SHMEMI_DT_COUNT] = {
#define KERNEL_ENTRY(DT, name, T, kind) [SHMEMI_DT_##DT] = {red_##name, sizeof(T), K_##kind},
    REDUCE_TYPES(KERNEL_ENTRY)};

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

uint64_t shmemi_amo_cpu(void *p, int op, uint64_t value, uint64_t cond, size_t size) {
    return size == 8 ? shmemi_amo64((uint64_t *)p, op, value, cond) : shmemi_amo32((uint32_t *)p, op, value, cond);
}
