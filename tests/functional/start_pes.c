/* start_pes.c - the deprecated start_pes(0) entry: PEs come up, RMA works, and returning from main
 * without shmem_finalize ends the job cleanly (the library finalizes at exit). */
#include "ftest.h"

static long cell[4];

int main(void) {
    start_pes(0);
    int me = _my_pe(), npes = _num_pes();
    int fails = 0;
    if (me < 0 || me >= npes || me != shmem_my_pe() || npes != shmem_n_pes()) {
        fprintf(stderr, "FAIL PE %d/%d: start_pes numbering (shmem_my_pe=%d shmem_n_pes=%d)\n", me, npes, shmem_my_pe(),
                shmem_n_pes());
        fails++;
    }
    shmem_long_p(&cell[1], 500 + me, (me + 1) % npes);
    shmem_barrier_all();
    long want = 500 + (me + npes - 1) % npes;
    if (cell[1] != want) {
        fprintf(stderr, "FAIL PE %d: cell[1]=%ld want %ld\n", me, cell[1], want);
        fails++;
    }
    shmem_barrier_all();
    if (fails)
        shmem_global_exit(1);
    if (me == 0)
        printf("start_pes: passed (%d PEs)\n", npes);
    return 0; /* no shmem_finalize: start_pes programs may just return */
}
