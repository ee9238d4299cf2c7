/* teams.c - team management: the predefined teams, split_strided (strides 1, 2, 3, negative and zero (1.6), size 1,
 * odd sizes, PEs outside the new team, invalid triplets, an invalid parent), nested splits, split_2d (xrange 1, 2,
 * 3 and larger than the team, on the world team and on a subteam), translate_pe in every direction, team_sync on
 * subteams running side by side, team_get_config, team_ptr (1.6), 100 create/destroy rounds for leaks (each new
 * team runs a reduction and a broadcast), teams on disjoint and overlapping PE sets used in turn, and as many teams
 * at once as the library allows (a split beyond that fails cleanly, at the same count on every PE). */
#include "fc.h"

#ifndef FC_HAVE_TEAM_PTR
#define FC_HAVE_TEAM_PTR 1
#endif

#define NSYNC 20
static long *heap; /* [0] exchange slot, [1..NSYNC] sync counters, [64..64+MAXPE) team_ptr stores */
#define NCBUF 5
static long *cbufs; /* symmetric: NCBUF x {[0..8) source, [8..16) reduce dest, [16..24) broadcast dest} */

static void team_check_coll(shmem_team_t t, int idx, int size, int start, int stride, int tag, int buf);

static const char *tname(int start, int stride, int size) {
    static char buf[64];
    snprintf(buf, sizeof buf, "(%d,%d,%d)", start, stride, size);
    return buf;
}

/* Members of team t (idx = this PE's index, world(j) = start + stride*j) check numbering and translation. */
static void check_numbering(shmem_team_t t, int idx, int size, int start, int stride, const char *what) {
    CHECK(shmem_team_my_pe(t) == idx, "%s: team_my_pe %d want %d", what, shmem_team_my_pe(t), idx);
    CHECK(shmem_team_n_pes(t) == size, "%s: team_n_pes %d want %d", what, shmem_team_n_pes(t), size);
    for (int j = 0; j < size; j++) {
        int w = shmem_team_translate_pe(t, j, SHMEM_TEAM_WORLD);
        CHECK(w == start + stride * j, "%s: translate(team %d -> world) = %d want %d", what, j, w, start + stride * j);
        int back = shmem_team_translate_pe(SHMEM_TEAM_WORLD, start + stride * j, t);
        CHECK(back == j, "%s: translate(world %d -> team) = %d want %d", what, start + stride * j, back, j);
    }
    for (int w = 0; w < npes; w++) {
        int want = fc_trip_index(start, stride, size, w);
        int got = shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, t);
        CHECK(got == want, "%s: translate(world %d -> team) = %d want %d", what, w, got, want);
    }
    CHECK(shmem_team_translate_pe(t, idx, t) == idx, "%s: translate to itself", what);
    CHECK(shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD) == -1, "%s: translate(team PE %d = size) = %d want -1",
          what, size, shmem_team_translate_pe(t, size, SHMEM_TEAM_WORLD));
    CHECK(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD) == -1, "%s: translate(team PE -1) != -1", what);
    CHECK(shmem_team_translate_pe(t, 0, SHMEM_TEAM_INVALID) == -1, "%s: translate to SHMEM_TEAM_INVALID != -1", what);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, t) == -1, "%s: translate from SHMEM_TEAM_INVALID != -1", what);
}

/* Members of t (team PE idx of size) pass a value around the ring and count arrivals with team_sync. */
static void exercise(shmem_team_t t, int idx, int size, const char *what) {
    int next = shmem_team_translate_pe(t, (idx + 1) % size, SHMEM_TEAM_WORLD);
    int root = shmem_team_translate_pe(t, 0, SHMEM_TEAM_WORLD);
    long v = 1000 + idx;
    shmem_long_put(&heap[0], &v, 1, next);
    shmem_quiet();
    CHECK(shmem_team_sync(t) == 0, "%s: team_sync returned nonzero", what);
    long want = 1000 + (idx + size - 1) % size;
    CHECK(heap[0] == want, "%s: ring value %ld want %ld", what, heap[0], want);
    for (int r = 0; r < NSYNC; r++) {
        shmem_long_atomic_add(&heap[1 + r], 1, root);
        shmem_quiet();
        shmem_team_sync(t);
        if (idx == 0)
            CHECK(heap[1 + r] == size, "%s: sync round %d: counter %ld want %d", what, r, heap[1 + r], size);
    }
}

