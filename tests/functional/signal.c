/* signal.c - OpenSHMEM 1.5 put-with-signal: put_signal / put_signal_nbi (typed, sized, mem, ctx) with
 * SHMEM_SIGNAL_SET and SHMEM_SIGNAL_ADD, shmem_signal_fetch, shmem_signal_wait_until; every byte of a large
 * payload must be visible once the signal is seen. Signals in heap, .bss and .data. */
#include "ftest.h"

#include <stdint.h>

#define BIG ((size_t)1 << 20)
#define ROUNDS 40

#if FTEST_HAVE_15
static int me, npes, right, left;
static uint64_t sig_bss[4];
uint64_t sig_data[4] = {0, 0, 7, 0};
static unsigned char pay_bss[BIG];

static inline unsigned char pat(int pe, int round, size_t j) {
    return (unsigned char)(pe * 29 + round * 7 + j * 3 + 1);
}

/* ring: each PE sends its payload to the right neighbour with a SET signal = round+1, waits for its own */
static void ring_set(unsigned char *pay, uint64_t *sig, size_t n, const char *where) {
    unsigned char *src = malloc(n);
    *sig = 0;
    shmem_barrier_all();
    for (int r = 0; r < ROUNDS; r++) {
        size_t len = (r % 4 == 3) ? n : (size_t)(r * 131 + 1) % n + 1;
        for (size_t j = 0; j < len; j++)
            src[j] = pat(me, r, j);
        switch (r % 4) {
        case 0: shmem_putmem_signal(pay, src, len, sig, (uint64_t)r + 1, SHMEM_SIGNAL_SET, right); break;
        case 1: shmem_putmem_signal_nbi(pay, src, len, sig, (uint64_t)r + 1, SHMEM_SIGNAL_SET, right); break;
        case 2:
            shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, pay, src, len, sig, (uint64_t)r + 1, SHMEM_SIGNAL_SET, right);
            break;
        default:
            shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, pay, src, len, sig, (uint64_t)r + 1, SHMEM_SIGNAL_SET,
                                        right);
            break;
        }
        uint64_t s = shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r + 1);
        CHECK(s == (uint64_t)r + 1, "signal_wait_until (%s) round %d returned %llu", where, r, (unsigned long long)s);
        CHECK(shmem_signal_fetch(sig) == (uint64_t)r + 1, "signal_fetch (%s) round %d", where, r);
        for (size_t j = 0; j < len; j++)
            if (pay[j] != pat(left, r, j)) {
                FAIL("payload (%s) round %d len %zu: byte %zu = %u want %u when the signal was seen", where, r, len, j,
                     pay[j], pat(left, r, j));
                break;
            }
        shmem_quiet();       /* our own nbi source buffer is reused next round */
        shmem_barrier_all(); /* the payload is overwritten next round */
    }
    free(src);
}

/* all PEs send to PE 0 with ADD signals: each sender's slot must be complete when the sum covers it */
static void fan_in_add(long *slots, uint64_t *sig, const char *where) {
    enum { M = 512 };
    long src[M];
    if (me == 0) {
        *sig = 0;
        memset(slots, 0, (size_t)npes * M * sizeof(long));
    }
    shmem_barrier_all();
    for (int j = 0; j < M; j++)
        src[j] = (long)me * 100000 + j;
    if (me % 2)
        shmem_long_put_signal(slots + (size_t)me * M, src, M, sig, 1, SHMEM_SIGNAL_ADD, 0);
    else
        shmem_long_put_signal_nbi(slots + (size_t)me * M, src, M, sig, 1, SHMEM_SIGNAL_ADD, 0);
    shmem_quiet();
    if (me == 0) {
        shmem_signal_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)npes);
        for (int pe = 0; pe < npes; pe++)
            for (int j = 0; j < M; j++)
                if (slots[(size_t)pe * M + j] != (long)pe * 100000 + j) {
                    FAIL("fan-in ADD (%s): slot of PE %d elem %d = %ld", where, pe, j, slots[(size_t)pe * M + j]);
                    break;
                }
        CHECK(shmem_signal_fetch(sig) == (uint64_t)npes, "fan-in ADD (%s): signal %llu want %d", where,
              (unsigned long long)shmem_signal_fetch(sig), npes);
    }
    shmem_barrier_all();
}

