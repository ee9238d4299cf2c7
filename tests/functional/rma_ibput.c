/* rma_ibput.c - blocked strided RMA (OpenSHMEM 1.6 ibput/ibget, declared by <shmem.h> here): nblocks blocks of
 * bsize elements, block i copied between source + i*sst and dest + i*dst; gaps untouched. Typed, sized, ctx. */
#include "ftest.h"

#include <stdint.h>

#ifndef FTEST_HAVE_IBPUT
#define FTEST_HAVE_IBPUT 1
#endif

#define LEN 256

#if FTEST_HAVE_IBPUT
static int me, npes, right, left;
static long lbss[LEN];
static uint32_t u32data[LEN] = {1};

static long lv(int pe, int j) { return (long)pe * 100000 + j; }

static void typed(long *t, const char *where) {
    long src[LEN], loc[LEN];
    const size_t bsize = 3, nblocks = 7;
    const ptrdiff_t dst = 10, sst = 5;
    for (int j = 0; j < LEN; j++) {
        src[j] = lv(me, j);
        t[j] = -1;
    }
    shmem_barrier_all();
    shmem_long_ibput(t, src, dst, sst, bsize, nblocks, right);
    shmem_barrier_all();
    for (int j = 0; j < LEN; j++) {
        size_t blk = (size_t)j / dst, off = (size_t)j % dst;
        long want = (blk < nblocks && off < bsize) ? lv(left, (int)(blk * sst + off)) : -1;
        if (t[j] != want) {
            FAIL("long_ibput (%s): t[%d]=%ld want %ld", where, j, t[j], want);
            break;
        }
    }
    /* ibget: blocks of 4 at stride 9 from the right neighbour's array (which holds my values) into stride 4 */
    for (int j = 0; j < LEN; j++)
        loc[j] = -2;
    shmem_long_ibget(loc, t, 4, 10, 3, 5, right); /* dst stride 4, src stride 10, bsize 3, 5 blocks */
    for (int j = 0; j < LEN; j++) {
        size_t blk = (size_t)j / 4, off = (size_t)j % 4;
        long want = -2;
        if (blk < 5 && off < 3) {
            size_t sj = blk * 10 + off; /* index into the remote array */
            size_t rb = sj / dst, ro = sj % dst;
            want = (rb < nblocks && ro < bsize) ? lv(me, (int)(rb * sst + ro)) : -1;
        }
        if (loc[j] != want) {
            FAIL("long_ibget (%s): loc[%d]=%ld want %ld", where, j, loc[j], want);
            break;
        }
    }
    shmem_barrier_all();
    /* ctx form, bsize 1 (same as iput), and nblocks 0 (nothing moves) */
    for (int j = 0; j < LEN; j++)
        t[j] = -1;
    shmem_barrier_all();
    shmem_ctx_long_ibput(SHMEM_CTX_DEFAULT, t, src, 2, 1, 1, 20, right);
    shmem_long_ibput(t + 100, src, 1, 1, 4, 0, right);
    shmem_barrier_all();
    for (int j = 0; j < LEN; j++) {
        long want = (j % 2 == 0 && j / 2 < 20) ? lv(left, j / 2) : -1;
        if (t[j] != want) {
            FAIL("ctx_long_ibput bsize 1 (%s): t[%d]=%ld want %ld", where, j, t[j], want);
            break;
        }
    }
    shmem_barrier_all();
}

static void sized(void) {
    uint32_t src[LEN], loc[LEN];
    for (int j = 0; j < LEN; j++) {
        src[j] = 0xC0DE0000u + (uint32_t)me * 1000 + j;
        u32data[j] = 0;
    }
    shmem_barrier_all();
    shmem_ibput32(u32data, src, 8, 3, 2, 6, right); /* blocks of 2, dest stride 8, source stride 3 */
    shmem_barrier_all();
    for (int j = 0; j < LEN; j++) {
        size_t blk = (size_t)j / 8, off = (size_t)j % 8;
        uint32_t want = (blk < 6 && off < 2) ? 0xC0DE0000u + (uint32_t)left * 1000 + (uint32_t)(blk * 3 + off) : 0;
        if (u32data[j] != want) {
            FAIL("ibput32 (data): [%d]=%x want %x", j, u32data[j], want);
            break;
        }
    }
    memset(loc, 0, sizeof loc);
    shmem_ctx_ibget32(SHMEM_CTX_DEFAULT, loc, u32data, 2, 8, 2, 6, right); /* compact the blocks back */
    for (int j = 0; j < 12; j++) {
        uint32_t want = 0xC0DE0000u + (uint32_t)me * 1000 + (uint32_t)((j / 2) * 3 + j % 2);
        if (loc[j] != want) {
            FAIL("ctx_ibget32: loc[%d]=%x want %x", j, loc[j], want);
            break;
        }
    }
    CHECK(loc[12] == 0, "ctx_ibget32 wrote past its blocks");
    shmem_barrier_all();
}
#endif

int main(void) {
    shmem_init();
#if !FTEST_HAVE_IBPUT
    return ftest_skip("ibput/ibget are not declared by <shmem.h>");
#else
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    long *h = shmem_malloc(LEN * sizeof(long));
    REQUIRE(h, "shmem_malloc");
    typed(h, "heap");
    typed(lbss, "bss");
    sized();
    shmem_free(h);
    return ftest_finish("rma_ibput");
#endif
}
