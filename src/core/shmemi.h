/* shmemi.h - what every layer shares: the internal types and codes (element types, atomic and reduction operations,
 * wait modes), the profiling alias, and the computation of core/ops.c. The routines the generated typed API
 * (src/api) forwards to are declared by the layers that implement them: comm/comm.h (RMA, atomics, signals, waits)
 * and coll/coll.h (collectives). */
#ifndef GSHMEM_SHMEMI_H
#define GSHMEM_SHMEMI_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

#define SHMEMI_HIDDEN __attribute__((visibility("hidden")))
#define SHMEMI_LIKELY(x) __builtin_expect(!!(x), 1)
#define SHMEMI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Profiling interface: `name` is defined in this file as p<name> (src/api/pshmem_names.h renames it); this adds the
 * public name as a weak alias, so a tool's own definition wins and reaches the library through p<name>. */
#define SHMEMI_PROFILE_ALIAS(name)                                                                                     \
    extern __typeof(p##name) shmemi_alias_##name __asm__(#name)                                                        \
        __attribute__((weak, alias("p" #name), visibility("default")));

/* Element type codes: waits/tests compare with the right signedness, reductions pick the operator. */
enum shmemi_dtype {
    SHMEMI_DT_CHAR,
    SHMEMI_DT_SCHAR,
    SHMEMI_DT_SHORT,
    SHMEMI_DT_INT,
    SHMEMI_DT_LONG,
    SHMEMI_DT_LONGLONG,
    SHMEMI_DT_UCHAR,
    SHMEMI_DT_USHORT,
    SHMEMI_DT_UINT,
    SHMEMI_DT_ULONG,
    SHMEMI_DT_ULONGLONG,
    SHMEMI_DT_INT8,
    SHMEMI_DT_INT16,
    SHMEMI_DT_INT32,
    SHMEMI_DT_INT64,
    SHMEMI_DT_UINT8,
    SHMEMI_DT_UINT16,
    SHMEMI_DT_UINT32,
    SHMEMI_DT_UINT64,
    SHMEMI_DT_SIZE,
    SHMEMI_DT_PTRDIFF,
    SHMEMI_DT_FLOAT,
    SHMEMI_DT_DOUBLE,
    SHMEMI_DT_LONGDOUBLE,
    SHMEMI_DT_COMPLEXF,
    SHMEMI_DT_COMPLEXD,
    SHMEMI_DT_COUNT
};

/* Atomic operations: all are size-generic (4 or 8 bytes) because two's-complement add and bitwise ops do not
 * depend on signedness, and float fetch/set/swap/cswap move bits. */
enum shmemi_amo_op {
    SHMEMI_AMO_FETCH,
    SHMEMI_AMO_SET,
    SHMEMI_AMO_SWAP,
    SHMEMI_AMO_CSWAP,
    SHMEMI_AMO_FETCH_INC,
    SHMEMI_AMO_INC,
    SHMEMI_AMO_FETCH_ADD,
    SHMEMI_AMO_ADD,
    SHMEMI_AMO_FETCH_AND,
    SHMEMI_AMO_AND,
    SHMEMI_AMO_FETCH_OR,
    SHMEMI_AMO_OR,
    SHMEMI_AMO_FETCH_XOR,
    SHMEMI_AMO_XOR
};

/* Modes of the multi-variable waits/tests. */
enum shmemi_wait_mode { SHMEMI_WAIT_ALL, SHMEMI_WAIT_ANY, SHMEMI_WAIT_SOME };

/* ---- collectives (src/coll) ---- */
enum shmemi_rop {
    SHMEMI_OP_AND,
    SHMEMI_OP_OR,
    SHMEMI_OP_XOR,
    SHMEMI_OP_MAX,
    SHMEMI_OP_MIN,
    SHMEMI_OP_SUM,
    SHMEMI_OP_PROD
};

/* ---- computation every layer uses (core/ops.c) ---- */
/* reduction kernels: acc[i] = acc[i] OP in[i] for n elements of dtype */
SHMEMI_HIDDEN void shmemi_reduce_apply(int op, int dtype, void *acc, const void *in, size_t n);
SHMEMI_HIDDEN size_t shmemi_dtype_size(int dtype);
SHMEMI_HIDDEN int shmemi_reduce_valid(int op, int dtype);
/* the CPU atomic `op` on a local word of size 4 or 8 (the libfabric transport applies peers' atomics with it when the
 * provider has no fabric atomics; the emulated GPU its atomics) */
SHMEMI_HIDDEN uint64_t shmemi_amo_cpu(void *p, int op, uint64_t value, uint64_t cond, size_t size);

/* bit conversion helpers for float/double operands of atomics */
static inline uint64_t shmemi_bits_f(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline uint64_t shmemi_bits_d(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline float shmemi_from_bits_f(uint64_t b) {
    uint32_t u = (uint32_t)b;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline double shmemi_from_bits_d(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

#endif /* GSHMEM_SHMEMI_H */
