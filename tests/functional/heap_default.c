/* heap_default.c - habits of existing programs (ISx and others) under the default heap: a 1 GiB shmem_malloc that
 * nobody checks for NULL succeeds and maps only the pages touched (it reserves them all in /dev/shm, which the
 * resident set does not count); an exhausted heap says so in one line per PE
 * (none with SHMEM_WARN_HEAP_EXHAUSTED=0, argv[1] "silent"); shmem_align(0, n), shmem_align(63, n) and
 * shmemalign(0, n) give NULL, and PE 0 says why once. */
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

/* stderr into a file between capture() and captured(), which returns what was written there */
static int cap_fd = -1, cap_saved = -1;
static void capture(void) {
    char path[] = "/tmp/gshmem-heap-default-XXXXXX";
    cap_fd = mkstemp(path);
    cap_saved = dup(2);
    REQUIRE(cap_fd >= 0 && cap_saved >= 0, "cannot capture stderr");
    unlink(path);
    fflush(stderr);
    dup2(cap_fd, 2);
}
static int captured(char *text, size_t len) {
    fflush(stderr);
    dup2(cap_saved, 2);
    close(cap_saved);
    ssize_t n = pread(cap_fd, text, len - 1, 0);
    close(cap_fd);
    text[n > 0 ? n : 0] = '\0';
    int lines = 0;
    for (char *p = text; (p = strstr(p, "returns NULL")) != NULL; p++)
        lines++;
    return lines;
}

/* runs the failing allocations with stderr in a file; returns how many lines name the request and the variable */
static int exhausted_lines(char *text, size_t len) {
    capture();
    void *a = shmem_malloc(SIZE_MAX / 4);
    void *b = shmem_malloc(SIZE_MAX / 4); /* the second must not print again */
    int lines = captured(text, len);
    CHECK(a == NULL && b == NULL, "shmem_malloc(SIZE_MAX/4) != NULL");
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

    /* an alignment that is not a power of two gives NULL and, like exhaustion, says why: PE 0 for the job, once
     * (issue 40) */
    capture();
    void *odd = shmem_align(63, 64);
    void *odd2 = shmem_align(63, 64);
    lines = captured(text, sizeof text);
    CHECK(odd == NULL && odd2 == NULL, "shmem_align(63, 64) != NULL");
    if (silent || me != 0)
        CHECK(lines == 0, "%d lines about shmem_align(63, 64) on PE %d (expected none): %s", lines, me, text);
    else
        CHECK(lines == 1 && strstr(text, "shmem_align(63, 64 bytes) returns NULL on every PE") &&
                  strstr(text, "power of two"),
              "PE 0 does not say once why shmem_align(63, 64) is NULL: %s", text);
    CHECK(shmem_align(0, 64) == NULL, "shmem_align(0, 64) != NULL");
    CHECK(shmemalign(0, 64) == NULL, "shmemalign(0, 64) != NULL");
    CHECK(shmem_align(3, 64) == NULL, "shmem_align(3, 64) != NULL");
    void *ok = shmem_align(64, 64);
    CHECK(ok && ((uintptr_t)ok & 63) == 0, "shmem_align(64, 64) = %p", ok);
    shmem_free(ok);
    return ftest_finish(silent ? "heap_default (silent)" : "heap_default");
}
