/* p2p.c - point-to-point synchronization: test and wait_until with every comparison on every p2p type (signed
 * negatives vs unsigned), the multi-variable wait_until/test_all/any/some with and without status arrays,
 * the 1.5 _vector forms, and the deprecated shmem_wait/shmem_TYPE_wait. Variables in heap, .bss and .data. */
#include "../common/types.h"
#include "ftest.h"

#define NV 8

static int me, npes, right, left;
static const int ops[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
static const char *opname[6] = {"EQ", "NE", "GT", "GE", "LT", "LE"};

#define CMP(op, a, b)                                                                                                  \
    ((op) == SHMEM_CMP_EQ   ? (a) == (b)                                                                               \
     : (op) == SHMEM_CMP_NE ? (a) != (b)                                                                               \
     : (op) == SHMEM_CMP_GT ? (a) > (b)                                                                                \
     : (op) == SHMEM_CMP_GE ? (a) >= (b)                                                                               \
     : (op) == SHMEM_CMP_LT ? (a) < (b)                                                                                \
                            : (a) <= (b))

/* I: initial (not satisfied), V: comparison value, F: final (satisfied) - the same as signed or unsigned */
static const long long seqI[6] = {0, -3, -5, -5, -1, -1};
static const long long seqV[6] = {-3, -3, -3, -3, -3, -3};
static const long long seqF[6] = {-3, 7, -1, -3, -5, -3};

#define DEFINE_P2P(NAME, T)                                                                                            \
    static T sb_##NAME[2];                                                                                             \
    T sd_##NAME[2] = {(T)1, (T)2};                                                                                     \
    static void p2p_##NAME(T *iv, const char *where) {                                                                 \
        /* test(): a table of values, signedness matters */                                                            \
        const T vals[] = {(T)-2, (T)-1, (T)0, (T)1, (T)2, (T)((uint64_t)1 << (sizeof(T) * 8 - 1))};                    \
        const size_t nv = sizeof vals / sizeof vals[0];                                                                \
        for (size_t a = 0; a < nv; a++)                                                                                \
            for (size_t b = 0; b < nv; b++)                                                                            \
                for (int o = 0; o < 6; o++) {                                                                          \
                    *iv = vals[a];                                                                                     \
                    int got = shmem_##NAME##_test(iv, ops[o], vals[b]);                                                \
                    int want = CMP(ops[o], vals[a], vals[b]) ? 1 : 0;                                                  \
                    CHECK(got == want, "shmem_%s_test(%lld %s %lld) (%s) = %d want %d", #NAME, (long long)vals[a],     \
                          opname[o], (long long)vals[b], where, got, want);                                            \
                }                                                                                                      \
        /* wait_until: the left neighbour writes the satisfying value; a late, blocking wait */                        \
        for (int o = 0; o < 6; o++) {                                                                                  \
            *iv = (T)seqI[o];                                                                                          \
            shmem_barrier_all();                                                                                       \
            CHECK(shmem_##NAME##_test(iv, ops[o], (T)seqV[o]) == 0, "%s test %s (%s) satisfied too early", #NAME,      \
                  opname[o], where);                                                                                   \
            shmem_barrier_all();                                                                                       \
            shmem_##NAME##_p(iv, (T)seqF[o], right);                                                                   \
            shmem_##NAME##_wait_until(iv, ops[o], (T)seqV[o]);                                                         \
            CHECK(*iv == (T)seqF[o], "shmem_%s_wait_until %s (%s) returned with %lld", #NAME, opname[o], where,        \
                  (long long)*iv);                                                                                     \
            shmem_barrier_all();                                                                                       \
        }                                                                                                              \
    }                                                                                                                  \
    static void run_##NAME(void) {                                                                                     \
        T *h = shmem_malloc(2 * sizeof(T));                                                                            \
        REQUIRE(h, "shmem_malloc");                                                                                    \
        p2p_##NAME(h + 1, "heap");                                                                                     \
        p2p_##NAME(&sb_##NAME[1], "bss");                                                                              \
        p2p_##NAME(&sd_##NAME[0], "data");                                                                             \
        shmem_free(h);                                                                                                 \
    }
GT_P2P_TYPES(DEFINE_P2P)

#if FTEST_HAVE_MULTI_WAIT
static long mv_bss[NV];
int mv_data[NV] = {9, 9, 9};

