/* rma_types.c - typed RMA for every standard RMA type: put/get/p/g/iput/iget/put_nbi/get_nbi and their ctx forms
 * on SHMEM_CTX_DEFAULT, each against a symmetric-heap, a .bss and a .data target, between ring neighbours. */
#include "../common/types.h"
#include "ftest.h"

#define N 64
#define VAL(T, pe, i) ((T)(((pe)*31 + (i)*7 + 1) % 120))
#define SENT(T) ((T)125)

static int me, npes, right, left;

/* Compares dst[0..n) with the expected values; one message per mismatching array. */
#define EXPECT_ARRAY(T, dst, n, expr, what)                                                                            \
    do {                                                                                                               \
        for (int i_ = 0; i_ < (n); i_++) {                                                                             \
            T want_ = (expr);                                                                                          \
            if ((dst)[i_] != want_) {                                                                                  \
                FAIL("%s %s (%s): elem %d = %g want %g", #T, what, where, i_, (double)(dst)[i_], (double)want_);       \
                break;                                                                                                 \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

#define DEFINE_RMA_TEST(NAME, T)                                                                                       \
    static T sb_##NAME[N];                                                                                             \
    T sd_##NAME[N] = {(T)3, (T)4};                                                                                     \
    static void test_##NAME(T *tgt, const char *where) {                                                               \
        T src[N], loc[N];                                                                                              \
        int i;                                                                                                         \
        for (i = 0; i < N; i++)                                                                                        \
            src[i] = VAL(T, me, i);                                                                                    \
        /* put */                                                                                                      \
        for (i = 0; i < N; i++)                                                                                        \
            tgt[i] = SENT(T);                                                                                          \
        shmem_barrier_all();                                                                                           \
        shmem_##NAME##_put(tgt, src, N, right);                                                                        \
        shmem_barrier_all();                                                                                           \
        EXPECT_ARRAY(T, tgt, N, VAL(T, left, i_), "put");                                                              \
        /* get (target holds the left neighbour's values; read the right neighbour's) */                               \
        shmem_barrier_all();                                                                                           \
        for (i = 0; i < N; i++)                                                                                        \
            loc[i] = SENT(T);                                                                                          \
        shmem_##NAME##_get(loc, tgt, N, right);                                                                        \
        EXPECT_ARRAY(T, loc, N, VAL(T, me, i_), "get");                                                                \
        /* p / g */                                                                                                    \
        shmem_barrier_all();                                                                                           \
        for (i = 0; i < N; i += 5)                                                                                     \
            shmem_##NAME##_p(&tgt[i], VAL(T, me + 1, i), right);                                                       \
        shmem_barrier_all();                                                                                           \
        EXPECT_ARRAY(T, tgt, N, (i_ % 5 == 0) ? VAL(T, left + 1, i_) : VAL(T, left, i_), "p");                         \
        for (i = 0; i < N; i += 3) {                                                                                   \
            T g = shmem_##NAME##_g(&tgt[i], right);                                                                    \
            T want = (i % 5 == 0) ? VAL(T, me + 1, i) : VAL(T, me, i);                                                 \
            CHECK(g == want, "%s g (%s): elem %d = %g want %g", #T, where, i, (double)g, (double)want);                \
        }                                                                                                              \
        /* iput: target stride 2, source stride 3, N/3 elements; the gaps stay untouched */                            \
        shmem_barrier_all();                                                                                           \
        for (i = 0; i < N; i++)                                                                                        \
            tgt[i] = SENT(T);                                                                                          \
        shmem_barrier_all();                                                                                           \
        shmem_##NAME##_iput(tgt, src, 2, 3, N / 3, right);                                                             \
        shmem_barrier_all();                                                                                           \
        EXPECT_ARRAY(T, tgt, N, (i_ % 2 == 0 && i_ / 2 < N / 3) ? VAL(T, left, 3 * (i_ / 2)) : SENT(T), "iput");       \
        /* iget: from the right neighbour's target at stride 2 into loc at stride 1 */                                 \
        shmem_barrier_all();                                                                                           \
        for (i = 0; i < N; i++)                                                                                        \
            loc[i] = SENT(T);                                                                                          \
        shmem_##NAME##_iget(loc, tgt, 1, 2, N / 3, right);                                                             \
        EXPECT_ARRAY(T, loc, N, (i_ < N / 3) ? VAL(T, me, 3 * i_) : SENT(T), "iget");                                  \
        /* put_nbi + quiet, get_nbi + quiet */                                                                         \
        shmem_barrier_all();                                                                                           \
        for (i = 0; i < N; i++)                                                                                        \
            src[i] = VAL(T, me + 2, i);                                                                                \
        shmem_##NAME##_put_nbi(tgt, src, N, right);                                                                    \
        shmem_quiet();                                                                                                 \
        shmem_barrier_all();                                                                                           \
        EXPECT_ARRAY(T, tgt, N, VAL(T, left + 2, i_), "put_nbi");                                                      \
        for (i = 0; i < N; i++)                                                                                        \
            loc[i] = SENT(T);                                                                                          \
        shmem_##NAME##_get_nbi(loc, tgt, N, right);                                                                    \
        shmem_quiet();                                                                                                 \
        EXPECT_ARRAY(T, loc, N, VAL(T, me + 2, i_), "get_nbi");                                                        \
        /* the ctx forms on the default context */                                                                     \
        shmem_barrier_all();                                                                                           \
        for (i = 0; i < N; i++)                                                                                        \
            src[i] = VAL(T, me + 3, i);                                                                                \
        shmem_ctx_##NAME##_put(SHMEM_CTX_DEFAULT, tgt, src, N / 2, right);                                             \
        shmem_ctx_##NAME##_put_nbi(SHMEM_CTX_DEFAULT, tgt + N / 2, src + N / 2, N / 2, right);                         \
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                                            \
        shmem_ctx_##NAME##_p(SHMEM_CTX_DEFAULT, &tgt[1], VAL(T, me + 4, 1), right);                                    \
        shmem_barrier_all();                                                                                           \
        EXPECT_ARRAY(T, tgt, N, i_ == 1 ? VAL(T, left + 4, 1) : VAL(T, left + 3, i_), "ctx put/put_nbi/p");            \
        shmem_barrier_all();                                                                                           \
        for (i = 0; i < N; i++)                                                                                        \
            loc[i] = SENT(T);                                                                                          \
        shmem_ctx_##NAME##_get(SHMEM_CTX_DEFAULT, loc, tgt, N / 2, right);                                             \
        shmem_ctx_##NAME##_get_nbi(SHMEM_CTX_DEFAULT, loc + N / 2, tgt + N / 2, N / 2, right);                         \
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                                            \
        EXPECT_ARRAY(T, loc, N, i_ == 1 ? VAL(T, me + 4, 1) : VAL(T, me + 3, i_), "ctx get/get_nbi");                  \
        T g2 = shmem_ctx_##NAME##_g(SHMEM_CTX_DEFAULT, &tgt[2], right);                                                \
        CHECK(g2 == VAL(T, me + 3, 2), "%s ctx_g (%s) = %g", #T, where, (double)g2);                                   \
        shmem_barrier_all();                                                                                           \
        for (i = 0; i < N; i++)                                                                                        \
            tgt[i] = SENT(T);                                                                                          \
        shmem_barrier_all();                                                                                           \
        shmem_ctx_##NAME##_iput(SHMEM_CTX_DEFAULT, tgt, src, 3, 1, N / 3, right);                                      \
        shmem_barrier_all();                                                                                           \
        EXPECT_ARRAY(T, tgt, N, (i_ % 3 == 0 && i_ / 3 < N / 3) ? VAL(T, left + 3, i_ / 3) : SENT(T), "ctx iput");     \
        for (i = 0; i < N; i++)                                                                                        \
            loc[i] = SENT(T);                                                                                          \
        shmem_ctx_##NAME##_iget(SHMEM_CTX_DEFAULT, loc, tgt, 2, 3, N / 3, right);                                      \
        EXPECT_ARRAY(T, loc, N, (i_ % 2 == 0 && i_ / 2 < N / 3) ? VAL(T, me + 3, i_ / 2) : SENT(T), "ctx iget");       \
        shmem_barrier_all();                                                                                           \
    }                                                                                                                  \
    static void run_##NAME(void) {                                                                                     \
        T *heap = shmem_malloc(N * sizeof(T));                                                                         \
        REQUIRE(heap, "shmem_malloc for %s", #T);                                                                      \
        test_##NAME(heap, "heap");                                                                                     \
        test_##NAME(sb_##NAME, "bss");                                                                                 \
        test_##NAME(sd_##NAME, "data");                                                                                \
        shmem_free(heap);                                                                                              \
    }

GT_RMA_TYPES(DEFINE_RMA_TEST)

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
#define RUN(NAME, T) run_##NAME();
    GT_RMA_TYPES(RUN)
    return ftest_finish("rma_types");
}
