/* gpu_amo_threads.c - host threads of every PE (SHMEM_THREAD_MULTIPLE) hammer one int64 word of each PE's GPU heap
 * with shmem_int64_atomic_add and another with shmem_int64_atomic_fetch_add: no update may be lost, and no two
 * fetch_adds on a word may see the same old value. Skips (77) without GPU support or MULTIPLE. */
#include <shmemg.h>
#include <shmemx.h>
#include <stdint.h>

#include "../common/thread_run.h"

#define NT 8
#define ITERS 200
#define MAXPE 16

static int me, npes;
static int64_t *word; /* GPU heap: [0] takes the adds, [1] the fetch_adds */
/* seen[v] on PE t: how many fetch_adds on PE t's word[1] returned v (each must be exactly once) */
static long seen[MAXPE * NT * ITERS];
static pthread_barrier_t start;

static void *worker(void *arg) {
    int t = (int)(long)arg;
    pthread_barrier_wait(&start); /* all threads at once: the contention is the point */
    for (int i = 0; i < ITERS; i++)
        for (int k = 1; k <= npes; k++) {
            int pe = (me + k) % npes;
            shmem_int64_atomic_add(&word[0], t + 1, pe);
            int64_t old = shmem_int64_atomic_fetch_add(&word[1], 1, pe);
            if (old < 0 || old >= (int64_t)npes * NT * ITERS)
                FAIL("fetch_add on PE %d returned %lld, outside [0, %d)", pe, (long long)old, npes * NT * ITERS);
            else
                shmem_long_atomic_inc(&seen[old], pe);
        }
    shmem_quiet();
    return NULL;
}

int main(void) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_HOST_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_HOST_INIT))
        return ftest_skip("no GPU support: SHMEM_DEVICE_HOST_INIT was not provided (shmem_info says why)");
    if ((provided & 3) != SHMEM_THREAD_MULTIPLE)
        return ftest_skip("SHMEM_THREAD_MULTIPLE not provided");
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAXPE)
        return ftest_skip("more PEs than this test counts for");
    /* calloc zeroes before its closing barrier: no peer's update can arrive before the zeroing */
    word = shmemg_calloc(2, sizeof *word);
    REQUIRE(word, "shmemg_calloc");
    gt_run_threads(NT, worker, &start);
    shmem_barrier_all();

    const int64_t adds = (int64_t)npes * ITERS * (NT * (NT + 1) / 2), fadds = (int64_t)npes * NT * ITERS;
    int64_t got0 = shmem_int64_atomic_fetch(&word[0], me), got1 = shmem_int64_atomic_fetch(&word[1], me);
    CHECK(got0 == adds, "atomic_add: word is %lld, expected %lld (%lld lost)", (long long)got0, (long long)adds,
          (long long)(adds - got0));
    CHECK(got1 == fadds, "atomic_fetch_add: word is %lld, expected %lld (%lld lost)", (long long)got1, (long long)fadds,
          (long long)(fadds - got1));
    int dup = 0, missing = 0;
    for (int64_t v = 0; v < fadds; v++) {
        dup += seen[v] > 1;
        missing += seen[v] == 0;
    }
    CHECK(!dup && !missing, "atomic_fetch_add: %d old values returned more than once, %d never", dup, missing);
    shmem_barrier_all();
    shmemg_free(word);
    return ftest_finish("gpu_amo_threads");
}