static void reset_heap(void) {
    heap[0] = -1;
    for (int r = 0; r < NSYNC; r++)
        heap[1 + r] = 0;
    shmem_barrier_all();
}

/* All PEs: split the world team by the triplet and check it on members and non-members. */
static void strided_case(int start, int stride, int size) {
    char what[96];
    snprintf(what, sizeof what, "split_strided%s", tname(start, stride, size));
    reset_heap();
    shmem_team_t t = SHMEM_TEAM_WORLD; /* must be overwritten on every PE */
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t);
    CHECK(rc == 0, "%s returned %d", what, rc);
    int idx = fc_trip_index(start, stride, size, me);
    if (idx >= 0) {
        REQUIRE(t != SHMEM_TEAM_INVALID && t != SHMEM_TEAM_WORLD, "%s: member got no new team", what);
        check_numbering(t, idx, size, start, stride, what);
        shmem_team_config_t cfg = {.num_contexts = 77};
        CHECK(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0, "%s: get_config failed", what);
        CHECK(cfg.num_contexts == 0, "%s: default num_contexts %d want 0", what, cfg.num_contexts);
        exercise(t, idx, size, what);
        /* children of this team (a split of a split): reversed (1.6), and every other PE */
        shmem_team_t r = SHMEM_TEAM_INVALID, h = SHMEM_TEAM_WORLD;
        REQUIRE(shmem_team_split_strided(t, size - 1, -1, size, NULL, 0, &r) == 0, "%s: reversed child", what);
        check_numbering(r, size - 1 - idx, size, start + stride * (size - 1), -stride, "reversed child");
        team_check_coll(r, size - 1 - idx, size, start + stride * (size - 1), -stride, 800, 4);
        REQUIRE(shmem_team_split_strided(r, 0, 2, (size + 1) / 2, NULL, 0, &h) == 0, "%s: split of the child", what);
        int hidx = (size - 1 - idx) % 2 ? -1 : (size - 1 - idx) / 2;
        if (hidx >= 0) {
            check_numbering(h, hidx, (size + 1) / 2, start + stride * (size - 1), -2 * stride, "grandchild");
            team_check_coll(h, hidx, (size + 1) / 2, start + stride * (size - 1), -2 * stride, 801, 4);
        } else {
            CHECK(h == SHMEM_TEAM_INVALID, "%s: grandchild handle on a non-member", what);
        }
        shmem_team_destroy(h);
        shmem_team_destroy(r);
    } else {
        CHECK(t == SHMEM_TEAM_INVALID, "%s: PE outside the triplet did not get SHMEM_TEAM_INVALID", what);
        CHECK(shmem_team_my_pe(t) == -1 && shmem_team_n_pes(t) == -1, "%s: my_pe/n_pes of the INVALID handle", what);
    }
    shmem_team_destroy(t); /* SHMEM_TEAM_INVALID on non-members: no operation */
    shmem_barrier_all();
    if (idx < 0) {
        CHECK(heap[0] == -1, "%s: non-member's slot written (%ld)", what, heap[0]);
        for (int r = 0; r < NSYNC; r++)
            CHECK(heap[1 + r] == 0, "%s: non-member's counter %d written", what, r);
    }
}

/* All PEs: an invalid triplet gives nonzero and SHMEM_TEAM_INVALID everywhere. */
static void invalid_case(int start, int stride, int size) {
    shmem_team_t t = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t);
    CHECK(rc != 0, "split_strided%s (invalid) returned 0", tname(start, stride, size));
    CHECK(t == SHMEM_TEAM_INVALID, "split_strided%s (invalid) did not give SHMEM_TEAM_INVALID",
          tname(start, stride, size));
    if (rc == 0 && t != SHMEM_TEAM_INVALID)
        shmem_team_destroy(t);
    shmem_barrier_all();
}

