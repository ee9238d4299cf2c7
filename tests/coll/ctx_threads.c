/* ctx_threads.c - SHMEM_THREAD_MULTIPLE with one SHMEM_CTX_PRIVATE context per thread: 4 threads per PE create
 * their contexts at the same time (from the world team and from a team), hammer puts and fetch_adds at the right
 * neighbour and a shared counter, ctx_quiet, and destroy; every count and every fetched value is exact. */
#include "fc.h"

#include "../common/thread_run.h"

#define NT 4
#define ITERS 300
#define BLK 8

static int right;
static long *counters; /* heap [NT]: thread t of the left neighbour is the only one adding to counters[t] */
static long *total;    /* heap [1] on PE 0: every thread of every PE adds */
static long *cells;    /* heap [NT * BLK]: thread t of the left neighbour puts into cells[t*BLK..] */
static shmem_team_t dup_world;
static pthread_barrier_t tbar;

static void *worker(void *arg) {
    int t = (int)(long)arg;
    shmem_ctx_t ctx = SHMEM_CTX_INVALID, tctx = SHMEM_CTX_INVALID;
    pthread_barrier_wait(&tbar); /* create at the same time */
    int rc = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx);
    CHECK(rc == 0 && ctx != SHMEM_CTX_INVALID, "thread %d: ctx_create(PRIVATE) returned %d", t, rc);
    rc = shmem_team_create_ctx(dup_world, SHMEM_CTX_PRIVATE, &tctx);
    CHECK(rc == 0 && tctx != SHMEM_CTX_INVALID, "thread %d: team_create_ctx(PRIVATE) returned %d", t, rc);
    if (ctx == SHMEM_CTX_INVALID || tctx == SHMEM_CTX_INVALID)
        return NULL;
    for (int i = 0; i < ITERS; i++) {
        long old = shmem_ctx_long_atomic_fetch_add(ctx, &counters[t], 1, right);
        if (old != i)
            FAIL("thread %d: fetch_add #%d returned %ld (one writer, must be %d)", t, i, old, i);
        long src[BLK];
        for (int k = 0; k < BLK; k++)
            src[k] = (long)i * 1000 + t * BLK + k;
        shmem_ctx_long_put(ctx, &cells[t * BLK], src, BLK, right);
        shmem_ctx_long_atomic_inc(tctx, total, 0); /* team PE 0 of the world's duplicate: world PE 0 */
        if (i % 50 == 49) {
            shmem_ctx_quiet(ctx);
            shmem_ctx_quiet(tctx);
            long back[BLK];
            shmem_ctx_long_get(ctx, back, &cells[t * BLK], BLK, right);
            for (int k = 0; k < BLK; k++)
                if (back[k] != src[k]) {
                    FAIL("thread %d iteration %d: get after ctx_quiet elem %d = %ld want %ld", t, i, k, back[k],
                         src[k]);
                    break;
                }
        }
    }
    shmem_ctx_quiet(ctx);
    shmem_ctx_quiet(tctx);
    shmem_ctx_destroy(tctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void) {
    int skip = gt_init_thread_multiple(&me, &npes);
    if (skip)
        return skip;
    right = (me + 1) % npes;
    counters = shmem_calloc(NT, sizeof(long));
    total = shmem_calloc(1, sizeof(long));
    cells = shmem_calloc(NT * BLK, sizeof(long));
    REQUIRE(counters && total && cells, "shmem_calloc");
    shmem_team_config_t cfg = {.num_contexts = NT};
    REQUIRE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &dup_world) == 0,
            "split_strided");
    gt_run_threads(NT, worker, &tbar);
    shmem_barrier_all();
    for (int t = 0; t < NT; t++) {
        CHECK(counters[t] == ITERS, "counter of thread %d: %ld want %d", t, counters[t], ITERS);
        for (int k = 0; k < BLK; k++)
            CHECK(cells[t * BLK + k] == (long)(ITERS - 1) * 1000 + t * BLK + k, "cells[%d][%d] = %ld", t, k,
                  cells[t * BLK + k]);
    }
    if (me == 0)
        CHECK(*total == (long)npes * NT * ITERS, "total %ld want %ld", *total, (long)npes * NT * ITERS);
    shmem_team_destroy(dup_world);
    shmem_free(cells);
    shmem_free(total);
    shmem_free(counters);
    return ftest_finish("ctx_threads");
}
