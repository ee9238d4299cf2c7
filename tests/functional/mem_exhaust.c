/* mem_exhaust.c - running out of symmetric heap (run with SHMEM_SYMMETRIC_SIZE=8M): an allocation larger than the
 * heap returns NULL on every PE without ending the job, the heap stays usable, and space is given back by free. */
#include "ftest.h"

#include <stdint.h>

#define MiB ((size_t)1 << 20)
static long counts[64];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();

    /* larger than SHMEM_SYMMETRIC_SIZE (8 MiB in the test's environment) */
    CHECK(shmem_malloc(16 * MiB) == NULL, "shmem_malloc(16 MiB) with an 8 MiB heap != NULL");
    CHECK(shmem_calloc(4 * MiB, 4) == NULL, "shmem_calloc(16 MiB) with an 8 MiB heap != NULL");
    CHECK(shmem_align(4096, 16 * MiB) == NULL, "shmem_align(16 MiB) with an 8 MiB heap != NULL");
    CHECK(shmem_malloc(SIZE_MAX / 2) == NULL, "shmem_malloc(SIZE_MAX/2) != NULL");
    CHECK(shmem_calloc(SIZE_MAX / 4, 8) == NULL, "shmem_calloc overflowing count*size != NULL");

    /* the heap is still usable; a failed realloc leaves the block alone */
    int *q = shmem_malloc(MiB);
    REQUIRE(q, "shmem_malloc(1 MiB) after failed allocations returned NULL");
    for (int i = 0; i < 256; i++)
        q[i] = me * 1000 + i;
    int *r = shmem_realloc(q, 32 * MiB);
    CHECK(r == NULL, "shmem_realloc(32 MiB) with an 8 MiB heap != NULL");
    if (r == NULL)
        for (int i = 0; i < 256; i++)
            if (q[i] != me * 1000 + i) {
                FAIL("failed shmem_realloc changed q[%d]=%d", i, q[i]);
                break;
            }
    if (r)
        q = r;
    shmem_barrier_all();
    shmem_int_p(&q[MiB / sizeof(int) - 1], me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(q[MiB / sizeof(int) - 1] == (me + npes - 1) % npes, "put after failed allocations: %d",
          q[MiB / sizeof(int) - 1]);
    shmem_free(q);

    /* fill the heap with 1 MiB blocks: every PE gets the same number, then NULL */
    void *blk[64];
    int n = 0;
    while (n < 64 && (blk[n] = shmem_malloc(MiB)) != NULL)
        n++;
    /* an implementation may round the heap up a little or keep some bookkeeping in it, but not double it */
    CHECK(n >= 4 && n < 16, "got %d 1 MiB blocks from an 8 MiB heap", n);
    counts[me] = n;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        long other = shmem_long_g(&counts[pe], pe);
        CHECK(other == n, "PE %d got %ld blocks, this PE %d: not symmetric", pe, other, n);
    }
    shmem_barrier_all();
    for (int i = 0; i < n; i++)
        shmem_free(blk[i]);

    /* everything came back: a block of half the heap fits again */
    void *big = shmem_malloc(4 * MiB);
    CHECK(big != NULL, "shmem_malloc(4 MiB) after freeing everything returned NULL");
    shmem_free(big);
    return ftest_finish("mem_exhaust");
}
