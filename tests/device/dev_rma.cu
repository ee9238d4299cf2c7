/* dev_rma.cu - the functional suite's RMA, signals, waits and ordering, from kernels: putmem/getmem (blocking and
 * nbi) at thread, block (_tg) and warp (_htg) granularity around the ring, at sizes that are and are not multiples of
 * 16 bytes; ctx forms on SHMEM_DEVICE_CTX_DEFAULT and on a context made with SHMEM_DEVICE_CTX; typed p/g (long double
 * too); put with signal (set and add) against signal_wait_until at every granularity; fence ordering a payload before
 * its flag; wait_until/test; shmemg_ptr; device barriers on the world team, the shared team and a team split from the
 * world. Runs unchanged on shared memory (direct loads and stores) and over libfabric (the proxy). */
#include "dev_common.h"

#define NMAX 5000

struct bufs {
    char *src, *dst;  /* NMAX each */
    long *word;       /* 8 */
    long double *ld;  /* 2 */
    uint64_t *sig;    /* 4 */
    int *flag, *data; /* ordering: data[64] then flag */
};

__device__ static char pattern(int pe, int i, int round) { return (char)(pe * 31 + i * 7 + round); }

/* mode: 0 thread, 1 block, 2 warp; each form moves n bytes to the right neighbour, then gets them back from it */
__global__ void k_ring(bufs b, size_t n, int mode, int nbi, int round, shmem_ctx_t ctx, int *fails) {
    int me = shmemg_my_pe(), np = shmemg_n_pes(), right = (me + 1) % np, left = (me + np - 1) % np;
    unsigned t = threadIdx.x;
    for (size_t i = t; i < n; i += blockDim.x)
        b.src[i] = pattern(me, (int)i, round);
    __syncthreads();
    int lead = mode == 0 ? t == 0 : mode == 1 ? 1 : t < 32;
    if (lead) {
        if (mode == 0 && !nbi && !ctx)
            shmemg_putmem(b.dst, b.src, n, right);
        else if (mode == 0 && !nbi)
            shmemg_ctx_putmem(ctx, b.dst, b.src, n, right);
        else if (mode == 0)
            shmemg_putmem_nbi(b.dst, b.src, n, right);
        else if (mode == 1 && !nbi)
            ctx ? shmemg_ctx_putmem_tg(ctx, b.dst, b.src, n, right) : shmemg_putmem_tg(b.dst, b.src, n, right);
        else if (mode == 1)
            shmemg_putmem_nbi_tg(b.dst, b.src, n, right);
        else if (!nbi)
            ctx ? shmemg_ctx_putmem_htg(ctx, b.dst, b.src, n, right) : shmemg_putmem_htg(b.dst, b.src, n, right);
        else
            shmemg_putmem_nbi_htg(b.dst, b.src, n, right);
        if (mode == 0)
            ctx ? shmemg_ctx_quiet(ctx) : shmemg_quiet();
        else if (mode == 1)
            ctx ? shmemg_ctx_quiet_tg(ctx) : shmemg_quiet_tg();
        else
            ctx ? shmemg_ctx_quiet_htg(ctx) : shmemg_quiet_htg();
    }
    __syncthreads();
    if (t == 0)
        shmemg_sync_all();
    __syncthreads();
    for (size_t i = t; i < n; i += blockDim.x)
        DCHECK(b.dst[i] == pattern(left, (int)i, round), "put mode %d nbi %d n %zu: dst[%zu] = %d, expected %d", mode,
               nbi, n, i, b.dst[i], pattern(left, (int)i, round));
    __syncthreads();
    /* and back: get what the right neighbour received (it came from me) */
    if (lead) {
        if (mode == 0 && !nbi)
            ctx ? shmemg_ctx_getmem(ctx, b.src, b.dst, n, right) : shmemg_getmem(b.src, b.dst, n, right);
        else if (mode == 0)
            shmemg_getmem_nbi(b.src, b.dst, n, right);
        else if (mode == 1)
            nbi ? shmemg_getmem_nbi_tg(b.src, b.dst, n, right) : shmemg_getmem_tg(b.src, b.dst, n, right);
        else
            nbi ? shmemg_getmem_nbi_htg(b.src, b.dst, n, right) : shmemg_getmem_htg(b.src, b.dst, n, right);
        if (nbi) {
            if (mode == 0)
                shmemg_quiet();
            else if (mode == 1)
                shmemg_quiet_tg();
            else
                shmemg_quiet_htg();
        }
    }
    __syncthreads();
    for (size_t i = t; i < n; i += blockDim.x)
        DCHECK(b.src[i] == pattern(me, (int)i, round), "get mode %d nbi %d n %zu: src[%zu] = %d, expected %d", mode,
               nbi, n, i, b.src[i], pattern(me, (int)i, round));
    __syncthreads();
    if (t == 0)
        shmemg_sync_all(); /* nobody writes dst for the next round before everyone checked this one */
}

