/* test_gtl_tickets.c - the GPU layer's pipelined copies (copy_start/copy_end) take many tickets at once: the network
 * keeps up to 64 staged copies in flight, and each thread's pipelined put or get two more, so a backend whose pool
 * of tickets ran out after a fixed number would end a job with many threads. Starts NT copies before ending any, ends
 * them out of order, then does it again with the tickets given back, and checks every byte in device memory.
 * Run with SHMEM_GPU set to a backend (emulate, or a fake driver); exits 77 when no GPU layer is in use. */
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gtl.h"

enum { NT = 600, PIECE = 2048 };

static int check(const unsigned char *dev, unsigned char *back, int round) {
    shmemi_gtl_copy(back, dev, (size_t)NT * PIECE, "test_gtl_tickets");
    for (size_t i = 0; i < (size_t)NT * PIECE; i++)
        if (back[i] != (unsigned char)(i * 7 + (size_t)round * 13 + i / PIECE)) {
            printf("FAIL: round %d: byte %zu of piece %zu is %u\n", round, i % PIECE, i / PIECE, back[i]);
            return 1;
        }
    return 0;
}

int main(void) {
    shmem_init();
    if (!shmemi_gtl) {
        printf("test_gtl_tickets: skipped (no GPU layer: set SHMEM_GPU)\n");
        shmem_finalize();
        return 77;
    }
    unsigned char *src = malloc((size_t)NT * PIECE), *back = malloc((size_t)NT * PIECE);
    void *dev = NULL;
    static void *ticket[NT];
    if (!src || !back || shmemi_gtl->alloc((size_t)NT * PIECE, &dev)) {
        printf("FAIL: allocation\n");
        return 1;
    }
    int fails = 0;
    for (int round = 0; round < 2 && !fails; round++) {
        for (size_t i = 0; i < (size_t)NT * PIECE; i++)
            src[i] = (unsigned char)(i * 7 + (size_t)round * 13 + i / PIECE);
        for (int t = 0; t < NT; t++) /* every one queued before any is ended */
            ticket[t] = shmemi_gtl_copy_start((char *)dev + (size_t)t * PIECE, src + (size_t)t * PIECE, PIECE,
                                              "test_gtl_tickets");
        if (round == 0) { /* the last first, waiting */
            for (int t = NT - 1; t >= 0; t--)
                shmemi_gtl_copy_end(ticket[t], 1, "test_gtl_tickets");
        } else { /* polled, in order */
            for (int t = 0; t < NT; t++)
                while (shmemi_gtl_copy_end(ticket[t], 0, "test_gtl_tickets"))
                    sched_yield();
        }
        fails += check(dev, back, round);
    }
    printf("test_gtl_tickets: %s (%s, %d copies in flight)\n", fails ? "FAILED" : "passed", shmemi_gtl->name, NT);
    shmemi_gtl->free(dev, (size_t)NT * PIECE);
    free(src), free(back);
    shmem_finalize();
    return fails != 0;
}
