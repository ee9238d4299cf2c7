/* ordering.c - the memory model: fence orders puts to one PE (data then flag), quiet completes puts so that a
 * third PE's get sees them, p + wait_until message passing, AMO-after-put / store-after-AMO ordering, and a put
 * after an AMO or a put-with-signal with a fence between. */
#include "ftest.h"

#include <stdint.h>

#define ITERS 300
#define DLEN 256

static int me, npes, right, left;
static long data_bss[DLEN];
static long flag_bss;
long flag_data = -1;
static long box[4];

/* data (several sizes) then fence then flag; the receiver waits for the flag and checks all data */
static void fence_order(long *data, long *flag, const char *where) {
    long src[DLEN];
    if (flag == &flag_data)
        flag_data = 0;
    *flag = 0;
    shmem_barrier_all();
    for (int it = 1; it <= ITERS; it++) {
        size_t n = (size_t)(it * 37) % DLEN + 1;
        for (size_t j = 0; j < n; j++)
            src[j] = (long)it * 1000 + me * 7 + (long)j;
        if (it % 2)
            shmem_long_put(data, src, n, right);
        else
            shmem_long_put_nbi(data, src, n, right);
        shmem_fence();
        shmem_long_p(flag, it, right);
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, it);
        for (size_t j = 0; j < n; j++)
            if (data[j] != (long)it * 1000 + left * 7 + (long)j) {
                FAIL("fence (%s) iteration %d: data[%zu]=%ld want %ld after flag", where, it, j, data[j],
                     (long)it * 1000 + left * 7 + (long)j);
                it = ITERS;
                break;
            }
        shmem_barrier_all(); /* the sender overwrites data next iteration; one round trip per iteration */
    }
}

/* quiet: PE a puts to PE b, quiets, tells PE c (AMO); PE c then gets from PE b and must see the data */
static void quiet_third_party(long *data, const char *where) {
    if (npes < 3)
        return;
    for (int it = 1; it <= 50; it++) {
        int a = it % npes, b = (a + 1) % npes, c = (a + 2) % npes;
        long src[DLEN];
        box[0] = 0;
        shmem_barrier_all();
        if (me == a) {
            for (int j = 0; j < DLEN; j++)
                src[j] = it * 10000L + j;
            shmem_long_put_nbi(data, src, DLEN, b);
            shmem_quiet();
            shmem_long_atomic_set(&box[0], it, c);
        } else if (me == c) {
            shmem_long_wait_until(&box[0], SHMEM_CMP_EQ, it);
            long got[DLEN];
            shmem_long_get(got, data, DLEN, b);
            for (int j = 0; j < DLEN; j++)
                if (got[j] != it * 10000L + j) {
                    FAIL("quiet (%s) iteration %d: PE %d saw PE %d's data[%d]=%ld from PE %d", where, it, c, b, j,
                         got[j], a);
                    break;
                }
        }
        shmem_barrier_all();
    }
}

/* message passing ping-pong with p and wait_until */
static void ping_pong(void) {
    static long ball;
    ball = 0;
    shmem_barrier_all();
    /* token passes around the ring: PE k waits for value v, sends v+1 to the right */
    int rounds = 100;
    for (int r = 0; r < rounds; r++) {
        long want = (long)r * npes + me;
        if (!(r == 0 && me == 0))
            shmem_long_wait_until(&ball, SHMEM_CMP_GE, want);
        CHECK(ball == want || (r == 0 && me == 0), "ring token round %d: %ld want %ld", r, ball, want);
        if (r == rounds - 1 && me == npes - 1)
            break;
        shmem_long_p(&ball, want + 1, right);
    }
    shmem_barrier_all();
}

