/* test_xlate.c - symmetric address translation: an address in one of this PE's segments maps to the same offset
 * in the peer's copy, ranges are bounds-checked, and foreign addresses are not found. Misuse aborts are covered by
 * the functional error tests; here only the lookups that return. */
#include <stdio.h>
#include <stdlib.h>

#include "state.h"

static int failures;
#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL line %d: ", __LINE__);                                                                        \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            failures++;                                                                                                \
        }                                                                                                              \
    } while (0)

int main(void) {
    enum { NPES = 3, HEAP = 4096, STATIC = 1024 };
    static char heap[NPES][HEAP], stat[NPES][STATIC];
    static char *heap_peer[NPES], *stat_peer[NPES];
    for (int pe = 0; pe < NPES; pe++) {
        heap_peer[pe] = heap[pe];
        stat_peer[pe] = pe == 2 ? NULL : stat[pe]; /* PE 2's static data "not mapped" (network peer) */
    }
    static struct shmemi_ctl ctl[NPES];
    static struct shmemi_ctl *ctlp[NPES] = {&ctl[0], &ctl[1], &ctl[2]};
    shmemi_rt.ctl = ctlp;
    shmemi_rt.my_pe = 0;
    shmemi_rt.n_pes = NPES;
    shmemi_rt.init_state = 1;
    shmemi_rt.nsegs = 2;
    shmemi_rt.segs[0] = (struct shmemi_seg){.base = heap[0], .size = HEAP, .peer = heap_peer, .name = "heap"};
    shmemi_rt.segs[1] = (struct shmemi_seg){.base = stat[0], .size = STATIC, .peer = stat_peer, .name = "static"};

    size_t off;
    CHECK(shmemi_find_seg(heap[0] + 100, &off) == &shmemi_rt.segs[0] && off == 100, "heap lookup");
    CHECK(shmemi_find_seg(stat[0] + STATIC - 1, &off) == &shmemi_rt.segs[1] && off == STATIC - 1, "static end");
    CHECK(shmemi_find_seg(stat[0] + STATIC, &off) == NULL ||
              shmemi_find_seg(stat[0] + STATIC, &off) != &shmemi_rt.segs[1],
          "one past the static segment must not be in it");
    int local = 0;
    CHECK(shmemi_find_seg(&local, &off) == NULL, "a stack address is not symmetric");
    CHECK(shmemi_find_seg((char *)((uintptr_t)heap[0] - 1), &off) != &shmemi_rt.segs[0], "one before the heap");

    for (int pe = 0; pe < NPES; pe++) {
        CHECK(shmemi_xlate(heap[0] + 8, 16, pe, "t") == heap[pe] + 8, "heap xlate to PE %d", pe);
        CHECK(shmemi_xlate(heap[0], HEAP, pe, "t") == heap[pe], "whole-heap range to PE %d", pe);
    }
    CHECK(shmemi_xlate(stat[0] + 10, 1, 1, "t") == stat[1] + 10, "static xlate");
    CHECK(shmem_ptr(stat[0] + 10, 2) == NULL, "shmem_ptr to an unmapped peer is NULL");
    CHECK(shmem_ptr(heap[0] + 10, 2) == heap[2] + 10, "shmem_ptr to a mapped peer");
    CHECK(shmem_addr_accessible(&local, 1) == 0, "stack address not accessible");
    printf("%s (%d failures)\n", failures ? "FAILED" : "ok", failures);
    return failures != 0;
}
