/* shmem_info - prints gshmem's version, build configuration and every environment variable it reads (from the
 * one table in src/core/env.def), with the values the current environment would give. */
#include <stdio.h>
#include <string.h>

#include "state.h"

int main(int argc, char **argv) {
    int all = argc > 1 && (!strcmp(argv[1], "-a") || !strcmp(argv[1], "--all"));
    if (argc > 1 && !all) {
        printf("usage: shmem_info [-a|--all]\n  Prints the version, build configuration and environment variables;"
               "\n  --all also lists the variables oshrun sets for its PEs.\n");
        return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
    }
    char err[768];
    int rc = shmemi_env_read(err, sizeof err);
    shmemi_info_print(stdout);
    if (rc) {
        fprintf(stderr, "shmem_info: %s\n", err);
        return 1;
    }
    (void)all;
    return 0;
}
