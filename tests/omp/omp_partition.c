/* omp_partition.c - a KIND=LIBOMP partition (SHMEM_SYMMETRIC_PARTITION1, 1 MiB) and shmemx_omp_map: RMA, atomics,
 * put-with-signal and collectives on its objects, and the map helper's association, on whatever OpenMP gives: the
 * host fallback (built with -fopenmp) or a device (built with fake_omp.c over the CUDA driver, FAKE_OMP). */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>

#include "ftest.h"

#ifdef FAKE_OMP
int omp_get_num_devices(void);
const void *fakeomp_associated(const void *host);
#else
#include <omp.h>
#endif

#define N 1024
#define PART 1
#define PART_SIZE (1 << 20)

static long hs[N]; /* a symmetric host variable (static data) */
static uint64_t sig;

static long val(int pe, int i) { return (long)pe * 100000 + i; }

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    int device = omp_get_num_devices() > 0;
    long buf[N], chk[N];

    /* objects of the partition: host shared memory on the fallback (a peer's copy is mapped), GPU memory with a
     * device */
    long *a = shmem_partition_malloc(N * sizeof(long), PART), *r = shmem_partition_malloc(N * sizeof(long), PART);
    long *ctr = shmem_partition_malloc(sizeof(long), PART);
    REQUIRE(a && r && ctr, "shmem_partition_malloc from the KIND=LIBOMP partition returned NULL");
    if (!device && shmem_team_n_pes(SHMEM_TEAM_SHARED) > 1) { /* a PE of this node maps it */
        int sh = shmem_team_my_pe(SHMEM_TEAM_SHARED), other = sh ? 0 : 1;
        int pe = shmem_team_translate_pe(SHMEM_TEAM_SHARED, other, SHMEM_TEAM_WORLD);
        CHECK(shmem_ptr(a, pe) != NULL, "the host-fallback partition is not shared memory mapped by PE %d", pe);
    }
    for (int i = 0; i < N; i++)
        buf[i] = val(me, i);
    long zero = 0;
    shmem_long_put(ctr, &zero, 1, me);
    shmem_long_put_signal(a, buf, N, &sig, 1, SHMEM_SIGNAL_SET, next);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1);
    shmem_long_get(chk, a, N, me);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += chk[i] != val(prev, i);
    CHECK(!bad, "put_signal into the partition: %d of %d words wrong", bad, N);
    shmem_barrier_all();
    shmem_long_atomic_add(ctr, me + 1, 0);
    shmem_barrier_all();
    long c = shmem_long_atomic_fetch(ctr, 0);
    CHECK(c == (long)npes * (npes + 1) / 2, "atomics on the partition: %ld, expected %ld", c,
          (long)npes * (npes + 1) / 2);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, r, a, N);
    shmem_long_get(chk, r, N, me);
    bad = 0;
    for (int i = 0; i < N; i++) { /* every PE's vector once: sum over pe of val(pe, i) */
        long want = 0;
        for (int pe = 0; pe < npes; pe++)
            want += val(pe, i);
        bad += chk[i] != want;
    }
    CHECK(!bad, "sum_reduce on the partition: %d of %d words wrong", bad, N);
#ifdef _OPENMP
    /* an OpenMP target region works on the object directly (device memory, or the host on the fallback) */
#pragma omp target teams distribute parallel for is_device_ptr(a)
    for (int i = 0; i < N; i++)
        a[i] = 2 * a[i];
    shmem_long_get(chk, a, N, me);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += chk[i] != 2 * val(prev, i);
    CHECK(!bad, "a target region on the partition object: %d of %d words wrong", bad, N);
#endif
    shmem_barrier_all();

    /* shmemx_omp_map on a symmetric host variable: itself on the fallback, a device object behind it with a device */
    long *p = shmemx_omp_map(hs, sizeof hs, PART);
    REQUIRE(p, "shmemx_omp_map(hs) returned NULL");
    if (device)
        CHECK(p != hs && shmem_addr_accessible(p, next), "with a device, map(hs) gave %p (hs %p)", (void *)p,
              (void *)hs);
    else
        CHECK(p == hs, "on the host fallback, map(hs) gave %p rather than hs itself (%p)", (void *)p, (void *)hs);
    /* ... and on a private buffer: always an object of the partition */
    long *hm = malloc(N * sizeof(long));
    long *q = shmemx_omp_map(hm, N * sizeof(long), PART);
    REQUIRE(q, "shmemx_omp_map(malloc'd) returned NULL");
    CHECK(q != hm && shmem_addr_accessible(q, next), "map(malloc'd %p) gave %p, not a symmetric object", (void *)hm,
          (void *)q);
#ifdef FAKE_OMP
    CHECK(fakeomp_associated(hm) == (device ? q : NULL), "hm is associated with %p, expected %p",
          fakeomp_associated(hm), device ? (void *)q : NULL);
    CHECK(fakeomp_associated(hs) == (device ? p : NULL), "hs is associated with %p, expected %p",
          fakeomp_associated(hs), device ? (void *)p : NULL);
#endif
#ifdef _OPENMP
    /* the pattern of docs/omp.md: map finds the object present and use_device_ptr gives its symmetric address */
    long *dp = NULL;
#pragma omp target data map(alloc : hm [0:N]) use_device_ptr(hm)
    dp = hm;
    CHECK(dp == (device ? q : hm), "use_device_ptr(hm) gave %p, expected %p", (void *)dp,
          device ? (void *)q : (void *)hm);
#endif
    shmem_long_put(q, buf, N, next);
    shmem_long_put(p, buf, N, prev);
    shmem_barrier_all();
    long chk2[N];
    shmem_long_get(chk, q, N, me);
    shmem_long_get(chk2, p, N, me);
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += (chk[i] != val(prev, i)) + (chk2[i] != val(next, i));
    CHECK(!bad, "puts into mapped objects: %d wrong", bad);
    shmemx_omp_unmap(hm);
    shmemx_omp_unmap(hs);
#ifdef FAKE_OMP
    CHECK(!fakeomp_associated(hm) && !fakeomp_associated(hs), "shmemx_omp_unmap left an association");
#endif
    /* a full partition gives NULL, on every PE alike */
    long *big = malloc(PART_SIZE);
    CHECK(shmemx_omp_map(big, PART_SIZE, PART) == NULL, "mapping the whole (partly used) partition did not fail");
    free(big);
    free(hm);
    shmem_free(ctr);
    shmem_free(r);
    shmem_free(a);
    return ftest_finish("omp_partition");
}
