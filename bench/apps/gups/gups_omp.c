/* gups_omp.c - GUPS with the table in OpenMP device memory, in the two forms of the OpenMP/OpenSHMEM paper:
 * "standard" (the table is an ordinary mapped variable; each pass stages it to host symmetric memory, updates it
 * there and copies it back) and "extended" (the table is symmetric device memory of a KIND=LIBOMP partition behind
 * the same variable, shmemx_omp_map: the updates' atomics go to it directly). Runs on OpenMP's host fallback too. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include "app.h"
#include "gups_common.h"

#include <omp.h>
#include <shmemx.h>

static long log2_local = 16, factor = 4, partition = 1;
static const char *variant = "extended";
static int extended;
static uint64_t *table; /* the program's table variable: host symmetric memory, mapped to the device */
static uint64_t *dtab;  /* extended: the symmetric device object behind it (shmemx_omp_map) */
static struct gups_layout lay;
static uint64_t n_total, n_mine, my_first, cnt;

/* the initial table, written on the device */
static void reset_table(void) {
    uint64_t first = gups_first(&lay, app_g.me), c = cnt;
    uint64_t *t = table;
#pragma omp target teams distribute parallel for map(alloc : t [0:c])
    for (uint64_t i = 0; i < c; i++)
        t[i] = first + i;
    shmem_barrier_all();
}

/* this PE's share of the stream as atomic xors on the owners' words: device memory (extended) or the host copy */
static void updates(uint64_t *tab) {
    uint64_t r = gups_start((int64_t)my_first), off;
    for (uint64_t i = 0; i < n_mine; i++) {
        r = gups_next(r);
        int pe = gups_owner(&lay, r & lay.mask, &off);
        shmem_uint64_atomic_xor(&tab[off], r, pe);
    }
    shmem_quiet();
}

static void pass(void *arg) {
    (void)arg;
    if (extended) {
        updates(dtab);
    } else { /* plain OpenSHMEM cannot name device memory: out to the host, update there, back in */
#pragma omp target update from(table [0:cnt])
        shmem_barrier_all();
        updates(table);
        shmem_barrier_all();
#pragma omp target update to(table [0:cnt])
    }
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    shmem_init();
    const struct app_opt opts[] = {
        {"--log2-table", APP_INT, &log2_local, "log2 of the table words per PE (default 16)"},
        {"--factor", APP_INT, &factor, "updates = factor x global table words (default 4, as HPCC)"},
        {"--variant", APP_STR, &variant, "standard (staged through host memory) or extended (symmetric device memory)"},
        {"--partition", APP_INT, &partition, "extended: the KIND=LIBOMP partition of the table (default 1)"},
        {NULL, 0, NULL, NULL}};
    app_init(argc, argv, "gups-omp", "HPCC RandomAccess with the table in OpenMP device memory", opts);
    extended = !strcmp(variant, "extended");
    if ((!extended && strcmp(variant, "standard")) || log2_local < 1 || log2_local > 34 || factor < 1) {
        if (app_g.me == 0)
            fprintf(stderr, "gups-omp: bad --variant (standard, extended), --log2-table or --factor\n");
        shmem_finalize();
        return 2;
    }
    app_g.variant = variant;
    gups_layout_init(&lay, (int)log2_local, app_g.npes);
    n_total = (uint64_t)factor * lay.total;
    n_mine = gups_share(n_total, app_g.npes, app_g.me, &my_first);
    cnt = gups_count(&lay, app_g.me);
    size_t bytes = (lay.base + 1) * sizeof(uint64_t);
    table = (uint64_t *)shmem_malloc(bytes);
    if (!table) {
        fprintf(stderr, "gups-omp: PE %d: shmem_malloc of %zu bytes failed\n", app_g.me, bytes);
        shmem_global_exit(1);
    }
    if (extended) {
        if (!(dtab = (uint64_t *)shmemx_omp_map(table, bytes, (int)partition))) {
            fprintf(stderr, "gups-omp: PE %d: partition %ld has no room for %zu bytes (SHMEM_SYMMETRIC_PARTITION%ld)\n",
                    app_g.me, partition, bytes, partition);
            shmem_global_exit(1);
        }
    } else {
#pragma omp target enter data map(alloc : table [0:cnt])
    }
    app_param("log2_table_per_pe", "%ld", log2_local);
    app_param("table_words", "%llu", (unsigned long long)lay.total);
    app_param("updates", "%llu", (unsigned long long)n_total);
    app_param("offload_devices", "%d", omp_get_num_devices());

    reset_table();
    double tmin, tmax, tm = app_time("updates", pass, NULL, &tmin, &tmax);
    double g = (double)n_total * 1e-9;
    app_metric("time", tm, tmin, tmax, "s");
    app_metric("GUP/s", g / tm, g / tmax, g / tmin, "GUP/s");

    if (app_g.verify) { /* as gups.c: one pass against the serial recompute, a second pass restores the table */
        uint64_t first = gups_first(&lay, app_g.me), bad1 = 0, bad2 = 0;
        uint64_t *exp = (uint64_t *)malloc(cnt * sizeof(uint64_t));
        reset_table();
        pass(NULL);
#pragma omp target update from(table [0:cnt])
        gups_expected(&lay, n_total, app_g.me, exp);
        for (uint64_t i = 0; i < cnt; i++)
            bad1 += table[i] != exp[i];
        shmem_barrier_all();
        pass(NULL);
#pragma omp target update from(table [0:cnt])
        for (uint64_t i = 0; i < cnt; i++)
            bad2 += table[i] != first + i;
        if (bad1 || bad2)
            printf("gups-omp: PE %d: %llu words differ from the serial recompute, %llu not restored by the second "
                   "pass\n",
                   app_g.me, (unsigned long long)bad1, (unsigned long long)bad2);
        free(exp);
        app_verdict(bad1 == 0 && bad2 == 0);
    }
    if (extended) {
        shmemx_omp_unmap(table);
    } else {
#pragma omp target exit data map(delete : table [0:cnt])
    }
    shmem_free(table);
    return app_finish();
}
