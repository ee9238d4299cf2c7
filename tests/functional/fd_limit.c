/* fd_limit.c - every PE puts to every other PE and checks what it received: over libfabric's tcp provider each peer
 * reached costs a socket, so under a low `ulimit -n` (ulimit_run.sh) the job must end with gshmem's hint, not hang. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int *box = shmem_calloc((size_t)n, sizeof *box);
    shmem_barrier_all();
    for (int k = 1; k < n; k++) {
        int pe = (me + k) % n;
        int v = me + 1;
        shmem_int_put(&box[me], &v, 1, pe);
    }
    shmem_barrier_all();
    int bad = 0;
    for (int pe = 0; pe < n; pe++)
        if (pe != me && box[pe] != pe + 1)
            bad++;
    if (bad)
        printf("PE %d: %d of %d slots wrong\n", me, bad, n - 1);
    shmem_free(box);
    shmem_finalize();
    return bad != 0;
}
