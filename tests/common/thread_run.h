/* thread_run.h - the common steps of the SHMEM_THREAD_MULTIPLE tests: initialization and a team of pthreads. */
#ifndef GT_THREAD_RUN_H
#define GT_THREAD_RUN_H

#include "../functional/ftest.h"

#include <pthread.h>

/* shmem_init_thread(SHMEM_THREAD_MULTIPLE), then *me and *npes. Returns 0 when the library provides MULTIPLE, else
 * the exit status of a skipped test (after ftest_skip); ends the process with status 1 when the call fails. */
static inline int gt_init_thread_multiple(int *me, int *npes) {
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) {
        fprintf(stderr, "FAIL: shmem_init_thread failed\n");
        exit(1);
    }
    *me = shmem_my_pe();
    *npes = shmem_n_pes();
    return provided == SHMEM_THREAD_MULTIPLE ? 0 : ftest_skip("SHMEM_THREAD_MULTIPLE not provided");
}

/* Runs fn((void *)(long)t) for t = 0..nt-1, each on its own thread, and joins them all. With bar not NULL, *bar is
 * a barrier of the nt threads while they run. */
static inline void gt_run_threads(int nt, void *(*fn)(void *), pthread_barrier_t *bar) {
    pthread_t *tid = malloc((size_t)nt * sizeof *tid);
    REQUIRE(tid, "malloc");
    if (bar)
        REQUIRE(pthread_barrier_init(bar, NULL, (unsigned)nt) == 0, "pthread_barrier_init");
    for (int t = 0; t < nt; t++)
        REQUIRE(pthread_create(&tid[t], NULL, fn, (void *)(long)t) == 0, "pthread_create");
    for (int t = 0; t < nt; t++)
        pthread_join(tid[t], NULL);
    if (bar)
        pthread_barrier_destroy(bar);
    free(tid);
}

#endif
