/* gpu_heap.c - GPU-aware communication: symmetric objects in the GPU heap (shmemg_malloc, SHMEM_SPACE_DEVICE, and a
 * KIND=DEVICE partition 5 when defined) reached by the host routines from host and GPU memory: H-D, D-H, D-D puts
 * and gets, scalar and strided forms, atomics, put-with-signal across memory domains, waits on GPU variables.
 * Skips (77) without GPU support; gpuemu_* runs it on the emulated GPU (SHMEM_GPU=emulate), whose memory faults on
 * any CPU access as a GPU's does. So this program never touches GPU memory itself: it checks through gets. */
#include <shmemg.h>
#include <shmemx.h>
#include <stdint.h>

#include "ftest.h"

#define N 1024

static long expect_at(int pe, int i, int salt) { return (long)pe * 100000 + (long)i * 7 + salt; }

static void fill(long *v, int pe, int salt) {
    for (int i = 0; i < N; i++)
        v[i] = expect_at(pe, i, salt);
}

/* the GPU object's bytes on this PE, read back through a get into host memory; collective: it ends with a barrier,
 * so nobody overwrites the object before everyone has checked it */
static void check_dev(const long *dev, int from, int salt, const char *what) {
    static long back[N];
    memset(back, 0, sizeof back);
    shmem_long_get(back, dev, N, shmem_my_pe());
    int bad = 0;
    for (int i = 0; i < N && bad < 3; i++)
        if (back[i] != expect_at(from, i, salt)) {
            FAIL("%s: element %d is %ld, expected %ld", what, i, back[i], expect_at(from, i, salt));
            bad++;
        }
    shmem_barrier_all();
}

static unsigned char pattern(int pe, size_t i) { return (unsigned char)(i * 131 + (size_t)pe * 7 + (i >> 12)); }

/* Large transfers between GPU memory and a peer's GPU and host memory: to a peer on another node they are staged
 * through host memory in pieces, each piece's GPU copy overlapping the network's move of the one before; sizes of one
 * piece, several, and several with a remainder */
static void big_transfers(int me, int right, int left) {
    const size_t sizes[] = {(size_t)100 << 10, ((size_t)200 << 10) + 24, ((size_t)3 << 20) + 8};
    const size_t max = sizes[2];
    unsigned char *dsrc = shmemg_malloc(max), *ddst = shmemg_malloc(max), *hdst = shmem_malloc(max);
    unsigned char *host = malloc(max), *back = malloc(max);
    REQUIRE(dsrc && ddst && hdst && host && back, "allocating %zu bytes for large transfers", max);
    for (size_t i = 0; i < max; i++)
        host[i] = pattern(me, i);
    shmem_putmem(dsrc, host, max, me);
    shmem_barrier_all();
    for (int k = 0; k < 3; k++) {
        size_t len = sizes[k];
        shmem_putmem(ddst, dsrc, len, right); /* D-D */
        shmem_putmem(hdst, dsrc, len, right); /* D-H */
        shmem_barrier_all();
        memset(back, 0, len);
        shmem_getmem(back, ddst, len, me);
        for (size_t i = 0; i < len; i++)
            if (back[i] != pattern(left, i) || hdst[i] != pattern(left, i)) {
                FAIL("put of %zu bytes from GPU memory: byte %zu is %d (GPU) and %d (host), expected %d", len, i,
                     back[i], hdst[i], pattern(left, i));
                break;
            }
        shmem_barrier_all();
        shmem_getmem(ddst, dsrc, len, right); /* D-D, into GPU memory */
        memset(back, 0, len);
        shmem_getmem(back, ddst, len, me);
        for (size_t i = 0; i < len; i++)
            if (back[i] != pattern(right, i)) {
                FAIL("get of %zu bytes into GPU memory: byte %zu is %d, expected %d", len, i, back[i],
                     pattern(right, i));
                break;
            }
        shmem_barrier_all();
    }
    free(host);
    free(back);
    shmem_free(hdst);
    shmemg_free(ddst);
    shmemg_free(dsrc);
}