/* Members of parent (index p of n) split it in 2D and check rows (xteam) and columns (yteam). */
static void split2d_case(shmem_team_t parent, int xrange, const char *pname) {
    int n = shmem_team_n_pes(parent), p = shmem_team_my_pe(parent);
    int X = xrange < n ? xrange : n, x = p % X, y = p / X;
    char what[96];
    snprintf(what, sizeof what, "split_2d(%s, xrange %d)", pname, xrange);
    shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
    /* PEs may pass different configurations as long as each new team's members agree: column x asks for x */
    shmem_team_config_t xcfg = {.num_contexts = 2}, ycfg = {.num_contexts = x};
    long ymask = x % 2 ? SHMEM_TEAM_NUM_CONTEXTS : 0;
    int rc = shmem_team_split_2d(parent, xrange, &xcfg, SHMEM_TEAM_NUM_CONTEXTS, &xt, &ycfg, ymask, &yt);
    REQUIRE(rc == 0, "%s returned %d", what, rc);
    REQUIRE(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID, "%s: got SHMEM_TEAM_INVALID", what);
    int xsize = n - y * X < X ? n - y * X : X;
    int ysize = (n - x + X - 1) / X;
    CHECK(shmem_team_my_pe(xt) == x, "%s: xteam my_pe %d want x=%d", what, shmem_team_my_pe(xt), x);
    CHECK(shmem_team_my_pe(yt) == y, "%s: yteam my_pe %d want y=%d", what, shmem_team_my_pe(yt), y);
    CHECK(shmem_team_n_pes(xt) == xsize, "%s: xteam n_pes %d want %d", what, shmem_team_n_pes(xt), xsize);
    CHECK(shmem_team_n_pes(yt) == ysize, "%s: yteam n_pes %d want %d", what, shmem_team_n_pes(yt), ysize);
    for (int j = 0; j < xsize; j++) {
        int got = shmem_team_translate_pe(xt, j, parent);
        CHECK(got == y * X + j, "%s: xteam PE %d is parent PE %d want %d", what, j, got, y * X + j);
        int w = shmem_team_translate_pe(xt, j, SHMEM_TEAM_WORLD);
        int ww = shmem_team_translate_pe(parent, y * X + j, SHMEM_TEAM_WORLD);
        CHECK(w == ww, "%s: xteam PE %d is world PE %d want %d", what, j, w, ww);
    }
    for (int j = 0; j < ysize; j++) {
        int got = shmem_team_translate_pe(yt, j, parent);
        CHECK(got == x + j * X, "%s: yteam PE %d is parent PE %d want %d", what, j, got, x + j * X);
    }
    shmem_team_config_t cfg = {.num_contexts = -5};
    CHECK(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == 2,
          "%s: xteam num_contexts %d want 2", what, cfg.num_contexts);
    cfg.num_contexts = -5;
    CHECK(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0 && cfg.num_contexts == (x % 2 ? x : 0),
          "%s: yteam (x=%d) num_contexts %d want %d", what, x, cfg.num_contexts, x % 2 ? x : 0);
    CHECK(shmem_team_sync(xt) == 0 && shmem_team_sync(yt) == 0, "%s: team_sync", what);
    shmem_team_sync(yt);
    shmem_team_sync(xt);
    /* collectives on the rows and columns (a column's world stride is xrange times the parent's) */
    int xw0 = shmem_team_translate_pe(xt, 0, SHMEM_TEAM_WORLD), yw0 = shmem_team_translate_pe(yt, 0, SHMEM_TEAM_WORLD);
    int xws = xsize > 1 ? shmem_team_translate_pe(xt, 1, SHMEM_TEAM_WORLD) - xw0 : 1;
    int yws = ysize > 1 ? shmem_team_translate_pe(yt, 1, SHMEM_TEAM_WORLD) - yw0 : 1;
    for (int r = 0; r < 3; r++) {
        team_check_coll(xt, x, xsize, xw0, xws, 600 + r, 2);
        team_check_coll(yt, y, ysize, yw0, yws, 700 + r, 3);
    }
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
}

