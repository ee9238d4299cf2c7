/* err_init.c - shmem_init with a malformed setting (the test sets SHMEM_SYMMETRIC_SIZE=12q) must stop with a
 * message naming the variable and a non-zero exit; returning from shmem_init means it was accepted.
 * Arguments RANK:NAME=VALUE set NAME on that PE alone (its rank from oshrun's GSHMEM_RANK), for a setting only some
 * PEs get wrong. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *rank = getenv("GSHMEM_RANK");
    for (int i = 1; i < argc; i++) {
        char *colon = strchr(argv[i], ':'), *eq = colon ? strchr(colon, '=') : NULL;
        if (!eq) {
            fprintf(stderr, "err_init: expected RANK:NAME=VALUE, got '%s'\n", argv[i]);
            return 2;
        }
        if (rank && (size_t)(colon - argv[i]) == strlen(rank) && !strncmp(argv[i], rank, strlen(rank))) {
            *eq = '\0';
            setenv(colon + 1, eq + 1, 1);
        }
    }
    shmem_init();
    printf("err_init: PE %d: shmem_init accepted the malformed setting\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
