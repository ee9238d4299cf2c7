/* amo_deprecated.c - the deprecated AMO names real programs still call (shmem_int_fadd, shmem_long_finc,
 * shmem_int_cswap, shmem_long_swap, shmem_TYPE_add/inc/fetch/set, float/double swap/fetch/set): same semantics. */
#include "ftest.h"

#ifndef FTEST_HAVE_DEPRECATED_AMO
#define FTEST_HAVE_DEPRECATED_AMO 1
#endif
#ifdef FTEST_PEER_OSHMEM
#define SKIP_CSWAP32 1 /* Open MPI OSHMEM 4.1: 32-bit cswap smashes the caller's stack */
#else
#define SKIP_CSWAP32 0
#endif

#define MAXPE 64

#if FTEST_HAVE_DEPRECATED_AMO
static int me, npes, right, left;

#define DEFINE_DEP(NAME, T)                                                                                            \
    static T sb_##NAME[MAXPE + 2];                                                                                     \
    static void dep_##NAME(T *t, const char *where) {                                                                  \
        T *mine = &t[me], old;                                                                                         \
        for (int i = 0; i < MAXPE + 2; i++)                                                                            \
            t[i] = 0;                                                                                                  \
        shmem_barrier_all();                                                                                           \
        shmem_##NAME##_set(mine, (T)(20 + me), right);                                                                 \
        old = shmem_##NAME##_fetch(mine, right);                                                                       \
        CHECK(old == (T)(20 + me), "shmem_%s_set/fetch (%s): %lld", #NAME, where, (long long)old);                     \
        old = shmem_##NAME##_swap(mine, (T)-3, right);                                                                 \
        CHECK(old == (T)(20 + me), "shmem_%s_swap (%s) returned %lld", #NAME, where, (long long)old);                  \
        if (!(SKIP_CSWAP32 && sizeof(T) == 4)) {                                                                       \
            old = shmem_##NAME##_cswap(mine, (T)5, (T)9, right);                                                       \
            CHECK(old == (T)-3, "failing shmem_%s_cswap (%s) returned %lld", #NAME, where, (long long)old);            \
            old = shmem_##NAME##_cswap(mine, (T)-3, (T)-1, right);                                                     \
            CHECK(old == (T)-3, "shmem_%s_cswap (%s) returned %lld", #NAME, where, (long long)old);                    \
        } else {                                                                                                       \
            shmem_##NAME##_set(mine, (T)-1, right);                                                                    \
        }                                                                                                              \
        old = shmem_##NAME##_finc(mine, right);                                                                        \
        CHECK(old == (T)-1, "shmem_%s_finc (%s) returned %lld", #NAME, where, (long long)old);                         \
        shmem_##NAME##_inc(mine, right);                                                                               \
        old = shmem_##NAME##_fadd(mine, (T)10, right);                                                                 \
        CHECK(old == (T)1, "shmem_%s_fadd (%s) returned %lld", #NAME, where, (long long)old);                          \
        shmem_##NAME##_add(mine, (T)-4, right);                                                                        \
        shmem_quiet();                                                                                                 \
        shmem_barrier_all();                                                                                           \
        CHECK(t[left] == (T)7, "shmem_%s_* chain (%s): %lld want 7", #NAME, where, (long long)t[left]);                \
        /* contention with the deprecated names */                                                                     \
        for (int i = 0; i < 100; i++) {                                                                                \
            shmem_##NAME##_finc(&t[MAXPE], 0);                                                                         \
            shmem_##NAME##_add(&t[MAXPE + 1], (T)2, 0);                                                                \
        }                                                                                                              \
        shmem_quiet();                                                                                                 \
        shmem_barrier_all();                                                                                           \
        if (me == 0)                                                                                                   \
            CHECK(t[MAXPE] == (T)(100 * npes) && t[MAXPE + 1] == (T)(200 * npes),                                      \
                  "shmem_%s_finc/add contention (%s): %lld %lld", #NAME, where, (long long)t[MAXPE],                   \
                  (long long)t[MAXPE + 1]);                                                                            \
        shmem_barrier_all();                                                                                           \
    }                                                                                                                  \
    static void run_##NAME(void) {                                                                                     \
        T *h = shmem_malloc((MAXPE + 2) * sizeof(T));                                                                  \
        REQUIRE(h, "shmem_malloc");                                                                                    \
        dep_##NAME(h, "heap");                                                                                         \
        dep_##NAME(sb_##NAME, "bss");                                                                                  \
        shmem_free(h);                                                                                                 \
    }
DEFINE_DEP(int, int)
DEFINE_DEP(long, long)
DEFINE_DEP(longlong, long long)

static float fs[MAXPE];
double ds[MAXPE] = {1.0};

static void dep_fp(void) {
    shmem_barrier_all();
    shmem_float_set(&fs[me], 0.25f * me, right);
    shmem_double_set(&ds[me], -0.5 * me, right);
    float f = shmem_float_swap(&fs[me], 8.5f, right);
    double d = shmem_double_swap(&ds[me], 9.5, right);
    CHECK(f == 0.25f * me && d == -0.5 * me, "shmem_float/double_swap returned %g %g", f, d);
    CHECK(shmem_float_fetch(&fs[me], right) == 8.5f && shmem_double_fetch(&ds[me], right) == 9.5,
          "shmem_float/double_fetch after swap");
    shmem_barrier_all();
}
#endif

int main(void) {
    shmem_init();
#if !FTEST_HAVE_DEPRECATED_AMO
    return ftest_skip("the deprecated AMO names are not declared by <shmem.h>");
#else
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    run_int();
    run_long();
    run_longlong();
    dep_fp();
    return ftest_finish("amo_deprecated");
#endif
}