int main(void) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_HOST_INIT))
        return ftest_skip("no GPU support: SHMEM_DEVICE_HOST_INIT was not provided (shmem_info says why)");
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    CHECK((provided & 3) == SHMEM_THREAD_SINGLE, "thread level %d", provided & 3);
    CHECK(shmem_query_device_awareness() == 1, "device awareness %d", shmem_query_device_awareness());
    CHECK(shmem_team_n_pes(SHMEM_DEVICE_TEAM_WORLD) == n, "DEVICE_TEAM_WORLD has %d PEs",
          shmem_team_n_pes(SHMEM_DEVICE_TEAM_WORLD));
    CHECK(shmem_team_my_pe(SHMEM_DEVICE_TEAM_WORLD) == me, "my PE in DEVICE_TEAM_WORLD");
    CHECK(shmem_team_n_pes(SHMEM_DEVICE_TEAM_SHARED) >= 1, "DEVICE_TEAM_SHARED");

    long *dd = shmemg_malloc(N * sizeof(long));
    long *ds = shmem_space_malloc(SHMEM_SPACE_DEVICE, N * sizeof(long));
    long *z = shmemg_calloc(N, sizeof(long));
    long *al = shmemg_align(4096, N * sizeof(long));
    long *hd = shmem_malloc(N * sizeof(long));
    REQUIRE(dd && ds && z && al && hd, "allocations failed");
    CHECK(((uintptr_t)al & 4095) == 0, "shmemg_align(4096) gave %p", (void *)al);
    /* alignments past the GPU's 2 MiB pages hold for absolute addresses (every PE's heap base is aligned for them),
     * and aligned blocks work remotely */
    for (size_t a = 64 << 10; a <= (size_t)8 << 20; a <<= 1) {
        long *p = a & (256 << 10) ? shmem_space_align(SHMEM_SPACE_DEVICE, a, 100) : shmemg_align(a, 100);
        REQUIRE(p, "GPU heap align(%zu) gave NULL", a);
        CHECK(((uintptr_t)p & (a - 1)) == 0, "GPU heap align(%zu) gave %p", a, (void *)p);
        shmem_long_p(p + 3, (long)a + me, right);
        shmem_barrier_all();
        CHECK(shmem_long_g(p + 3, me) == (long)a + left, "put into a GPU block aligned to %zu", a);
        shmem_free(p);
    }
    CHECK(shmem_addr_accessible(dd, right), "GPU heap object not accessible");
    {
        static long back[N];
        memset(back, 0xff, sizeof back);
        shmem_long_get(back, z, N, me);
        for (int i = 0, bad = 0; i < N && bad < 3; i++)
            if (back[i]) {
                FAIL("shmemg_calloc: element %d is %ld, not 0", i, back[i]);
                bad++;
            }
    }

    static long local[N];
    /* H-D: host buffer into the right neighbour's GPU heap; D-H get back from my own */
    fill(local, me, 1);
    shmem_long_put(dd, local, N, right);
    shmem_barrier_all();
    check_dev(dd, left, 1, "H-D put");
    /* D-D: my GPU source (written H-D to myself first) into the right neighbour's GPU heap */
    fill(local, me, 2);
    shmem_long_put(ds, local, N, me);
    shmem_barrier_all();
    shmem_long_put(dd, ds, N, right);
    shmem_barrier_all();
    check_dev(dd, left, 2, "D-D put");
    /* D-H: GPU source into the right neighbour's host heap, which the CPU reads */
    shmem_long_put(hd, ds, N, right);
    shmem_barrier_all();
    for (int i = 0, bad = 0; i < N && bad < 3; i++)
        if (hd[i] != expect_at(left, i, 2)) {
            FAIL("D-H put: element %d is %ld", i, hd[i]);
            bad++;
        }
    /* D-D get: the right neighbour's GPU source into my GPU object */
    shmem_barrier_all();
    shmem_long_get(dd, ds, N, right);
    check_dev(dd, right, 2, "D-D get");
    /* non-blocking put, completed by quiet; then a flag in host memory tells the neighbour (quiet orders domains) */
    fill(local, me, 3);
    shmem_barrier_all();
    shmem_long_put_nbi(dd, local, N, right);
    shmem_quiet();
    shmem_barrier_all();
    check_dev(dd, left, 3, "put_nbi + quiet");
    /* scalar and strided forms */
    shmem_long_p(&dd[5], expect_at(me, 5, 9), right);
    shmem_barrier_all();
    CHECK(shmem_long_g(&dd[5], me) == expect_at(left, 5, 9), "p/g on the GPU heap: %ld", shmem_long_g(&dd[5], me));
    fill(local, me, 4);
    shmem_long_iput(dd, local, 2, 1, N / 2, right); /* dd[2k] = local[k] */
    shmem_barrier_all();
    long got[N / 2];
    shmem_long_iget(got, dd, 1, 2, N / 2, me);
    for (int k = 0, bad = 0; k < N / 2 && bad < 3; k++)
        if (got[k] != expect_at(left, k, 4)) {
            FAIL("iput/iget on the GPU heap: element %d is %ld", k, got[k]);
            bad++;
        }

    /* atomics on GPU words, from every PE to PE 0 */
    long *cnt = shmemg_calloc(4, sizeof(long));
    REQUIRE(cnt, "shmemg_calloc");
    shmem_long_atomic_fetch_add(&cnt[0], me + 1, 0);
    shmem_long_atomic_inc(&cnt[1], 0);
    long won = shmem_long_atomic_compare_swap(&cnt[2], 0, me + 1, 0) == 0;
    shmem_int_atomic_add((int *)(void *)&cnt[3], 2, 0);
    static long winners;
    if (won)
        shmem_long_atomic_inc(&winners, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_long_atomic_fetch(&cnt[0], 0) == (long)n * (n + 1) / 2, "fetch_add total %ld",
              shmem_long_atomic_fetch(&cnt[0], 0));
        CHECK(shmem_long_g(&cnt[1], 0) == n, "inc total %ld", shmem_long_g(&cnt[1], 0));
        long c = shmem_long_g(&cnt[2], 0);
        CHECK(c >= 1 && c <= n && winners == 1, "compare_swap: %ld, %ld winners", c, winners);
        CHECK(shmem_int_g((int *)(void *)&cnt[3], 0) == 2 * n, "32-bit add total %d",
              shmem_int_g((int *)(void *)&cnt[3], 0));
    }
    shmem_barrier_all();

    /* put-with-signal across memory domains: data on the GPU, signal in host memory, and the reverse */
    uint64_t *hsig = shmem_calloc(1, sizeof(uint64_t));
    uint64_t *dsig = shmemg_calloc(1, sizeof(uint64_t));
    REQUIRE(hsig && dsig, "signal allocations");
    fill(local, me, 5);
    shmem_long_put_signal(dd, local, N, hsig, 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(hsig, SHMEM_CMP_EQ, 1);
    check_dev(dd, left, 5, "put_signal, data on the GPU");
    fill(local, me, 6);
    shmem_long_put_signal(hd, local, N, dsig, 5, SHMEM_SIGNAL_ADD, right);
    shmem_uint64_wait_until(dsig, SHMEM_CMP_EQ, 5); /* waiting on a GPU variable */
    for (int i = 0, bad = 0; i < N && bad < 3; i++)
        if (hd[i] != expect_at(left, i, 6)) {
            FAIL("put_signal, signal on the GPU: element %d is %ld", i, hd[i]);
            bad++;
        }
    CHECK(shmem_signal_fetch(dsig) == 5, "signal_fetch of a GPU signal: %llu",
          (unsigned long long)shmem_signal_fetch(dsig));
    CHECK(shmem_uint64_test(dsig, SHMEM_CMP_GE, 5), "test on a GPU variable");
    shmem_barrier_all();

    /* node-local peers' GPU objects are reachable by load/store through shmem_ptr (DEVICE_TEAM_SHARED) */
    shmem_team_t sh = SHMEM_DEVICE_TEAM_SHARED;
    for (int i = 0; i < shmem_team_n_pes(sh); i++) {
        int pe = shmem_team_translate_pe(sh, i, SHMEM_TEAM_WORLD);
        CHECK(shmem_ptr(dd, pe) != NULL, "shmem_ptr of PE %d's GPU object is NULL", pe);
    }

    /* realloc keeps the contents (a GPU copy); free of any space through shmem_free */
    fill(local, me, 7);
    shmem_long_put(ds, local, N, me);
    shmem_barrier_all();
    long *ds2 = shmem_space_realloc(SHMEM_SPACE_DEVICE, ds, 4 * N * sizeof(long));
    REQUIRE(ds2, "shmem_space_realloc");
    check_dev(ds2, me, 7, "space_realloc");

    /* a KIND=DEVICE partition, when the environment defines partition 5 */
    if (getenv("SHMEM_SYMMETRIC_PARTITION5")) {
        long *pp = shmem_partition_malloc(N * sizeof(long), 5);
        REQUIRE(pp, "shmem_partition_malloc(5)");
        fill(local, me, 8);
        shmem_long_put(pp, local, N, right);
        shmem_barrier_all();
        check_dev(pp, left, 8, "KIND=DEVICE partition");
        shmem_partition_free(pp);
    }

    big_transfers(me, right, left);

    shmem_free(ds2);
    shmemg_free(dd);
    shmem_space_free(SHMEM_SPACE_DEVICE, z);
    shmem_free(al);
    shmem_free(cnt);
    shmem_free(dsig);
    shmem_free(hsig);
    shmem_free(hd);
    return ftest_finish("gpu_heap");
}
