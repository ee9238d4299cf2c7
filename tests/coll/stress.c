/* stress.c - oversubscription: 1000 rounds of small collectives on the world team and on two overlapping subteams
 * (the first half of the PEs, and every PE but the first), run with more PEs than CPUs, so wait loops must give the
 * CPU to the PE they wait for. No barrier between rounds: buffers alternate between two copies, and each team's round
 * ends with an all-to-all-dependent collective, so no PE can overwrite data a peer has not checked (see coll_sizes.c).
 * Every result is checked every round. */
#include "fc.h"

#define ROUNDS 1000
#define NE 4

typedef struct {
    long bc[2][NE], red[2][NE], fc[2][FC_MAXPE * NE], a2a[2][FC_MAXPE];
    long sbc[NE], sred[NE], sfc[NE], sa2a[FC_MAXPE];
} tb_t;

static long enc(int r, int w, int i) { return (long)r * 100000 + w * 100 + i; }

static void round_on(const fc_team *t, tb_t *b, int r, int ops) {
    int k = r % 2, n = t->size, p = t->idx;
    if (ops & 1) { /* broadcast, root walks */
        int root = (r / 3) % n;
        for (int i = 0; i < NE; i++)
            b->sbc[i] = enc(r, me, i);
        CHECK(shmem_long_broadcast(t->team, b->bc[k], b->sbc, NE, root) == 0, "broadcast");
        for (int i = 0; i < NE; i++)
            if (b->bc[k][i] != enc(r, fc_world_pe(t, root), i)) {
                FAIL("round %d team %s: broadcast[%d] = %ld", r, t->name, i, b->bc[k][i]);
                break;
            }
    }
    if (ops & 2) { /* fcollect */
        for (int i = 0; i < NE; i++)
            b->sfc[i] = enc(r, me, i);
        CHECK(shmem_long_fcollect(t->team, b->fc[k], b->sfc, NE) == 0, "fcollect");
        for (int j = 0; j < n * NE; j++)
            if (b->fc[k][j] != enc(r, fc_world_pe(t, j / NE), j % NE)) {
                FAIL("round %d team %s: fcollect[%d] = %ld", r, t->name, j, b->fc[k][j]);
                break;
            }
    }
    if (ops & 4) { /* alltoall, one element per pair */
        for (int j = 0; j < n; j++)
            b->sa2a[j] = enc(r, me, j);
        CHECK(shmem_long_alltoall(t->team, b->a2a[k], b->sa2a, 1) == 0, "alltoall");
        for (int j = 0; j < n; j++)
            if (b->a2a[k][j] != enc(r, fc_world_pe(t, j), p)) {
                FAIL("round %d team %s: alltoall[%d] = %ld", r, t->name, j, b->a2a[k][j]);
                break;
            }
    }
    /* always last: max reduction (all-to-all dependent) */
    for (int i = 0; i < NE; i++)
        b->sred[i] = enc(r, me, i);
    CHECK(shmem_long_max_reduce(t->team, b->red[k], b->sred, NE) == 0, "max_reduce");
    int wmax = fc_world_pe(t, n - 1);
    for (int i = 0; i < NE; i++)
        if (b->red[k][i] != enc(r, wmax, i)) {
            FAIL("round %d team %s: max_reduce[%d] = %ld", r, t->name, i, b->red[k][i]);
            break;
        }
}

int main(void) {
    fc_init();
    fc_team w = {SHMEM_TEAM_WORLD, 0, 1, 0, 0, "world"}, a, b;
    w.size = npes;
    w.idx = me;
    fc_split(&a, "first half", 0, 1, (npes + 1) / 2);
    fc_split(&b, "all but PE 0", npes > 1 ? 1 : 0, 1, npes > 1 ? npes - 1 : 1);
    tb_t *bw = shmem_calloc(1, sizeof(tb_t)), *ba = shmem_calloc(1, sizeof(tb_t)), *bb = shmem_calloc(1, sizeof(tb_t));
    REQUIRE(bw && ba && bb, "shmem_calloc");
    for (int r = 0; r < ROUNDS; r++) {
        round_on(&w, bw, r, r % 2 ? 1 | 4 : 2);
        if (a.idx >= 0)
            round_on(&a, ba, r, 1 | 2);
        if (b.idx >= 0)
            round_on(&b, bb, r, r % 3 ? 4 : 1);
        if (r % 50 == 49 && b.idx >= 0)
            shmem_team_sync(b.team);
    }
    shmem_barrier_all();
    shmem_free(bb);
    shmem_free(ba);
    shmem_free(bw);
    fc_destroy(&b);
    fc_destroy(&a);
    return ftest_finish("stress");
}
