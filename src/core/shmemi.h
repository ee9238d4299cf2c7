/* shmemi.h - the internal contract between the generated typed API (src/api) and the core.
 * Every typed routine is a one-line call to one of the size- or type-generic functions declared here. */
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

/* Element type codes: waits/tests compare with the right signedness, reductions (issue 3) pick the operator. */
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

/* ---- RMA (nbytes = nelems * element size; fn = public routine name for error messages) ---- */
SHMEMI_HIDDEN void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_put_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_get_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, int pe, const char *fn);
/* single element: value points at `size` bytes */
SHMEMI_HIDDEN void shmemi_p(shmem_ctx_t ctx, void *dest, const void *value, size_t size, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_g(shmem_ctx_t ctx, void *out, const void *src, size_t size, int pe, const char *fn);
/* strided: dst/sst strides in elements */
SHMEMI_HIDDEN void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                               size_t nelems, size_t elemsize, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                               size_t nelems, size_t elemsize, int pe, const char *fn);
/* blocked strided (1.6 ibput/ibget): nblocks blocks of bsize elements, strides in elements */
SHMEMI_HIDDEN void shmemi_ibput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                size_t bsize, size_t nblocks, size_t elemsize, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_ibget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                size_t bsize, size_t nblocks, size_t elemsize, int pe, const char *fn);

/* ---- put with signal ---- */
SHMEMI_HIDDEN void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                                     uint64_t signal, int sig_op, int pe, const char *fn);
SHMEMI_HIDDEN void shmemi_put_signal_nbi(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, const char *fn);

/* ---- atomics: value/cond hold the operand bits zero-extended to 64; returns the fetched bits ---- */
SHMEMI_HIDDEN uint64_t shmemi_amo(shmem_ctx_t ctx, int op, void *dest, uint64_t value, uint64_t cond, size_t size,
                                  int pe, const char *fn);
/* the CPU atomic `op` on a local word of size 4 or 8 (the libfabric transport applies peers' atomics with it when the
 * provider has no fabric atomics) */
SHMEMI_HIDDEN uint64_t shmemi_amo_cpu(void *p, int op, uint64_t value, uint64_t cond, size_t size);
/* non-blocking fetching atomics: the fetched value is stored to `fetch` (size bytes) */
SHMEMI_HIDDEN void shmemi_amo_nbi(shmem_ctx_t ctx, int op, void *fetch, void *dest, uint64_t value, uint64_t cond,
                                  size_t size, int pe, const char *fn);

/* ---- point-to-point synchronization on a local symmetric variable of type dtype ---- */
/* value points at one element of dtype */
SHMEMI_HIDDEN void shmemi_wait_until(void *ivar, int cmp, const void *value, int dtype, const char *fn);
SHMEMI_HIDDEN int shmemi_test(void *ivar, int cmp, const void *value, int dtype, const char *fn);
/* mode: enum shmemi_wait_mode; block: 1 wait, 0 test; values: one element (vec=0) or nelems elements (vec=1);
 * status may be NULL; indices used by SOME. Returns: ALL -> 1 if satisfied (test) ; ANY -> index or SIZE_MAX;
 * SOME -> number of indices written. */
SHMEMI_HIDDEN size_t shmemi_wait_set(int mode, int block, void *ivars, size_t nelems, const int *status,
                                     size_t *indices, int cmp, const void *values, int vec, int dtype, const char *fn);

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

/* sizes in bytes unless named nelems */
SHMEMI_HIDDEN int shmemi_broadcast(shmem_team_t team, void *dest, const void *src, size_t nbytes, int root,
                                   const char *fn);
SHMEMI_HIDDEN int shmemi_collect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *fn);
SHMEMI_HIDDEN int shmemi_fcollect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *fn);
SHMEMI_HIDDEN int shmemi_alltoall(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *fn);
SHMEMI_HIDDEN int shmemi_alltoalls(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                   size_t nelems, size_t esize, const char *fn);
SHMEMI_HIDDEN int shmemi_reduce(shmem_team_t team, int op, int dtype, void *dest, const void *src, size_t nreduce,
                                const char *fn);
SHMEMI_HIDDEN int shmemi_scan(shmem_team_t team, int exclusive, int dtype, void *dest, const void *src, size_t nelems,
                              const char *fn);

/* active-set forms (deprecated): the set is PE_start + i * 2^logPE_stride, i < PE_size */
SHMEMI_HIDDEN void shmemi_broadcast_aset(void *dest, const void *src, size_t nbytes, int root, int start, int logs,
                                         int size, long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_collect_aset(void *dest, const void *src, size_t nbytes, int start, int logs, int size,
                                       long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_fcollect_aset(void *dest, const void *src, size_t nbytes, int start, int logs, int size,
                                        long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_alltoall_aset(void *dest, const void *src, size_t nbytes, int start, int logs, int size,
                                        long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_alltoalls_aset(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                                         size_t esize, int start, int logs, int size, long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_to_all(int op, int dtype, void *dest, const void *src, int nreduce, int start, int logs,
                                 int size, void *pwrk, long *psync, const char *fn);

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
