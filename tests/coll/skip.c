/* skip.c - stands in for a test whose API <shmem.h> does not declare (FC_MISSING names it): every PE exits 77;
 * with FC_FAIL (the test's source does not compile against the headers) the job fails instead. */
#include <shmem.h>
#include <stdio.h>

#ifndef FC_MISSING
#define FC_MISSING "a required routine"
#endif

int main(void) {
    shmem_init();
#ifdef FC_FAIL
    if (shmem_my_pe() == 0)
        printf("FAIL: <shmem.h> lacks %s\n", FC_MISSING);
    fflush(stdout);
    shmem_finalize();
    return 1;
#else
    if (shmem_my_pe() == 0)
        printf("SKIP: <shmem.h> does not declare %s\n", FC_MISSING);
    fflush(stdout);
    shmem_finalize();
    return 77;
#endif
}
