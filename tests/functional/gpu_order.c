/* gpu_order.c - the GPU auxiliary spec's ordering rules for host-initiated operations on GPU memory, one test each,
 * and one exchange that mixes them:
 *  - fence orders puts within one memory domain (data and flag both in the GPU heap);
 *  - quiet orders across domains (GPU data, then a flag in host memory);
 *  - a barrier completes updates in both domains;
 *  - put-with-signal across domains (GPU data with a host signal, host data with a GPU signal);
 *  - host and GPU sources into one GPU-heap destination.
 * Each PE writes to its right neighbour, many rounds with fresh values, and the neighbour checks what it sees once
 * the flag arrives. Skips (77) without GPU support; gpuemu_gpu_order runs it on the emulated GPU. */
#include <shmemg.h>
#include <shmemx.h>
#include <stdint.h>

#include "ftest.h"

#define N 512
#define ROUNDS 50

static int me, npes, right, left;
static long seen[N];

static long val(int pe, int round, int i) { return (long)pe * 1000000 + (long)round * 1000 + i; }

/* checks the GPU buffer dev (this PE's copy) holds left's values of this round */
static void check_from_left(const long *dev, int round, const char *rule) {
    shmem_long_get(seen, dev, N, me);
    for (int i = 0, bad = 0; i < N && bad < 3; i++)
        if (seen[i] != val(left, round, i)) {
            FAIL("%s, round %d: element %d is %ld, expected %ld", rule, round, i, seen[i], val(left, round, i));
            bad++;
        }
}

int main(void) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_HOST_INIT))
        return ftest_skip("no GPU support: SHMEM_DEVICE_HOST_INIT was not provided (shmem_info says why)");
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (npes < 2)
        return ftest_skip("needs 2 or more PEs");

    long *ddata = shmemg_malloc(N * sizeof(long));
    long *dflag = shmemg_calloc(1, sizeof(long));
    uint64_t *dsig = shmemg_calloc(1, sizeof(uint64_t));
    long *hdata = shmem_malloc(N * sizeof(long));
    long *hflag = shmem_calloc(1, sizeof(long));
    uint64_t *hsig = shmem_calloc(1, sizeof(uint64_t));
    long *dsrc = shmemg_malloc(N * sizeof(long));
    static long src[N];
    REQUIRE(ddata && dflag && dsig && hdata && hflag && hsig && dsrc, "allocations failed");
    shmem_barrier_all();

    /* fence within the GPU domain: data, fence, flag, both in the neighbour's GPU heap */
    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            src[i] = val(me, r, i);
        shmem_long_put(ddata, src, N, right);
        shmem_fence();
        shmem_long_p(dflag, r, right);
        shmem_long_wait_until(dflag, SHMEM_CMP_GE, r);
        check_from_left(ddata, r, "fence (GPU data, GPU flag)");
        shmem_barrier_all(); /* nobody writes round r+1 before its neighbour has checked round r */
    }

    /* quiet across domains: GPU data, quiet, host flag */
    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            src[i] = val(me, r, i);
        shmem_long_put_nbi(ddata, src, N, right);
        shmem_quiet();
        shmem_long_atomic_set(hflag, r, right);
        shmem_long_wait_until(hflag, SHMEM_CMP_GE, r);
        check_from_left(ddata, r, "quiet (GPU data, host flag)");
        shmem_barrier_all();
    }

    /* barrier: updates in both domains complete */
    for (int r = 1; r <= ROUNDS / 5; r++) {
        for (int i = 0; i < N; i++)
            src[i] = val(me, r, i);
        shmem_long_put_nbi(ddata, src, N, right);
        shmem_long_put_nbi(hdata, src, N, right);
        shmem_barrier_all();
        check_from_left(ddata, r, "barrier (GPU data)");
        for (int i = 0, bad = 0; i < N && bad < 3; i++)
            if (hdata[i] != val(left, r, i)) {
                FAIL("barrier (host data), round %d: element %d is %ld", r, i, hdata[i]);
                bad++;
            }
        shmem_barrier_all();
    }

    /* put-with-signal across domains: GPU data with a host signal, then host data with a GPU signal */
    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            src[i] = val(me, r, i);
        shmem_long_put_signal(ddata, src, N, hsig, (uint64_t)r, SHMEM_SIGNAL_SET, right);
        shmem_signal_wait_until(hsig, SHMEM_CMP_GE, (uint64_t)r);
        check_from_left(ddata, r, "put-with-signal (GPU data, host signal)");
        shmem_long_put_signal_nbi(hdata, src, N, dsig, 1, SHMEM_SIGNAL_ADD, right);
        shmem_signal_wait_until(dsig, SHMEM_CMP_GE, (uint64_t)r);
        for (int i = 0, bad = 0; i < N && bad < 3; i++)
            if (hdata[i] != val(left, r, i)) {
                FAIL("put-with-signal (host data, GPU signal), round %d: element %d is %ld", r, i, hdata[i]);
                bad++;
            }
        CHECK(shmem_signal_fetch(dsig) == (uint64_t)r, "GPU signal is %llu after round %d",
              (unsigned long long)shmem_signal_fetch(dsig), r);
        shmem_barrier_all();
    }

    /* HPE's example: the first half from a host source, the second from a GPU source, into the neighbour's GPU heap */
    for (int r = 1; r <= ROUNDS / 5; r++) {
        for (int i = 0; i < N; i++)
            src[i] = val(me, r, i);
        shmem_long_put(dsrc, src, N, me); /* the GPU source, filled from the host */
        shmem_barrier_all();
        shmem_long_put(ddata, src, N / 2, right);
        shmem_long_put(ddata + N / 2, dsrc + N / 2, N - N / 2, right);
        shmem_barrier_all();
        check_from_left(ddata, r, "host and GPU sources into a GPU-heap destination");
        shmem_barrier_all();
    }

    shmem_free(dsrc);
    shmem_free(hsig);
    shmem_free(hflag);
    shmem_free(hdata);
    shmem_free(dsig);
    shmem_free(dflag);
    shmem_free(ddata);
    return ftest_finish("gpu_order");
}
