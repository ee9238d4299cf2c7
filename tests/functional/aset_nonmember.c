/* aset_nonmember.c - programs written for OSHMEM call the deprecated active-set collectives on every PE, members or
 * not; non-members must return at once (their buffers untouched) while the members' collectives still work. */
#include "ftest.h"

static long psync[SHMEM_REDUCE_SYNC_SIZE > SHMEM_BCAST_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE : SHMEM_BCAST_SYNC_SIZE];
static long psync2[SHMEM_BARRIER_SYNC_SIZE];
static int pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static int src[4], dst[4];
static long long bsrc[2], bdst[2];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        shmem_finalize();
        return ftest_skip("needs 2 PEs or more");
    }
    for (size_t i = 0; i < sizeof psync / sizeof psync[0]; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < sizeof psync2 / sizeof psync2[0]; i++)
        psync2[i] = SHMEM_SYNC_VALUE;
    int members = npes - 1, member = me < members; /* the last PE is outside the set */
    for (int i = 0; i < 4; i++)
        src[i] = me + i, dst[i] = -7;
    bsrc[0] = 100 + me, bsrc[1] = 200 + me, bdst[0] = bdst[1] = -7;
    shmem_barrier_all();

    for (int round = 0; round < 3; round++) {
        shmem_int_sum_to_all(dst, src, 4, 0, 0, members, pwrk, psync);
        shmem_barrier(0, 0, members, psync2);
        shmem_broadcast64(bdst, bsrc, 2, 0, 0, 0, members, psync);
        shmem_barrier(0, 0, members, psync2);
        for (int i = 0; i < 4; i++) {
            int want = member ? members * (members - 1) / 2 + members * i : -7;
            CHECK(dst[i] == want, "round %d: dst[%d] = %d, expected %d (%s)", round, i, dst[i], want,
                  member ? "member" : "not a member");
        }
        if (me != 0) {
            long long want = member ? 100 : -7;
            CHECK(bdst[0] == want, "round %d: broadcast gave %lld, expected %lld", round, bdst[0], want);
        }
    }
    return ftest_finish("aset_nonmember");
}
