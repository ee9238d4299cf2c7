/* ctx.c - communication contexts: shmem_ctx_create with each option, ctx_get_team, ctx_quiet and ctx_fence
 * ordering, the implicit quiet of ctx_destroy, many contexts at once and in a create/destroy loop, and team contexts
 * (shmem_team_create_ctx) on a strided subteam, SHMEM_TEAM_SHARED and the world team, where every PE argument of an
 * RMA or AMO is a team PE number: a put to team PE 1 must land on the world PE the team calls 1. */
#include "fc.h"

#define NK 64       /* longs per fence round */
static long *data;  /* heap: [0..MAXPE) put slots, [MAXPE] counter, [MAXPE+1] identity, fence block */
static long *flags; /* heap: one fence flag per PE */
#define SLOT(i) data[(i)]
#define CTR data[FC_MAXPE]
#define IDENT data[FC_MAXPE + 1]
#define FBLK (data + FC_MAXPE + 2)

static int right, left;

static void reset(void) {
    for (int i = 0; i < FC_MAXPE; i++)
        SLOT(i) = -1;
    CTR = 0;
    IDENT = me;
    for (int i = 0; i < NK * FC_MAXPE; i++)
        FBLK[i] = -1;
    for (int i = 0; i < FC_MAXPE; i++)
        flags[i] = 0;
    shmem_barrier_all();
}

static void world_ctx_traffic(shmem_ctx_t ctx, long opts, const char *what) {
    reset();
    if (opts & SHMEM_CTX_NOSTORE) { /* the context is not used for stores: gets and fetches only */
        long v = shmem_ctx_long_g(ctx, &IDENT, right);
        CHECK(v == right, "%s: ctx_long_g from %d got %ld", what, right, v);
        long blk[4] = {0};
        shmem_ctx_long_get(ctx, blk, &IDENT, 1, left);
        CHECK(blk[0] == left, "%s: ctx_long_get from %d got %ld", what, left, blk[0]);
        v = shmem_ctx_long_atomic_fetch(ctx, &IDENT, right);
        CHECK(v == right, "%s: ctx atomic_fetch from %d got %ld", what, right, v);
        shmem_barrier_all();
        return;
    }
    long v = 500 + me;
    shmem_ctx_long_put(ctx, &SLOT(me), &v, 1, right);
    shmem_ctx_long_atomic_add(ctx, &CTR, 1, 0);
    long old = shmem_ctx_long_atomic_fetch_add(ctx, &CTR, 10, 0);
    CHECK(old >= 0 && old <= 11L * npes - 10, "%s: fetch_add returned %ld", what, old);
    shmem_ctx_long_p(ctx, &SLOT(FC_MAXPE - 1 - me), 900 + me, left);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all(); /* the ctx_quiet above, not this barrier, completes the context's operations */
    CHECK(SLOT(left) == 500 + left, "%s: put from %d: %ld", what, left, SLOT(left));
    CHECK(SLOT(FC_MAXPE - 1 - right) == 900 + right, "%s: p from %d: %ld", what, right, SLOT(FC_MAXPE - 1 - right));
    if (me == 0)
        CHECK(CTR == 11L * npes, "%s: counter %ld want %ld", what, CTR, 11L * npes);
    /* ctx_fence orders a block put before the flag put to the same PE */
    for (int r = 1; r <= 20; r++) {
        long src[NK];
        for (int k = 0; k < NK; k++)
            src[k] = r * 10000 + me * 100 + k;
        shmem_ctx_long_put(ctx, FBLK + me * NK, src, NK, right);
        shmem_ctx_fence(ctx);
        shmem_ctx_long_atomic_set(ctx, &flags[me], r, right);
        shmem_long_wait_until(&flags[left], SHMEM_CMP_GE, r);
        for (int k = 0; k < NK; k++)
            if (FBLK[left * NK + k] != r * 10000 + left * 100 + k) {
                FAIL("%s: fence round %d: block[%d] = %ld after the flag", what, r, k, FBLK[left * NK + k]);
                break;
            }
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
    }
}

