/* shmem_info - prints gshmem's version, build configuration and every environment variable it reads (from the
 * one table in src/core/env.def), with the values the current environment would give. */
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--markdown")) {
        shmemi_env_print_markdown(stdout);
        return 0;
    }
    if (argc > 1) {
        printf("usage: shmem_info [--markdown]\n  Prints the version, build configuration and environment variables "
               "with their current values;\n  --markdown prints the variable table as docs/ENV.md.\n");
        return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
    }
    char err[768];
    int rc = shmemi_env_read(err, sizeof err);
    shmemi_info_print(stdout);
    if (rc) {
        fprintf(stderr, "shmem_info: %s\n", err);
        return 1;
    }
    return 0;
}