template <class T> __device__ static T tv(int pe, int k) { return (T)(pe * 10 + k + 1); }
/* with a bit below a double's precision: the emulation's long double (x87) must arrive whole; on a GPU the kernel's
 * long double is a double, and the same expression rounds the same way on both sides */
__device__ static long double tvld(int pe, int k) {
    return (long double)(pe * 10 + k + 1) + 1.0L / (long double)(1ULL << 60);
}

__global__ void k_pg(bufs b, int *fails) {
    int me = shmemg_my_pe(), np = shmemg_n_pes(), right = (me + 1) % np, left = (me + np - 1) % np;
    if (threadIdx.x != 0)
        return;
    long *w = b.word;
    shmemg_long_p(&w[0], tv<long>(me, 0), right);
    shmemg_int_p((int *)&w[1], tv<int>(me, 1), right);
    shmemg_double_p((double *)&w[2], tv<double>(me, 2), right);
    shmemg_ctx_short_p(SHMEM_DEVICE_CTX_DEFAULT, (short *)&w[3], tv<short>(me, 3), right);
    shmemg_uint8_p((uint8_t *)&w[4], tv<uint8_t>(me, 4), right);
    shmemg_longdouble_p(&b.ld[0], tvld(me, 0), right);
    shmemg_ctx_longdouble_p(SHMEM_DEVICE_CTX_DEFAULT, &b.ld[1], tvld(me, 1), right);
    shmemg_quiet();
    shmemg_sync_all();
    DCHECK(w[0] == tv<long>(left, 0) && *(int *)&w[1] == tv<int>(left, 1) && *(double *)&w[2] == tv<double>(left, 2) &&
               *(short *)&w[3] == tv<short>(left, 3) && *(uint8_t *)&w[4] == tv<uint8_t>(left, 4),
           "p: %ld %d %g %d %d", w[0], *(int *)&w[1], *(double *)&w[2], *(short *)&w[3], *(uint8_t *)&w[4]);
    long g0 = shmemg_long_g(&w[0], right);
    double g2 = shmemg_ctx_double_g(SHMEM_DEVICE_CTX_DEFAULT, (double *)&w[2], right);
    uint8_t g4 = shmemg_uint8_g((uint8_t *)&w[4], right);
    DCHECK(g0 == tv<long>(me, 0) && g2 == tv<double>(me, 2) && g4 == tv<uint8_t>(me, 4), "g: %ld %g %d", g0, g2, g4);
    DCHECK(b.ld[0] == tvld(left, 0) && b.ld[1] == tvld(left, 1), "longdouble_p: %.17g %.17g, expected %.17g %.17g",
           (double)b.ld[0], (double)b.ld[1], (double)tvld(left, 0), (double)tvld(left, 1));
    long double l0 = shmemg_longdouble_g(&b.ld[0], right);
    long double l1 = shmemg_ctx_longdouble_g(SHMEM_DEVICE_CTX_DEFAULT, &b.ld[1], right);
    DCHECK(l0 == tvld(me, 0) && l1 == tvld(me, 1), "longdouble_g: %.17g %.17g, expected %.17g %.17g", (double)l0,
           (double)l1, (double)tvld(me, 0), (double)tvld(me, 1));
    void *p = shmemg_ptr(b.word, me);
    DCHECK(p == b.word, "shmemg_ptr to myself: %p, expected %p", p, (void *)b.word);
    /* SHMEM_CTX_INVALID: fence and quiet on it do nothing (the spec's one defined use of it) */
    shmemg_ctx_fence(SHMEM_CTX_INVALID);
    shmemg_ctx_quiet(SHMEM_CTX_INVALID);
    shmemg_sync_all();
}

