/* generic.c - the C11 type-generic interfaces (this file must be compiled as C11 or later): shmem_put/get/p/g,
 * their context forms, shmem_atomic_*, shmem_wait_until, shmem_sync(team), and the team collectives shmem_broadcast,
 * shmem_collect, shmem_fcollect, shmem_alltoall, shmem_alltoalls, shmem_{and,max,min,sum,prod}_reduce (and the 1.6
 * shmem_sum_inscan when declared) for several types, each checked against the typed routine's expected result. */
#include "fc.h"

#include <complex.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "generic.c needs C11"
#endif
#ifndef FC_HAVE_SCAN
#define FC_HAVE_SCAN 0
#endif

#define N 5
static long lsrc[FC_MAXPE * N], ldst[FC_MAXPE * N];
static double dsrc[FC_MAXPE * N], ddst[FC_MAXPE * N];
static int isrc[FC_MAXPE * N], idst[FC_MAXPE * N];
static float fsrc[FC_MAXPE * N], fdst[FC_MAXPE * N];
static unsigned int usrc[N], udst[N];
static short ssrc[FC_MAXPE * N * 2], sdst[FC_MAXPE * N * 2];
static double _Complex zsrc[N], zdst[N];
static long flag, ctr;

static void rma_amo(void) {
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_ctx_t ctx;
    REQUIRE(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
    for (int i = 0; i < N; i++) {
        lsrc[i] = me * 10 + i;
        dsrc[i] = me + i / 4.0;
        fsrc[i] = (float)(me * 2 + i);
    }
    shmem_barrier_all();
    shmem_put(ldst, lsrc, N, right);             /* long */
    shmem_put(ctx, ddst, dsrc, N, right);        /* ctx, double */
    shmem_p(&idst[0], me + 100, right);          /* int */
    shmem_p(ctx, &fdst[0], (float)me / 2, left); /* ctx, float */
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        CHECK(ldst[i] == left * 10 + i, "shmem_put(long): %ld", ldst[i]);
        CHECK(ddst[i] == left + i / 4.0, "shmem_put(ctx, double): %g", ddst[i]);
    }
    CHECK(idst[0] == left + 100, "shmem_p(int): %d", idst[0]);
    CHECK(fdst[0] == (float)right / 2, "shmem_p(ctx, float): %g", fdst[0]);
    long g = shmem_g(&lsrc[1], right);
    double dg = shmem_g(ctx, &dsrc[2], left);
    CHECK(g == right * 10 + 1 && dg == left + 0.5, "shmem_g: %ld %g", g, dg);
    float fb[N];
    shmem_get(fb, fsrc, N, right);
    for (int i = 0; i < N; i++)
        CHECK(fb[i] == (float)(right * 2 + i), "shmem_get(float)[%d] = %g", i, fb[i]);
    shmem_barrier_all();
    /* AMOs */
    long old = shmem_atomic_fetch_add(&ctr, 2L, 0);
    CHECK(old >= 0 && old < 4L * npes, "shmem_atomic_fetch_add(long) returned %ld", old);
    shmem_atomic_add(ctx, &ctr, 1L, 0);
    shmem_atomic_inc(&ctr, 0);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (me == 0)
        CHECK(ctr == 4L * npes, "generic AMOs: counter %ld want %ld", ctr, 4L * npes);
    unsigned int u = shmem_atomic_fetch(&udst[0], me);
    CHECK(u == 0, "shmem_atomic_fetch(uint) %u", u);
    shmem_barrier_all();
    /* wait_until: the left neighbour sets our flag */
    shmem_atomic_set(&flag, 7L, right);
    shmem_wait_until(&flag, SHMEM_CMP_EQ, 7L);
    CHECK(flag == 7, "wait_until: flag %ld", flag);
    shmem_barrier_all();
    shmem_ctx_destroy(ctx);
}