static void predefined(void) {
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me, "team_my_pe(WORLD) %d", shmem_team_my_pe(SHMEM_TEAM_WORLD));
    CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes, "team_n_pes(WORLD) %d", shmem_team_n_pes(SHMEM_TEAM_WORLD));
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "team_my_pe(INVALID) %d", shmem_team_my_pe(SHMEM_TEAM_INVALID));
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "team_n_pes(INVALID) %d", shmem_team_n_pes(SHMEM_TEAM_INVALID));
    for (int w = 0; w < npes; w++)
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, SHMEM_TEAM_WORLD) == w, "translate world->world %d", w);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD) == -1, "translate world PE npes");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1, "translate to INVALID");
    shmem_team_config_t cfg;
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0, "get_config(WORLD)");
    CHECK(shmem_team_get_config(SHMEM_TEAM_SHARED, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0, "get_config(SHARED)");
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0, "get_config(INVALID) == 0");

    /* SHMEM_TEAM_SHARED: contains this PE; its members are load/store accessible (shmem_ptr non-null on heap) */
    int sn = shmem_team_n_pes(SHMEM_TEAM_SHARED), sme = shmem_team_my_pe(SHMEM_TEAM_SHARED);
    REQUIRE(sn >= 1 && sn <= npes && sme >= 0 && sme < sn, "SHARED: my_pe %d n_pes %d", sme, sn);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, sme, SHMEM_TEAM_WORLD) == me, "SHARED: my PE translates to %d",
          shmem_team_translate_pe(SHMEM_TEAM_SHARED, sme, SHMEM_TEAM_WORLD));
    int seen[FC_MAXPE] = {0};
    for (int j = 0; j < sn; j++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, j, SHMEM_TEAM_WORLD);
        REQUIRE(w >= 0 && w < npes, "SHARED: PE %d translates to world %d", j, w);
        CHECK(!seen[w]++, "SHARED: world PE %d appears twice", w);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, SHMEM_TEAM_SHARED) == j, "SHARED: world %d back", w);
        CHECK(shmem_ptr(heap, w) != NULL, "SHARED: shmem_ptr(heap, world %d) is NULL for a SHARED member", w);
    }
    for (int w = 0; w < npes; w++) /* and every PE whose memory this one maps is a member */
        if (shmem_ptr(heap, w))
            CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, SHMEM_TEAM_SHARED) >= 0,
                  "SHARED: world PE %d is mapped (shmem_ptr) but not in SHMEM_TEAM_SHARED", w);
    CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "team_sync(WORLD)");
    CHECK(shmem_team_sync(SHMEM_TEAM_SHARED) == 0, "team_sync(SHARED)");
    /* SHMEM_TEAM_SHARED as a parent: its second half */
    shmem_team_t sh = SHMEM_TEAM_WORLD;
    int hs = sn / 2;
    REQUIRE(shmem_team_split_strided(SHMEM_TEAM_SHARED, hs, 1, sn - hs, NULL, 0, &sh) == 0, "split of SHARED");
    if (sme >= hs) {
        REQUIRE(sh != SHMEM_TEAM_INVALID, "split of SHARED: member got SHMEM_TEAM_INVALID");
        CHECK(shmem_team_my_pe(sh) == sme - hs && shmem_team_n_pes(sh) == sn - hs, "split of SHARED: numbering");
        for (int j = 0; j < sn - hs; j++)
            CHECK(shmem_team_translate_pe(sh, j, SHMEM_TEAM_WORLD) ==
                      shmem_team_translate_pe(SHMEM_TEAM_SHARED, hs + j, SHMEM_TEAM_WORLD),
                  "split of SHARED: team PE %d in the world", j);
        CHECK(shmem_team_sync(sh) == 0, "team_sync(split of SHARED)");
    } else {
        CHECK(sh == SHMEM_TEAM_INVALID, "split of SHARED: non-member got a team");
    }
    shmem_team_destroy(sh);
    /* collectives on SHMEM_TEAM_SHARED */
    long *cb = cbufs + 24 * (NCBUF - 1);
    cb[0] = me;
    cb[1] = me * 3 + 1;
    shmem_barrier_all();
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_SHARED, cb + 8, cb, 2) == 0, "sum_reduce(SHARED)");
    long want0 = 0, want1 = 0;
    for (int j = 0; j < sn; j++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, j, SHMEM_TEAM_WORLD);
        want0 += w;
        want1 += w * 3 + 1;
    }
    CHECK(cb[8] == want0 && cb[9] == want1, "sum_reduce(SHARED) = %ld %ld want %ld %ld", cb[8], cb[9], want0, want1);
    CHECK(shmem_long_broadcast(SHMEM_TEAM_SHARED, cb + 16, cb, 2, sn - 1) == 0, "broadcast(SHARED)");
    int wl = shmem_team_translate_pe(SHMEM_TEAM_SHARED, sn - 1, SHMEM_TEAM_WORLD);
    CHECK(cb[16] == wl && cb[17] == wl * 3 + 1, "broadcast(SHARED) from shared PE %d: %ld %ld", sn - 1, cb[16], cb[17]);
    shmem_barrier_all();
}

