/* heap_default.c - habits of existing programs (ISx and others) under the default heap: a 1 GiB shmem_malloc that
 * nobody checks for NULL succeeds and maps only the pages touched (it reserves them all in /dev/shm, which the
 * resident set does not count); an exhausted heap says so in one line per PE
 * (none with SHMEM_WARN_HEAP_EXHAUSTED=0, argv[1] "silent"); shmem_align(0, n) and shmemalign(0, n) give NULL. */
#include "ftest.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

static long resident_mib(void) {
    long size = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * sysconf(_SC_PAGESIZE) / (long)MiB;
}

/* runs the failing allocations with stderr in a file; returns how many lines name the request and the variable */
static int exhausted_lines(char *text, size_t len) {
    char path[] = "/tmp/gshmem-heap-default-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    REQUIRE(fd >= 0 && saved >= 0, "cannot capture stderr");
    unlink(path);
    fflush(stderr);
    dup2(fd, 2);
    void *a = shmem_malloc(SIZE_MAX / 4);
    void *b = shmem_malloc(SIZE_MAX / 4); /* the second must not print again */
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(a == NULL && b == NULL, "shmem_malloc(SIZE_MAX/4) != NULL");
    ssize_t n = pread(fd, text, len - 1, 0);
    close(fd);
    text[n > 0 ? n : 0] = '\0';
    int lines = 0;
    for (char *p = text; (p = strstr(p, "returns NULL")) != NULL; p++)
        lines++;
    return lines;
}

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int silent = argc > 1 && !strcmp(argv[1], "silent");

    long before = resident_mib();
    char *big = shmem_malloc(1024 * MiB);
    REQUIRE(big, "shmem_malloc(1 GiB) under the default heap returned NULL");
    big[0] = (char)me;
    shmem_barrier_all();
    shmem_char_p(&big[1024 * MiB - 1], (char)me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(big[1024 * MiB - 1] == (char)((me + npes - 1) % npes), "last byte of the 1 GiB block: %d",
          big[1024 * MiB - 1]);
    long grown = resident_mib() - before;
    CHECK(grown < 64, "a 1 GiB allocation with two pages touched grew the resident set by %ld MiB", grown);
    shmem_free(big);

    char text[4096];
    int lines = exhausted_lines(text, sizeof text);
    if (silent) {
        CHECK(lines == 0, "SHMEM_WARN_HEAP_EXHAUSTED=0, yet: %s", text);
    } else {
        CHECK(lines == 1, "%d lines about the exhausted heap (expected 1): %s", lines, text);
        CHECK(strstr(text, "shmem_malloc(") && strstr(text, "SHMEM_SYMMETRIC_SIZE") && strstr(text, "MiB"),
              "the line does not name the request, the heap size and SHMEM_SYMMETRIC_SIZE: %s", text);
    }

    CHECK(shmem_align(0, 64) == NULL, "shmem_align(0, 64) != NULL");
    CHECK(shmemalign(0, 64) == NULL, "shmemalign(0, 64) != NULL");
    CHECK(shmem_align(3, 64) == NULL, "shmem_align(3, 64) != NULL");
    void *ok = shmem_align(64, 64);
    CHECK(ok && ((uintptr_t)ok & 63) == 0, "shmem_align(64, 64) = %p", ok);
    shmem_free(ok);
    return ftest_finish(silent ? "heap_default (silent)" : "heap_default");
}
