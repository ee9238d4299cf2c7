/* err_misuse.c - one cheap-to-detect misuse per run (argv[1] picks it). The library must end the job with a
 * non-zero exit and a message naming the routine and the PE; reaching the end of main means it was not caught. */
#include <shmem.h>
#include <shmemg.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sym_int[16];
static long sym_long[16];

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "";
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int src[16] = {0};
    int stack_dest[16];
    long *priv = malloc(16 * sizeof(long));
    shmem_barrier_all();
    if (me == 0) {
        if (!strcmp(what, "put_pe"))
            shmem_int_put(sym_int, src, 4, npes + 3);
        else if (!strcmp(what, "space_device")) /* GPU support was not requested: there is no GPU heap */
            shmem_space_malloc(SHMEM_SPACE_DEVICE, 64);
        else if (!strcmp(what, "space_bad"))
            shmem_space_malloc(7, 64);
        else if (!strcmp(what, "gpu_team"))
            shmem_team_sync(SHMEM_DEVICE_TEAM_WORLD);
        else if (!strcmp(what, "put_negpe"))
            shmem_int_put(sym_int, src, 4, -1);
        else if (!strcmp(what, "put_nonsym"))
            shmem_int_put(stack_dest, src, 4, 1 % npes);
        else if (!strcmp(what, "put_null"))
            shmem_int_put(sym_int, NULL, 4, 1 % npes);
        else if (!strcmp(what, "get_pe"))
            shmem_long_get(priv, sym_long, 4, npes);
        else if (!strcmp(what, "p_nonsym"))
            shmem_long_p(priv, 1, 1 % npes);
        else if (!strcmp(what, "amo_pe"))
            (void)shmem_int_atomic_fetch_add(sym_int, 1, npes + 1);
        else {
            fprintf(stderr, "unknown case '%s'\n", what);
            return 2;
        }
        shmem_quiet();
        printf("err_misuse %s: NOT DETECTED (the call returned)\n", what);
        fflush(stdout);
    }
    shmem_barrier_all();
    free(priv);
    (void)stack_dest;
    shmem_finalize();
    return 0;
}