static void team_ptr_checks(void) {
#if FC_HAVE_TEAM_PTR
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, heap, 0) == NULL, "team_ptr(INVALID) not NULL");
    for (int w = 0; w < npes; w++)
        CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, heap, w) == shmem_ptr(heap, w), "team_ptr(WORLD, %d) != shmem_ptr", w);
    int sn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    for (int j = 0; j < sn; j++)
        CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, heap, j) != NULL, "team_ptr(SHARED, heap, %d) is NULL", j);
    /* stores through team_ptr on a strided team land on the right world PE */
    fc_team t;
    int stride = npes >= 3 ? 2 : 1, start = npes >= 2 ? 1 : 0;
    fc_split(&t, "ptr team", start, stride, (npes - start + stride - 1) / stride);
    for (int w = 0; w < FC_MAXPE; w++)
        heap[64 + w] = -1;
    shmem_barrier_all();
    if (t.idx >= 0) {
        for (int j = 0; j < t.size; j++) {
            long *p = (long *)shmem_team_ptr(t.team, &heap[64 + me], j);
            int w = fc_world_pe(&t, j);
            if (shmem_ptr(heap, w) == NULL) { /* not load/store reachable: nothing to require */
                CHECK(p == NULL, "team_ptr non-NULL where shmem_ptr is NULL (team PE %d)", j);
                continue;
            }
            REQUIRE(p != NULL, "team_ptr(team PE %d = world %d) is NULL but shmem_ptr is not", j, w);
            *p = me * 100 + j;
        }
    }
    shmem_barrier_all();
    for (int w = 0; w < npes; w++) {
        long want = -1;
        if (t.idx >= 0 && fc_trip_index(t.start, t.stride, t.size, w) >= 0 && shmem_ptr(heap, w) != NULL)
            want = w * 100 + t.idx;
        CHECK(heap[64 + w] == want, "team_ptr store from world PE %d: %ld want %ld", w, heap[64 + w], want);
    }
    fc_destroy(&t);
    shmem_barrier_all();
#endif
}

static void nested(void) {
    fc_team e; /* even world PEs */
    fc_split(&e, "evens", 0, 2, (npes + 1) / 2);
    reset_heap();
    if (e.idx >= 0) {
        int n = e.size;
        /* an invalid parent handle is not a member's business; the member split below is */
        if (n >= 2) {
            shmem_team_t t = SHMEM_TEAM_WORLD;
            REQUIRE(shmem_team_split_strided(e.team, 1, 1, n - 1, NULL, 0, &t) == 0, "split of evens failed");
            if (e.idx >= 1) {
                REQUIRE(t != SHMEM_TEAM_INVALID, "nested member got INVALID");
                check_numbering(t, e.idx - 1, n - 1, 2, 2, "nested evens(1,1)");
                for (int j = 0; j < n - 1; j++)
                    CHECK(shmem_team_translate_pe(t, j, e.team) == j + 1, "nested: team PE %d in evens = %d", j,
                          shmem_team_translate_pe(t, j, e.team));
                CHECK(shmem_team_translate_pe(e.team, 0, t) == -1, "nested: evens PE 0 is not in it");
                exercise(t, e.idx - 1, n - 1, "nested evens(1,1)");
            } else {
                CHECK(t == SHMEM_TEAM_INVALID, "evens PE 0 got a nested team");
            }
            shmem_team_destroy(t);
        }
        /* split of the split with stride 2: world PEs 0, 4, 8, ... */
        shmem_team_t q = SHMEM_TEAM_WORLD;
        REQUIRE(shmem_team_split_strided(e.team, 0, 2, (n + 1) / 2, NULL, 0, &q) == 0, "split(evens,0,2) failed");
        if (e.idx % 2 == 0) {
            REQUIRE(q != SHMEM_TEAM_INVALID, "quarter member got INVALID");
            check_numbering(q, e.idx / 2, (n + 1) / 2, 0, 4, "evens(0,2)");
            split2d_case(q, 2, "evens(0,2)");
        } else {
            CHECK(q == SHMEM_TEAM_INVALID, "odd evens-PE got the quarter team");
        }
        shmem_team_destroy(q);
        for (int xr = 1; xr <= 3; xr++)
            split2d_case(e.team, xr, "evens");
    } else {
        /* a split of SHMEM_TEAM_INVALID creates nothing and returns nonzero (1.6) */
        shmem_team_t t = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_strided(e.team, 0, 1, 1, NULL, 0, &t);
        CHECK(t == SHMEM_TEAM_INVALID, "split of SHMEM_TEAM_INVALID gave a team");
        CHECK(rc != 0, "split of SHMEM_TEAM_INVALID returned 0");
        shmem_team_t a = SHMEM_TEAM_WORLD, b = SHMEM_TEAM_WORLD;
        rc = shmem_team_split_2d(e.team, 1, NULL, 0, &a, NULL, 0, &b); /* return value: unspecified */
        (void)rc;
        CHECK(a == SHMEM_TEAM_INVALID && b == SHMEM_TEAM_INVALID, "split_2d of SHMEM_TEAM_INVALID gave a team");
    }
    fc_destroy(&e);
    shmem_barrier_all();
}