/* typed and sized forms, one each */
static void forms(void) {
    static int ib[16];
    static double db[16];
    static uint64_t s64[8];
    static uint32_t u32[16];
    int isrc[16];
    double dsrc[16];
    uint32_t usrc[16];
    for (int j = 0; j < 16; j++) {
        isrc[j] = -(me * 16 + j);
        dsrc[j] = me + j / 4.0;
        usrc[j] = 0xABCD0000u + me * 16 + j;
    }
    for (int k = 0; k < 3; k++)
        s64[k] = 0;
    shmem_barrier_all();
    shmem_int_put_signal(ib, isrc, 16, &s64[0], 5, SHMEM_SIGNAL_SET, right);
    shmem_ctx_double_put_signal_nbi(SHMEM_CTX_DEFAULT, db, dsrc, 16, &s64[1], 3, SHMEM_SIGNAL_ADD, right);
    shmem_put32_signal(u32, usrc, 16, &s64[2], 9, SHMEM_SIGNAL_SET, right);
    shmem_quiet();
    shmem_signal_wait_until(&s64[0], SHMEM_CMP_EQ, 5);
    shmem_signal_wait_until(&s64[1], SHMEM_CMP_EQ, 3);
    shmem_signal_wait_until(&s64[2], SHMEM_CMP_NE, 0);
    for (int j = 0; j < 16; j++) {
        CHECK(ib[j] == -(left * 16 + j), "int_put_signal elem %d = %d", j, ib[j]);
        CHECK(db[j] == left + j / 4.0, "ctx_double_put_signal_nbi elem %d = %g", j, db[j]);
        CHECK(u32[j] == 0xABCD0000u + left * 16 + j, "put32_signal elem %d = %x", j, u32[j]);
    }
    CHECK(s64[2] == 9, "put32_signal signal %llu", (unsigned long long)s64[2]);
    /* zero-length payload still delivers the signal */
    shmem_barrier_all();
    shmem_putmem_signal(ib, isrc, 0, &s64[3], 77, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&s64[3], SHMEM_CMP_EQ, 77);
    shmem_barrier_all();
}

/* Many put-with-signals of a few KiB from private contexts (each may have its own endpoint and send buffers), the
 * contexts destroyed, then as many again from the default context: every payload whole when its signal counts it. */
static void ctx_stream(unsigned char *pay, uint64_t *sig) {
    enum { N = 80, LEN = 2000 };
    unsigned char src[LEN];
    *sig = 0;
    memset(pay, 0, (size_t)N * LEN);
    shmem_barrier_all();
    for (int phase = 0; phase < 3; phase++) {
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
        if (phase < 2 && shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx))
            ctx = SHMEM_CTX_DEFAULT;
        for (int k = 0; k < N; k++) {
            memset(src, (unsigned char)(me * 37 + phase * 11 + k), LEN);
            shmem_ctx_putmem_signal_nbi(ctx, pay + (size_t)k * LEN, src, LEN, sig, 1, SHMEM_SIGNAL_ADD, right);
        }
        if (ctx != SHMEM_CTX_DEFAULT)
            shmem_ctx_destroy(ctx); /* completes what the context sent */
        else
            shmem_quiet();
        shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)N * (phase + 1));
        for (int k = 0; k < N; k++)
            for (int j = 0; j < LEN; j += 499)
                if (pay[(size_t)k * LEN + j] != (unsigned char)(left * 37 + phase * 11 + k)) {
                    FAIL("context stream phase %d message %d byte %d = %u", phase, k, j, pay[(size_t)k * LEN + j]);
                    k = N;
                    break;
                }
        shmem_barrier_all(); /* the payload is overwritten next phase */
    }
    CHECK(*sig == 3 * N, "context stream: signal %llu want %d", (unsigned long long)*sig, 3 * N);
    shmem_barrier_all();
}
#endif

int main(void) {
    shmem_init();
#if !FTEST_HAVE_15
    return ftest_skip("signals are OpenSHMEM 1.5");
#else
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    unsigned char *pay = shmem_malloc(BIG);
    uint64_t *sig = shmem_malloc(2 * sizeof(uint64_t));
    long *slots = shmem_calloc((size_t)npes * 512, sizeof(long));
    REQUIRE(pay && sig && slots, "shmem_malloc");
    ring_set(pay, &sig[1], BIG, "heap payload, heap signal");
    ring_set(pay_bss, &sig_bss[2], BIG, "bss payload, bss signal");
    ring_set(pay, &sig_data[3], 4096, "heap payload, data signal");
    fan_in_add(slots, &sig[0], "heap");
    fan_in_add(slots, &sig_data[2], "data signal");
    forms();
    ctx_stream(pay, &sig[1]);
    shmem_free(pay);
    shmem_free(sig);
    shmem_free(slots);
    return ftest_finish("signal");
#endif
}
