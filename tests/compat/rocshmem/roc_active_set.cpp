/* roc_active_set.cpp - rocSHMEM's host broadcast on an active set (PE_start, log_pe_stride, PE_size, pSync), with
 * pSync sized and set by ROCSHMEM_BCAST_SYNC_SIZE and ROCSHMEM_SYNC_VALUE as rocSHMEM's programs do it. With argument
 * "noslots" the program first takes every team slot by splits, so gshmem's active sets get no team of their own and
 * synchronize through pSync alone (the path where ROCSHMEM_SYNC_VALUE must be what gshmem counts from); with "badroot"
 * it passes a root outside the set, which must end the job naming the routine. */
#include <cstring>
#include <unistd.h>

#include "roc_common.h"

#define NE 37 /* odd: 1- and 2-byte broadcasts take the path no word size divides */
#define ROUNDS 4
#define SENTINEL 0x5a

struct aset {
    int start, logs, size;
};

static int member(const aset &s, int pe) {
    int d = pe - s.start;
    return d >= 0 && d % (1 << s.logs) == 0 && d / (1 << s.logs) < s.size;
}

/* what PE p's source holds in round r: every byte differs between PEs and rounds */
static unsigned char pattern(int p, int r, int i) { return (unsigned char)(1 + p * 31 + r * 7 + i); }

template <class T> static void fill(T *dev, size_t n, int p, int r) {
    T h[NE];
    for (size_t i = 0; i < n; i++)
        h[i] = (T)pattern(p, r, (int)i);
    HIPOK(hipMemcpy(dev, h, n * sizeof(T), hipMemcpyHostToDevice));
}

template <class T> static void clear(T *dev, size_t n) {
    T h[NE];
    for (size_t i = 0; i < n; i++)
        h[i] = (T)SENTINEL;
    HIPOK(hipMemcpy(dev, h, n * sizeof(T), hipMemcpyHostToDevice));
}