/* a put then a fence then an AMO to the same PE: the AMO's target sees the put when it sees the AMO */
static void put_then_amo(long *data) {
    static long counter;
    counter = 0;
    for (int j = 0; j < DLEN; j++)
        data[j] = 0;
    shmem_barrier_all();
    for (int it = 1; it <= ITERS; it++) {
        shmem_long_p(&data[me % DLEN], it, 0);
        shmem_fence();
        shmem_long_atomic_inc(&counter, 0);
        if (me == 0) {
            shmem_long_wait_until(&counter, SHMEM_CMP_GE, (long)it * npes);
            for (int pe = 0; pe < npes && pe < DLEN; pe++)
                if (data[pe] < it) {
                    FAIL("put;fence;AMO iteration %d: data from PE %d = %ld when the counter was %ld", it, pe, data[pe],
                         counter);
                    it = ITERS;
                    break;
                }
        }
        shmem_barrier_all();
    }
    /* store after a fetching AMO: the AMO's return value is complete before the next store is issued */
    box[1] = 0;
    box[2] = 0;
    shmem_barrier_all();
    for (int it = 1; it <= 100; it++) {
        if (me == 1 % npes) {
            long v = shmem_long_atomic_fetch_add(&box[1], 1, 0);
            shmem_long_p(&box[2], v + 1, 0); /* published after the AMO completed */
        }
        if (me == 0) {
            shmem_long_wait_until(&box[2], SHMEM_CMP_EQ, it);
            long a = shmem_long_atomic_fetch(&box[1], 0);
            CHECK(a >= it, "store-after-AMO iteration %d: counter %ld behind the published value", it, a);
        }
        shmem_barrier_all();
    }
}

/* an AMO then a fence then a put to the same word, and the same after a put-with-signal (its data word, then its
 * signal word): the put lands last. A transport that applies AMOs or signals on the target later than the
 * fabric places writes must not let the put overtake them. */
static void amo_then_put(long *heap) {
    enum { WORDS = 64, ROUNDS = 8 };
    long *w = heap, *d = heap + WORDS;
    uint64_t *sig = (uint64_t *)(void *)(heap + 2 * WORDS);
    int to = right;
    for (int r = 0; r < ROUNDS; r++) {
        for (int j = 0; j < WORDS; j++)
            w[j] = d[j] = 0;
        sig[0] = 0;
        shmem_barrier_all();
        for (int j = 0; j < WORDS; j++) {
            long amo = 1000 * r + 2 * j + 1, put = amo + 1;
            if (j % 2)
                shmem_long_atomic_set(&w[j], amo, to);
            else
                shmem_long_atomic_add(&w[j], amo, to);
            shmem_fence();
            shmem_long_p(&w[j], put, to);
            shmem_putmem_signal(&d[j], &amo, sizeof amo, sig, (uint64_t)amo, SHMEM_SIGNAL_SET, to);
            shmem_fence();
            shmem_long_p(&d[j], put, to);
            shmem_long_p((long *)sig, put, to);
        }
        shmem_quiet();
        shmem_barrier_all();
        for (int j = 0; j < WORDS; j++) {
            long want = 1000 * r + 2 * j + 2;
            if (w[j] != want || d[j] != want) {
                FAIL("AMO;fence;put round %d word %d: %ld and %ld after put-with-signal, want %ld (the put was "
                     "overtaken)",
                     r, j, w[j], d[j], want);
                break;
            }
        }
        CHECK((long)sig[0] == 1000 * r + 2 * (WORDS - 1) + 2, "put-with-signal;fence;put round %d: signal %ld", r,
              (long)sig[0]);
        shmem_barrier_all();
    }
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    long *heap = shmem_malloc((DLEN + 8) * sizeof(long));
    REQUIRE(heap, "shmem_malloc");
    fence_order(heap, heap + DLEN, "heap data, heap flag");
    fence_order(data_bss, &flag_bss, "bss data, bss flag");
    fence_order(heap, &flag_data, "heap data, data flag");
    quiet_third_party(heap, "heap");
    quiet_third_party(data_bss, "bss");
    ping_pong();
    put_then_amo(heap);
    amo_then_put(heap);
    shmem_free(heap);
    return ftest_finish("ordering");
}