/* put with signal: every PE sends n bytes to the right, raising its signal; the left one's data is checked after
 * waiting for the signal at the given granularity */
__global__ void k_signal(bufs b, size_t n, int mode, int nbi, int op, int round, int *fails) {
    int me = shmemg_my_pe(), np = shmemg_n_pes(), right = (me + 1) % np, left = (me + np - 1) % np;
    unsigned t = threadIdx.x;
    for (size_t i = t; i < n; i += blockDim.x)
        b.src[i] = pattern(me, (int)i, round);
    uint64_t want = op == SHMEM_SIGNAL_SET ? (uint64_t)round + 100 : 1; /* (the host zeroes the signal first) */
    uint64_t add = op == SHMEM_SIGNAL_SET ? want : 1;
    __syncthreads();
    int lead = mode == 0 ? t == 0 : mode == 1 ? 1 : t < 32;
    if (lead) {
        if (mode == 0)
            nbi ? shmemg_putmem_signal_nbi(b.dst, b.src, n, &b.sig[0], add, op, right)
                : shmemg_putmem_signal(b.dst, b.src, n, &b.sig[0], add, op, right);
        else if (mode == 1)
            nbi ? shmemg_putmem_signal_nbi_tg(b.dst, b.src, n, &b.sig[0], add, op, right)
                : shmemg_ctx_putmem_signal_tg(SHMEM_DEVICE_CTX_DEFAULT, b.dst, b.src, n, &b.sig[0], add, op, right);
        else
            nbi ? shmemg_putmem_signal_nbi_htg(b.dst, b.src, n, &b.sig[0], add, op, right)
                : shmemg_putmem_signal_htg(b.dst, b.src, n, &b.sig[0], add, op, right);
        uint64_t got = 0;
        if (mode == 0)
            got = shmemg_signal_wait_until(&b.sig[0], SHMEM_CMP_GE, want);
        else if (mode == 1)
            got = shmemg_signal_wait_until_tg(&b.sig[0], SHMEM_CMP_GE, want);
        else
            got = shmemg_signal_wait_until_htg(&b.sig[0], SHMEM_CMP_GE, want);
        DCHECK(got == want, "signal mode %d: waited value %llu, expected %llu", mode, (unsigned long long)got,
               (unsigned long long)want);
        DCHECK(shmemg_signal_fetch(&b.sig[0]) == want, "signal_fetch");
    }
    __syncthreads();
    for (size_t i = t; i < n; i += blockDim.x)
        DCHECK(b.dst[i] == pattern(left, (int)i, round), "signal mode %d nbi %d: dst[%zu] = %d", mode, nbi, i,
               b.dst[i]);
    __syncthreads();
    if (t == 0) {
        shmemg_quiet(); /* the nbi form's source may be reused after this */
        shmemg_sync_all();
    }
}

/* ordering: 64 rounds of payload, fence, flag to the right; the right one checks the payload when it sees the flag */
__global__ void k_fence(bufs b, int rounds, int *fails) {
    int me = shmemg_my_pe(), np = shmemg_n_pes(), right = (me + 1) % np, left = (me + np - 1) % np;
    if (threadIdx.x != 0)
        return;
    for (int r = 1; r <= rounds; r++) {
        for (int i = 0; i < 64; i++)
            shmemg_int_p(&b.data[i], me * 100000 + r * 100 + i, right);
        shmemg_fence();
        shmemg_int_p(b.flag, r, right);
        shmemg_int_wait_until(b.flag, SHMEM_CMP_GE, r);
        for (int i = 0; i < 64; i++)
            DCHECK(b.data[i] == left * 100000 + r * 100 + i, "round %d: data[%d] = %d before its flag", r, i,
                   b.data[i]);
        shmemg_sync_all(); /* the next round overwrites data */
    }
}

