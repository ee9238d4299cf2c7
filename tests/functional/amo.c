/* amo.c - atomic memory operations: every standard AMO on every standard AMO type, fetch/set/swap on float and
 * double, the bitwise AMOs on the bitwise types, blocking and ctx forms, against heap, .bss and .data targets;
 * includes compare_swap failure/success, signed wrap-around, and job-wide contention with exact totals. */
#include "ftest.h"

#include <stddef.h>
#include <stdint.h>

#define MAXPE 64
/* Open MPI OSHMEM 4.1: 32-bit compare_swap smashes the caller's stack; left out of the peer build only */
#ifdef FTEST_PEER_OSHMEM
#define FTEST_BROKEN_CSWAP32 1
#else
#define FTEST_BROKEN_CSWAP32 0
#endif
#define SLOTS (MAXPE + 4)
#define ITERS 200

static int me, npes, right, left;

/* ---- standard AMOs: fetch, set, compare_swap, swap, fetch_inc, inc, fetch_add, add ---- */
#define DEFINE_STD(NAME, T)                                                                                            \
    static T sb_std_##NAME[SLOTS];                                                                                     \
    T sd_std_##NAME[SLOTS] = {(T)9};                                                                                   \
    static void std_##NAME(T *tgt, const char *where, int use_ctx) {                                                   \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                                           \
        T *mine = &tgt[me];                                                                                            \
        T v0 = (T)(me * 3 + 11), v1 = (T)(-(me + 7)), v2 = (T)-2, old;                                                 \
        for (int i = 0; i < SLOTS; i++)                                                                                \
            tgt[i] = (T)0;                                                                                             \
        shmem_barrier_all();                                                                                           \
        if (use_ctx)                                                                                                   \
            shmem_ctx_##NAME##_atomic_set(ctx, mine, v0, right);                                                       \
        else                                                                                                           \
            shmem_##NAME##_atomic_set(mine, v0, right);                                                                \
        shmem_barrier_all();                                                                                           \
        CHECK(tgt[left] == (T)(left * 3 + 11), "%s set%s (%s): %lld want %lld", #T, use_ctx ? "(ctx)" : "", where,     \
              (long long)tgt[left], (long long)(T)(left * 3 + 11));                                                    \
        shmem_barrier_all(); /* the left neighbour must not swap into tgt[left] before it was checked */               \
        old = use_ctx ? shmem_ctx_##NAME##_atomic_fetch(ctx, mine, right) : shmem_##NAME##_atomic_fetch(mine, right);  \
        CHECK(old == v0, "%s fetch (%s): %lld want %lld", #T, where, (long long)old, (long long)v0);                   \
        old = use_ctx ? shmem_ctx_##NAME##_atomic_swap(ctx, mine, v1, right)                                           \
                      : shmem_##NAME##_atomic_swap(mine, v1, right);                                                   \
        CHECK(old == v0, "%s swap (%s) returned %lld want %lld", #T, where, (long long)old, (long long)v0);            \
        if (FTEST_BROKEN_CSWAP32 && sizeof(T) == 4) {                                                                  \
            shmem_##NAME##_atomic_set(mine, v2, right);                                                                \
        } else {                                                                                                       \
            /* compare_swap that must fail: cond is stale */                                                           \
            old = use_ctx ? shmem_ctx_##NAME##_atomic_compare_swap(ctx, mine, v0, v2, right)                           \
                          : shmem_##NAME##_atomic_compare_swap(mine, v0, v2, right);                                   \
            CHECK(old == v1, "%s failing compare_swap (%s) returned %lld want %lld", #T, where, (long long)old,        \
                  (long long)v1);                                                                                      \
            old = shmem_##NAME##_atomic_fetch(mine, right);                                                            \
            CHECK(old == v1, "%s failing compare_swap (%s) changed the value to %lld", #T, where, (long long)old);     \
            /* compare_swap that must succeed */                                                                       \
            old = use_ctx ? shmem_ctx_##NAME##_atomic_compare_swap(ctx, mine, v1, v2, right)                           \
                          : shmem_##NAME##_atomic_compare_swap(mine, v1, v2, right);                                   \
            CHECK(old == v1, "%s compare_swap (%s) returned %lld want %lld", #T, where, (long long)old,                \
                  (long long)v1);                                                                                      \
        }                                                                                                              \
        /* -2 -> -1 -> 0 (signed through zero, unsigned wraps) -> +5 -> +3 */                                          \
        old = use_ctx ? shmem_ctx_##NAME##_atomic_fetch_inc(ctx, mine, right)                                          \
                      : shmem_##NAME##_atomic_fetch_inc(mine, right);                                                  \
        CHECK(old == v2, "%s fetch_inc (%s) returned %lld want %lld", #T, where, (long long)old, (long long)v2);       \
        if (use_ctx)                                                                                                   \
            shmem_ctx_##NAME##_atomic_inc(ctx, mine, right);                                                           \
        else                                                                                                           \
            shmem_##NAME##_atomic_inc(mine, right);                                                                    \
        old = use_ctx ? shmem_ctx_##NAME##_atomic_fetch_add(ctx, mine, (T)5, right)                                    \
                      : shmem_##NAME##_atomic_fetch_add(mine, (T)5, right);                                            \
        CHECK(old == (T)0, "%s fetch_add after inc past -1 (%s) returned %lld want 0", #T, where, (long long)old);     \
        if (use_ctx)                                                                                                   \
            shmem_ctx_##NAME##_atomic_add(ctx, mine, (T)3, right);                                                     \
        else                                                                                                           \
            shmem_##NAME##_atomic_add(mine, (T)3, right);                                                              \
        shmem_quiet();                                                                                                 \
        shmem_barrier_all();                                                                                           \
        CHECK(tgt[left] == (T)8, "%s after add (%s): %lld want 8", #T, where, (long long)tgt[left]);                   \
        /* contention: every PE adds into PE 0's last slots; fetch_inc values are unique */                            \
        T *hot = &tgt[MAXPE], *hot2 = &tgt[MAXPE + 1];                                                                 \
        static long dup_flags[ITERS * MAXPE];                                                                          \
        for (int i = 0; i < ITERS * npes; i++)                                                                         \
            dup_flags[i] = 0;                                                                                          \
        shmem_barrier_all();                                                                                           \
        for (int i = 0; i < ITERS; i++) {                                                                              \
            T got =                                                                                                    \
                use_ctx ? shmem_ctx_##NAME##_atomic_fetch_inc(ctx, hot, 0) : shmem_##NAME##_atomic_fetch_inc(hot, 0);  \
            if ((long long)got < 0 || (long long)got >= (long long)ITERS * npes) {                                     \
                FAIL("%s contended fetch_inc (%s) returned %lld out of range", #T, where, (long long)got);             \
                break;                                                                                                 \
            }                                                                                                          \
            if (shmem_long_atomic_fetch_inc(&dup_flags[(int)got], 0) != 0)                                             \
                FAIL("%s contended fetch_inc (%s) returned %lld twice", #T, where, (long long)got);                    \
            if (use_ctx)                                                                                               \
                shmem_ctx_##NAME##_atomic_add(ctx, hot2, (T)(me + 1), 0);                                              \
            else                                                                                                       \
                shmem_##NAME##_atomic_add(hot2, (T)(me + 1), 0);                                                       \
        }                                                                                                              \
        shmem_quiet();                                                                                                 \
        shmem_barrier_all();                                                                                           \
        if (me == 0) {                                                                                                 \
            CHECK(*hot == (T)(ITERS * npes), "%s contended fetch_inc total (%s) %lld want %d", #T, where,              \
                  (long long)*hot, ITERS * npes);                                                                      \
            T want = (T)(ITERS * npes * (npes + 1) / 2);                                                               \
            CHECK(*hot2 == want, "%s contended add total (%s) %lld want %lld", #T, where, (long long)*hot2,            \
                  (long long)want);                                                                                    \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
    }                                                                                                                  \
    static void run_std_##NAME(void) {                                                                                 \
        T *heap = shmem_malloc(SLOTS * sizeof(T));                                                                     \
        REQUIRE(heap, "shmem_malloc");                                                                                 \
        for (int c = 0; c < 2; c++) {                                                                                  \
            std_##NAME(heap, "heap", c);                                                                               \
            std_##NAME(sb_std_##NAME, "bss", c);                                                                       \
            std_##NAME(sd_std_##NAME, "data", c);                                                                      \
        }                                                                                                              \
        shmem_free(heap);                                                                                              \
    }

/* ---- extended AMOs: fetch, set, swap (float and double; also every standard type) ---- */
#define DEFINE_EXT(NAME, T)                                                                                            \
    static T sb_ext_##NAME[SLOTS];                                                                                     \
    T sd_ext_##NAME[SLOTS] = {(T)1};                                                                                   \
    static void ext_##NAME(T *tgt, const char *where) {                                                                \
        T *mine = &tgt[me];                                                                                            \
        T a = (T)(me + 0.5 * (sizeof(T) >= 4)), b = (T)(-(me + 3)), old;                                               \
        for (int i = 0; i < SLOTS; i++)                                                                                \
            tgt[i] = (T)0;                                                                                             \
        shmem_barrier_all();                                                                                           \
        shmem_##NAME##_atomic_set(mine, a, right);                                                                     \
        shmem_barrier_all();                                                                                           \
        T la = (T)(left + 0.5 * (sizeof(T) >= 4));                                                                     \
        CHECK(tgt[left] == la, "%s atomic_set (%s): %g want %g", #T, where, (double)tgt[left], (double)la);            \
        shmem_barrier_all();                                                                                           \
        old = shmem_##NAME##_atomic_fetch(mine, right);                                                                \
        CHECK(old == a, "%s atomic_fetch (%s): %g want %g", #T, where, (double)old, (double)a);                        \
        old = shmem_##NAME##_atomic_swap(mine, b, right);                                                              \
        CHECK(old == a, "%s atomic_swap (%s) returned %g want %g", #T, where, (double)old, (double)a);                 \
        old = shmem_ctx_##NAME##_atomic_swap(SHMEM_CTX_DEFAULT, mine, a, right);                                       \
        CHECK(old == b, "%s ctx atomic_swap (%s) returned %g want %g", #T, where, (double)old, (double)b);             \
        shmem_ctx_##NAME##_atomic_set(SHMEM_CTX_DEFAULT, mine, b, right);                                              \
        old = shmem_ctx_##NAME##_atomic_fetch(SHMEM_CTX_DEFAULT, mine, right);                                         \
        CHECK(old == b, "%s ctx set/fetch (%s): %g want %g", #T, where, (double)old, (double)b);                       \
        /* swap chain: everyone swaps its id into one word on PE 0; the returned values plus the final value           \
         * are exactly the initial value and every id, each once */                                                    \
        shmem_barrier_all();                                                                                           \
        if (me == 0)                                                                                                   \
            tgt[MAXPE] = (T)(-1);                                                                                      \
        shmem_barrier_all();                                                                                           \
        T got = shmem_##NAME##_atomic_swap(&tgt[MAXPE], (T)me, 0);                                                     \
        shmem_##NAME##_p(&tgt[MAXPE + 2], got, me); /* keep it for the census */                                       \
        shmem_barrier_all();                                                                                           \
        if (me == 0) {                                                                                                 \
            int count[MAXPE + 1];                                                                                      \
            memset(count, 0, sizeof count);                                                                            \
            for (int pe = 0; pe < npes; pe++) {                                                                        \
                T g = shmem_##NAME##_g(&tgt[MAXPE + 2], pe);                                                           \
                int k = (int)g + 1;                                                                                    \
                if (k >= 0 && k <= npes)                                                                               \
                    count[k]++;                                                                                        \
            }                                                                                                          \
            count[(int)tgt[MAXPE] + 1]++;                                                                              \
            for (int k = 0; k <= npes; k++)                                                                            \
                CHECK(count[k] == 1, "%s swap chain (%s): value %d seen %d times", #T, where, k - 1, count[k]);        \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
    }                                                                                                                  \
    static void run_ext_##NAME(void) {                                                                                 \
        T *heap = shmem_malloc(SLOTS * sizeof(T));                                                                     \
        REQUIRE(heap, "shmem_malloc");                                                                                 \
        ext_##NAME(heap, "heap");                                                                                      \
        ext_##NAME(sb_ext_##NAME, "bss");                                                                              \
        ext_##NAME(sd_ext_##NAME, "data");                                                                             \
        shmem_free(heap);                                                                                              \
    }

/* ---- bitwise AMOs: and, or, xor and their fetch forms ---- */
#define DEFINE_BIT(NAME, T)                                                                                            \
    static T sb_bit_##NAME[SLOTS];                                                                                     \
    T sd_bit_##NAME[SLOTS] = {(T)5};                                                                                   \
    static void bit_##NAME(T *tgt, const char *where, int use_ctx) {                                                   \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                                           \
        T *mine = &tgt[me];                                                                                            \
        T hi = (T)((uint64_t)1 << (sizeof(T) * 8 - 1)); /* top bit: signedness must not matter */                      \
        T init = (T)(hi | (T)0xF0F0u | (T)me), old;                                                                    \
        for (int i = 0; i < SLOTS; i++)                                                                                \
            tgt[i] = (T)0;                                                                                             \
        shmem_barrier_all();                                                                                           \
        shmem_##NAME##_p(mine, init, right); /* bitwise types need not have atomic_set */                              \
        shmem_quiet();                                                                                                 \
        old = use_ctx ? shmem_ctx_##NAME##_atomic_fetch_and(ctx, mine, (T)(hi | (T)0xFF00u), right)                    \
                      : shmem_##NAME##_atomic_fetch_and(mine, (T)(hi | (T)0xFF00u), right);                            \
        CHECK(old == init, "%s fetch_and (%s) returned %llx want %llx", #T, where, (unsigned long long)old,            \
              (unsigned long long)init);                                                                               \
        old = use_ctx ? shmem_ctx_##NAME##_atomic_fetch_or(ctx, mine, (T)0x000Fu, right)                               \
                      : shmem_##NAME##_atomic_fetch_or(mine, (T)0x000Fu, right);                                       \
        CHECK(old == (T)(hi | (T)0xF000u), "%s fetch_or (%s) returned %llx", #T, where, (unsigned long long)old);      \
        old = use_ctx ? shmem_ctx_##NAME##_atomic_fetch_xor(ctx, mine, (T)(hi | (T)0x0FFFu), right)                    \
                      : shmem_##NAME##_atomic_fetch_xor(mine, (T)(hi | (T)0x0FFFu), right);                            \
        CHECK(old == (T)(hi | (T)0xF00Fu), "%s fetch_xor (%s) returned %llx", #T, where, (unsigned long long)old);     \
        /* now 0xFFF0; and/or/xor without fetch */                                                                     \
        if (use_ctx) {                                                                                                 \
            shmem_ctx_##NAME##_atomic_and(ctx, mine, (T)0x3FFFu, right);                                               \
            shmem_ctx_##NAME##_atomic_or(ctx, mine, hi, right);                                                        \
            shmem_ctx_##NAME##_atomic_xor(ctx, mine, (T)0x0101u, right);                                               \
        } else {                                                                                                       \
            shmem_##NAME##_atomic_and(mine, (T)0x3FFFu, right);                                                        \
            shmem_##NAME##_atomic_or(mine, hi, right);                                                                 \
            shmem_##NAME##_atomic_xor(mine, (T)0x0101u, right);                                                        \
        }                                                                                                              \
        shmem_quiet();                                                                                                 \
        shmem_barrier_all();                                                                                           \
        T want = (T)(hi | (T)0x3EF1u);                                                                                 \
        CHECK(tgt[left] == want, "%s and/or/xor (%s): %llx want %llx", #T, where, (unsigned long long)tgt[left],       \
              (unsigned long long)want);                                                                               \
        /* contention: each PE ORs its bit in, XORs a toggle twice, then ANDs its bit out of a second word */          \
        T *w = &tgt[MAXPE], *w2 = &tgt[MAXPE + 1];                                                                     \
        if (me == 0)                                                                                                   \
            *w2 = (T) ~(T)0;                                                                                           \
        shmem_barrier_all();                                                                                           \
        T bit = (T)((uint64_t)1 << (me % (sizeof(T) * 8)));                                                            \
        old = shmem_##NAME##_atomic_fetch_or(w, bit, 0);                                                               \
        CHECK((old & bit) == 0, "%s contended fetch_or (%s): bit already set", #T, where);                             \
        shmem_##NAME##_atomic_xor(w, (T)(hi), 0);                                                                      \
        shmem_##NAME##_atomic_xor(w, (T)(hi), 0);                                                                      \
        old = shmem_##NAME##_atomic_fetch_and(w2, (T)~bit, 0);                                                         \
        CHECK((old & bit) == bit, "%s contended fetch_and (%s): bit already clear", #T, where);                        \
        shmem_quiet();                                                                                                 \
        shmem_barrier_all();                                                                                           \
        if (me == 0) {                                                                                                 \
            T all = 0;                                                                                                 \
            for (int pe = 0; pe < npes; pe++)                                                                          \
                all |= (T)((uint64_t)1 << (pe % (sizeof(T) * 8)));                                                     \
            CHECK(*w == all, "%s contended or/xor (%s): %llx want %llx", #T, where, (unsigned long long)*w,            \
                  (unsigned long long)all);                                                                            \
            CHECK(*w2 == (T)~all, "%s contended and (%s): %llx want %llx", #T, where, (unsigned long long)*w2,         \
                  (unsigned long long)(T)~all);                                                                        \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
    }                                                                                                                  \
    static void run_bit_##NAME(void) {                                                                                 \
        T *heap = shmem_malloc(SLOTS * sizeof(T));                                                                     \
        REQUIRE(heap, "shmem_malloc");                                                                                 \
        for (int c = 0; c < 2; c++) {                                                                                  \
            bit_##NAME(heap, "heap", c);                                                                               \
            bit_##NAME(sb_bit_##NAME, "bss", c);                                                                       \
            bit_##NAME(sd_bit_##NAME, "data", c);                                                                      \
        }                                                                                                              \
        shmem_free(heap);                                                                                              \
    }

#define STD_BASE(X)                                                                                                    \
    X(int, int)                                                                                                        \
    X(long, long) X(longlong, long long) X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long)
#if FTEST_HAVE_EXT_AMO_TYPES
#define STD_MORE(X)                                                                                                    \
    X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)
#else
#define STD_MORE(X)
#endif
#define STD_TYPES(X) STD_BASE(X) STD_MORE(X)
#define EXT_TYPES(X) X(float, float) X(double, double) STD_TYPES(X)
#define BIT_TYPES(X)                                                                                                   \
    X(uint, unsigned int)                                                                                              \
    X(ulong, unsigned long)                                                                                            \
    X(ulonglong, unsigned long long) X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t)

STD_TYPES(DEFINE_STD)
EXT_TYPES(DEFINE_EXT)
BIT_TYPES(DEFINE_BIT)

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    REQUIRE(npes <= MAXPE, "too many PEs");
#define RUN_STD(NAME, T) run_std_##NAME();
#define RUN_EXT(NAME, T) run_ext_##NAME();
#define RUN_BIT(NAME, T) run_bit_##NAME();
    STD_TYPES(RUN_STD)
    EXT_TYPES(RUN_EXT)
    BIT_TYPES(RUN_BIT)
    return ftest_finish("amo");
}