static void options(void) {
    const long opts[] = {0,
                         SHMEM_CTX_PRIVATE,
                         SHMEM_CTX_SERIALIZED,
                         SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED,
                         SHMEM_CTX_NOSTORE,
                         SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        char what[48];
        snprintf(what, sizeof what, "ctx_create(options %#lx)", opts[i]);
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
        int rc = shmem_ctx_create(opts[i], &ctx);
        REQUIRE(rc == 0, "%s returned %d", what, rc);
        REQUIRE(ctx != SHMEM_CTX_INVALID && ctx != SHMEM_CTX_DEFAULT, "%s: no new context", what);
        shmem_team_t t = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctx, &t) == 0 && t == SHMEM_TEAM_WORLD, "%s: ctx_get_team is not WORLD", what);
        world_ctx_traffic(ctx, opts[i], what);
        shmem_ctx_destroy(ctx);
    }
    world_ctx_traffic(SHMEM_CTX_DEFAULT, 0, "SHMEM_CTX_DEFAULT");
}

/* ctx_destroy quiets the context: the nbi puts arrive without any other completion call on that context */
static void destroy_quiets(void) {
    reset();
    static long src[NK * 8];
    for (int rep = 0; rep < 5; rep++) {
        for (int k = 0; k < NK * 8; k++)
            src[k] = (rep + 1) * 1000000L + me * 10000L + k;
        shmem_ctx_t ctx;
        REQUIRE(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
        shmem_ctx_long_put_nbi(ctx, FBLK, src, NK * 8, right);
        shmem_ctx_destroy(ctx);
        shmem_barrier_all(); /* completes the default context only */
        for (int k = 0; k < NK * 8; k++)
            if (FBLK[k] != (rep + 1) * 1000000L + left * 10000L + k) {
                FAIL("ctx_destroy did not complete a put_nbi: elem %d = %ld", k, FBLK[k]);
                break;
            }
        shmem_barrier_all();
    }
}

/* many contexts alive at once, and a create/destroy loop that leaks would exhaust */
static void many(void) {
    enum { N = 8 };
    shmem_ctx_t c[N];
    reset();
    for (int i = 0; i < N; i++) {
        c[i] = SHMEM_CTX_INVALID;
        REQUIRE(shmem_ctx_create(i % 2 ? SHMEM_CTX_PRIVATE : 0, &c[i]) == 0, "ctx_create #%d of %d alive", i, N);
        for (int j = 0; j < i; j++)
            CHECK(c[j] != c[i], "contexts %d and %d share a handle", j, i);
    }
    for (int i = 0; i < N; i++) {
        shmem_ctx_long_p(c[i], &SLOT(i), 100 * me + i, right);
        shmem_ctx_long_atomic_inc(c[i], &CTR, 0);
    }
    for (int i = N - 1; i >= 0; i--) /* quiet and destroy in reverse order */
        shmem_ctx_quiet(c[i]);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK(SLOT(i) == 100 * left + i, "context %d: p from %d gave %ld", i, left, SLOT(i));
    if (me == 0)
        CHECK(CTR == (long)N * npes, "counter %ld want %ld", CTR, (long)N * npes);
    for (int i = 0; i < N; i += 2)
        shmem_ctx_destroy(c[i]);
    for (int i = 1; i < N; i += 2)
        shmem_ctx_destroy(c[i]);
    shmem_ctx_destroy(SHMEM_CTX_INVALID); /* no operation */
    shmem_barrier_all();                  /* PE 0 has checked its counter */
    for (int it = 0; it < 300; it++) {
        shmem_ctx_t x;
        REQUIRE(shmem_ctx_create(it % 3 == 0 ? SHMEM_CTX_SERIALIZED : 0, &x) == 0, "ctx_create in loop %d", it);
        shmem_ctx_long_atomic_add(x, &CTR, 1, right);
        shmem_ctx_destroy(x);
    }
    shmem_barrier_all();
    long want = me == 0 ? (long)N * npes + 300 : 300;
    CHECK(CTR == want, "counter after the create/destroy loop %ld want %ld", CTR, want);
    shmem_barrier_all();
}

/* Team context on a strided team; PE numbers are team-relative. */
static void team_ctx(const char *what, shmem_team_t team, int idx, int size, int nctx) {
    /* team PE j is world PE translate(j) */
    int wpe[FC_MAXPE];
    for (int j = 0; j < size; j++)
        wpe[j] = shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD);
    shmem_ctx_t ctx[4];
    for (int c = 0; c < nctx; c++) {
        ctx[c] = SHMEM_CTX_DEFAULT;
        int rc = shmem_team_create_ctx(team, c == 0 ? 0 : SHMEM_CTX_PRIVATE, &ctx[c]);
        REQUIRE(rc == 0, "%s: team_create_ctx #%d returned %d", what, c, rc);
        REQUIRE(ctx[c] != SHMEM_CTX_INVALID && ctx[c] != SHMEM_CTX_DEFAULT, "%s: no context", what);
        shmem_team_t t = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(ctx[c], &t) == 0 && t == team, "%s: ctx_get_team is not the team", what);
    }
    int nxt = (idx + 1) % size;
    long v = 7000 + idx;
    shmem_ctx_long_put(ctx[0], &SLOT(idx), &v, 1, nxt);         /* lands on world PE wpe[nxt] */
    shmem_ctx_long_atomic_fetch_add(ctx[nctx - 1], &CTR, 1, 0); /* team PE 0 */
    long id = shmem_ctx_long_g(ctx[0], &IDENT, nxt);            /* identity of team PE nxt */
    CHECK(id == wpe[nxt], "%s: ctx_long_g(team PE %d) read world PE %ld's data, want %d", what, nxt, id, wpe[nxt]);
    long ids[FC_MAXPE];
    for (int j = 0; j < size; j++)
        shmem_ctx_long_get(ctx[j % nctx], &ids[j], &IDENT, 1, j);
    for (int j = 0; j < size; j++)
        CHECK(ids[j] == wpe[j], "%s: ctx_long_get(team PE %d) read world PE %ld, want %d", what, j, ids[j], wpe[j]);
    long f = shmem_ctx_long_atomic_fetch(ctx[0], &IDENT, size - 1);
    CHECK(f == wpe[size - 1], "%s: ctx atomic_fetch(team PE %d) = %ld want %d", what, size - 1, f, wpe[size - 1]);
    for (int c = 0; c < nctx; c++)
        shmem_ctx_quiet(ctx[c]);
    for (int c = 0; c < nctx; c++)
        shmem_ctx_destroy(ctx[c]);
}

