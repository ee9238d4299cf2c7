/* replay.c - runs a fuzz target over files (its committed seeds) without libFuzzer: the ctest form of the fuzzers,
 * built by any compiler. Usage: fuzz_X_replay FILE|DIR... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return 1;
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    return 0;
}

int main(int argc, char **argv) {
    int files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st))
            return fprintf(stderr, "replay: cannot read %s\n", argv[i]), 1;
        if (!S_ISDIR(st.st_mode)) {
            files += !run_file(argv[i]);
            continue;
        }
        DIR *d = opendir(argv[i]);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
            files += !run_file(p);
        }
        if (d)
            closedir(d);
    }
    printf("replay: %d inputs, no failure\n", files);
    return files ? 0 : 1;
}
