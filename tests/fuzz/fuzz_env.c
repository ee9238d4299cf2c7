/* fuzz_env.c - libFuzzer target for the whole environment reader: the input is lines of NAME=VALUE that become the
 * process environment (nothing else in it), then shmemi_env_read runs. A refusal must come with a message; an
 * acceptance must leave every SIZE and INT setting inside its row's range (env.def; 0 is auto where that is the
 * default), so nothing downstream narrows or wraps; the partitions must be sorted by ID with no ID twice. The lines
 * about variables gshmem does not read (shmemi_env_unknown) must cope with any names. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

extern char **environ;

static void in_size(size_t v, long long lo, long long hi) {
    if (v < (unsigned long long)lo || v > (unsigned long long)hi)
        abort();
}
static void in_int(long v, long long lo, long long hi) {
    if (v < lo || v > hi)
        abort();
}
/* (a SIZE whose default is "auto" may also be 0, which stands for auto) */
#define CHECK_SIZE(f, lo, hi, def)                                                                                     \
    if (!(shmemi_env.f == 0 && !strcmp(def, "auto")))                                                                  \
        in_size(shmemi_env.f, (long long)(lo), (long long)(hi));
#define CHECK_INT(f, lo, hi, def) in_int(shmemi_env.f, (long long)(lo), (long long)(hi));
#define CHECK_BOOL(f, lo, hi, def)                                                                                     \
    if (shmemi_env.f != 0 && shmemi_env.f != 1)                                                                        \
        abort();
#define CHECK_STRING(f, lo, hi, def)                                                                                   \
    if (!shmemi_env.f)                                                                                                 \
        abort();

static void check_ranges(void) {
#define X(field, name, type, def, lo, hi, vis, doc) CHECK_##type(field, lo, hi, def)
#include "env.def"
#undef X
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
    char *buf = malloc(len + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, len);
    buf[len] = '\0';
    clearenv();
    for (char *line = buf, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *eq = strchr(line, '=');
        if (!eq || eq == line)
            continue;
        *eq = '\0';
        setenv(line, eq + 1, 1);
    }
    char err[768] = "";
    int rc = shmemi_env_read(err, sizeof err);
    /* the lines about variables gshmem does not read take any names (long, near-misses, SMA_...) */
    static FILE *null;
    if (!null && !(null = fopen("/dev/null", "w")))
        abort();
    if (shmemi_env_unknown(null, "", "") < 0)
        abort();
    if (rc != 0 && rc != -1)
        abort();
    if (rc) {
        if (!err[0])
            abort();
    } else {
        check_ranges();
        for (int i = 1; i < shmemi_npartitions; i++)
            if (shmemi_partitions[i - 1].id >= shmemi_partitions[i].id)
                abort();
    }
    clearenv();
    free(buf);
    return 0;
}
