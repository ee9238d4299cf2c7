/* dev_two_a.cu - one of two translation units of a program that both call shmemg_* in kernels (and a shared library
 * with kernels of its own, dev_lib.cu): each unit holds its own device state, received at shmem_init; no relocatable
 * device code, no device link. */
#include "dev_common.h"

extern int two_b_run(long *dest, int *fails);   /* dev_two_b.cu */
extern "C" int lib_run(long *dest, int *fails); /* dev_lib.cu, a shared library */

__global__ void k_a(long *dest, int *fails) {
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    shmemg_long_p(&dest[0], 100 + me, (me + 1) % n);
    shmemg_quiet();
    shmemg_sync_all();
    DCHECK(dest[0] == 100 + (me + n - 1) % n, "unit a: %ld", dest[0]);
}

int main() {
    dev_init();
    long *dest = (long *)shmemg_calloc(4, sizeof(long));
    k_a<<<1, 1>>>(dest, dev_fail);
    dev_check("unit a");
    HCHECK(two_b_run(dest, dev_fail) == 0, "unit b");
    dev_check("unit b");
#ifdef WITH_LIB
    HCHECK(lib_run(dest, dev_fail) == 0, "shared library");
    dev_check("shared library");
#endif
    if (shmem_my_pe() == 0)
        printf("dev_two: ok\n");
    shmem_finalize();
    return 0;
}