/* dest after the broadcast: the root's pattern on the other members; untouched on the root and on non-members */
template <class T> static int check(const char *what, const T *dev, size_t n, const aset &s, int root, int r) {
    int me = rocshmem_my_pe(), from = s.start + root * (1 << s.logs), bad = 0;
    T h[NE];
    HIPOK(hipMemcpy(h, dev, n * sizeof(T), hipMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        T want = member(s, me) && me != from ? (T)pattern(from, r, (int)i) : (T)SENTINEL;
        if (h[i] != want) {
            if (!bad)
                printf("FAIL PE %d: %s broadcast on set (%d,%d,%d) root %d round %d: element %zu is %g, want %g\n", me,
                       what, s.start, s.logs, s.size, root, r, i, (double)h[i], (double)want);
            bad++;
        }
    }
    return bad;
}

int main(int argc, char **argv) {
    rocshmem_init();
    int me = rocshmem_my_pe(), n = rocshmem_n_pes(), bad = 0;
    int *fails = roc_fails();
    if (argc > 1 && !strcmp(argv[1], "badroot")) { /* a PE number where the set's ordinal belongs: refused */
        long *ps = (long *)rocshmem_malloc(ROCSHMEM_BCAST_SYNC_SIZE * sizeof(long));
        long *buf = (long *)rocshmem_malloc(2 * sizeof(long));
        rocshmem_ctx_long_broadcast(ROCSHMEM_CTX_DEFAULT, buf, buf + 1, 1, n, 0, 0, n, ps);
        printf("FAIL PE %d: pe_root %d on a set of %d PEs was accepted\n", me, n, n);
        return 0;
    }
    rocshmem_team_t held[64];
    int nheld = 0;
    if (argc > 1 && !strcmp(argv[1], "noslots")) {
        while (nheld < 64 && !rocshmem_team_split_strided(ROCSHMEM_TEAM_WORLD, 0, 1, n, nullptr, 0, &held[nheld]))
            nheld++;
        if (nheld == 64) {
            printf("FAIL PE %d: 64 splits succeeded: the team slots never ran out\n", me);
            rocshmem_global_exit(1);
        }
    }
    /* the world, the even PEs, the odd PEs */
    aset sets[3] = {{0, 0, n}, {0, 1, (n + 1) / 2}, {1, 1, n / 2}};
    int nsets = n > 1 ? 3 : 1;
    long *psync = (long *)rocshmem_malloc(3 * ROCSHMEM_BCAST_SYNC_SIZE * sizeof(long));
    long init[3 * ROCSHMEM_BCAST_SYNC_SIZE];
    for (size_t i = 0; i < 3 * ROCSHMEM_BCAST_SYNC_SIZE; i++)
        init[i] = ROCSHMEM_SYNC_VALUE;
    HIPOK(hipMemcpy(psync, init, sizeof init, hipMemcpyHostToDevice));
    int *isrc = (int *)rocshmem_malloc(NE * sizeof(int)), *idst = (int *)rocshmem_malloc(NE * sizeof(int));
    long *lsrc = (long *)rocshmem_malloc(NE * sizeof(long)), *ldst = (long *)rocshmem_malloc(NE * sizeof(long));
    double *dsrc = (double *)rocshmem_malloc(NE * sizeof(double));
    double *ddst = (double *)rocshmem_malloc(NE * sizeof(double));
    char *csrc = (char *)rocshmem_malloc(NE), *cdst = (char *)rocshmem_malloc(NE);
    short *ssrc = (short *)rocshmem_malloc(NE * sizeof(short)), *sdst = (short *)rocshmem_malloc(NE * sizeof(short));
    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < nsets; k++) {
            const aset &s = sets[k];
            if (s.size < 1)
                continue;
            int root = (r + k) % s.size, from = s.start + root * (1 << s.logs);
            long *ps = psync + k * ROCSHMEM_BCAST_SYNC_SIZE;
            clear(idst, NE), clear(ldst, NE), clear(ddst, NE), clear(cdst, NE), clear(sdst, NE);
            clear(isrc, NE), clear(lsrc, NE), clear(dsrc, NE), clear(csrc, NE), clear(ssrc, NE);
            rocshmem_barrier_all(); /* every dest cleared before any broadcast writes it */
            if (member(s, me)) {
                /* the root fills its sources late: a member that took them before the root arrived reads SENTINEL */
                if (me == from) {
                    usleep(20000);
                    fill(isrc, NE, me, r), fill(lsrc, NE, me, r), fill(dsrc, NE, me, r);
                    fill(csrc, NE, me, r), fill(ssrc, NE, me, r);
                }
                /* char first and short last: nothing else orders the root's late fill before the first, or its
                 * early clear after the last */
                rocshmem_ctx_char_broadcast(ROCSHMEM_CTX_DEFAULT, cdst, csrc, NE, root, s.start, s.logs, s.size, ps);
                rocshmem_ctx_int_broadcast(ROCSHMEM_CTX_DEFAULT, idst, isrc, NE, root, s.start, s.logs, s.size, ps);
                rocshmem_ctx_long_broadcast(ROCSHMEM_CTX_DEFAULT, ldst, lsrc, NE, root, s.start, s.logs, s.size, ps);
                rocshmem_ctx_double_broadcast(ROCSHMEM_CTX_DEFAULT, ddst, dsrc, NE, root, s.start, s.logs, s.size, ps);
                rocshmem_ctx_short_broadcast(ROCSHMEM_CTX_DEFAULT, sdst, ssrc, NE, root, s.start, s.logs, s.size, ps);
                /* the root overwrites its sources at once: a member still reading them would see SENTINEL */
                if (me == from)
                    clear(isrc, NE), clear(lsrc, NE), clear(dsrc, NE), clear(csrc, NE), clear(ssrc, NE);
            }
            rocshmem_barrier_all();
            bad += check("int", idst, NE, s, root, r) + check("long", ldst, NE, s, root, r);
            bad += check("double", ddst, NE, s, root, r) + check("char", cdst, NE, s, root, r);
            bad += check("short", sdst, NE, s, root, r);
        }
    }
    /* pSync is back at ROCSHMEM_SYNC_VALUE once every member is done, as rocSHMEM and OpenSHMEM promise */
    rocshmem_barrier_all();
    long after[3 * ROCSHMEM_BCAST_SYNC_SIZE];
    HIPOK(hipMemcpy(after, psync, sizeof after, hipMemcpyDeviceToHost));
    for (size_t i = 0; i < 3 * ROCSHMEM_BCAST_SYNC_SIZE; i++)
        if (after[i] != ROCSHMEM_SYNC_VALUE) {
            printf("FAIL PE %d: pSync[%zu] is %ld after the broadcasts, not ROCSHMEM_SYNC_VALUE\n", me, i, after[i]);
            bad++;
            break;
        }
    if (bad) {
        int one = 1;
        HIPOK(hipMemcpy(fails, &one, sizeof one, hipMemcpyHostToDevice));
    }
    rocshmem_barrier_all();
    rocshmem_free(sdst), rocshmem_free(ssrc), rocshmem_free(cdst), rocshmem_free(csrc), rocshmem_free(ddst);
    rocshmem_free(dsrc), rocshmem_free(ldst), rocshmem_free(lsrc), rocshmem_free(idst), rocshmem_free(isrc);
    rocshmem_free(psync);
    while (nheld > 0)
        rocshmem_team_destroy(held[--nheld]);
    return roc_finish("roc_active_set", fails);
}
