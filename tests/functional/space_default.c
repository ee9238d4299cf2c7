/* space_default.c - the memory-space API on SHMEM_SPACE_DEFAULT (same semantics as shmem_malloc & co, any space's
 * memory freed by shmem_free), and what a program sees of GPU support it asked for: SHMEM_DEVICE_HOST_INIT comes
 * back, device awareness is reported and the device teams exist only when GPU support really started. */
#include <shmemg.h>
#include <shmemx.h>
#include <stdint.h>

#include "ftest.h"

int main(void) {
    int provided = -1;
    shmem_init_thread(SHMEM_THREAD_FUNNELED | SHMEM_DEVICE_HOST_INIT, &provided);
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    int gpu = (provided & SHMEM_DEVICE_HOST_INIT) != 0;
    CHECK((provided & 3) == SHMEM_THREAD_FUNNELED, "thread level %d (provided %#x)", provided & 3, provided);
    CHECK(!(provided & SHMEM_DEVICE_KERNEL_INIT), "KERNEL_INIT provided without being requested");
    CHECK(shmem_query_device_awareness() == gpu, "device awareness %d with HOST_INIT %s",
          shmem_query_device_awareness(), gpu ? "provided" : "not provided");
    CHECK(shmem_team_n_pes(SHMEM_DEVICE_TEAM_WORLD) == (gpu ? n : -1), "DEVICE_TEAM_WORLD size %d",
          shmem_team_n_pes(SHMEM_DEVICE_TEAM_WORLD));
    int q = -1;
    shmem_query_thread(&q);
    CHECK(q == SHMEM_THREAD_FUNNELED, "shmem_query_thread %d", q);

    long *a = shmem_space_malloc(SHMEM_SPACE_DEFAULT, 64 * sizeof(long));
    long *c = shmem_space_calloc(SHMEM_SPACE_DEFAULT, 64, sizeof(long));
    long *al = shmem_space_align(SHMEM_SPACE_DEFAULT, 1 << 16, 64 * sizeof(long));
    REQUIRE(a && c && al, "space allocations failed");
    CHECK(shmem_space_malloc(SHMEM_SPACE_DEFAULT, 0) == NULL, "size 0 gives NULL");
    CHECK(shmem_space_align(SHMEM_SPACE_DEFAULT, 48, 64) == NULL, "alignment 48 gives NULL");
    CHECK(((uintptr_t)al & 0xffff) == 0, "space_align(64K) gave %p", (void *)al);
    for (int i = 0; i < 64; i++)
        CHECK(c[i] == 0, "calloc element %d is %ld", i, c[i]);
    /* shmem_space_alloc is shmem_space_calloc: memory given back dirty comes back zeroed */
    for (int i = 0; i < 64; i++)
        c[i] = -1;
    shmem_space_free(SHMEM_SPACE_DEFAULT, c);
    c = shmem_space_alloc(SHMEM_SPACE_DEFAULT, 64, sizeof(long));
    REQUIRE(c, "space_alloc failed");
    for (int i = 0; i < 64; i++)
        CHECK(c[i] == 0, "space_alloc element %d is %ld", i, c[i]);
    CHECK(shmem_space_alloc(SHMEM_SPACE_DEFAULT, 0, 8) == NULL, "space_alloc of 0 objects gives NULL");
    long v[64];
    for (int i = 0; i < 64; i++)
        v[i] = me * 1000 + i;
    shmem_long_put(a, v, 64, right);
    shmem_barrier_all();
    for (int i = 0; i < 64; i++)
        CHECK(a[i] == left * 1000 + i, "put into space memory: element %d is %ld", i, a[i]);
    long *b = shmem_space_realloc(SHMEM_SPACE_DEFAULT, a, 4096 * sizeof(long));
    REQUIRE(b, "space_realloc");
    for (int i = 0; i < 64; i++)
        CHECK(b[i] == left * 1000 + i, "realloc kept element %d: %ld", i, b[i]);
    shmem_long_get(v, b, 64, right);
    for (int i = 0; i < 64; i++)
        CHECK(v[i] == me * 1000 + i, "get from the right neighbour's realloc'd block: %ld", v[i]);
    shmem_barrier_all();
    /* any space's memory goes back through shmem_free; default-heap memory through shmem_space_free */
    shmem_free(b);
    shmem_space_free(SHMEM_SPACE_DEFAULT, c);
    long *m = shmem_malloc(8);
    shmem_space_free(SHMEM_SPACE_DEFAULT, m);
    shmem_space_free(SHMEM_SPACE_DEFAULT, NULL);
    shmem_free(al);
    /* the device hints are advice: an allocation with them works as without */
    long *h = shmem_malloc_with_hints(64, SHMEM_DEVICE_MALLOC_HOST_INIT | SHMEM_MALLOC_ATOMICS_REMOTE);
    REQUIRE(h, "malloc_with_hints with a device hint");
    shmem_long_atomic_add(h, 1, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(*h == n, "atomic in hinted memory: %ld", *h);
    shmem_free(h);
    return ftest_finish("space_default");
}