/* Members of a team: a reduction and a broadcast give the team's own answer (no other team's data). Teams whose
 * members differ use different buffers (buf): a member of the next team may write this PE's dest before this PE is
 * done with the previous team. */
static void team_check_coll(shmem_team_t t, int idx, int size, int start, int stride, int tag, int buf) {
    long *cbuf = cbufs + 24 * buf;
    for (int i = 0; i < 8; i++)
        cbuf[i] = (long)tag * 1000 + me * 8 + i;
    CHECK(shmem_long_sum_reduce(t, cbuf + 8, cbuf, 8) == 0, "team %d: sum_reduce", tag);
    long wsum = 0;
    for (int j = 0; j < size; j++)
        wsum += start + stride * j;
    for (int i = 0; i < 8; i++)
        if (cbuf[8 + i] != (long)size * (tag * 1000 + i) + 8 * wsum) {
            FAIL("team %d (%d,%d,%d): sum_reduce[%d] = %ld want %ld", tag, start, stride, size, i, cbuf[8 + i],
                 (long)size * (tag * 1000 + i) + 8 * wsum);
            break;
        }
    int root = tag % size, wroot = start + stride * root;
    CHECK(shmem_long_broadcast(t, cbuf + 16, cbuf, 8, root) == 0, "team %d: broadcast", tag);
    for (int i = 0; i < 8; i++)
        if (cbuf[16 + i] != (long)tag * 1000 + wroot * 8 + i) {
            FAIL("team %d (%d,%d,%d): broadcast[%d] = %ld", tag, start, stride, size, i, cbuf[16 + i]);
            break;
        }
    shmem_team_sync(t); /* nobody rewrites cbuf before every member checked */
    (void)idx;
}

/* Every team slot a library has: create world duplicates until a split fails; it must fail cleanly (nonzero,
 * SHMEM_TEAM_INVALID) and at the same count on every PE; after destroying them all a split works again. */
static void exhaust(void) {
    enum { MAXT = 300 };
    static shmem_team_t made[MAXT];
    int count = 0;
    while (count < MAXT) {
        shmem_team_t t = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
        if (rc != 0) {
            CHECK(t == SHMEM_TEAM_INVALID, "failed split (team %d) did not give SHMEM_TEAM_INVALID", count);
            break;
        }
        REQUIRE(t != SHMEM_TEAM_INVALID, "split returned 0 but gave SHMEM_TEAM_INVALID (team %d)", count);
        made[count++] = t;
    }
    static int cnt[2], cmin, cmax;
    cnt[0] = count;
    shmem_barrier_all();
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, &cmin, cnt, 1);
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, &cmax, cnt, 1);
    CHECK(cmin == cmax, "PEs created different numbers of teams before a split failed: %d..%d", cmin, cmax);
    CHECK(count >= 8, "only %d teams could exist at once", count);
    if (count > 0) /* the newest and the oldest still work */
        team_check_coll(made[count - 1], me, npes, 0, 1, 5000, 0);
    if (count > 1)
        team_check_coll(made[0], me, npes, 0, 1, 5001, 0);
    for (int i = count - 1; i >= 0; i--)
        shmem_team_destroy(made[i]);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    REQUIRE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) == 0, "split after freeing all");
    team_check_coll(t, me, npes, 0, 1, 5002, 0);
    shmem_team_destroy(t);
    shmem_barrier_all();
}

