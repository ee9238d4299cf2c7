/* gpu_coll.c - every collective with GPU memory: dest and source in the GPU heap (D-D), a host source into a GPU
 * dest (H-D) and a GPU source into a host dest (D-H); small sizes (the scratch paths) and large ones (the paths that
 * read peers' buffers in place, and reductions over several accumulator pieces); world, a strided team and the
 * deprecated active-set forms; in-place reductions; long double (no GPU kernel: reduced on the host).
 * Skips (77) without GPU support; gpuemu_gpu_coll runs it on the emulated GPU, whose memory faults on any CPU access.
 * So this program never touches GPU memory itself: it fills and checks through puts and gets to itself. */
#include <complex.h>
#include <shmemg.h>
#include <shmemx.h>
#include <stdint.h>

#include "ftest.h"

static int me, npes;

/* a symmetric buffer of `bytes` in the GPU heap (kind 'D') or the host heap ('H') */
static void *sym(char kind, size_t bytes) {
    void *p = kind == 'D' ? shmem_space_malloc(SHMEM_SPACE_DEVICE, bytes) : shmem_malloc(bytes);
    REQUIRE(p, "cannot allocate %zu bytes (%c)", bytes, kind);
    return p;
}
static void put_in(void *sym_buf, const void *host, size_t n) {
    shmem_putmem(sym_buf, host, n, me);
    shmem_quiet();
}
static void get_out(void *host, const void *sym_buf, size_t n) { shmem_getmem(host, sym_buf, n, me); }

static void *scratch(size_t bytes) {
    void *p = malloc(bytes);
    REQUIRE(p, "out of memory");
    return p;
}

#define CHECK_ARRAY(T, FMT, got, n, expr, what)                                                                        \
    do {                                                                                                               \
        int bad_ = 0;                                                                                                  \
        for (size_t i = 0; i < (n) && bad_ < 3; i++) {                                                                 \
            T want_ = (T)(expr);                                                                                       \
            if ((got)[i] != want_) {                                                                                   \
                FAIL("%s: element %zu is " FMT ", expected " FMT, what, i, (got)[i], want_);                           \
                bad_++;                                                                                                \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)

static const char *const combos[] = {"DD", "HD", "DH"}; /* source kind, dest kind */

static void t_broadcast(size_t n) {
    for (int c = 0; c < 3; c++) {
        char what[64];
        snprintf(what, sizeof what, "broadcast %s of %zu longs", combos[c], n);
        long *src = sym(combos[c][0], n * sizeof(long)), *dst = sym(combos[c][1], n * sizeof(long));
        long *h = scratch(n * sizeof(long));
        int root = npes - 1;
        for (size_t i = 0; i < n; i++)
            h[i] = me == root ? (long)(i * 3 + 11) : -1;
        put_in(src, h, n * sizeof(long));
        shmem_barrier_all();
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, n, root);
        memset(h, 0, n * sizeof(long));
        get_out(h, dst, n * sizeof(long));
        CHECK_ARRAY(long, "%ld", h, n, i * 3 + 11, what);
        shmem_barrier_all();
        shmem_free(src);
        shmem_free(dst);
        free(h);
    }
}

static void t_fcollect_alltoall(size_t n) {
    for (int c = 0; c < 3; c++) {
        char what[64];
        long *src = sym(combos[c][0], npes * n * sizeof(long)), *dst = sym(combos[c][1], npes * n * sizeof(long));
        long *h = scratch(npes * n * sizeof(long));
        for (size_t i = 0; i < npes * n; i++)
            h[i] = (long)me * 1000000 + (long)i;
        put_in(src, h, npes * n * sizeof(long));
        shmem_barrier_all();
        shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, n);
        get_out(h, dst, npes * n * sizeof(long));
        snprintf(what, sizeof what, "fcollect %s of %zu longs", combos[c], n);
        CHECK_ARRAY(long, "%ld", h, npes *n, (long)(i / n) * 1000000 + (long)(i % n), what);
        shmem_barrier_all();
        /* alltoall: block j of my source goes to PE j, block i of my dest comes from PE i */
        shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, n);
        get_out(h, dst, npes * n * sizeof(long));
        snprintf(what, sizeof what, "alltoall %s of %zu longs", combos[c], n);
        CHECK_ARRAY(long, "%ld", h, npes *n, (long)(i / n) * 1000000 + (long)me * (long)n + (long)(i % n), what);
        shmem_barrier_all();
        shmem_free(src);
        shmem_free(dst);
        free(h);
    }
}

