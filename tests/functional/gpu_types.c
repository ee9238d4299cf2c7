/* gpu_types.c - the typed host routines on symmetric objects in GPU memory: RMA of every element size (blocking and
 * nbi, from and into GPU memory), scalar p/g of the standard types, every AMO on the AMO types (standard, bitwise,
 * extended), fetching AMOs in nbi form, multi-variable waits and tests, and a context's RMA. Results are checked
 * through gets into host memory: the CPU never touches GPU memory. Skips (77) without GPU support. */
#include <shmemg.h>
#include <stdint.h>

#include "ftest.h"

#define NB 100
static int me, npes, right, left;

static unsigned char pat(int pe, size_t i, int salt) { return (unsigned char)(pe * 31 + i * 7 + salt * 13 + 1); }

/* blocking put from host to the right neighbour's GPU memory, nbi get of it back into this PE's GPU memory, then
 * a check of that through a get into host memory */
#define RMA_SIZE(BITS, BYTES, SALT)                                                                                    \
    do {                                                                                                               \
        unsigned char *d = shmemg_malloc(NB * (BYTES)), *d2 = shmemg_malloc(NB * (BYTES));                             \
        unsigned char src[NB * (BYTES)], back[NB * (BYTES)];                                                           \
        REQUIRE(d &&d2, "shmemg_malloc for put" #BITS);                                                                \
        for (size_t i = 0; i < sizeof src; i++)                                                                        \
            src[i] = pat(me, i, SALT);                                                                                 \
        shmem_put##BITS(d, src, NB, right);                                                                            \
        shmem_barrier_all();                                                                                           \
        shmem_get##BITS##_nbi(d2, d, NB, me);                                                                          \
        shmem_quiet();                                                                                                 \
        shmem_get##BITS(back, d2, NB, me);                                                                             \
        for (size_t i = 0; i < sizeof back; i++)                                                                       \
            if (back[i] != pat(left, i, SALT)) {                                                                       \
                FAIL("put" #BITS "/get" #BITS "_nbi: byte %zu is %d, expected %d", i, back[i], pat(left, i, SALT));    \
                break;                                                                                                 \
            }                                                                                                          \
        /* and GPU to GPU the other way: nbi put from this PE's GPU object to the left one's */                        \
        shmem_barrier_all();                                                                                           \
        shmem_put##BITS##_nbi(d, d2, NB, left);                                                                        \
        shmem_barrier_all();                                                                                           \
        shmem_get##BITS(back, d, NB, me);                                                                              \
        for (size_t i = 0; i < sizeof back; i++)                                                                       \
            if (back[i] != pat(me, i, SALT)) {                                                                         \
                FAIL("put" #BITS "_nbi GPU to GPU: byte %zu is %d, expected %d", i, back[i], pat(me, i, SALT));        \
                break;                                                                                                 \
            }                                                                                                          \
        shmem_barrier_all();                                                                                           \
        shmem_free(d2);                                                                                                \
        shmem_free(d);                                                                                                 \
    } while (0)

/* p to the right neighbour's GPU variable, g of this PE's */
#define PG(T, TN, VAL)                                                                                                 \
    do {                                                                                                               \
        T *v = shmemg_malloc(sizeof(T));                                                                               \
        REQUIRE(v, "shmemg_malloc(" #T ")");                                                                           \
        shmem_##TN##_p(v, (T)(VAL(me)), right);                                                                        \
        shmem_barrier_all();                                                                                           \
        T got = shmem_##TN##_g(v, me);                                                                                 \
        CHECK(got == (T)(VAL(left)), #TN "_p/g on GPU memory: got %g, expected %g", (double)got, (double)(VAL(left))); \
        shmem_barrier_all();                                                                                           \
        shmem_free(v);                                                                                                 \
    } while (0)
#define V1(pe) ((pe)*3 + 1)
#define VF(pe) ((pe)*0.25 + 0.5)

/* the standard AMOs on one GPU word of PE 0: add, inc, fetch_add, fetch_inc, compare_swap, swap, set, fetch */
#define AMO_STD(T, TN)                                                                                                 \
    do {                                                                                                               \
        T *x = shmemg_calloc(1, sizeof(T));                                                                            \
        REQUIRE(x, "shmemg_calloc(" #T ")");                                                                           \
        shmem_##TN##_atomic_add(x, (T)(me + 1), 0);                                                                    \
        shmem_##TN##_atomic_inc(x, 0);                                                                                 \
        T f1 = shmem_##TN##_atomic_fetch_add(x, (T)2, 0);                                                              \
        T f2 = shmem_##TN##_atomic_fetch_inc(x, 0);                                                                    \
        CHECK(f2 > f1, #TN " fetch_inc fetched %lld after fetch_add's %lld", (long long)f2, (long long)f1);            \
        shmem_barrier_all();                                                                                           \
        T total = (T)(npes * (npes + 1) / 2 + 4 * npes);                                                               \
        CHECK(shmem_##TN##_atomic_fetch(x, 0) == total, #TN " sum: %lld, expected %lld",                               \
              (long long)shmem_##TN##_atomic_fetch(x, 0), (long long)total);                                           \
        shmem_barrier_all();                                                                                           \
        T old = shmem_##TN##_atomic_compare_swap(x, total, (T)(100 + me), 0);                                          \
        shmem_barrier_all();                                                                                           \
        long won = old == total;                                                                                       \
        static long wins;                                                                                              \
        wins = 0;                                                                                                      \
        shmem_barrier_all();                                                                                           \
        shmem_long_atomic_add(&wins, won, 0);                                                                          \
        shmem_barrier_all();                                                                                           \
        if (me == 0)                                                                                                   \
            CHECK(wins == 1, #TN " compare_swap: %ld winners", wins);                                                  \
        T w = shmem_##TN##_atomic_fetch(x, 0);                                                                         \
        CHECK(w >= (T)100 && w < (T)(100 + npes), #TN " compare_swap left %lld", (long long)w);                        \
        shmem_barrier_all();                                                                                           \
        if (me == npes - 1) {                                                                                          \
            T s = shmem_##TN##_atomic_swap(x, (T)7, 0);                                                                \
            CHECK(s == w, #TN " swap fetched %lld, expected %lld", (long long)s, (long long)w);                        \
            shmem_##TN##_atomic_set(x, (T)9, 0);                                                                       \
            CHECK(shmem_##TN##_atomic_fetch(x, 0) == (T)9, #TN " set");                                                \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
        shmem_free(x);                                                                                                 \
    } while (0)

/* the bitwise AMOs: every PE sets, then clears, then flips its bit of PE 0's GPU word */
#define AMO_BIT(T, TN)                                                                                                 \
    do {                                                                                                               \
        T *x = shmemg_calloc(1, sizeof(T));                                                                            \
        REQUIRE(x, "shmemg_calloc(" #T ")");                                                                           \
        T bit = (T)((T)1 << me), all = (T)(((T)1 << npes) - 1);                                                        \
        shmem_##TN##_atomic_or(x, bit, 0);                                                                             \
        shmem_barrier_all();                                                                                           \
        CHECK(shmem_##TN##_atomic_fetch(x, 0) == all, #TN " or: %llx",                                                 \
              (unsigned long long)shmem_##TN##_atomic_fetch(x, 0));                                                    \
        shmem_barrier_all();                                                                                           \
        T f = shmem_##TN##_atomic_fetch_and(x, (T)~bit, 0);                                                            \
        CHECK(f &bit, #TN " fetch_and fetched %llx without my bit", (unsigned long long)f);                            \
        shmem_barrier_all();                                                                                           \
        CHECK(shmem_##TN##_atomic_fetch(x, 0) == 0, #TN " and left %llx",                                              \
              (unsigned long long)shmem_##TN##_atomic_fetch(x, 0));                                                    \
        shmem_barrier_all();                                                                                           \
        shmem_##TN##_atomic_xor(x, bit, 0);                                                                            \
        (void)shmem_##TN##_atomic_fetch_xor(x, bit, 0);                                                                \
        shmem_##TN##_atomic_fetch_or(x, bit, 0);                                                                       \
        shmem_##TN##_atomic_and(x, all, 0);                                                                            \
        shmem_barrier_all();                                                                                           \
        CHECK(shmem_##TN##_atomic_fetch(x, 0) == all, #TN " xor, fetch_or, and: %llx",                                 \
              (unsigned long long)shmem_##TN##_atomic_fetch(x, 0));                                                    \
        shmem_barrier_all();                                                                                           \
        shmem_free(x);                                                                                                 \
    } while (0)

/* the extended AMOs (fetch, set, swap, compare_swap for the integers) on floating point */
#define AMO_EXT(T, TN)                                                                                                 \
    do {                                                                                                               \
        T *x = shmemg_calloc(1, sizeof(T));                                                                            \
        REQUIRE(x, "shmemg_calloc(" #T ")");                                                                           \
        if (me == 0)                                                                                                   \
            shmem_##TN##_atomic_set(x, (T)1.5, right);                                                                 \
        shmem_barrier_all();                                                                                           \
        if (me == 0) {                                                                                                 \
            T s = shmem_##TN##_atomic_swap(x, (T)2.25, right);                                                         \
            CHECK(s == (T)1.5, #TN " swap fetched %g", (double)s);                                                     \
            CHECK(shmem_##TN##_atomic_fetch(x, right) == (T)2.25, #TN " fetch after swap");                            \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
        shmem_free(x);                                                                                                 \
    } while (0)

int main(void) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_HOST_INIT))
        return ftest_skip("no GPU support: SHMEM_DEVICE_HOST_INIT was not provided (shmem_info says why)");
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    RMA_SIZE(8, 1, 1);
    RMA_SIZE(16, 2, 2);
    RMA_SIZE(32, 4, 3);
    RMA_SIZE(64, 8, 4);
    RMA_SIZE(128, 16, 5);
    RMA_SIZE(mem, 1, 6);

    PG(char, char, V1);
    PG(short, short, V1);
    PG(int, int, V1);
    PG(long long, longlong, V1);
    PG(unsigned char, uchar, V1);
    PG(uint16_t, uint16, V1);
    PG(int64_t, int64, V1);
    PG(size_t, size, V1);
    PG(float, float, VF);
    PG(double, double, VF);

    AMO_STD(int, int);
    AMO_STD(long, long);
    AMO_STD(long long, longlong);
    AMO_STD(unsigned int, uint);
    AMO_STD(unsigned long long, ulonglong);
    AMO_STD(int32_t, int32);
    AMO_STD(uint64_t, uint64);
    AMO_STD(size_t, size);
    AMO_STD(ptrdiff_t, ptrdiff);
    AMO_BIT(unsigned int, uint);
    AMO_BIT(unsigned long, ulong);
    AMO_BIT(int32_t, int32);
    AMO_BIT(uint64_t, uint64);
    AMO_EXT(float, float);
    AMO_EXT(double, double);

    /* fetching AMOs in nbi form, into host memory, on the right neighbour's GPU word */
    long *c = shmemg_calloc(1, sizeof(long));
    REQUIRE(c, "shmemg_calloc(long)");
    shmem_barrier_all();
    long f[3] = {-1, -1, -1};
    shmem_long_atomic_fetch_add_nbi(&f[0], c, 5, right);
    shmem_quiet();
    shmem_long_atomic_fetch_nbi(&f[1], c, right);
    shmem_long_atomic_compare_swap_nbi(&f[2], c, 5, 6, right);
    shmem_quiet();
    CHECK(f[0] == 0 && f[1] == 5 && f[2] == 5, "fetch_add_nbi, fetch_nbi, compare_swap_nbi fetched %ld %ld %ld", f[0],
          f[1], f[2]);
    shmem_barrier_all();
    CHECK(shmem_long_g(c, me) == 6, "after the nbi AMOs: %ld", shmem_long_g(c, me));

    /* waits and tests over several GPU variables, set by the left neighbour */
#define NV 4
    int *iv = shmemg_calloc(NV, sizeof(int));
    REQUIRE(iv, "shmemg_calloc(%d ints)", NV);
    shmem_barrier_all();
    CHECK(shmem_int_test_any(iv, NV, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX, "test_any on fresh GPU variables");
    shmem_barrier_all();
    shmem_int_p(&iv[2], 1, right);
    shmem_barrier_all(); /* only iv[2] is set anywhere yet */
    size_t idx = shmem_int_wait_until_any(iv, NV, NULL, SHMEM_CMP_EQ, 1);
    CHECK(idx == 2, "wait_until_any on GPU variables: index %zu", idx);
    shmem_barrier_all();
    for (int k = 0; k < NV; k++)
        if (k != 2)
            shmem_int_p(&iv[k], 1, right);
    shmem_int_wait_until_all(iv, NV, NULL, SHMEM_CMP_EQ, 1);
    size_t idxs[NV];
    int status[NV] = {0, 1, 0, 1};
    CHECK(shmem_int_test_some(iv, NV, idxs, status, SHMEM_CMP_EQ, 1) == 2, "test_some with a status mask");
    shmem_barrier_all();

    /* a context's RMA and quiet on GPU memory */
    shmem_ctx_t ctx;
    long src[NB], back[NB];
    long *d = shmemg_malloc(NB * sizeof(long));
    REQUIRE(d, "shmemg_malloc");
    if (shmem_ctx_create(0, &ctx) == 0) {
        for (int i = 0; i < NB; i++)
            src[i] = me * 1000 + i;
        shmem_ctx_long_put(ctx, d, src, NB, right);
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
        shmem_ctx_long_get(ctx, back, d, NB, me);
        for (int i = 0; i < NB; i++)
            if (back[i] != left * 1000 + i) {
                FAIL("ctx put/get on GPU memory: element %d is %ld", i, back[i]);
                break;
            }
        shmem_ctx_destroy(ctx);
    }
    shmem_barrier_all();
    shmem_free(d);
    shmem_free(iv);
    shmem_free(c);
    return ftest_finish("gpu_types");
}
