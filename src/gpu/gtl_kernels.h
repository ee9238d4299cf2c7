/* gtl_kernels.h - how the backends name and call their kernels (src/gpu/cuda/kernels.cu, compiled by nvcc and hipcc;
 * src/gpu/ze/kernels.cl, the same codes and names): the atomics' op codes and the reduction kernel names, once. */
#ifndef GSHMEM_GTL_KERNELS_H
#define GSHMEM_GTL_KERNELS_H

#include <stdio.h>

#include "shmemi.h"

/* kernels.cu's atomic op codes (do_amo) for an SHMEMI_AMO_* op; the increments are adds of 1 */
enum { GTLK_FETCH, GTLK_SET, GTLK_SWAP, GTLK_CSWAP, GTLK_ADD, GTLK_AND, GTLK_OR, GTLK_XOR };
static inline int gtlk_amo_code(int op) {
    switch (op) {
    case SHMEMI_AMO_FETCH: return GTLK_FETCH;
    case SHMEMI_AMO_SET: return GTLK_SET;
    case SHMEMI_AMO_SWAP: return GTLK_SWAP;
    case SHMEMI_AMO_CSWAP: return GTLK_CSWAP;
    case SHMEMI_AMO_FETCH_AND:
    case SHMEMI_AMO_AND: return GTLK_AND;
    case SHMEMI_AMO_FETCH_OR:
    case SHMEMI_AMO_OR: return GTLK_OR;
    case SHMEMI_AMO_FETCH_XOR:
    case SHMEMI_AMO_XOR: return GTLK_XOR;
    default: return GTLK_ADD; /* add, fetch_add, inc, fetch_inc */
    }
}

/* the kernel type of a reduction type: only MAX and MIN care about signedness (sums and products wrap) */
enum {
    GTLK_U8,
    GTLK_U16,
    GTLK_U32,
    GTLK_U64,
    GTLK_I8,
    GTLK_I16,
    GTLK_I32,
    GTLK_I64,
    GTLK_F32,
    GTLK_F64,
    GTLK_C32,
    GTLK_C64,
    GTLK_NONE
};
static inline int gtlk_type(int op, int dt) {
    size_t sz = shmemi_dtype_size(dt);
    int base;
    switch (dt) {
    case SHMEMI_DT_FLOAT: return GTLK_F32;
    case SHMEMI_DT_DOUBLE: return GTLK_F64;
    case SHMEMI_DT_COMPLEXF: return GTLK_C32;
    case SHMEMI_DT_COMPLEXD: return GTLK_C64;
    case SHMEMI_DT_LONGDOUBLE: return GTLK_NONE; /* no long double on a GPU */
    case SHMEMI_DT_CHAR: base = (char)-1 < 0 ? GTLK_I8 : GTLK_U8; break;
    case SHMEMI_DT_SCHAR:
    case SHMEMI_DT_SHORT:
    case SHMEMI_DT_INT:
    case SHMEMI_DT_LONG:
    case SHMEMI_DT_LONGLONG:
    case SHMEMI_DT_INT8:
    case SHMEMI_DT_INT16:
    case SHMEMI_DT_INT32:
    case SHMEMI_DT_INT64:
    case SHMEMI_DT_PTRDIFF: base = GTLK_I8; break;
    default: base = GTLK_U8;
    }
    if (op != SHMEMI_OP_MAX && op != SHMEMI_OP_MIN)
        base = GTLK_U8;
    return base + (sz == 1 ? 0 : sz == 2 ? 1 : sz == 4 ? 2 : 3);
}

/* name of the reduction kernel for (op, kernel type t); 0, or -1 when op is not a reduction */
static inline int gtlk_red_name(int op, int t, char *name, size_t len) {
    static const char *const tname[] = {"u8",  "u16", "u32", "u64", "i8",  "i16",
                                        "i32", "i64", "f32", "f64", "c32", "c64"};
    static const char *const opname[] = {
        [SHMEMI_OP_AND] = "and", [SHMEMI_OP_OR] = "or",   [SHMEMI_OP_XOR] = "xor",  [SHMEMI_OP_MAX] = "max",
        [SHMEMI_OP_MIN] = "min", [SHMEMI_OP_SUM] = "sum", [SHMEMI_OP_PROD] = "prod"};
    if (op < 0 || op > SHMEMI_OP_PROD || !opname[op] || t < 0 || t >= GTLK_NONE)
        return -1;
    snprintf(name, len, "gshmemi_red_%s_%s", opname[op], tname[t]);
    return 0;
}

#endif
