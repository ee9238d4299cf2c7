/* shmem_info - prints gshmem's version, build configuration, the GPU and heap a job here would get and what the
 * environment sets; --all: every environment variable it reads (from the one table in src/core/env.def) with the
 * value the current environment would give. */
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--markdown")) {
        shmemi_env_print_markdown(stdout);
        return 0;
    }
    int all = argc > 1 && !strcmp(argv[1], "--all");
    if (argc > 2 || (argc > 1 && !all)) {
        printf("usage: shmem_info [--all | --markdown]\n  Prints the version, build configuration, the GPU and "
               "symmetric heap a job here would get, and the\n  variables the environment sets (or gshmem does not "
               "read);\n  --all prints everything, with every environment variable and its current value;\n"
               "  --markdown prints the variable table as docs/ENV.md.\n");
        return strcmp(argv[1], "-h") && strcmp(argv[1], "--help") ? 2 : 0;
    }
    char err[768];
    int rc = shmemi_env_read(err, sizeof err);
    if (all)
        shmemi_info_print(stdout);
    else
        shmemi_info_brief(stdout);
    if (rc) {
        fprintf(stderr, "shmem_info: %s\n", err);
        return 1;
    }
    return 0;
}
