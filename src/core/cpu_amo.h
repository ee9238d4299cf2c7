/* cpu_amo.h - an OpenSHMEM atomic (SHMEMI_AMO_*) on a 4- or 8-byte word with the CPU's atomics, inline for the
 * shared-memory hot path; shmemi_amo_cpu (ops.c) is the same out of line, for the transport and the emulated GPU. */
#ifndef GSHMEM_CPU_AMO_H
#define GSHMEM_CPU_AMO_H

#include <stdint.h>

#include "shmemi.h"

#define AMO_BODY(T, p)                                                                                                 \
    do {                                                                                                               \
        T v = (T)value, c = (T)cond;                                                                                   \
        switch (op) {                                                                                                  \
        case SHMEMI_AMO_FETCH: return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                            \
        case SHMEMI_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); return 0;                                       \
        case SHMEMI_AMO_SWAP: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                      \
        case SHMEMI_AMO_CSWAP: __atomic_compare_exchange_n(p, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return c; \
        case SHMEMI_AMO_FETCH_INC: return __atomic_fetch_add(p, (T)1, __ATOMIC_SEQ_CST);                               \
        case SHMEMI_AMO_FETCH_ADD: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                  \
        case SHMEMI_AMO_FETCH_AND: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                  \
        case SHMEMI_AMO_FETCH_OR: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                    \
        case SHMEMI_AMO_FETCH_XOR: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                  \
        /* the old value unused: x86 does these in one locked instruction instead of a compare-and-swap loop */        \
        case SHMEMI_AMO_INC: __atomic_add_fetch(p, (T)1, __ATOMIC_SEQ_CST); return 0;                                  \
        case SHMEMI_AMO_ADD: __atomic_add_fetch(p, v, __ATOMIC_SEQ_CST); return 0;                                     \
        case SHMEMI_AMO_AND: __atomic_and_fetch(p, v, __ATOMIC_SEQ_CST); return 0;                                     \
        case SHMEMI_AMO_OR: __atomic_or_fetch(p, v, __ATOMIC_SEQ_CST); return 0;                                       \
        case SHMEMI_AMO_XOR: __atomic_xor_fetch(p, v, __ATOMIC_SEQ_CST); return 0;                                     \
        }                                                                                                              \
        return 0;                                                                                                      \
    } while (0)

static inline uint64_t shmemi_amo32(uint32_t *p, int op, uint64_t value, uint64_t cond) { AMO_BODY(uint32_t, p); }
static inline uint64_t shmemi_amo64(uint64_t *p, int op, uint64_t value, uint64_t cond) { AMO_BODY(uint64_t, p); }

#endif