/* the multi-variable forms on long (heap and .bss) */
static void multi_long(long *iv, const char *where) {
    int status[NV];
    size_t idx[NV];
    for (int k = 0; k < NV; k++)
        iv[k] = 0;
    shmem_barrier_all();
    /* test_* before anything is written */
    CHECK(shmem_long_test_all(iv, NV, NULL, SHMEM_CMP_EQ, 1) == 0, "test_all (%s) true on fresh vars", where);
    CHECK(shmem_long_test_any(iv, NV, NULL, SHMEM_CMP_EQ, 1) == SIZE_MAX, "test_any (%s) found one on fresh vars",
          where);
    CHECK(shmem_long_test_some(iv, NV, idx, NULL, SHMEM_CMP_EQ, 1) == 0, "test_some (%s) found some on fresh vars",
          where);
    shmem_barrier_all();
    /* wait_until_all: every element written, in reverse order */
    for (int k = NV - 1; k >= 0; k--)
        shmem_long_p(&iv[k], 1, right);
    shmem_long_wait_until_all(iv, NV, NULL, SHMEM_CMP_EQ, 1);
    for (int k = 0; k < NV; k++)
        CHECK(iv[k] == 1, "wait_until_all (%s): iv[%d]=%ld", where, k, iv[k]);
    CHECK(shmem_long_test_all(iv, NV, NULL, SHMEM_CMP_EQ, 1) == 1, "test_all (%s) false when all set", where);
    shmem_barrier_all();
    /* wait_until_all with a status array: the excluded elements are never written */
    for (int k = 0; k < NV; k++) {
        iv[k] = 0;
        status[k] = (k % 3 == 0);
    }
    shmem_barrier_all();
    for (int k = 0; k < NV; k++)
        if (k % 3)
            shmem_long_p(&iv[k], 2, right);
    shmem_long_wait_until_all(iv, NV, status, SHMEM_CMP_EQ, 2);
    for (int k = 0; k < NV; k++)
        CHECK(iv[k] == (k % 3 ? 2 : 0), "wait_until_all+status (%s): iv[%d]=%ld", where, k, iv[k]);
    CHECK(shmem_long_test_all(iv, NV, status, SHMEM_CMP_EQ, 2) == 1, "test_all+status (%s)", where);
    CHECK(shmem_long_test_all(iv, NV, NULL, SHMEM_CMP_EQ, 2) == 0, "test_all without status (%s)", where);
    shmem_barrier_all();
    /* wait_until_any: element 5 masked, 5 and 6 written: the answer is 6 */
    for (int k = 0; k < NV; k++) {
        iv[k] = 0;
        status[k] = (k == 5);
    }
    shmem_barrier_all();
    shmem_long_p(&iv[5], 3, right);
    shmem_fence();
    shmem_long_p(&iv[6], 3, right);
    size_t got = shmem_long_wait_until_any(iv, NV, status, SHMEM_CMP_EQ, 3);
    CHECK(got == 6, "wait_until_any+status (%s) returned %zu want 6", where, got);
    got = shmem_long_wait_until_any(iv, NV, NULL, SHMEM_CMP_EQ, 3);
    CHECK(got == 5 || got == 6, "wait_until_any (%s) returned %zu", where, got);
    CHECK(shmem_long_test_any(iv, NV, status, SHMEM_CMP_GT, 2) == 6, "test_any+status (%s)", where);
    shmem_barrier_all();
    /* wait_until_some: gather indices until every written one is found */
    for (int k = 0; k < NV; k++) {
        iv[k] = 0;
        status[k] = 0;
    }
    shmem_barrier_all();
    shmem_long_p(&iv[2], -4, right);
    shmem_long_p(&iv[7], -4, right);
    shmem_long_p(&iv[3], -4, right);
    int found = 0;
    while (found < 3) {
        size_t n = shmem_long_wait_until_some(iv, NV, idx, status, SHMEM_CMP_LT, 0);
        if (n == 0 || n > NV) {
            FAIL("wait_until_some (%s) returned %zu", where, n);
            break;
        }
        for (size_t j = 0; j < n; j++) {
            CHECK(idx[j] == 2 || idx[j] == 3 || idx[j] == 7, "wait_until_some (%s) index %zu", where, idx[j]);
            if (idx[j] < NV && !status[idx[j]]) {
                status[idx[j]] = 1;
                found++;
            } else {
                FAIL("wait_until_some (%s) returned excluded index %zu", where, idx[j]);
            }
        }
    }
    for (int k = 0; k < NV; k++)
        status[k] = 0;
    size_t n = shmem_long_test_some(iv, NV, idx, status, SHMEM_CMP_LT, 0);
    CHECK(n == 3, "test_some (%s) returned %zu want 3", where, n);
    /* empty and fully masked sets */
    for (int k = 0; k < NV; k++)
        status[k] = 1;
    CHECK(shmem_long_wait_until_any(iv, NV, status, SHMEM_CMP_EQ, 99) == SIZE_MAX, "wait_until_any all masked");
    CHECK(shmem_long_wait_until_any(iv, 0, NULL, SHMEM_CMP_EQ, 99) == SIZE_MAX, "wait_until_any nelems 0");
    CHECK(shmem_long_wait_until_some(iv, 0, idx, NULL, SHMEM_CMP_EQ, 99) == 0, "wait_until_some nelems 0");
    shmem_long_wait_until_all(iv, 0, NULL, SHMEM_CMP_EQ, 99);
    shmem_long_wait_until_all(iv, NV, status, SHMEM_CMP_EQ, 99);
    shmem_barrier_all();
}