/* collect: PE p contributes p*k elements p*1000000 + i (with more than one PE, PE 0 contributes nothing: every
 * member must still choose the same algorithm) */
static size_t collect_share(int p, size_t k) { return k * (size_t)(npes > 1 ? p : 1); }
static void t_collect(size_t k) {
    size_t total = 0, mine = collect_share(me, k);
    for (int p = 0; p < npes; p++)
        total += collect_share(p, k);
    for (int c = 0; c < 3; c++) {
        char what[64];
        snprintf(what, sizeof what, "collect %s, k=%zu", combos[c], k);
        long *src = sym(combos[c][0], k * npes * sizeof(long)), *dst = sym(combos[c][1], total * sizeof(long));
        long *h = scratch(total * sizeof(long)), *want = scratch(total * sizeof(long));
        for (size_t i = 0; i < mine; i++)
            h[i] = (long)me * 1000000 + (long)i;
        put_in(src, h, mine * sizeof(long));
        shmem_barrier_all();
        shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, mine);
        get_out(h, dst, total * sizeof(long));
        for (int p = 0, at = 0; p < npes; p++)
            for (size_t i = 0; i < collect_share(p, k); i++)
                want[at++] = (long)p * 1000000 + (long)i;
        CHECK_ARRAY(long, "%ld", h, total, want[i], what);
        shmem_barrier_all();
        shmem_free(src);
        shmem_free(dst);
        free(h);
        free(want);
    }
}

static void t_alltoalls(void) {
    const size_t nel = 5, dstr = 2, sstr = 3, span = (size_t)npes * nel;
    long *src = sym('D', span * sstr * sizeof(long)), *dst = sym('D', span * dstr * sizeof(long));
    long *h = scratch(span * sstr * sizeof(long));
    for (size_t i = 0; i < span * sstr; i++)
        h[i] = i % sstr ? -7 : (long)me * 1000 + (long)(i / sstr);
    put_in(src, h, span * sstr * sizeof(long));
    memset(h, 0, span * sstr * sizeof(long));
    put_in(dst, h, span * dstr * sizeof(long));
    shmem_barrier_all();
    shmem_long_alltoalls(SHMEM_TEAM_WORLD, dst, src, (ptrdiff_t)dstr, (ptrdiff_t)sstr, nel);
    get_out(h, dst, span * dstr * sizeof(long));
    /* element m of block j of my dest (at (j*nel+m)*dstr) is element me*nel+m of PE j's source */
    CHECK_ARRAY(long, "%ld", h, span *dstr,
                i % dstr ? 0 : (long)(i / dstr / nel) * 1000 + (long)me * nel + (long)(i / dstr % nel),
                "alltoalls D-D");
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
    free(h);
}