/* Teams on disjoint PE sets, a team spanning them, nested splits of a subteam, destroy in between; then
 * collectives on all of them interleaved: each must see only its own members' data. */
static void interplay(void) {
    fc_team ev, od, half, whole;
    fc_split(&ev, "evens", 0, 2, (npes + 1) / 2);
    int have_od = npes >= 2;
    if (have_od)
        fc_split(&od, "odds", 1, 2, npes / 2);
    shmem_team_t inner = SHMEM_TEAM_INVALID; /* a split of the odds team, made while evens exists */
    if (have_od && od.idx >= 0)
        REQUIRE(shmem_team_split_strided(od.team, 0, 1, od.size, NULL, 0, &inner) == 0, "split of odds");
    fc_destroy(&ev);
    fc_split(&half, "first half", 0, 1, (npes + 1) / 2);
    fc_split(&whole, "whole", 0, 1, npes);
    /* translation between two user-defined teams, on the PEs that hold both handles */
    if (half.idx >= 0) {
        for (int j = 0; j < npes; j++) {
            int want = j < half.size ? j : -1;
            CHECK(shmem_team_translate_pe(whole.team, j, half.team) == want, "translate(whole %d -> half)", j);
        }
        for (int j = 0; j < half.size; j++)
            CHECK(shmem_team_translate_pe(half.team, j, whole.team) == j, "translate(half %d -> whole)", j);
    }
    if (have_od && od.idx >= 0) {
        for (int j = 0; j < od.size; j++) {
            CHECK(shmem_team_translate_pe(inner, j, od.team) == j, "translate(inner %d -> odds)", j);
            int w = 1 + 2 * j, want = half.idx >= 0 && w < half.size ? w : -1;
            if (half.idx >= 0)
                CHECK(shmem_team_translate_pe(od.team, j, half.team) == want, "translate(odds %d -> half) = %d want %d",
                      j, shmem_team_translate_pe(od.team, j, half.team), want);
        }
        if (half.idx >= 0)
            for (int j = 0; j < half.size; j++)
                CHECK(shmem_team_translate_pe(half.team, j, inner) == (j % 2 ? j / 2 : -1),
                      "translate(half %d -> inner)", j);
    }
    for (int r = 0; r < 20; r++) {
        team_check_coll(whole.team, whole.idx, npes, 0, 1, 100 + r, 0);
        if (half.idx >= 0)
            team_check_coll(half.team, half.idx, half.size, 0, 1, 200 + r, 1);
        if (have_od && od.idx >= 0) {
            team_check_coll(inner, od.idx, od.size, 1, 2, 300 + r, 2);
            team_check_coll(od.team, od.idx, od.size, 1, 2, 400 + r, 3);
        }
    }
    shmem_barrier_all();
    shmem_team_destroy(inner);
    fc_destroy(&whole);
    fc_destroy(&half);
    if (have_od)
        fc_destroy(&od);
    shmem_barrier_all();
}

