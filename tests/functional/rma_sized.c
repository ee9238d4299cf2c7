/* rma_sized.c - untyped RMA: putmem/getmem (+_nbi, +ctx) over many sizes (0, 1, odd, 1 MiB+) and misaligned
 * offsets with guard bytes, the sized put8..put128/get/iput/iget families, ring and all-to-all patterns,
 * against symmetric-heap and static (.bss/.data) targets. */
#include "ftest.h"

#include <stdint.h>

#define BIG ((size_t)1 << 20)
#define SPAN (BIG + 4096)
#define A2A_BLK 4096
#define MAXPE 64

static unsigned char sbss[SPAN];           /* .bss */
unsigned char sdata[4096 * 4] = {1, 2, 3}; /* .data */
static unsigned char a2a_bss[MAXPE * A2A_BLK];

static int me, npes, right, left;

static inline unsigned char pat(int pe, size_t n, size_t j) { return (unsigned char)(pe * 37 + n * 11 + j * 13 + 5); }

static void check_span(const unsigned char *t, size_t off, size_t n, int pe, const char *what, const char *where) {
    for (size_t j = 0; j < n; j++)
        if (t[off + j] != pat(pe, n, j)) {
            FAIL("%s (%s) size %zu off %zu: byte %zu = %u want %u", what, where, n, off, j, t[off + j], pat(pe, n, j));
            return;
        }
    if (off > 0)
        CHECK(t[off - 1] == 0xEE, "%s (%s) size %zu: byte before target overwritten (%u)", what, where, n, t[off - 1]);
    CHECK(t[off + n] == 0xEE, "%s (%s) size %zu off %zu: byte after target overwritten (%u)", what, where, n, off,
          t[off + n]);
}

static void test_mem(unsigned char *tgt, size_t cap, const char *where) {
    static const size_t sizes[] = {0,  1,   2,   3,   7,    8,    9,    15,   16,    17,    31,      63,  64,
                                   65, 127, 255, 256, 1000, 4095, 4096, 4097, 65535, 65537, BIG - 1, BIG, BIG + 3};
    unsigned char *src = malloc(SPAN), *loc = malloc(SPAN);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t off = 0; off < 4; off += 3) {
            size_t n = sizes[s];
            if (off + n + 1 > cap)
                continue;
            for (size_t j = 0; j < n; j++)
                src[j] = pat(me, n, j);
            memset(tgt, 0xEE, off + n + 1);
            shmem_barrier_all();
            int variant = (int)((s + off) % 3);
            if (variant == 0) {
                shmem_putmem(tgt + off, src, n, right);
            } else if (variant == 1) {
                shmem_putmem_nbi(tgt + off, src, n, right);
                shmem_quiet();
            } else {
                shmem_ctx_putmem(SHMEM_CTX_DEFAULT, tgt + off, src, n, right);
            }
            shmem_barrier_all();
            check_span(tgt, off, n, left, variant == 0 ? "putmem" : variant == 1 ? "putmem_nbi" : "ctx_putmem", where);
            /* get back what the right neighbour received (it came from me), into a guarded private buffer */
            memset(loc, 0xEE, off + n + 1);
            if (variant == 0) {
                shmem_getmem(loc + off, tgt + off, n, right);
            } else if (variant == 1) {
                shmem_getmem_nbi(loc + off, tgt + off, n, right);
                shmem_quiet();
            } else {
                shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, loc + off, tgt + off, n, right);
                shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
            }
            check_span(loc, off, n, me,
                       variant == 0   ? "getmem"
                       : variant == 1 ? "getmem_nbi"
                                      : "ctx_getmem_nbi",
                       where);
            shmem_barrier_all();
        }
    free(src);
    free(loc);
}

