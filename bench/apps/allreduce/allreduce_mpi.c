/* allreduce_mpi.c - the MPI counterpart of allreduce.c: MPI_Allreduce (in place, float sum) over the same sizes and
 * initial values, with the same options, table lines and JSON object, so results line up with the OpenSHMEM forms. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, npes, quiet, reps = 5, warmup = 1;
static const char *json;

static int parse_size(const char *s, size_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    else if (*end == 'g' || *end == 'G')
        v <<= 30, end++;
    if (*end)
        return -1;
    *out = (size_t)v;
    return 0;
}

/* same values as allreduce.c: small integers, exact in float */
static float init_val(int p, size_t i) { return (float)((i * 7 + (size_t)p * 3) % 1021 + (size_t)p % 5); }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static char metrics[4096];
static void metric(const char *name, double med, double min, double max, const char *unit) {
    if (me)
        return;
    if (!quiet || !json)
        printf("%-12s %-16s np=%-3d %-22s %12.6g %s (min %.6g, max %.6g)\n", "allreduce", "mpi", npes, name, med, unit,
               min, max);
    size_t l = strlen(metrics);
    snprintf(metrics + l, sizeof metrics - l,
             "%s\"%s\": {\"median\": %.9g, \"min\": %.9g, \"max\": %.9g, \"unit\": \"%s\"}", l ? ", " : "", name, med,
             min, max, unit);
}

int main(int argc, char **argv) {
    size_t min = 4096, max = 4u << 20;
    long factor = 4;
    int verify = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--help")) {
            if (me == 0)
                printf("usage: mpirun -np N allreduce_mpi [--min S] [--max S] [--factor 2|4] [--verify] [--json FILE]"
                       " [--reps N] [--warmup N] [--quiet]\nMPI_Allreduce (in place, float sum) of each size; "
                       "reports time_<S> (us) and busbw_<S> (GB/s) as allreduce does.\n");
            MPI_Finalize();
            return 0;
        } else if (!strcmp(a, "--verify")) {
            verify = 1;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!v) {
            bad = 1;
        } else if (!strcmp(a, "--min")) {
            bad = parse_size(v, &min), i++;
        } else if (!strcmp(a, "--max")) {
            bad = parse_size(v, &max), i++;
        } else if (!strcmp(a, "--factor")) {
            factor = atol(v), i++;
        } else if (!strcmp(a, "--json")) {
            json = v, i++;
        } else if (!strcmp(a, "--reps")) {
            reps = atoi(v), i++, bad = reps < 1;
        } else if (!strcmp(a, "--warmup")) {
            warmup = atoi(v), i++, bad = warmup < 0;
        } else {
            bad = 1;
        }
        if (bad || (factor != 2 && factor != 4) || min < sizeof(float) || min % sizeof(float) || max < min) {
            if (me == 0)
                fprintf(stderr, "allreduce_mpi: bad option '%s' (see --help)\n", a);
            MPI_Finalize();
            return 2;
        }
    }
    size_t nmax = max / sizeof(float);
    float *data = (float *)malloc(nmax * sizeof(float));
    double *t = (double *)malloc((size_t)reps * sizeof(double));
    if (!data || !t) {
        fprintf(stderr, "allreduce_mpi: out of memory for --max %zu\n", max);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* the steady state, as allreduce.c measures it: 32 untimed calls first */
    for (size_t i = 0; i < min / sizeof(float); i++)
        data[i] = init_val(me, i);
    for (int i = 0; i < 32; i++)
        MPI_Allreduce(MPI_IN_PLACE, data, (int)(min / sizeof(float)), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);

    int ok = 1;
    for (size_t bytes = min; bytes <= max; bytes *= (size_t)factor) {
        size_t n = bytes / sizeof(float);
        for (size_t i = 0; i < n; i++)
            data[i] = init_val(me, i);
        if (verify) {
            MPI_Allreduce(MPI_IN_PLACE, data, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) {
                float want = 0;
                for (int p = 0; p < npes; p++)
                    want += init_val(p, i);
                bad += data[i] != want;
            }
            if (bad)
                fprintf(stderr, "allreduce_mpi rank %d: %zu of %zu elements wrong at %zu bytes\n", me, bad, n, bytes);
            ok &= bad == 0;
        }
        for (int r = 0; r < warmup + reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Allreduce(MPI_IN_PLACE, data, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            double dt = MPI_Wtime() - t0, slowest;
            MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r >= warmup)
                t[r - warmup] = slowest;
        }
        qsort(t, (size_t)reps, sizeof(double), cmp_double);
        double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
        double f = npes > 1 ? 2.0 * (npes - 1) / npes : 0.0, gb = (double)bytes / 1e9;
        char name[48];
        snprintf(name, sizeof name, "time_%zu", bytes);
        metric(name, med * 1e6, t[0] * 1e6, t[reps - 1] * 1e6, "us");
        snprintf(name, sizeof name, "busbw_%zu", bytes);
        metric(name, gb / med * f, gb / t[reps - 1] * f, gb / t[0] * f, "GB/s");
        if (bytes > max / (size_t)factor)
            break;
    }
    int all_ok = ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (verify && me == 0)
        printf("allreduce mpi np=%d: verification %s\n", npes, all_ok ? "passed" : "FAILED");
    if (me == 0 && json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            fprintf(stderr, "allreduce_mpi: cannot write %s: %s\n", json, strerror(errno));
        } else {
            fprintf(f,
                    "{\"app\": \"allreduce\", \"variant\": \"mpi\", \"impl\": \"mpi\", \"npes\": %d, \"verify\": "
                    "\"%s\", \"params\": {\"reps\": \"%d\", \"min\": \"%zu\", \"max\": \"%zu\", \"factor\": "
                    "\"%ld\"}, \"metrics\": {%s}}\n",
                    npes,
                    !verify  ? "skipped"
                    : all_ok ? "passed"
                             : "failed",
                    reps, min, max, factor, metrics);
            fclose(f);
        }
    }
    free(data);
    free(t);
    MPI_Finalize();
    return verify && !all_ok;
}