static void collectives(const fc_team *t) {
    if (t->idx < 0) {
        shmem_barrier_all();
        shmem_barrier_all();
        return;
    }
    int n = t->size, p = t->idx, root = n - 1;
    for (int i = 0; i < N; i++) {
        lsrc[i] = me * 10 + i;
        dsrc[i] = me + i / 4.0;
        isrc[i] = me + i;
        usrc[i] = 1u << ((p + i) % 32) | 0x80000000u;
        fsrc[i] = (float)(p + 1);
        zsrc[i] = (p % 4 == 0 ? 1 : I) + 0.0 * i;
    }
    for (int j = 0; j < n * N; j++)
        isrc[j] = me * 1000 + j;
    for (int j = 0; j < n * N * 2; j++)
        ssrc[j] = (short)(me * 100 + j);
    memset(ldst, 0, sizeof ldst);
    shmem_barrier_all(); /* every dest ready, every source written */
    CHECK(shmem_broadcast(t->team, ldst, lsrc, N, root) == 0, "shmem_broadcast(long)");
    for (int i = 0; i < N; i++)
        CHECK(ldst[i] == fc_world_pe(t, root) * 10 + i, "shmem_broadcast(long) team %s [%d] = %ld", t->name, i,
              ldst[i]);
    CHECK(shmem_fcollect(t->team, ddst, dsrc, N) == 0, "shmem_fcollect(double)");
    for (int j = 0; j < n * N; j++)
        CHECK(ddst[j] == fc_world_pe(t, j / N) + (j % N) / 4.0, "shmem_fcollect(double) [%d] = %g", j, ddst[j]);
    CHECK(shmem_collect(t->team, ldst, lsrc, (size_t)(p % 2 + 1)) == 0, "shmem_collect(long)");
    for (int j = 0, off = 0; j < n; j++)
        for (int e = 0; e < j % 2 + 1; e++, off++)
            CHECK(ldst[off] == fc_world_pe(t, j) * 10 + e, "shmem_collect(long) [%d] = %ld", off, ldst[off]);
    CHECK(shmem_alltoall(t->team, idst, isrc, N) == 0, "shmem_alltoall(int)");
    for (int j = 0; j < n * N; j++)
        CHECK(idst[j] == fc_world_pe(t, j / N) * 1000 + p * N + j % N, "shmem_alltoall(int) [%d] = %d", j, idst[j]);
    CHECK(shmem_alltoalls(t->team, sdst, ssrc, 2, 1, N) == 0, "shmem_alltoalls(short)");
    for (int j = 0; j < n * N; j++)
        CHECK(sdst[2 * j] == (short)(fc_world_pe(t, j / N) * 100 + p * N + j % N), "shmem_alltoalls(short) [%d] = %d",
              2 * j, sdst[2 * j]);
    /* reductions */
    CHECK(shmem_sum_reduce(t->team, ldst, lsrc, N) == 0, "shmem_sum_reduce(long)");
    CHECK(shmem_max_reduce(t->team, ddst, dsrc, N) == 0, "shmem_max_reduce(double)");
    CHECK(shmem_and_reduce(t->team, udst, usrc, N) == 0, "shmem_and_reduce(uint)");
    CHECK(shmem_prod_reduce(t->team, fdst, fsrc, N) == 0, "shmem_prod_reduce(float)");
    CHECK(shmem_sum_reduce(t->team, zdst, zsrc, N) == 0, "shmem_sum_reduce(double _Complex)");
    CHECK(shmem_min_reduce(t->team, idst, isrc, N) == 0, "shmem_min_reduce(int)");
    long wsum = 0;
    float fprod = 1;
    double _Complex zsum = 0;
    int wmax = -1, wmin = npes;
    for (int j = 0; j < n; j++) {
        int w = fc_world_pe(t, j);
        wmax = w > wmax ? w : wmax;
        wmin = w < wmin ? w : wmin;
        wsum += w;
        fprod *= (float)(j + 1);
        zsum += j % 4 == 0 ? 1 : I;
    }
    for (int i = 0; i < N; i++) {
        CHECK(ldst[i] == wsum * 10 + (long)n * i, "shmem_sum_reduce(long) [%d] = %ld", i, ldst[i]);
        CHECK(ddst[i] == wmax + i / 4.0, "shmem_max_reduce(double) [%d] = %g", i, ddst[i]);
        unsigned int want = n == 1 ? usrc[i] : 0x80000000u; /* distinct single bits plus bit 31 everywhere */
        CHECK(udst[i] == want, "shmem_and_reduce(uint) [%d] = %#x want %#x", i, udst[i], want);
        CHECK(fdst[i] == fprod, "shmem_prod_reduce(float) [%d] = %g want %g", i, fdst[i], fprod);
        CHECK(zdst[i] == zsum, "shmem_sum_reduce(complex) [%d] = %g%+gi", i, creal(zdst[i]), cimag(zdst[i]));
        CHECK(idst[i] == wmin * 1000 + i, "shmem_min_reduce(int) [%d] = %d", i, idst[i]);
    }
#if FC_HAVE_SCAN
    shmem_sync(t->team); /* every member checked ldst and ddst before a peer writes them again */
    CHECK(shmem_sum_inscan(t->team, ldst, lsrc, N) == 0, "shmem_sum_inscan(long)");
    CHECK(shmem_sum_exscan(t->team, ddst, dsrc, N) == 0, "shmem_sum_exscan(double)");
    for (int i = 0; i < N; i++) {
        long in = 0;
        double ex = 0;
        for (int j = 0; j <= p; j++)
            in += fc_world_pe(t, j) * 10 + i;
        for (int j = 0; j < p; j++)
            ex += fc_world_pe(t, j) + i / 4.0;
        CHECK(ldst[i] == in, "shmem_sum_inscan(long) [%d] = %ld want %ld", i, ldst[i], in);
        CHECK(ddst[i] == ex, "shmem_sum_exscan(double) [%d] = %g want %g", i, ddst[i], ex);
    }
#endif
    CHECK(shmem_sync(t->team) == 0, "shmem_sync(team)");
    shmem_barrier_all();
}

int main(void) {
    fc_init();
    rma_amo();
    fc_team teams[FC_NTEAMS];
    fc_make_teams(teams);
    for (int ti = 0; ti < FC_NTEAMS; ti++)
        collectives(&teams[ti]);
    fc_destroy_teams(teams);
    return ftest_finish("generic");
}