/* sized families: element of BITS/8 bytes */
#define DEFINE_SIZED(BITS)                                                                                             \
    static void test_sized_##BITS(unsigned char *tgt, const char *where) {                                             \
        const size_t es = BITS / 8, n = 9;                                                                             \
        unsigned char src[9 * 16 * 3], loc[9 * 16 * 3];                                                                \
        for (size_t j = 0; j < sizeof src; j++)                                                                        \
            src[j] = pat(me, BITS, j);                                                                                 \
        memset(tgt, 0xEE, sizeof src + 1);                                                                             \
        shmem_barrier_all();                                                                                           \
        shmem_put##BITS(tgt, src, n, right);                                                                           \
        shmem_barrier_all();                                                                                           \
        for (size_t j = 0; j < n * es; j++)                                                                            \
            if (tgt[j] != pat(left, BITS, j)) {                                                                        \
                FAIL("put%d (%s) byte %zu = %u", BITS, where, j, tgt[j]);                                              \
                break;                                                                                                 \
            }                                                                                                          \
        CHECK(tgt[n * es] == 0xEE, "put%d (%s) wrote past the end", BITS, where);                                      \
        memset(loc, 0xEE, sizeof loc);                                                                                 \
        shmem_get##BITS(loc, tgt, n, right);                                                                           \
        for (size_t j = 0; j < n * es; j++)                                                                            \
            if (loc[j] != pat(me, BITS, j)) {                                                                          \
                FAIL("get%d (%s) byte %zu = %u", BITS, where, j, loc[j]);                                              \
                break;                                                                                                 \
            }                                                                                                          \
        CHECK(loc[n * es] == 0xEE, "get%d (%s) wrote past the end", BITS, where);                                      \
        /* nbi forms */                                                                                                \
        shmem_barrier_all();                                                                                           \
        memset(tgt, 0xEE, sizeof src + 1);                                                                             \
        shmem_barrier_all();                                                                                           \
        shmem_put##BITS##_nbi(tgt, src + es, n, right);                                                                \
        shmem_quiet();                                                                                                 \
        shmem_barrier_all();                                                                                           \
        for (size_t j = 0; j < n * es; j++)                                                                            \
            if (tgt[j] != pat(left, BITS, j + es)) {                                                                   \
                FAIL("put%d_nbi (%s) byte %zu = %u", BITS, where, j, tgt[j]);                                          \
                break;                                                                                                 \
            }                                                                                                          \
        memset(loc, 0xEE, sizeof loc);                                                                                 \
        shmem_get##BITS##_nbi(loc, tgt, n, right);                                                                     \
        shmem_quiet();                                                                                                 \
        for (size_t j = 0; j < n * es; j++)                                                                            \
            if (loc[j] != pat(me, BITS, j + es)) {                                                                     \
                FAIL("get%d_nbi (%s) byte %zu = %u", BITS, where, j, loc[j]);                                          \
                break;                                                                                                 \
            }                                                                                                          \
        /* iput: target stride 3, source stride 2 (in elements), 7 elements; gaps untouched */                         \
        shmem_barrier_all();                                                                                           \
        memset(tgt, 0xEE, sizeof src + 1);                                                                             \
        shmem_barrier_all();                                                                                           \
        shmem_iput##BITS(tgt, src, 3, 2, 7, right);                                                                    \
        shmem_barrier_all();                                                                                           \
        for (size_t e = 0; e < 21; e++)                                                                                \
            for (size_t b = 0; b < es; b++) {                                                                          \
                unsigned char want = (e % 3 == 0) ? pat(left, BITS, (e / 3) * 2 * es + b) : 0xEE;                      \
                if (tgt[e * es + b] != want) {                                                                         \
                    FAIL("iput%d (%s) elem %zu byte %zu = %u want %u", BITS, where, e, b, tgt[e * es + b], want);      \
                    e = 21;                                                                                            \
                    break;                                                                                             \
                }                                                                                                      \
            }                                                                                                          \
        /* iget: from the right neighbour's tgt at stride 3 into loc at stride 1 */                                    \
        memset(loc, 0xEE, sizeof loc);                                                                                 \
        shmem_iget##BITS(loc, tgt, 1, 3, 7, right);                                                                    \
        for (size_t e = 0; e < 8; e++)                                                                                 \
            for (size_t b = 0; b < es; b++) {                                                                          \
                unsigned char want = e < 7 ? pat(me, BITS, e * 2 * es + b) : 0xEE;                                     \
                if (loc[e * es + b] != want) {                                                                         \
                    FAIL("iget%d (%s) elem %zu byte %zu = %u want %u", BITS, where, e, b, loc[e * es + b], want);      \
                    e = 8;                                                                                             \
                    break;                                                                                             \
                }                                                                                                      \
            }                                                                                                          \
        /* ctx forms */                                                                                                \
        shmem_barrier_all();                                                                                           \
        shmem_ctx_put##BITS(SHMEM_CTX_DEFAULT, tgt, src + 2 * es, n, right);                                           \
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                                            \
        shmem_barrier_all();                                                                                           \
        memset(loc, 0xEE, sizeof loc);                                                                                 \
        shmem_ctx_get##BITS(SHMEM_CTX_DEFAULT, loc, tgt, n, right);                                                    \
        for (size_t j = 0; j < n * es; j++)                                                                            \
            if (loc[j] != pat(me, BITS, j + 2 * es)) {                                                                 \
                FAIL("ctx_put%d/ctx_get%d (%s) byte %zu = %u", BITS, BITS, where, j, loc[j]);                          \
                break;                                                                                                 \
            }                                                                                                          \
        shmem_barrier_all();                                                                                           \
    }