static void team_ctx_checks(void) {
    /* strided subteam: team PE j = world PE start + stride*j, never the identity map when npes > 1 */
    int start = npes >= 2 ? 1 : 0, stride = npes >= 4 ? 2 : 1;
    int size = (npes - start + stride - 1) / stride;
    shmem_team_config_t cfg = {.num_contexts = 3};
    shmem_team_t t = SHMEM_TEAM_WORLD;
    reset();
    REQUIRE(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t) == 0,
            "split_strided with num_contexts 3");
    int idx = fc_trip_index(start, stride, size, me);
    if (idx >= 0) {
        shmem_team_config_t got = {.num_contexts = -1};
        CHECK(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 3,
              "get_config num_contexts %d want 3", got.num_contexts);
        team_ctx("strided team", t, idx, size, 3);
    } else {
        shmem_ctx_t c = SHMEM_CTX_DEFAULT;
        CHECK(shmem_team_create_ctx(t, 0, &c) != 0, "team_create_ctx(SHMEM_TEAM_INVALID) returned 0");
        CHECK(c == SHMEM_CTX_INVALID, "team_create_ctx(SHMEM_TEAM_INVALID) did not give SHMEM_CTX_INVALID");
    }
    shmem_barrier_all();
    /* what landed where: member idx got the put from idx-1; non-members got nothing */
    if (idx >= 0) {
        int prev = (idx + size - 1) % size;
        for (int i = 0; i < FC_MAXPE; i++) {
            long want = i == prev ? 7000 + prev : -1;
            CHECK(SLOT(i) == want, "strided team ctx: slot %d on team PE %d = %ld want %ld", i, idx, SLOT(i), want);
        }
        long wantc = idx == 0 ? size : 0;
        CHECK(CTR == wantc, "strided team ctx: counter on team PE %d = %ld want %ld", idx, CTR, wantc);
    } else {
        for (int i = 0; i < FC_MAXPE; i++)
            CHECK(SLOT(i) == -1, "strided team ctx: non-member slot %d written (%ld)", i, SLOT(i));
        CHECK(CTR == 0, "strided team ctx: non-member counter %ld", CTR);
    }
    shmem_barrier_all();
    shmem_team_destroy(t);

    /* the world team and SHMEM_TEAM_SHARED */
    reset();
    team_ctx("world team", SHMEM_TEAM_WORLD, me, npes, 2);
    shmem_barrier_all();
    CHECK(SLOT(left) == 7000 + left, "world team ctx: slot %d = %ld", left, SLOT(left));
    if (me == 0)
        CHECK(CTR == npes, "world team ctx: counter %ld", CTR);
    reset();
    int sme = shmem_team_my_pe(SHMEM_TEAM_SHARED), sn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    team_ctx("shared team", SHMEM_TEAM_SHARED, sme, sn, 1);
    shmem_barrier_all();
    int sprev = (sme + sn - 1) % sn;
    CHECK(SLOT(sprev) == 7000 + sprev, "shared team ctx: slot %d = %ld", sprev, SLOT(sprev));
    shmem_barrier_all();

    /* OpenSHMEM 1.6 negative stride: team PE j is world PE npes-1-j */
    shmem_team_t rev = SHMEM_TEAM_INVALID;
    cfg.num_contexts = 1;
    REQUIRE(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &rev) == 0,
            "split reversed");
    reset();
    int ridx = npes - 1 - me;
    team_ctx("reversed team", rev, ridx, npes, 1);
    shmem_barrier_all();
    int rprev = (ridx + npes - 1) % npes;
    for (int i = 0; i < FC_MAXPE; i++) {
        long want = i == rprev ? 7000 + rprev : -1;
        CHECK(SLOT(i) == want, "reversed team ctx: slot %d on team PE %d = %ld want %ld", i, ridx, SLOT(i), want);
    }
    CHECK(CTR == (ridx == 0 ? npes : 0), "reversed team ctx: counter on team PE %d = %ld", ridx, CTR);
    shmem_barrier_all();
    shmem_team_destroy(rev);

    /* create/destroy team contexts in a loop on a fresh team, then destroy the team */
    shmem_team_t t2 = SHMEM_TEAM_INVALID;
    cfg.num_contexts = 1;
    REQUIRE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &t2) == 0, "split");
    reset();
    for (int it = 0; it < 200; it++) {
        shmem_ctx_t c;
        REQUIRE(shmem_team_create_ctx(t2, 0, &c) == 0, "team_create_ctx loop %d", it);
        shmem_ctx_long_atomic_inc(c, &CTR, (me + 1) % npes);
        shmem_ctx_destroy(c);
    }
    shmem_barrier_all();
    CHECK(CTR == 200, "team ctx loop: counter %ld want 200", CTR);
    shmem_team_destroy(t2);
    shmem_barrier_all();
}

int main(void) {
    fc_init();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    data = shmem_malloc((FC_MAXPE + 2 + NK * FC_MAXPE) * sizeof(long));
    flags = shmem_malloc(FC_MAXPE * sizeof(long));
    REQUIRE(data && flags, "shmem_malloc");

    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 && t == SHMEM_TEAM_WORLD, "default context's team");
    t = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0, "ctx_get_team(SHMEM_CTX_INVALID) returned 0");
    CHECK(t == SHMEM_TEAM_INVALID, "ctx_get_team(SHMEM_CTX_INVALID) did not give SHMEM_TEAM_INVALID");

    options();
    destroy_quiets();
    many();
    team_ctx_checks();
    shmem_free(flags);
    shmem_free(data);
    return ftest_finish("ctx");
}
