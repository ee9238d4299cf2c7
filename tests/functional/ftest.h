/* ftest.h - tiny self-checking harness for the multi-PE functional tests (public OpenSHMEM API only).
 * A failed check prints one line naming the file, line, PE and values; finish() ends the job non-zero if any failed. */
#ifndef FTEST_H
#define FTEST_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Feature switches. gshmem implements OpenSHMEM 1.5, so everything is on; the peer validation builds
 * (Open MPI OSHMEM, a partial 1.4) pass -DFTEST_PEER_OSHMEM to leave out what that library lacks. */
#define FTEST_SPEC (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION)
#define FTEST_HAVE_15 (FTEST_SPEC >= 105)
#ifdef FTEST_PEER_OSHMEM
#define FTEST_HAVE_EXT_AMO_TYPES 0 /* int32/int64/uint32/uint64/size/ptrdiff standard AMOs */
#define FTEST_HAVE_MULTI_WAIT 0    /* wait_until_all/any/some, test_all/any/some (1.4) */
#else
#define FTEST_HAVE_EXT_AMO_TYPES 1
#define FTEST_HAVE_MULTI_WAIT 1
#endif

#define FTEST_SKIP 77
#define FTEST_MAX_FAILS 25

static int ftest_fails;

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "FAIL %s:%d PE %d/%d: ", __FILE__, __LINE__, shmem_my_pe(), shmem_n_pes());                    \
        fprintf(stderr, __VA_ARGS__);                                                                                  \
        fputc('\n', stderr);                                                                                           \
        fflush(stderr);                                                                                                \
        if (++ftest_fails >= FTEST_MAX_FAILS) {                                                                        \
            fprintf(stderr, "PE %d: too many failures, aborting the job\n", shmem_my_pe());                            \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            FAIL(__VA_ARGS__);                                                                                         \
    } while (0)

/* Hard stop: a later step would hang or crash if this is wrong. */
#define REQUIRE(cond, ...)                                                                                             \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            FAIL(__VA_ARGS__);                                                                                         \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

/* Ends the test: every PE agrees on the verdict, so the job exits 0 only if no PE saw a failure. */
static long ftest_total_fails;
static inline int ftest_finish(const char *name) {
    shmem_barrier_all();
    if (ftest_fails)
        shmem_long_atomic_add(&ftest_total_fails, ftest_fails, 0);
    shmem_barrier_all();
    long total = shmem_long_g(&ftest_total_fails, 0);
    if (shmem_my_pe() == 0)
        printf("%s: %s (%ld failed checks, %d PEs)\n", name, total ? "FAILED" : "passed", total, shmem_n_pes());
    fflush(stdout);
    shmem_barrier_all();
    if (total)
        shmem_global_exit(1);
    shmem_finalize();
    return 0;
}

/* A whole test needs something this library does not declare: every PE exits with the skip code. */
static inline int ftest_skip(const char *why) {
    if (shmem_my_pe() == 0)
        printf("SKIP: %s\n", why);
    fflush(stdout);
    shmem_finalize();
    return FTEST_SKIP;
}

#endif
