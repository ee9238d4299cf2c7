/* gups.c - GUPS (HPCC RandomAccess) on host symmetric memory, "classic" form: every update is an atomic xor on the
 * owner PE's table word, so the result is exact. Builds against gshmem and against OSHMEM (OpenSHMEM 1.4). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include "app.h"
#include "gups_common.h"

static long log2_local = 20, factor = 4, lookahead = 0;
static const char *variant = "classic";
static uint64_t *table;
static struct gups_layout lay;
static uint64_t n_total, n_mine, my_first;

static void reset_table(void) {
    uint64_t first = gups_first(&lay, app_g.me), cnt = gups_count(&lay, app_g.me);
    for (uint64_t i = 0; i < cnt; i++)
        table[i] = first + i;
    shmem_barrier_all();
}

/* one pass of this PE's share of the stream. With --lookahead L the updates go in groups of L: their target words
 * are prefetched first where shmem_ptr maps them (same node), so L cache misses overlap instead of one at a time;
 * the atomics themselves are unchanged. */
#define GUPS_MAX_LOOK 256
static void pass(void *arg) {
    (void)arg;
    uint64_t r = gups_start((int64_t)my_first), rv[GUPS_MAX_LOOK], off[GUPS_MAX_LOOK];
    int pe[GUPS_MAX_LOOK];
    uint64_t look = lookahead > 0 ? (uint64_t)lookahead : 1;
    for (uint64_t i = 0; i < n_mine; i += look) {
        uint64_t m = n_mine - i < look ? n_mine - i : look;
        for (uint64_t j = 0; j < m; j++) {
            r = gups_next(r);
            rv[j] = r;
            pe[j] = gups_owner(&lay, r & lay.mask, &off[j]);
            if (lookahead > 0) {
                void *a = shmem_ptr(&table[off[j]], pe[j]);
                if (a)
                    __builtin_prefetch(a, 1);
            }
        }
        for (uint64_t j = 0; j < m; j++) {
#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 104
            shmem_uint64_atomic_xor(&table[off[j]], rv[j], pe[j]);
#else
            shmem_ulong_atomic_xor((unsigned long *)&table[off[j]], (unsigned long)rv[j], pe[j]);
#endif
        }
    }
    shmem_quiet();
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    shmem_init();
    const struct app_opt opts[] = {
        {"--log2-table", APP_INT, &log2_local, "log2 of the table words per PE (default 20: 8 MiB per PE)"},
        {"--factor", APP_INT, &factor, "updates = factor x global table words (default 4, as HPCC)"},
        {"--variant", APP_STR, &variant, "classic (atomic xor per update; the only host form)"},
        {"--lookahead", APP_INT, &lookahead,
         "prefetch the targets of the next L updates via shmem_ptr (0: off; <= 256)"},
        {NULL, 0, NULL, NULL}};
    app_init(argc, argv, "gups", "HPCC RandomAccess: xor updates of random words of a distributed table", opts);
    if (strcmp(variant, "classic") || log2_local < 1 || log2_local > 34 || factor < 1 || lookahead < 0 ||
        lookahead > GUPS_MAX_LOOK) {
        if (app_g.me == 0)
            fprintf(stderr, "gups: bad --variant/--log2-table/--factor (the GPU forms are gups-gpu)\n");
        shmem_finalize();
        return 2;
    }
    app_g.variant = variant;
    gups_layout_init(&lay, (int)log2_local, app_g.npes);
    n_total = (uint64_t)factor * lay.total;
    n_mine = gups_share(n_total, app_g.npes, app_g.me, &my_first);
    table = (uint64_t *)shmem_malloc((lay.base + 1) * sizeof(uint64_t));
    if (!table) {
        fprintf(stderr, "gups: PE %d: shmem_malloc of %llu words failed\n", app_g.me,
                (unsigned long long)(lay.base + 1));
        shmem_global_exit(1);
    }
    app_param("log2_table_per_pe", "%ld", log2_local);
    app_param("table_words", "%llu", (unsigned long long)lay.total);
    app_param("updates", "%llu", (unsigned long long)n_total);
    app_param("lookahead", "%ld", lookahead);

    reset_table();
    double tmin, tmax, t = app_time("updates", pass, NULL, &tmin, &tmax);
    double g = (double)n_total * 1e-9;
    app_metric("time", t, tmin, tmax, "s");
    app_metric("GUP/s", g / t, g / tmax, g / tmin, "GUP/s");

    if (app_g.verify) {
        /* one pass against a serial recompute of the whole stream, then a second pass: xor undoes the first, so the
         * table must be back to its initial values (classic is atomic: no error is allowed) */
        uint64_t cnt = gups_count(&lay, app_g.me), first = gups_first(&lay, app_g.me), bad1 = 0, bad2 = 0;
        uint64_t *exp = (uint64_t *)malloc(cnt * sizeof(uint64_t));
        reset_table();
        pass(NULL);
        gups_expected(&lay, n_total, app_g.me, exp);
        for (uint64_t i = 0; i < cnt; i++)
            bad1 += table[i] != exp[i];
        shmem_barrier_all(); /* every PE has read its words before the second pass changes them */
        pass(NULL);
        for (uint64_t i = 0; i < cnt; i++)
            bad2 += table[i] != first + i;
        if (bad1 || bad2)
            printf("gups: PE %d: %llu words differ from the serial recompute, %llu not restored by the second pass\n",
                   app_g.me, (unsigned long long)bad1, (unsigned long long)bad2);
        free(exp);
        app_verdict(bad1 == 0 && bad2 == 0);
    }
    shmem_free(table);
    return app_finish();
}