__global__ void k_wait(bufs b, int *fails) {
    int me = shmemg_my_pe(), np = shmemg_n_pes(), right = (me + 1) % np;
    int *f = b.flag;
    if (threadIdx.x == 0) {
        DCHECK(shmemg_int_test(f, SHMEM_CMP_EQ, 0), "test before the write");
        DCHECK(!shmemg_int_test(f, SHMEM_CMP_NE, 0), "test ne before the write");
        shmemg_sync_all();
        shmemg_int_p(f, 7, right);
        shmemg_quiet();
    }
    /* the whole block waits, then every warp, then every thread tests */
    shmemg_int_wait_until_tg(f, SHMEM_CMP_EQ, 7);
    shmemg_int_wait_until_htg(f, SHMEM_CMP_GT, 6);
    int a = shmemg_int_test_tg(f, SHMEM_CMP_LE, 7), c = shmemg_int_test_htg(f, SHMEM_CMP_LT, 7);
    DCHECK(a == 1 && c == 0, "test_tg %d test_htg %d", a, c);
    (void)me;
}

/* ordering across the two paths (SHMEM_DEVICE_COPY_CUTOVER=128: the payload goes to the proxy, the flag is a store):
 * payload putmem, fence, flag p; the right neighbour checks the payload when it sees the flag */
__global__ void k_fence_mixed(bufs b, int rounds, int *fails) {
    int me = shmemg_my_pe(), np = shmemg_n_pes(), right = (me + 1) % np, left = (me + np - 1) % np;
    if (threadIdx.x != 0)
        return;
    for (int r = 1; r <= rounds; r++) {
        int *stage = (int *)b.src;
        for (int i = 0; i < 64; i++)
            stage[i] = me * 100000 + r * 100 + i;
        shmemg_putmem_nbi(b.data, stage, 64 * sizeof(int), right);
        shmemg_fence();
        shmemg_int_p(b.flag, r, right);
        shmemg_int_wait_until(b.flag, SHMEM_CMP_GE, r);
        for (int i = 0; i < 64; i++)
            DCHECK(b.data[i] == left * 100000 + r * 100 + i, "mixed round %d: data[%d] = %d before its flag", r, i,
                   b.data[i]);
        shmemg_quiet(); /* the staging buffer is reused next round */
        shmemg_sync_all();
    }
}

/* back-pressure: 256 threads x 16 p each, four times the proxy's ring, then one quiet; everything arrives */
#define FLOOD 16
__global__ void k_flood(int *slots, int *fails) {
    int me = shmemg_my_pe(), np = shmemg_n_pes(), right = (me + 1) % np, left = (me + np - 1) % np;
    for (int k = 0; k < FLOOD; k++)
        shmemg_int_p(&slots[threadIdx.x * FLOOD + k], me * 100000 + (int)threadIdx.x * FLOOD + k, right);
    __syncthreads();
    if (threadIdx.x == 0) {
        shmemg_quiet();
        shmemg_sync_all();
    }
    __syncthreads();
    for (int k = 0; k < FLOOD; k++) {
        int i = threadIdx.x * FLOOD + k;
        DCHECK(slots[i] == left * 100000 + i, "flood slot %d = %d", i, slots[i]);
    }
}

/* device barriers on teams: the world (every granularity), the shared team, and a split one (teams given by host) */
__global__ void k_teams(shmem_team_t split, int *counter, int rounds, int *fails) {
    int me = shmemg_my_pe();
    for (int r = 0; r < rounds; r++) {
        if (threadIdx.x == 0) {
            shmemg_int_atomic_add(counter, 1, 0);
            shmemg_quiet(); /* a barrier completes no atomic (the spec): the quiet does */
        }
        if (r % 3 == 0)
            shmemg_sync_all_tg();
        else if (r % 3 == 1) {
            if (threadIdx.x < 32)
                shmemg_sync_all_htg();
            __syncthreads();
        } else if (threadIdx.x == 0)
            DCHECK(shmemg_sync_all() == 0, "sync_all returned nonzero");
        __syncthreads();
        if (threadIdx.x == 0)
            DCHECK(shmemg_int_atomic_fetch(counter, 0) >= (r + 1) * shmemg_n_pes(),
                   "round %d: counter %d after the barrier", r, shmemg_int_atomic_fetch(counter, 0));
        __syncthreads();
        shmemg_sync_all_tg(); /* nobody adds for the next round before all checked */
    }
    if (threadIdx.x == 0) {
        shmemg_team_sync(SHMEM_DEVICE_TEAM_SHARED);
        if (split)
            shmemg_team_sync(split);
    }
    shmemg_team_sync_tg(SHMEM_DEVICE_TEAM_WORLD);
    if (split && threadIdx.x < 32)
        shmemg_team_sync_htg(split);
    (void)me;
}