/* sum, max and in-place sum of longs; prod of ints; sum of doubles, complex doubles and long doubles */
static void t_reduce(size_t n) {
    long nn = npes;
    for (int c = 0; c < 3; c++) {
        char what[80];
        long *src = sym(combos[c][0], n * sizeof(long)), *dst = sym(combos[c][1], n * sizeof(long));
        long *h = scratch(n * sizeof(long));
        for (size_t i = 0; i < n; i++)
            h[i] = (long)i + me;
        put_in(src, h, n * sizeof(long));
        shmem_barrier_all();
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n);
        get_out(h, dst, n * sizeof(long));
        snprintf(what, sizeof what, "long sum %s of %zu", combos[c], n);
        CHECK_ARRAY(long, "%ld", h, n, nn *(long)i + nn * (nn - 1) / 2, what);
        shmem_long_max_reduce(SHMEM_TEAM_WORLD, dst, src, n);
        get_out(h, dst, n * sizeof(long));
        snprintf(what, sizeof what, "long max %s of %zu", combos[c], n);
        CHECK_ARRAY(long, "%ld", h, n, (long)i + nn - 1, what);
        if (combos[c][0] == 'D') { /* in place: dest == source */
            shmem_barrier_all();
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, src, src, n);
            get_out(h, src, n * sizeof(long));
            snprintf(what, sizeof what, "in-place long sum of %zu", n);
            CHECK_ARRAY(long, "%ld", h, n, nn *(long)i + nn * (nn - 1) / 2, what);
        }
        shmem_barrier_all();
        shmem_free(src);
        shmem_free(dst);
        free(h);
    }
    /* other types, D-D */
    {
        int *is = sym('D', n * sizeof(int)), *id = sym('D', n * sizeof(int)), *h = scratch(n * sizeof(int));
        for (size_t i = 0; i < n; i++)
            h[i] = i % 5 == 0 ? 2 : 1;
        put_in(is, h, n * sizeof(int));
        shmem_barrier_all();
        shmem_int_prod_reduce(SHMEM_TEAM_WORLD, id, is, n);
        get_out(h, id, n * sizeof(int));
        CHECK_ARRAY(int, "%d", h, n, i % 5 == 0 ? 1 << npes : 1, "int prod D-D");
        shmem_barrier_all();
        shmem_free(is);
        shmem_free(id);
        free(h);
    }
    {
        double *ds = sym('D', n * sizeof(double)), *dd = sym('D', n * sizeof(double)), *h = scratch(n * sizeof(double));
        for (size_t i = 0; i < n; i++)
            h[i] = 0.5 * (double)(i % 100) + me;
        put_in(ds, h, n * sizeof(double));
        shmem_barrier_all();
        shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dd, ds, n);
        get_out(h, dd, n * sizeof(double));
        /* sums of halves and small integers are exact, whatever the order */
        CHECK_ARRAY(double, "%g", h, n, npes * 0.5 * (double)(i % 100) + (double)(npes * (npes - 1) / 2),
                    "double sum D-D");
        shmem_barrier_all();
        shmem_free(ds);
        shmem_free(dd);
        free(h);
    }
    {
        double _Complex *cs = sym('D', n * sizeof *cs), *cd = sym('D', n * sizeof *cd), *h = scratch(n * sizeof *h);
        for (size_t i = 0; i < n; i++)
            h[i] = (double)me + (double)(i % 9) * I;
        put_in(cs, h, n * sizeof *h);
        shmem_barrier_all();
        shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, cd, cs, n);
        get_out(h, cd, n * sizeof *h);
        int bad = 0;
        for (size_t i = 0; i < n && bad < 3; i++)
            if (creal(h[i]) != npes * (npes - 1) / 2 || cimag(h[i]) != (double)npes * (double)(i % 9)) {
                FAIL("complexd sum D-D: element %zu is %g%+gi", i, creal(h[i]), cimag(h[i]));
                bad++;
            }
        shmem_barrier_all();
        shmem_free(cs);
        shmem_free(cd);
        free(h);
    }
    {
        size_t m = n < 5000 ? n : 5000;
        long double *ls = sym('D', m * sizeof *ls), *ld = sym('D', m * sizeof *ld), *h = scratch(m * sizeof *h);
        for (size_t i = 0; i < m; i++)
            h[i] = (long double)i + me;
        put_in(ls, h, m * sizeof *h);
        shmem_barrier_all();
        shmem_longdouble_sum_reduce(SHMEM_TEAM_WORLD, ld, ls, m);
        get_out(h, ld, m * sizeof *h);
        int bad = 0;
        for (size_t i = 0; i < m && bad < 3; i++)
            if (h[i] != (long double)npes * i + npes * (npes - 1) / 2) {
                FAIL("long double sum D-D: element %zu is %Lg", i, h[i]);
                bad++;
            }
        shmem_barrier_all();
        shmem_free(ls);
        shmem_free(ld);
        free(h);
    }
}

/* inclusive and exclusive sum scans: PE p contributes (p+1)*(i%7+1) */
static void t_scan(size_t n) {
    long pre_in = 0, pre_ex = 0;
    for (int p = 0; p <= me; p++)
        pre_in += p + 1;
    pre_ex = pre_in - (me + 1);
    for (int c = 0; c < 3; c++) {
        char what[64];
        long *src = sym(combos[c][0], n * sizeof(long)), *dst = sym(combos[c][1], n * sizeof(long));
        long *h = scratch(n * sizeof(long));
        for (size_t i = 0; i < n; i++)
            h[i] = (long)(me + 1) * (long)(i % 7 + 1);
        put_in(src, h, n * sizeof(long));
        shmem_barrier_all();
        shmem_long_sum_inscan(SHMEM_TEAM_WORLD, dst, src, n);
        get_out(h, dst, n * sizeof(long));
        snprintf(what, sizeof what, "inscan %s of %zu", combos[c], n);
        CHECK_ARRAY(long, "%ld", h, n, pre_in *(long)(i % 7 + 1), what);
        shmem_barrier_all();
        shmem_long_sum_exscan(SHMEM_TEAM_WORLD, dst, src, n);
        get_out(h, dst, n * sizeof(long));
        snprintf(what, sizeof what, "exscan %s of %zu", combos[c], n);
        CHECK_ARRAY(long, "%ld", h, n, pre_ex *(long)(i % 7 + 1), what);
        shmem_barrier_all();
        shmem_free(src);
        shmem_free(dst);
        free(h);
    }
}

