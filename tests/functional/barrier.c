/* barrier.c - barrier_all and sync_all, many times in a row: writes issued before barrier_all (put, nbi put, AMO,
 * local store) are visible everywhere after it; sync_all plus quiet does the same for the stores it orders. */
#include "ftest.h"

#define ROUNDS 300
#define MAXPE 64

static long slots_bss[MAXPE];
long slots_data[MAXPE] = {1, 1};

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    REQUIRE(npes <= MAXPE, "too many PEs");
    long *heap = shmem_calloc(MAXPE, sizeof(long));
    static long ctr;
    REQUIRE(heap, "shmem_calloc");
    for (int r = 1; r <= ROUNDS; r++) {
        int right = (me + r) % npes; /* a different partner every round */
        long val = r;                /* source of the nbi put: must live until the barrier completes it */
        switch (r % 4) {
        case 0: shmem_long_p(&heap[me], r, right); break;
        case 1: shmem_long_put_nbi(&slots_bss[me], &val, 1, right); break; /* completed by the barrier */
        case 2: shmem_long_atomic_set(&slots_data[me], r, right); break;
        default: shmem_long_atomic_add(&ctr, 1, 0); break;
        }
        if (r % 2)
            shmem_barrier_all();
        else
            shmem_sync_all(), shmem_quiet(), shmem_sync_all(); /* sync_all alone does not complete puts */
        int from = (me - r % npes + npes) % npes;
        switch (r % 4) {
        case 0: CHECK(heap[from] == r, "round %d: heap[%d]=%ld after barrier", r, from, heap[from]); break;
        case 1: CHECK(slots_bss[from] == r, "round %d: bss[%d]=%ld after barrier", r, from, slots_bss[from]); break;
        case 2: CHECK(slots_data[from] == r, "round %d: data[%d]=%ld after barrier", r, from, slots_data[from]); break;
        default:
            if (me == 0)
                CHECK(ctr == (long)npes * (r / 4 + 1), "round %d: counter %ld want %ld", r, ctr,
                      (long)npes * (r / 4 + 1));
            break;
        }
        /* nobody writes the same slot again until everyone has checked it: the writes of round r+1 go elsewhere
         * (a different array), and the array comes back only after three more barriers */
    }
    /* local stores before a barrier are visible to a peer's get after it */
    for (int r = 0; r < 50; r++) {
        heap[MAXPE - 1] = r * 100 + me;
        shmem_barrier_all();
        long v = shmem_long_g(&heap[MAXPE - 1], (me + 1) % npes);
        CHECK(v == r * 100 + (me + 1) % npes, "local store before barrier: got %ld", v);
        shmem_barrier_all();
    }
    shmem_free(heap);
    return ftest_finish("barrier");
}