/* unsigned compare in the multi forms: (unsigned)-1 is large */
static void multi_uint(void) {
    static unsigned int u[4];
    for (int k = 0; k < 4; k++)
        u[k] = 5;
    shmem_barrier_all();
    shmem_uint_p(&u[1], (unsigned int)-1, right);
    size_t got = shmem_uint_wait_until_any(u, 4, NULL, SHMEM_CMP_GT, 100u);
    CHECK(got == 1, "uint wait_until_any GT with (unsigned)-1: %zu", got);
    CHECK(shmem_uint_test_all(u, 4, NULL, SHMEM_CMP_GT, 1u) == 1, "uint test_all GT 1");
    shmem_barrier_all();
}
#endif

#if FTEST_HAVE_15
static int vec_data[NV] = {3, 3};
static void vector_forms(int *iv, const char *where) {
    int vals[NV], status[NV];
    size_t idx[NV];
    for (int k = 0; k < NV; k++) {
        iv[k] = -1;
        vals[k] = k * 10 - 20; /* negative and positive */
        status[k] = 0;
    }
    shmem_barrier_all();
    CHECK(shmem_int_test_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, vals) == 0, "test_all_vector (%s) early", where);
    size_t t = shmem_int_test_any_vector(iv, NV, NULL, SHMEM_CMP_GE, vals);
    CHECK(t == 0 || t == 1, "test_any_vector (%s): %zu, but only -1 >= -20 and -1 >= -10 hold", where, t);
    shmem_barrier_all();
    for (int k = 0; k < NV; k++)
        shmem_int_p(&iv[k], k * 10 - 20, right);
    shmem_int_wait_until_all_vector(iv, NV, NULL, SHMEM_CMP_EQ, vals);
    for (int k = 0; k < NV; k++)
        CHECK(iv[k] == k * 10 - 20, "wait_until_all_vector (%s) iv[%d]=%d", where, k, iv[k]);
    CHECK(shmem_int_test_all_vector(iv, NV, NULL, SHMEM_CMP_LE, vals) == 1, "test_all_vector LE (%s)", where);
    shmem_barrier_all();
    for (int k = 0; k < NV; k++)
        iv[k] = 0;
    shmem_barrier_all();
    shmem_int_p(&iv[4], 50, right); /* vals[4] = 20: 50 > 20 */
    shmem_int_p(&iv[1], -50, right);
    size_t a = shmem_int_wait_until_any_vector(iv, NV, NULL, SHMEM_CMP_GT, vals);
    /* 0 > vals[0..1] (negative) already holds for k = 0 before the writes: any satisfying index is valid */
    CHECK(a == 0 || a == 1 || a == 4, "wait_until_any_vector (%s) returned %zu", where, a);
    for (int k = 0; k < NV; k++)
        status[k] = (k != 4);
    a = shmem_int_wait_until_any_vector(iv, NV, status, SHMEM_CMP_GT, vals);
    CHECK(a == 4, "wait_until_any_vector+status (%s) returned %zu", where, a);
    for (int k = 0; k < NV; k++)
        status[k] = 0;
    size_t n = shmem_int_wait_until_some_vector(iv, NV, idx, status, SHMEM_CMP_NE, vals);
    CHECK(n >= 1 && n <= NV, "wait_until_some_vector (%s) returned %zu", where, n);
    for (size_t j = 0; j < n && j < NV; j++)
        CHECK(idx[j] < NV && iv[idx[j]] != vals[idx[j]], "some_vector index");
    shmem_barrier_all(); /* both writes have landed */
    n = shmem_int_test_some_vector(iv, NV, idx, NULL, SHMEM_CMP_LT, vals);
    /* iv = {0,-50,0,0,50,0,0,0}, vals = {-20,-10,0,10,20,30,40,50}: LT at 1,3,5,6,7 */
    CHECK(n == 5, "test_some_vector (%s) returned %zu want 5", where, n);
    shmem_barrier_all();
}
static int vec_bss[NV];
#endif

/* deprecated: shmem_wait(ivar, v) returns once *ivar != v */
static long dep_long;
static int dep_int;
static void deprecated_waits(void) {
    dep_long = 3;
    dep_int = -3;
    shmem_barrier_all();
    shmem_long_p(&dep_long, 4, right);
    shmem_int_p(&dep_int, -4, right);
    shmem_wait(&dep_long, 3);
    shmem_int_wait(&dep_int, -3);
    CHECK(dep_long == 4 && dep_int == -4, "shmem_wait/shmem_int_wait returned with %ld %d", dep_long, dep_int);
    shmem_barrier_all();
    shmem_long_wait(&dep_long, 99); /* already different: returns at once */
    shmem_barrier_all();
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
#define RUN(NAME, T) run_##NAME();
    GT_P2P_TYPES(RUN)
#if FTEST_HAVE_MULTI_WAIT
    long *h = shmem_malloc(NV * sizeof(long));
    REQUIRE(h, "shmem_malloc");
    multi_long(h, "heap");
    multi_long(mv_bss, "bss");
    multi_uint();
    shmem_free(h);
#endif
#if FTEST_HAVE_15
    int *hv = shmem_malloc(NV * sizeof(int));
    REQUIRE(hv, "shmem_malloc");
    vector_forms(hv, "heap");
    vector_forms(vec_bss, "bss");
    vector_forms(vec_data, "data");
    shmem_free(hv);
#endif
    deprecated_waits();
    (void)left;
    return ftest_finish("p2p");
}
