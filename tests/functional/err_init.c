/* err_init.c - shmem_init with a malformed setting (the test sets SHMEM_SYMMETRIC_SIZE=12q) must stop with a
 * message naming the variable and a non-zero exit; returning from shmem_init means it was accepted. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    printf("err_init: PE %d: shmem_init accepted the malformed setting\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
