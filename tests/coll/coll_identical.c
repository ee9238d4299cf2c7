/* coll_identical.c - reductions whose floating-point results depend on the order of operations must still give every
 * member the same bits, on every team shape the slots are reused for. For each team size 1..npes (a team created,
 * used and destroyed, so its slot passes from team to team) and on the world team: rounds of double sum and long sum
 * reductions of several lengths (short ones, ones past 4 KiB and past 16 KiB, so the algorithms alternate), in place
 * on odd rounds, with no barrier between rounds; each member then fcollects its result and compares it bit for bit
 * with every other member's, and with its own sum within a tolerance (long sums exactly). */
#include "fc.h"

#include <math.h>

#define ROUNDS 40
#define MAXN 2100 /* doubles: 16800 bytes */

static const int lens[] = {1, 3, 64, 511, 700, MAXN};
#define NLENS ((int)(sizeof lens / sizeof lens[0]))

static double val(int r, int pe, int i) { /* not exactly summable: the order of additions shows in the bits */
    return sin(r * 0.37 + pe * 1.91 + i * 0.013) * 1e3 + 1.0 / (3 + pe + i);
}

static long lval(int r, int pe, int i) { return (long)r * 1000003L + pe * 7919L - i * 104729L; }

static void rounds_on(shmem_team_t team, int start, int size, double *dsrc, double *ddst[2], long *lsrc, long *ldst,
                      double *all, const char *name) {
    int n = shmem_team_n_pes(team), idx = shmem_team_my_pe(team);
    REQUIRE(n == size && idx >= 0, "team %s: size %d index %d", name, n, idx);
    for (int r = 0; r < ROUNDS; r++) {
        int len = lens[r % NLENS], inplace = r & 1;
        double *d = ddst[r & 1];
        for (int i = 0; i < len; i++)
            (inplace ? d : dsrc)[i] = val(r, start + idx, i);
        CHECK(shmem_double_sum_reduce(team, d, inplace ? d : dsrc, (size_t)len) == 0, "double sum_reduce");
        for (int i = 0; i < len; i++) {
            double want = 0;
            for (int j = 0; j < n; j++)
                want += val(r, start + j, i);
            if (fabs(d[i] - want) > 1e-9 * (1 + fabs(want))) {
                FAIL("team %s round %d len %d: sum[%d] = %.17g, want %.17g", name, r, len, i, d[i], want);
                break;
            }
        }
        /* every member's result, bit for bit */
        CHECK(shmem_fcollectmem(team, all, d, (size_t)len * sizeof(double)) == 0, "fcollectmem");
        for (int j = 0; j < n; j++)
            if (memcmp(all + (size_t)j * len, d, (size_t)len * sizeof(double))) {
                FAIL("team %s round %d len %d: member %d's sum differs from member %d's in its bits", name, r, len, j,
                     idx);
                break;
            }
        for (int i = 0; i < len; i++)
            lsrc[i] = lval(r, start + idx, i);
        CHECK(shmem_long_sum_reduce(team, ldst, lsrc, (size_t)len) == 0, "long sum_reduce");
        for (int i = 0; i < len; i++) {
            long want = 0;
            for (int j = 0; j < n; j++)
                want += lval(r, start + j, i);
            if (ldst[i] != want) {
                FAIL("team %s round %d len %d: long sum[%d] = %ld, want %ld", name, r, len, i, ldst[i], want);
                break;
            }
        }
    }
}

int main(void) {
    fc_init();
    double *dsrc = fc_malloc(MAXN * sizeof(double));
    double *ddst[2] = {fc_malloc(MAXN * sizeof(double)), fc_malloc(MAXN * sizeof(double))};
    long *lsrc = fc_malloc(MAXN * sizeof(long)), *ldst = fc_malloc(MAXN * sizeof(long));
    double *all = fc_malloc((size_t)npes * MAXN * sizeof(double));
    rounds_on(SHMEM_TEAM_WORLD, 0, npes, dsrc, ddst, lsrc, ldst, all, "world");
    for (int size = 1; size <= npes; size++) {
        int start = (npes - size) / 2;
        char name[32];
        snprintf(name, sizeof name, "(%d,1,%d)", start, size);
        shmem_team_t t = SHMEM_TEAM_INVALID;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 1, size, NULL, 0, &t) == 0, "split %s", name);
        if (t != SHMEM_TEAM_INVALID) {
            rounds_on(t, start, size, dsrc, ddst, lsrc, ldst, all, name);
            shmem_team_destroy(t);
        }
        shmem_barrier_all();
    }
    shmem_free(all);
    shmem_free(ldst);
    shmem_free(lsrc);
    shmem_free(ddst[1]);
    shmem_free(ddst[0]);
    shmem_free(dsrc);
    return ftest_finish("coll_identical");
}