DEFINE_SIZED(8)
DEFINE_SIZED(16)
DEFINE_SIZED(32)
DEFINE_SIZED(64)
DEFINE_SIZED(128)

static void test_sized(unsigned char *tgt, const char *where) {
    test_sized_8(tgt, where);
    test_sized_16(tgt, where);
    test_sized_32(tgt, where);
    test_sized_64(tgt, where);
    test_sized_128(tgt, where);
}

/* every PE writes its block into slot `me` on every PE (itself included), by put, put_nbi or get */
static void test_alltoall(unsigned char *slots, const char *where) {
    unsigned char blk[A2A_BLK];
    for (int round = 0; round < 3; round++) {
        memset(slots, 0, (size_t)npes * A2A_BLK);
        for (size_t j = 0; j < A2A_BLK; j++)
            blk[j] = pat(me, round, j);
        shmem_barrier_all();
        if (round == 2) { /* pull: get every peer's own block (they fill their own slot) */
            memcpy(slots + (size_t)me * A2A_BLK, blk, A2A_BLK);
            shmem_barrier_all();
            for (int k = 0; k < npes; k++) {
                int pe = (me + k) % npes;
                if (pe != me)
                    shmem_getmem(slots + (size_t)pe * A2A_BLK, slots + (size_t)pe * A2A_BLK, A2A_BLK, pe);
            }
        } else {
            for (int k = 0; k < npes; k++) {
                int pe = (me + k) % npes; /* staggered start so PEs do not all hit PE 0 first */
                if (round == 0)
                    shmem_putmem(slots + (size_t)me * A2A_BLK, blk, A2A_BLK, pe);
                else
                    shmem_putmem_nbi(slots + (size_t)me * A2A_BLK, blk, A2A_BLK, pe);
            }
            if (round == 1)
                shmem_quiet();
        }
        shmem_barrier_all();
        for (int pe = 0; pe < npes; pe++)
            for (size_t j = 0; j < A2A_BLK; j++)
                if (slots[(size_t)pe * A2A_BLK + j] != pat(pe, round, j)) {
                    FAIL("all-to-all round %d (%s): slot of PE %d byte %zu = %u want %u", round, where, pe, j,
                         slots[(size_t)pe * A2A_BLK + j], pat(pe, round, j));
                    break;
                }
        shmem_barrier_all();
    }
}

/* many small non-blocking puts in flight, one quiet */
static void test_many_nbi(long *tgt, const char *where) {
    enum { M = 2000 };
    static long src[M];
    for (int i = 0; i < M; i++) {
        tgt[i] = -1;
        src[i] = (long)me * M + i;
    }
    shmem_barrier_all();
    for (int i = 0; i < M; i++)
        shmem_long_put_nbi(&tgt[i], &src[i], 1, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < M; i++)
        if (tgt[i] != (long)left * M + i) {
            FAIL("many put_nbi (%s): elem %d = %ld want %ld", where, i, tgt[i], (long)left * M + i);
            break;
        }
    shmem_barrier_all();
}

static long many_bss[2000];

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    REQUIRE(npes <= MAXPE, "too many PEs");

    unsigned char *heap = shmem_malloc(SPAN);
    REQUIRE(heap, "shmem_malloc(%zu)", (size_t)SPAN);
    test_mem(heap, SPAN, "heap");
    test_mem(sbss, SPAN, "bss");
    test_mem(sdata, sizeof sdata, "data");

    test_sized(heap + 64, "heap");
    test_sized(sbss + 8, "bss");
    test_sized(sdata, "data");

    test_alltoall(heap, "heap");
    test_alltoall(a2a_bss, "bss");

    test_many_nbi((long *)heap, "heap");
    test_many_nbi(many_bss, "bss");

    shmem_free(heap);
    return ftest_finish("rma_sized");
}
