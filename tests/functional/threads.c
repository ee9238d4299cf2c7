/* threads.c - SHMEM_THREAD_MULTIPLE: several pthreads per PE issue puts, gets and AMOs at once (to the heap and
 * to static data) and call quiet; results must be exact. Then each thread hands rounds of data to its partner thread
 * on the next PE: put, quiet, flag; the partner waits for the flag and reads the data in place. The threads share the
 * default context, so one thread's quiet runs while another's puts are in flight and must still cover them when that
 * thread quiets. Skips if the library does not provide MULTIPLE. */
#include "ftest.h"

#include "../common/thread_run.h"

#define NTHREADS 4
#define ITERS 500
#define MAXPE 64
#define HANDS 200

static int me, npes;
static long counter;                          /* on PE 0: every thread of every PE adds */
static long cells_bss[MAXPE * NTHREADS * 16]; /* slot per (PE, thread) */
static long *cells_heap;
static long *hand_heap;                  /* [left PE][thread][16]: data handed over */
static long hand_flag[MAXPE * NTHREADS]; /* [left PE][thread]: the last round handed over */
static long hand_ack[MAXPE * NTHREADS];  /* [right PE][thread]: the last round read there */

static void *worker(void *arg) {
    int t = (int)(long)arg;
    int right = (me + 1) % npes;
    long *mine_heap = cells_heap + ((size_t)me * NTHREADS + t) * 16;
    long *mine_bss = cells_bss + ((size_t)me * NTHREADS + t) * 16;
    for (int i = 1; i <= ITERS; i++) {
        long src[16];
        for (int j = 0; j < 16; j++)
            src[j] = (long)i * 1000 + t * 16 + j;
        shmem_long_put(mine_heap, src, 16, right);
        shmem_long_put_nbi(mine_bss, src, 16, right);
        shmem_long_atomic_add(&counter, 1, 0);
        if (i % 50 == 0) {
            shmem_quiet();
            long back[16];
            shmem_long_get(back, mine_bss, 16, right);
            for (int j = 0; j < 16; j++)
                if (back[j] != src[j]) {
                    FAIL("thread %d iteration %d: get after quiet elem %d = %ld want %ld", t, i, j, back[j], src[j]);
                    break;
                }
        }
    }
    shmem_quiet();
    /* hand-overs: round r's data is complete once its flag says r; the next round waits for the partner's ack */
    int left = (me + npes - 1) % npes;
    long *out = hand_heap + ((size_t)me * NTHREADS + t) * 16, *in = hand_heap + ((size_t)left * NTHREADS + t) * 16;
    for (long r = 1, bad = 0; r <= HANDS; r++) {
        long src[16];
        shmem_long_wait_until(&hand_ack[right * NTHREADS + t], SHMEM_CMP_GE, r - 1);
        for (int j = 0; j < 16; j++)
            src[j] = r * 100 + j;
        shmem_long_put(out, src, 16, right);
        shmem_quiet();
        shmem_long_atomic_set(&hand_flag[me * NTHREADS + t], r, right);
        shmem_long_wait_until(&hand_flag[left * NTHREADS + t], SHMEM_CMP_GE, r);
        for (int j = 0; j < 16; j++)
            if (in[j] != r * 100 + j && !bad++) /* (report one, go on: the partners wait for every round) */
                FAIL("thread %d round %ld: data from PE %d [%d] = %ld after its flag (a quiet returned early)", t, r,
                     left, j, in[j]);
        shmem_long_atomic_set(&hand_ack[me * NTHREADS + t], r, left);
    }
    return NULL;
}

int main(void) {
    int skip = gt_init_thread_multiple(&me, &npes);
    if (skip)
        return skip;
    REQUIRE(npes <= MAXPE, "too many PEs");
    cells_heap = shmem_calloc((size_t)MAXPE * NTHREADS * 16, sizeof(long));
    hand_heap = shmem_calloc((size_t)MAXPE * NTHREADS * 16, sizeof(long));
    REQUIRE(cells_heap && hand_heap, "shmem_calloc");
    shmem_barrier_all();
    gt_run_threads(NTHREADS, worker, NULL);
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    for (int t = 0; t < NTHREADS; t++)
        for (int j = 0; j < 16; j++) {
            long want = (long)ITERS * 1000 + t * 16 + j;
            size_t k = ((size_t)left * NTHREADS + t) * 16 + j;
            CHECK(cells_heap[k] == want, "heap cell of PE %d thread %d [%d] = %ld want %ld", left, t, j, cells_heap[k],
                  want);
            CHECK(cells_bss[k] == want, "bss cell of PE %d thread %d [%d] = %ld want %ld", left, t, j, cells_bss[k],
                  want);
        }
    if (me == 0)
        CHECK(counter == (long)npes * NTHREADS * ITERS, "counter %ld want %ld", counter, (long)npes * NTHREADS * ITERS);
    shmem_barrier_all();
    shmem_free(hand_heap);
    shmem_free(cells_heap);
    return ftest_finish("threads");
}
