/* amo_nbi.c - OpenSHMEM 1.5 non-blocking fetching AMOs (fetch, compare_swap, swap, fetch_inc, fetch_add,
 * fetch_and/or/xor, ctx forms): the fetched value is in place after shmem_quiet; many in flight at once. */
#include "ftest.h"

#include <stdint.h>

#define MAXPE 64
#define K 64

#if FTEST_HAVE_15
static int me, npes, right, left;
static long lhot[4];
static uint64_t uhot_bss[4];
uint64_t uhot_data[4] = {1};

static void test_long(long *t, const char *where) {
    long f[8];
    for (int i = 0; i < 8; i++)
        f[i] = -99;
    *t = 0;
    shmem_barrier_all();
    shmem_long_atomic_set(t, 10 + me, right);
    shmem_quiet();
    shmem_long_atomic_fetch_nbi(&f[0], t, right);
    shmem_quiet();
    CHECK(f[0] == 10 + me, "long atomic_fetch_nbi (%s): %ld want %d", where, f[0], 10 + me);
    shmem_long_atomic_swap_nbi(&f[1], t, -4, right);
    shmem_quiet();
    CHECK(f[1] == 10 + me, "long atomic_swap_nbi (%s): %ld", where, f[1]);
    shmem_long_atomic_compare_swap_nbi(&f[2], t, 5, 7, right); /* fails */
    shmem_quiet();
    CHECK(f[2] == -4, "long failing compare_swap_nbi (%s): %ld", where, f[2]);
    shmem_long_atomic_compare_swap_nbi(&f[3], t, -4, -1, right); /* succeeds */
    shmem_quiet();
    CHECK(f[3] == -4, "long compare_swap_nbi (%s): %ld", where, f[3]);
    shmem_long_atomic_fetch_inc_nbi(&f[4], t, right);
    shmem_quiet();
    CHECK(f[4] == -1, "long fetch_inc_nbi (%s): %ld", where, f[4]);
    shmem_ctx_long_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &f[5], t, 100, right);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    CHECK(f[5] == 0, "long ctx fetch_add_nbi (%s): %ld", where, f[5]);
    CHECK(shmem_long_atomic_fetch(t, right) == 100, "long after nbi chain (%s): %ld", where,
          shmem_long_atomic_fetch(t, right));
    shmem_barrier_all();

    /* many in flight to one word on PE 0: the fetched values are exactly 0..npes*K-1 */
    if (me == 0)
        *t = 0;
    static long got[K];
    static long census[MAXPE * K];
    for (int i = 0; i < npes * K; i++)
        census[i] = 0;
    shmem_barrier_all();
    for (int i = 0; i < K; i++)
        got[i] = -1;
    for (int i = 0; i < K; i++)
        shmem_long_atomic_fetch_add_nbi(&got[i], t, 1, 0);
    shmem_quiet();
    for (int i = 0; i < K; i++) {
        if (got[i] < 0 || got[i] >= npes * K) {
            FAIL("long fetch_add_nbi burst (%s): got[%d]=%ld out of range", where, i, got[i]);
            break;
        }
        shmem_long_atomic_inc(&census[got[i]], 0);
    }
    shmem_quiet();
    shmem_barrier_all();
    if (me == 0) {
        CHECK(*t == npes * K, "long fetch_add_nbi burst total (%s): %ld", where, *t);
        for (int i = 0; i < npes * K; i++)
            if (census[i] != 1) {
                FAIL("long fetch_add_nbi burst (%s): value %d fetched %ld times", where, i, census[i]);
                break;
            }
    }
    shmem_barrier_all();
}

static void test_u64(uint64_t *t, const char *where) {
    uint64_t f[4] = {0, 0, 0, 0};
    uint64_t hi = (uint64_t)1 << 63;
    shmem_barrier_all();
    shmem_uint64_atomic_set(t, hi | 0xF0F0u, right);
    shmem_quiet();
    shmem_uint64_atomic_fetch_and_nbi(&f[0], t, hi | 0xFF00u, right);
    shmem_quiet();
    shmem_uint64_atomic_fetch_or_nbi(&f[1], t, 0xFu, right);
    shmem_quiet();
    shmem_ctx_uint64_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &f[2], t, hi | 0x0FFFu, right);
    shmem_quiet();
    CHECK(f[0] == (hi | 0xF0F0u) && f[1] == (hi | 0xF000u) && f[2] == (hi | 0xF00Fu),
          "uint64 fetch_and/or/xor_nbi (%s): %llx %llx %llx", where, (unsigned long long)f[0], (unsigned long long)f[1],
          (unsigned long long)f[2]);
    CHECK(shmem_uint64_atomic_fetch(t, right) == 0xFFF0u, "uint64 after bitwise nbi (%s): %llx", where,
          (unsigned long long)shmem_uint64_atomic_fetch(t, right));
    shmem_barrier_all();
}

static void test_others(int *ti, float *tf, double *td) {
    int fi = 0;
    float ff = 0;
    double fd = 0;
    unsigned int fu = 0;
    shmem_barrier_all();
    shmem_int_atomic_set(ti, -7, right);
    shmem_float_atomic_set(tf, 1.5f, right);
    shmem_double_atomic_set(td, -2.25, right);
    shmem_quiet();
    shmem_int_atomic_fetch_inc_nbi(&fi, ti, right);
    shmem_float_atomic_swap_nbi(&ff, tf, 3.5f, right);
    shmem_double_atomic_fetch_nbi(&fd, td, right);
    shmem_quiet();
    CHECK(fi == -7 && ff == 1.5f && fd == -2.25, "int/float/double nbi fetches: %d %g %g", fi, ff, fd);
    CHECK(shmem_float_atomic_fetch(tf, right) == 3.5f, "float swap_nbi did not store");
    shmem_uint_atomic_fetch_or_nbi(&fu, (unsigned int *)ti, 1u, right);
    shmem_quiet();
    CHECK(fu == (unsigned int)-6, "uint fetch_or_nbi: %u", fu);
    shmem_barrier_all();
}
#endif

int main(void) {
    shmem_init();
#if !FTEST_HAVE_15
    return ftest_skip("non-blocking AMOs are OpenSHMEM 1.5");
#else
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    REQUIRE(npes <= MAXPE, "too many PEs");
    long *lh = shmem_malloc(4 * sizeof(long));
    uint64_t *uh = shmem_malloc(4 * sizeof(uint64_t));
    int *ih = shmem_malloc(sizeof(int));
    float *fh = shmem_malloc(sizeof(float));
    double *dh = shmem_malloc(sizeof(double));
    REQUIRE(lh && uh && ih && fh && dh, "shmem_malloc");
    test_long(lh, "heap");
    test_long(&lhot[1], "bss");
    test_u64(uh, "heap");
    test_u64(&uhot_bss[2], "bss");
    test_u64(&uhot_data[1], "data");
    test_others(ih, fh, dh);
    (void)left;
    shmem_free(lh);
    shmem_free(uh);
    shmem_free(ih);
    shmem_free(fh);
    shmem_free(dh);
    return ftest_finish("amo_nbi");
#endif
}