/* create/destroy in a loop: leaked team resources run out long before 100 rounds */
static void churn(void) {
    for (int it = 0; it < 100; it++) {
        int size = 1 + it % npes;
        int start = (it * 7) % (npes - size + 1);
        int stride = 1;
        if (it % 3 == 1 && npes >= 3) { /* stride 2: size 1..(npes+1)/2, any start that fits */
            stride = 2;
            size = 1 + (it / 3) % ((npes + 1) / 2);
            start = (it / 3) % (npes - 2 * (size - 1));
        }
        shmem_team_t t = SHMEM_TEAM_WORLD;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t);
        REQUIRE(rc == 0, "churn %d: split%s returned %d", it, tname(start, stride, size), rc);
        int idx = fc_trip_index(start, stride, size, me);
        if (idx >= 0) {
            REQUIRE(t != SHMEM_TEAM_INVALID, "churn %d: member got INVALID", it);
            CHECK(shmem_team_my_pe(t) == idx && shmem_team_n_pes(t) == size, "churn %d: numbering", it);
            shmem_team_sync(t);
            team_check_coll(t, idx, size, start, stride, it, it % 2);
        } else {
            CHECK(t == SHMEM_TEAM_INVALID, "churn %d: non-member got a team", it);
        }
        shmem_team_destroy(t);
        if (it % 10 == 0) {
            shmem_team_t xt, yt;
            REQUIRE(shmem_team_split_2d(SHMEM_TEAM_WORLD, 1 + it % 3, NULL, 0, &xt, NULL, 0, &yt) == 0,
                    "churn %d: split_2d", it);
            shmem_team_sync(xt);
            shmem_team_destroy(yt);
            shmem_team_destroy(xt);
        }
        if (it % 25 == 0) { /* several alive at once, destroyed out of creation order */
            fc_team many[4];
            fc_split(&many[0], "m0", 0, 1, npes);
            fc_split(&many[1], "m1", npes - 1, 1, 1);
            fc_split(&many[2], "m2", 0, 1, (npes + 1) / 2);
            fc_split(&many[3], "m3", npes / 2, 1, npes - npes / 2);
            for (int k = 0; k < 4; k++)
                if (many[k].idx >= 0)
                    shmem_team_sync(many[k].team);
            fc_destroy(&many[1]);
            fc_destroy(&many[3]);
            fc_destroy(&many[0]);
            fc_destroy(&many[2]);
        }
    }
    shmem_barrier_all();
}

/* even and odd teams synchronizing at the same time, each with its own counters */
static void side_by_side(void) {
    fc_team ev, od = {SHMEM_TEAM_INVALID, 0, 0, 0, -1, "odds"};
    fc_split(&ev, "evens", 0, 2, (npes + 1) / 2);
    if (npes >= 2)
        fc_split(&od, "odds", 1, 2, npes / 2);
    reset_heap();
    if (ev.idx >= 0)
        exercise(ev.team, ev.idx, ev.size, "evens side by side");
    else
        exercise(od.team, od.idx, od.size, "odds side by side");
    shmem_barrier_all();
    if (npes >= 2)
        fc_destroy(&od);
    fc_destroy(&ev);
}

int main(void) {
    fc_init();
    heap = shmem_calloc(64 + FC_MAXPE, sizeof(long));
    cbufs = shmem_calloc(24 * NCBUF, sizeof(long));
    REQUIRE(heap && cbufs, "shmem_calloc");

    predefined();
    /* split_strided: full, strides 1/2/3, size 1 at either end, halves (odd sizes at odd PE counts) */
    strided_case(0, 1, npes);
    strided_case(0, 2, (npes + 1) / 2);
    if (npes >= 2)
        strided_case(1, 2, npes / 2);
    strided_case(0, 3, (npes + 2) / 3);
    if (npes >= 3)
        strided_case(2, 3, (npes - 2 + 2) / 3);
    strided_case(0, 1, 1);
    strided_case(npes - 1, 1, 1);
    strided_case(npes / 2, 1, npes - npes / 2);
    if (npes >= 3)
        strided_case(1, 1, npes - 2);
    /* 1.6: negative stride (reverse order; start is the highest PE) and stride 0 with size 1 */
    strided_case(npes - 1, -1, npes);
    if (npes >= 3)
        strided_case(npes - 1, -2, (npes + 1) / 2);
    strided_case(npes / 2, 0, 1);
    /* invalid triplets: size 0, a start outside the parent team */
    invalid_case(0, 1, 0);
    invalid_case(npes, 1, 1);
    invalid_case(-1, 1, 1);

    nested();
    for (int xr = 1; xr <= 3; xr++)
        split2d_case(SHMEM_TEAM_WORLD, xr, "world");
    split2d_case(SHMEM_TEAM_WORLD, npes + 1, "world");
    shmem_barrier_all();
    side_by_side();
    team_ptr_checks();
    churn();
    interplay();
    exhaust();
    churn();
    shmem_free(cbufs);
    shmem_free(heap);
    /* 1.6: with config_mask 0 get_config does nothing and config may be NULL (last: a library that objects ends
     * the job) */
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL) == 0, "get_config(WORLD, mask 0, NULL)");
    return ftest_finish("teams");
}
