/* types.h - the type tables of the OpenSHMEM specification as X-macro lists, shared by the functional and the
 * collective tests. Each entry names the TYPENAME of the routines and the C TYPE. */
#ifndef GT_TYPES_H
#define GT_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* The integer types of the reduction tables that and/or/xor take: X(TYPENAME, TYPE, A, B, SIGNED, REAL), with A and
 * B passed through (an operation, a class of values) and SIGNED, REAL what values the type holds. */
#define GT_BITWISE_TYPES(X, A, B)                                                                                      \
    X(uchar, unsigned char, A, B, 0, 0)                                                                                \
    X(ushort, unsigned short, A, B, 0, 0)                                                                              \
    X(uint, unsigned int, A, B, 0, 0)                                                                                  \
    X(ulong, unsigned long, A, B, 0, 0)                                                                                \
    X(ulonglong, unsigned long long, A, B, 0, 0)                                                                       \
    X(int8, int8_t, A, B, 1, 0)                                                                                        \
    X(int16, int16_t, A, B, 1, 0)                                                                                      \
    X(int32, int32_t, A, B, 1, 0)                                                                                      \
    X(int64, int64_t, A, B, 1, 0)                                                                                      \
    X(uint8, uint8_t, A, B, 0, 0)                                                                                      \
    X(uint16, uint16_t, A, B, 0, 0)                                                                                    \
    X(uint32, uint32_t, A, B, 0, 0)                                                                                    \
    X(uint64, uint64_t, A, B, 0, 0)                                                                                    \
    X(size, size_t, A, B, 0, 0)

/* Every standard RMA type, which are also the integer and real types of max/min/sum/prod reductions and of the
 * scans, in the same form. char may be either signedness, so it counts as unsigned (tests give it values >= 0). */
#define GT_NUMERIC_TYPES(X, A, B)                                                                                      \
    X(char, char, A, B, 0, 0)                                                                                          \
    X(schar, signed char, A, B, 1, 0)                                                                                  \
    X(short, short, A, B, 1, 0)                                                                                        \
    X(int, int, A, B, 1, 0)                                                                                            \
    X(long, long, A, B, 1, 0)                                                                                          \
    X(longlong, long long, A, B, 1, 0)                                                                                 \
    X(ptrdiff, ptrdiff_t, A, B, 1, 0)                                                                                  \
    GT_BITWISE_TYPES(X, A, B)                                                                                          \
    X(float, float, A, B, 1, 1)                                                                                        \
    X(double, double, A, B, 1, 1)                                                                                      \
    X(longdouble, long double, A, B, 1, 1)

/* The standard RMA types as X(TYPENAME, TYPE). */
#define GT_RMA_ENTRY_(TN, T, X, B, SGN, FP) X(TN, T)
#define GT_RMA_TYPES(X) GT_NUMERIC_TYPES(GT_RMA_ENTRY_, X, _)

/* The point-to-point synchronization types as X(TYPENAME, TYPE). */
// clang-format off
#define GT_P2P_TYPES(X) \
    X(short, short) X(int, int) X(long, long) X(longlong, long long) \
    X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long) \
    X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)
// clang-format on

#endif
