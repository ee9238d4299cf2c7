/* coll_threads.c - SHMEM_THREAD_MULTIPLE: "multiple collective operations on different teams may be performed in
 * parallel" and splits of different parent teams may run at the same time. Each of 3 threads per PE owns a team (two
 * duplicates of the world team and the world team reversed) and runs broadcast / fcollect / collect / alltoall /
 * reduction rounds on it while the other threads do the same on theirs; then each thread repeatedly splits its own
 * team, runs collectives on the child and destroys it, all threads at once. Every result is checked. Skips when the
 * library does not provide SHMEM_THREAD_MULTIPLE. */
#include "fc.h"

#include "../common/thread_run.h"

#define NT 3
#define ROUNDS 100
#define SPLITS 25
#define NE 6

typedef struct {
    long bc[2][NE], fc[2][FC_MAXPE * NE], col[2][FC_MAXPE * 3], a2a[2][FC_MAXPE], red[2][NE];
    long sbc[NE], sfc[NE], scol[3], sa2a[FC_MAXPE], sred[NE];
} tbuf_t;

static fc_team tteam[NT];
static tbuf_t *tbuf[NT];
static tbuf_t *cbuf[NT]; /* for the children */
static pthread_barrier_t tbar;

static long enc(int th, int r, int w, int i) { return ((long)th << 40) + (long)r * 100000 + w * 100 + i; }

/* one round on team (team PE j = world PE start + stride*j): ends with an all-to-all-dependent reduction, buffers
 * alternate, so no barrier is needed between rounds */
static void round_on(const char *ph, int th, shmem_team_t team, int start, int stride, int n, int p, tbuf_t *b, int r) {
    int k = r % 2, root = r % n;
#define WPE(j) (start + stride * (j))
    for (int i = 0; i < NE; i++)
        b->sbc[i] = enc(th, r, me, i);
    CHECK(shmem_long_broadcast(team, b->bc[k], b->sbc, NE, root) == 0, "broadcast");
    for (int i = 0; i < NE; i++)
        if (b->bc[k][i] != enc(th, r, WPE(root), i)) {
            FAIL("%s: thread %d round %d: broadcast[%d] = %lx", ph, th, r, i, (unsigned long)b->bc[k][i]);
            break;
        }
    for (int i = 0; i < NE; i++)
        b->sfc[i] = enc(th, r, me, i + 10);
    CHECK(shmem_long_fcollect(team, b->fc[k], b->sfc, NE) == 0, "fcollect");
    for (int j = 0; j < n * NE; j++)
        if (b->fc[k][j] != enc(th, r, WPE(j / NE), j % NE + 10)) {
            FAIL("%s: thread %d round %d: fcollect[%d] = %lx", ph, th, r, j, (unsigned long)b->fc[k][j]);
            break;
        }
    int mine = (p + r) % 3;
    for (int i = 0; i < mine; i++)
        b->scol[i] = enc(th, r, me, i + 20);
    CHECK(shmem_long_collect(team, b->col[k], b->scol, (size_t)mine) == 0, "collect");
    for (int j = 0, off = 0; j < n; j++)
        for (int i = 0; i < (j + r) % 3; i++, off++)
            if (b->col[k][off] != enc(th, r, WPE(j), i + 20)) {
                FAIL("%s: thread %d round %d: collect[%d] = %lx", ph, th, r, off, (unsigned long)b->col[k][off]);
                j = n;
                break;
            }
    for (int j = 0; j < n; j++)
        b->sa2a[j] = enc(th, r, me, j + 30);
    CHECK(shmem_long_alltoall(team, b->a2a[k], b->sa2a, 1) == 0, "alltoall");
    for (int j = 0; j < n; j++)
        if (b->a2a[k][j] != enc(th, r, WPE(j), p + 30)) {
            FAIL("%s: thread %d round %d: alltoall[%d] = %lx", ph, th, r, j, (unsigned long)b->a2a[k][j]);
            break;
        }
    for (int i = 0; i < NE; i++)
        b->sred[i] = enc(th, r, me, i + 40);
    CHECK(shmem_long_max_reduce(team, b->red[k], b->sred, NE) == 0, "max_reduce");
    int wmax = WPE(0) > WPE(n - 1) ? WPE(0) : WPE(n - 1);
    for (int i = 0; i < NE; i++)
        if (b->red[k][i] != enc(th, r, wmax, i + 40)) {
            FAIL("%s: thread %d round %d: max_reduce[%d] = %lx", ph, th, r, i, (unsigned long)b->red[k][i]);
            break;
        }
#undef WPE
}

static void *worker(void *arg) {
    int th = (int)(long)arg;
    fc_team *t = &tteam[th];
    pthread_barrier_wait(&tbar);
    for (int r = 0; r < ROUNDS; r++)
        round_on("own teams", th, t->team, t->start, t->stride, t->size, t->idx, tbuf[th], r);
    pthread_barrier_wait(&tbar);
    /* splits of this thread's own team while the other threads split theirs: child = every PE but the team's
     * first (or the team itself at 1 PE) */
    for (int s = 0; s < SPLITS; s++) {
        int cstart = t->size > 1 ? 1 : 0, csize = t->size > 1 ? t->size - 1 : 1;
        shmem_team_t child = SHMEM_TEAM_WORLD;
        pthread_barrier_wait(&tbar); /* the threads of this PE split at the same moment */
        int rc = shmem_team_split_strided(t->team, cstart, 1, csize, NULL, 0, &child);
        CHECK(rc == 0, "thread %d split %d returned %d", th, s, rc);
        int cidx = t->idx - cstart;
        if (rc == 0 && cidx >= 0 && cidx < csize) {
            REQUIRE(child != SHMEM_TEAM_INVALID, "thread %d split %d: member got SHMEM_TEAM_INVALID", th, s);
            for (int r = 0; r < 3; r++)
                round_on("children split at once", th, child, t->start + t->stride * cstart, t->stride, csize, cidx,
                         cbuf[th], s * 3 + r);
        } else if (rc == 0) {
            CHECK(child == SHMEM_TEAM_INVALID, "thread %d split %d: non-member got a team", th, s);
        }
        shmem_team_destroy(child);
    }
    return NULL;
}

int main(void) {
    int skip = gt_init_thread_multiple(&me, &npes);
    if (skip)
        return skip;
    REQUIRE(npes <= FC_MAXPE, "too many PEs");
    fc_split(&tteam[0], "world dup A", 0, 1, npes);
    fc_split(&tteam[1], "world dup B", 0, 1, npes);
    fc_split(&tteam[2], "world reversed", npes - 1, -1, npes);
    for (int th = 0; th < NT; th++) {
        tbuf[th] = shmem_calloc(1, sizeof(tbuf_t));
        cbuf[th] = shmem_calloc(1, sizeof(tbuf_t));
        REQUIRE(tbuf[th] && cbuf[th], "shmem_calloc");
    }
    gt_run_threads(NT, worker, &tbar);
    shmem_barrier_all();
    for (int th = 0; th < NT; th++) {
        shmem_free(cbuf[th]);
        shmem_free(tbuf[th]);
        fc_destroy(&tteam[th]);
    }
    return ftest_finish("coll_threads");
}
