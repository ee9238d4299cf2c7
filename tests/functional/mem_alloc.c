/* mem_alloc.c - symmetric heap management: malloc/calloc/align/realloc/free, malloc_with_hints, the deprecated
 * shmalloc family, zero sizes, and that every PE's blocks line up (a put to block k lands in the peer's block k). */
#include "ftest.h"

#include <stdint.h>

#define NBLK 8

static void put_into_blocks(long **blk, const size_t *nel, int me, int npes) {
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *src = malloc(sizeof(long) * 65536);
    for (int b = 0; b < NBLK; b++) {
        for (size_t i = 0; i < nel[b]; i++)
            src[i] = (long)me * 1000000 + b * 10000 + (long)(i % 9973);
        shmem_long_put(blk[b], src, nel[b], right);
    }
    shmem_barrier_all();
    for (int b = 0; b < NBLK; b++)
        for (size_t i = 0; i < nel[b]; i++) {
            long want = (long)left * 1000000 + b * 10000 + (long)(i % 9973);
            if (blk[b][i] != want) {
                FAIL("block %d elem %zu = %ld want %ld (blocks not symmetric?)", b, i, blk[b][i], want);
                break;
            }
        }
    shmem_barrier_all();
    free(src);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    /* several blocks of different sizes, mixed allocators, filled from the left neighbour */
    long *blk[NBLK];
    size_t nel[NBLK] = {1, 7, 64, 1000, 65536, 3, 4096, 12345};
    for (int b = 0; b < NBLK; b++) {
        switch (b % 3) {
        case 0: blk[b] = shmem_malloc(nel[b] * sizeof(long)); break;
        case 1: blk[b] = shmem_calloc(nel[b], sizeof(long)); break;
        default: blk[b] = shmem_align(256, nel[b] * sizeof(long)); break;
        }
        REQUIRE(blk[b], "allocation %d of %zu longs returned NULL", b, nel[b]);
        if (b % 3 == 1)
            for (size_t i = 0; i < nel[b]; i++)
                if (blk[b][i] != 0) {
                    FAIL("shmem_calloc block %d elem %zu = %ld, not zeroed", b, i, blk[b][i]);
                    break;
                }
        for (int c = 0; c < b; c++) /* blocks must not overlap */
            CHECK((char *)blk[c] + nel[c] * sizeof(long) <= (char *)blk[b] ||
                      (char *)blk[b] + nel[b] * sizeof(long) <= (char *)blk[c],
                  "blocks %d and %d overlap", c, b);
    }
    shmem_barrier_all(); /* a fast peer must not put into a block before its owner checked that it was zeroed */
    put_into_blocks(blk, nel, me, npes);

    /* free some in the middle, allocate again: still symmetric */
    shmem_free(blk[1]);
    shmem_free(blk[4]);
    shmem_free(blk[6]);
    blk[1] = shmem_malloc(nel[1] * sizeof(long));
    blk[6] = shmem_malloc(nel[6] * sizeof(long));
    blk[4] = shmem_malloc(nel[4] * sizeof(long));
    REQUIRE(blk[1] && blk[4] && blk[6], "re-allocation returned NULL");
    put_into_blocks(blk, nel, me, npes);

    /* calloc after dirty free returns zeroed memory */
    {
        size_t n = 100000;
        unsigned char *d = shmem_malloc(n);
        REQUIRE(d, "shmem_malloc(%zu) NULL", n);
        memset(d, 0xA5, n);
        shmem_free(d);
        unsigned char *z = shmem_calloc(n / 4, 4);
        REQUIRE(z, "shmem_calloc NULL");
        for (size_t i = 0; i < n; i++)
            if (z[i]) {
                FAIL("shmem_calloc after free: byte %zu = 0x%x", i, z[i]);
                break;
            }
        shmem_free(z);
    }

    /* alignment honoured, and aligned blocks work remotely */
    for (size_t a = 8; a <= 1 << 16; a <<= 1) {
        int *p = shmem_align(a, 3 * sizeof(int) + a / 8);
        REQUIRE(p, "shmem_align(%zu) NULL", a);
        CHECK(((uintptr_t)p % a) == 0, "shmem_align(%zu) gave %p", a, (void *)p);
        p[0] = -1;
        shmem_barrier_all();
        shmem_int_p(p, me, right);
        shmem_barrier_all();
        CHECK(p[0] == left, "put into shmem_align(%zu) block: %d want %d", a, p[0], left);
        char *q = shmem_malloc(1); /* interleave a small block so alignment padding is exercised */
        REQUIRE(q, "shmem_malloc(1) NULL");
        shmem_free(p);
        shmem_free(q);
    }
    /* malloc result is suitably aligned for any type */
    for (size_t s = 1; s < 200; s += 37) {
        void *p = shmem_malloc(s);
        REQUIRE(p, "shmem_malloc(%zu) NULL", s);
        CHECK((uintptr_t)p % 8 == 0, "shmem_malloc(%zu)=%p not 8-aligned", s, p);
        shmem_free(p);
    }

    /* realloc keeps contents, grows and shrinks, and the result is symmetric */
    {
        int *r = shmem_malloc(64 * sizeof(int));
        REQUIRE(r, "malloc NULL");
        for (int i = 0; i < 64; i++)
            r[i] = me * 100 + i;
        long *blocker = shmem_malloc(1024); /* make in-place growth impossible for a simple allocator */
        r = shmem_realloc(r, 100000 * sizeof(int));
        REQUIRE(r, "shmem_realloc grow NULL");
        for (int i = 0; i < 64; i++)
            CHECK(r[i] == me * 100 + i, "realloc grow lost r[%d]=%d", i, r[i]);
        r[99999] = -5;
        shmem_barrier_all();
        shmem_int_p(&r[99999], me, right);
        shmem_int_p(&r[10], me + 7, right);
        shmem_barrier_all();
        CHECK(r[99999] == left && r[10] == left + 7, "put into realloc'd block: %d %d want %d %d", r[99999], r[10],
              left, left + 7);
        r[10] = me * 100 + 10;
        shmem_barrier_all();
        r = shmem_realloc(r, 32 * sizeof(int));
        REQUIRE(r, "shmem_realloc shrink NULL");
        for (int i = 0; i < 32; i++)
            CHECK(r[i] == me * 100 + i, "realloc shrink lost r[%d]=%d", i, r[i]);
        int *n = shmem_realloc(NULL, 16 * sizeof(int)); /* realloc(NULL) behaves as malloc */
        REQUIRE(n, "shmem_realloc(NULL, 64) NULL");
        n[3] = 0;
        shmem_barrier_all();
        shmem_int_p(&n[3], 33 + me, right);
        shmem_barrier_all();
        CHECK(n[3] == 33 + left, "put into realloc(NULL) block: %d", n[3]);
        shmem_free(n);
        shmem_free(blocker);
        shmem_free(r);
    }

#if FTEST_HAVE_15
    /* malloc_with_hints: every hint value gives usable symmetric memory */
    {
        long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                        SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
        for (int h = 0; h < 4; h++) {
            long *p = shmem_malloc_with_hints(128 * sizeof(long), hints[h]);
            REQUIRE(p, "shmem_malloc_with_hints(hints=%ld) NULL", hints[h]);
            p[127] = 0;
            shmem_barrier_all();
            shmem_long_atomic_add(&p[127], me + 1, 0);
            shmem_barrier_all();
            if (me == 0)
                CHECK(p[127] == (long)npes * (npes + 1) / 2, "hinted block AMO sum %ld", p[127]);
            shmem_barrier_all();
            shmem_free(p);
        }
        CHECK(shmem_malloc_with_hints(0, 0) == NULL, "shmem_malloc_with_hints(0) != NULL");
    }
#endif

    /* deprecated names */
    {
        long *a = shmalloc(10 * sizeof(long));
        REQUIRE(a, "shmalloc NULL");
        long *b = shmemalign(512, 4 * sizeof(long));
        REQUIRE(b, "shmemalign NULL");
        CHECK((uintptr_t)b % 512 == 0, "shmemalign(512) gave %p", (void *)b);
        for (int i = 0; i < 10; i++)
            a[i] = i + me;
        a = shrealloc(a, 5000 * sizeof(long));
        REQUIRE(a, "shrealloc NULL");
        for (int i = 0; i < 10; i++)
            CHECK(a[i] == i + me, "shrealloc lost a[%d]=%ld", i, a[i]);
        b[1] = 0;
        shmem_barrier_all();
        shmem_long_p(&a[4999], me, right);
        shmem_long_p(&b[1], me, right);
        shmem_barrier_all();
        CHECK(a[4999] == left && b[1] == left, "deprecated blocks: %ld %ld want %d", a[4999], b[1], left);
        shmem_barrier_all();
        shfree(a);
        shfree(b);
        shfree(NULL);
    }

    /* zero sizes: no allocation, a null pointer (OpenSHMEM 1.5 shmem_malloc/calloc/align); free(NULL) is a no-op */
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) != NULL");
    CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) != NULL");
    CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) != NULL");
    CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0) != NULL");
    shmem_free(NULL);

    /* many alloc/free cycles of large blocks do not leak the heap */
    for (int it = 0; it < 300; it++) {
        void *p = shmem_malloc(4u << 20);
        REQUIRE(p, "cycle %d: shmem_malloc(4 MiB) NULL (leak?)", it);
        shmem_free(p);
    }

    for (int b = 0; b < NBLK; b++)
        shmem_free(blk[b]);
    return ftest_finish("mem_alloc");
}
