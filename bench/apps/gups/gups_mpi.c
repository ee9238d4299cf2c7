/* gups_mpi.c - the MPI counterpart of gups.c's classic form: the same table, stream and checks, each update an
 * MPI_Accumulate(MPI_BXOR) into an MPI-3 window under one lock_all epoch (MPI's one-sided atomic update). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gups_common.h"

#define BATCH 1024 /* accumulates in flight before their origin buffer is reused (MPI_Win_flush_local_all) */

static int me, npes;
static long log2_local = 20, factor = 4, reps = 5, warmup = 1, verify;
static uint64_t *table, n_total, n_mine, my_first;
static struct gups_layout lay;
static MPI_Win win;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pass(void) {
    static uint64_t val[BATCH];
    uint64_t r = gups_start((int64_t)my_first);
    for (uint64_t i = 0; i < n_mine; i += BATCH) {
        uint64_t m = n_mine - i < BATCH ? n_mine - i : BATCH;
        for (uint64_t j = 0; j < m; j++) {
            uint64_t off;
            r = gups_next(r);
            val[j] = r;
            int pe = gups_owner(&lay, r & lay.mask, &off);
            MPI_Accumulate(&val[j], 1, MPI_UINT64_T, pe, (MPI_Aint)off, 1, MPI_UINT64_T, MPI_BXOR, win);
        }
        MPI_Win_flush_local_all(win);
    }
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win); /* the others' updates are visible to our loads */
}

static void reset_table(void) {
    uint64_t first = gups_first(&lay, me), cnt = gups_count(&lay, me);
    for (uint64_t i = 0; i < cnt; i++)
        table[i] = first + i;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    for (int i = 1; i < argc; i++) {
        long *p = !strcmp(argv[i], "--log2-table") ? &log2_local
                  : !strcmp(argv[i], "--factor")   ? &factor
                  : !strcmp(argv[i], "--reps")     ? &reps
                  : !strcmp(argv[i], "--warmup")   ? &warmup
                                                   : NULL;
        if (!strcmp(argv[i], "--verify"))
            verify = 1;
        else if (p && i + 1 < argc)
            *p = atol(argv[++i]);
        else {
            if (me == 0)
                fprintf(stderr, "usage: mpirun -np N gups_mpi [--log2-table K] [--factor F] [--reps R] [--warmup W] "
                                "[--verify]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (log2_local < 1 || log2_local > 34 || factor < 1 || reps < 1 || warmup < 0) {
        if (me == 0)
            fprintf(stderr, "gups_mpi: bad option value\n");
        MPI_Finalize();
        return 2;
    }
    gups_layout_init(&lay, (int)log2_local, npes);
    n_total = (uint64_t)factor * lay.total;
    n_mine = gups_share(n_total, npes, me, &my_first);
    MPI_Win_allocate((MPI_Aint)((lay.base + 1) * sizeof(uint64_t)), sizeof(uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &table, &win);
    MPI_Win_lock_all(0, win);
    reset_table();
    double *t = (double *)malloc((size_t)reps * sizeof(double));
    for (long r = 0; r < warmup + reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        pass();
        double dt = now() - t0, mx;
        MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r >= warmup)
            t[r - warmup] = mx;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp);
    double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    if (me == 0)
        printf("gups_mpi     classic          np=%-3d GUP/s %12.6g (min %.6g, max %.6g) time %.6g s\n", npes,
               (double)n_total * 1e-9 / med, (double)n_total * 1e-9 / t[reps - 1], (double)n_total * 1e-9 / t[0], med);
    int ok = 1;
    if (verify) {
        uint64_t cnt = gups_count(&lay, me), first = gups_first(&lay, me), bad = 0;
        uint64_t *exp = (uint64_t *)malloc(cnt * sizeof(uint64_t));
        reset_table();
        pass();
        gups_expected(&lay, n_total, me, exp);
        for (uint64_t i = 0; i < cnt; i++)
            bad += table[i] != exp[i];
        MPI_Barrier(MPI_COMM_WORLD);
        pass();
        for (uint64_t i = 0; i < cnt; i++)
            bad += table[i] != first + i;
        free(exp);
        int mine = bad == 0;
        MPI_Allreduce(&mine, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (me == 0)
            printf("gups_mpi classic np=%d: verification %s\n", npes, ok ? "passed" : "FAILED");
    }
    free(t);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return !ok;
}
