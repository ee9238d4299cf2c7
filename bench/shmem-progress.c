/* shmem-progress.c - does a one-sided operation complete while its target PE computes without calling the library?
 *
 * PE 1 computes for --busy milliseconds (a loop on the clock, no OpenSHMEM call); PE 0 waits a tenth of that, so PE 1
 * is surely in its own code, then times one operation on PE 1: a fetch-add, an 8-byte get, an 8-byte put followed by
 * a quiet. A library with passive progress (the target's memory mapped, a NIC that serves the operation, or a
 * progress thread) completes it in about a round trip; one without waits until PE 1 calls the library again, at the
 * end of its computation. Written against the public API only (OpenSHMEM 1.4): builds with any implementation.
 *
 *   oshcc -O2 -o /tmp/shmem-progress bench/shmem-progress.c
 *   oshrun -np 2 /tmp/shmem-progress [--busy MS] [--trials N] [--expect-progress]
 *
 * --expect-progress: exit 1 if an operation waited for the end of PE 1's computation (a test of passive progress).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long target, word;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { OP_FADD, OP_GET, OP_PUT_QUIET, NOPS };
static const char *const op_name[NOPS] = {"fetch_add", "get", "put+quiet"};

static void do_op(int op) {
    long v = 1;
    switch (op) {
    case OP_FADD: (void)shmem_long_atomic_fetch_add(&target, 1, 1); break;
    case OP_GET: shmem_getmem(&v, &word, sizeof v, 1); break;
    default:
        shmem_putmem(&word, &v, sizeof v, 1);
        shmem_quiet();
        break;
    }
}

int main(int argc, char **argv) {
    double busy_ms = 200;
    int trials = 3, expect = 0, waited = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--busy") && i + 1 < argc)
            busy_ms = atof(argv[++i]);
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc)
            trials = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--expect-progress"))
            expect = 1;
        else {
            fprintf(stderr, "usage: oshrun -np 2 shmem-progress [--busy MS (200)] [--trials N (3)] "
                            "[--expect-progress]\n");
            return 2;
        }
    }
    if (busy_ms <= 0 || trials < 1) {
        fprintf(stderr, "shmem-progress: --busy must be > 0 and --trials >= 1\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        if (me == 0)
            fprintf(stderr, "shmem-progress: needs 2 PEs (oshrun -np 2)\n");
        shmem_finalize();
        return 2;
    }
    double *ms = malloc(sizeof(double) * (size_t)trials);
    if (!ms)
        shmem_global_exit(1);
    if (me == 0)
        printf("# one operation on PE 1 while PE 1 computes for %.0f ms without calling the library (issued %.0f ms "
               "in); %d trials\n# %-10s %10s %10s %10s  %s\n",
               busy_ms, busy_ms / 10, trials, "op", "median_ms", "min_ms", "max_ms", "verdict");
    for (int op = 0; op < NOPS; op++) {
        for (int t = 0; t < trials; t++) {
            if (me == 0) /* warm: connections set up, pages touched, before the timed trial */
                do_op(op);
            shmem_barrier_all();
            if (me == 1) {
                volatile long spin = 0;
                double t0 = now();
                while (now() - t0 < busy_ms * 1e-3)
                    spin++;
            } else if (me == 0) {
                long long ns = (long long)(busy_ms * 1e5); /* a tenth of busy_ms */
                struct timespec d = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
                nanosleep(&d, NULL);
                double t0 = now();
                do_op(op);
                ms[t] = (now() - t0) * 1e3;
            }
            shmem_barrier_all();
        }
        if (me == 0) {
            qsort(ms, (size_t)trials, sizeof *ms, cmp);
            double med = trials % 2 ? ms[trials / 2] : (ms[trials / 2 - 1] + ms[trials / 2]) / 2;
            printf("%-12s %10.3f %10.3f %10.3f  %s\n", op_name[op], med, ms[0], ms[trials - 1],
                   med < busy_ms * 0.45 ? "served while PE 1 computed" : "waited for PE 1 to call the library");
            if (ms[trials - 1] >= busy_ms * 0.45)
                waited = 1;
        }
    }
    free(ms);
    shmem_finalize();
    if (expect && waited) {
        fprintf(stderr, "shmem-progress: an operation on PE 1 waited for PE 1 to call the library again (no passive "
                        "progress)\n");
        return 1;
    }
    return 0;
}