int main(int argc, char **argv) {
    int fence_rounds = argc > 1 ? atoi(argv[1]) : 64;
    dev_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    bufs b;
    b.src = (char *)shmemg_calloc(NMAX, 1);
    b.dst = (char *)shmemg_calloc(NMAX, 1);
    b.word = (long *)shmemg_calloc(8, sizeof(long));
    b.ld = (long double *)shmemg_calloc(2, sizeof(long double));
    b.sig = (uint64_t *)shmemg_calloc(4, sizeof(uint64_t));
    b.flag = (int *)shmemg_calloc(1, sizeof(int));
    b.data = (int *)shmemg_calloc(64, sizeof(int));
    int *counter = (int *)shmemg_calloc(1, sizeof(int));
    HCHECK(b.src && b.dst && b.word && b.ld && b.sig && b.flag && b.data && counter, "shmemg_calloc failed");
    shmem_ctx_t ctx;
    HCHECK(shmem_ctx_create(SHMEM_DEVICE_CTX, &ctx) == 0, "shmem_ctx_create(SHMEM_DEVICE_CTX) failed");

    static const size_t sizes[] = {1, 7, 64, 1000, 4096 + 3};
    int round = 0;
    for (int mode = 0; mode < 3; mode++)
        for (int nbi = 0; nbi < 2; nbi++)
            for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                k_ring<<<1, 96>>>(b, sizes[s], mode, nbi, ++round, nullptr, dev_fail);
                dev_check("k_ring");
            }
    for (int mode = 0; mode < 3; mode++) { /* ctx forms: the default device context, and one of our own */
        k_ring<<<1, 64>>>(b, 1000, mode, 0, ++round, SHMEM_DEVICE_CTX_DEFAULT, dev_fail);
        k_ring<<<1, 64>>>(b, 333, mode, 0, ++round, ctx, dev_fail);
        dev_check("k_ring ctx");
    }
    k_pg<<<1, 32>>>(b, dev_fail);
    dev_check("k_pg");
    for (int op = 0; op < 2; op++)
        for (int mode = 0; mode < 3; mode++)
            for (int nbi = 0; nbi < 2; nbi++) {
                int sop = op ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
                cudaMemset(b.sig, 0, sizeof(uint64_t));
                shmem_barrier_all();
                k_signal<<<1, 64>>>(b, 777 + mode, mode, nbi, sop, ++round, dev_fail);
                dev_check("k_signal");
            }
    k_fence<<<1, 1>>>(b, fence_rounds, dev_fail);
    dev_check("k_fence");
    cudaMemset(b.flag, 0, sizeof(int));
    shmem_barrier_all();
    k_fence_mixed<<<1, 1>>>(b, fence_rounds, dev_fail);
    dev_check("k_fence_mixed");
    cudaMemset(b.flag, 0, sizeof(int));
    shmem_barrier_all();
    k_wait<<<1, 64>>>(b, dev_fail);
    dev_check("k_wait");

    int *slots = (int *)shmemg_calloc(256 * FLOOD, sizeof(int));
    k_flood<<<1, 256>>>(slots, dev_fail);
    dev_check("k_flood");
    shmem_barrier_all();

    shmem_team_t split = SHMEM_TEAM_INVALID; /* the even PEs */
    shmem_team_split_strided(SHMEM_DEVICE_TEAM_WORLD, 0, 2, (np + 1) / 2, nullptr, 0, &split);
    k_teams<<<1, 64>>>(split, counter, 9, dev_fail);
    dev_check("k_teams");
    shmem_barrier_all();
    if (split != SHMEM_TEAM_INVALID)
        shmem_team_destroy(split);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("dev_rma: ok (%d PEs)\n", np);
    shmem_finalize();
    return 0;
}