/* the even PEs as a strided team: a reduction and an fcollect on GPU memory */
static void t_team(size_t n) {
    shmem_team_t even = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    long *src = sym('D', n * sizeof(long)), *dst = sym('D', (size_t)npes * n * sizeof(long));
    long *h = scratch((size_t)npes * n * sizeof(long));
    if (even != SHMEM_TEAM_INVALID) {
        long tn = shmem_team_n_pes(even), tme = shmem_team_my_pe(even);
        for (size_t i = 0; i < n; i++)
            h[i] = tme * 10 + (long)(i % 3);
        put_in(src, h, n * sizeof(long));
        shmem_team_sync(even);
        shmem_long_sum_reduce(even, dst, src, n);
        get_out(h, dst, n * sizeof(long));
        CHECK_ARRAY(long, "%ld", h, n, 10 * tn * (tn - 1) / 2 + tn * (long)(i % 3), "even-team sum");
        shmem_team_sync(even);
        shmem_long_fcollect(even, dst, src, n);
        get_out(h, dst, (size_t)tn * n * sizeof(long));
        CHECK_ARRAY(long, "%ld", h, (size_t)tn *n, (long)(i / n) * 10 + (long)(i % n % 3), "even-team fcollect");
        shmem_team_destroy(even);
    }
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
    free(h);
}

/* deprecated active-set forms over the whole job */
static void t_active_set(size_t n) {
    static long psync[SHMEM_REDUCE_SYNC_SIZE], pwrk[8192 + SHMEM_REDUCE_MIN_WRKDATA_SIZE]; /* for nreduce <= 16000 */
    static long bsync[SHMEM_BCAST_SYNC_SIZE], csync[SHMEM_COLLECT_SYNC_SIZE];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        bsync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; i++)
        csync[i] = SHMEM_SYNC_VALUE;
    long *src = sym('D', n * sizeof(long)), *dst = sym('D', (size_t)npes * n * sizeof(long));
    long *h = scratch((size_t)npes * n * sizeof(long));
    for (size_t i = 0; i < n; i++)
        h[i] = (long)i * 2 + me;
    put_in(src, h, n * sizeof(long));
    shmem_barrier_all();
    shmem_long_sum_to_all(dst, src, (int)n, 0, 0, npes, pwrk, psync);
    get_out(h, dst, n * sizeof(long));
    CHECK_ARRAY(long, "%ld", h, n, (long)npes * 2 * (long)i + (long)npes * (npes - 1) / 2, "sum_to_all D-D");
    shmem_barrier_all();
    shmem_broadcast64(dst, src, n, 0, 0, 0, npes, bsync);
    get_out(h, dst, n * sizeof(long));
    if (me != 0)
        CHECK_ARRAY(long, "%ld", h, n, (long)i * 2, "broadcast64 D-D");
    shmem_barrier_all();
    shmem_fcollect64(dst, src, n, 0, 0, npes, csync);
    get_out(h, dst, (size_t)npes * n * sizeof(long));
    CHECK_ARRAY(long, "%ld", h, (size_t)npes *n, (long)(i % n) * 2 + (long)(i / n), "fcollect64 D-D");
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
    free(h);
}

int main(void) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_HOST_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_HOST_INIT))
        return ftest_skip("no GPU support: SHMEM_DEVICE_HOST_INIT was not provided (shmem_info says why)");
    me = shmem_my_pe();
    npes = shmem_n_pes();
    /* small: the scratch paths (4 KiB); large: peers' buffers in place, and for reductions more than one 2 MiB piece
     * of the GPU accumulator per member */
    t_broadcast(100);
    t_broadcast(40000);
    t_fcollect_alltoall(8);
    t_fcollect_alltoall(5000);
    t_collect(3);
    t_collect(3000);
    t_alltoalls();
    t_reduce(64);
    t_reduce(700000);
    t_scan(50);
    t_scan(300000);
    t_team(64);
    t_team(20000);
    t_active_set(32);
    t_active_set(9000);
    return ftest_finish("gpu_coll");
}
