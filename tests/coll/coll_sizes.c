/* coll_sizes.c - the byte collectives (broadcastmem, collectmem, fcollectmem, alltoallmem) at 0 bytes, 1 byte, odd
 * sizes and 1 MiB; then back-to-back collectives with no barrier in between (the spec lets a PE call the next
 * collective on a team as soon as the last returns), alternating between the world team and a subteam, broadcast
 * root walking through every team PE, and results checked every iteration.
 *
 * Buffers in the back-to-back part alternate between two copies: a PE writes copy k%2 of a peer's dest in round k
 * only after it returned from an all-to-all-dependent collective (fcollect, alltoall, reduction) of round k-1, which
 * that peer entered after checking round k-2 - so no PE can overwrite data a peer has not checked yet. */
#include "fc.h"

#define MIB (1024 * 1024)
static unsigned char *s1, *d1; /* size tests: source npes MiB, dest npes MiB (heap or static) */
static unsigned char *heap_s, *heap_d;
#define STATIC_PES 8 /* the static buffers serve up to this many PEs */
static unsigned char static_s[STATIC_PES * MIB + 64], static_d[STATIC_PES * MIB + 64];
static fc_team teams[FC_NTEAMS];

static inline unsigned char bval(int w, size_t i, int salt) { /* differs between nearby offsets, PEs and rounds */
    uint32_t x = (uint32_t)i * 2654435761u + (uint32_t)(w * 40503 + salt * 977);
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    return (unsigned char)(x ^ (x >> 12));
}

static void sizes(const fc_team *t, size_t n, int salt) {
    /* broadcastmem */
    int root = salt % t->size;
    for (size_t i = 0; i < n; i++)
        s1[i] = bval(me, i, salt);
    fc_fill(d1, n + 1);
    shmem_barrier_all();
    if (t->idx >= 0) {
        CHECK(shmem_broadcastmem(t->team, d1, s1, n, root) == 0, "broadcastmem");
        int w = fc_world_pe(t, root);
        for (size_t i = 0; i < n; i++)
            if (d1[i] != bval(w, i, salt)) {
                FAIL("broadcastmem %zu bytes team %s root %d: byte %zu = %d", n, t->name, root, i, d1[i]);
                break;
            }
        CHECK(d1[n] == FC_FILL, "broadcastmem %zu bytes: wrote past the end", n);
    }
    /* fcollectmem and collectmem (the last team PE gives n, the others n/2) */
    for (int c = 0; c < 2; c++) {
        size_t total = 0, mine = 0;
        for (int j = 0; j < t->size; j++)
            total += c == 0 || j == t->size - 1 ? n : n / 2;
        if (t->idx >= 0)
            mine = c == 0 || t->idx == t->size - 1 ? n : n / 2;
        for (size_t i = 0; i < mine; i++)
            s1[i] = bval(me, i, salt + c);
        fc_fill(d1, total + 1);
        shmem_barrier_all();
        if (t->idx < 0)
            continue;
        int rc = c == 0 ? shmem_fcollectmem(t->team, d1, s1, n) : shmem_collectmem(t->team, d1, s1, mine);
        CHECK(rc == 0, "%s", c == 0 ? "fcollectmem" : "collectmem");
        size_t off = 0;
        for (int j = 0; j < t->size; j++) {
            size_t cj = c == 0 || j == t->size - 1 ? n : n / 2;
            int w = fc_world_pe(t, j);
            for (size_t i = 0; i < cj; i++)
                if (d1[off + i] != bval(w, i, salt + c)) {
                    FAIL("%s %zu bytes team %s: byte %zu of team PE %d = %d", c == 0 ? "fcollectmem" : "collectmem", n,
                         t->name, i, j, d1[off + i]);
                    break;
                }
            off += cj;
        }
        CHECK(d1[total] == FC_FILL, "%s: wrote past the end", c == 0 ? "fcollectmem" : "collectmem");
    }
    /* alltoallmem: n bytes per PE pair */
    for (int j = 0; j < t->size; j++)
        for (size_t i = 0; i < n; i++)
            s1[(size_t)j * n + i] = bval(me * 64 + j, i, salt);
    fc_fill(d1, (size_t)t->size * n + 1);
    shmem_barrier_all();
    if (t->idx >= 0) {
        CHECK(shmem_alltoallmem(t->team, d1, s1, n) == 0, "alltoallmem");
        for (int k = 0; k < t->size; k++) {
            int w = fc_world_pe(t, k);
            for (size_t i = 0; i < n; i++)
                if (d1[(size_t)k * n + i] != bval(w * 64 + t->idx, i, salt)) {
                    FAIL("alltoallmem %zu bytes team %s: block %d byte %zu = %d", n, t->name, k, i,
                         d1[(size_t)k * n + i]);
                    break;
                }
        }
        CHECK(d1[(size_t)t->size * n] == FC_FILL, "alltoallmem: wrote past the end");
    }
    shmem_barrier_all();
}

/* ---- back to back ---- */
#define ROUNDS 60
#define BN 37 /* elements per contribution */
typedef struct {
    long bc[2][BN], fc[2][FC_MAXPE * BN], a2a[2][FC_MAXPE * BN], red[2][BN], col[2][FC_MAXPE * BN];
    long s_bc[BN], s_fc[BN], s_a2a[FC_MAXPE * BN], s_red[BN], s_col[BN];
} bufs_t;

static long v3(int a, int b, int c, int r) { return (long)r * 1000003L + a * 10007L + b * 101L + c; }

/* one round on team t (member only), buffers b, root walks the team */
static void round_on(const fc_team *t, bufs_t *b, int r) {
    int k = r % 2, n = t->size, p = t->idx, root = r % n;
    const char *tn = t->name;
    /* broadcast: the root's source changes every round, right after the previous one returned */
    for (int i = 0; i < BN; i++)
        b->s_bc[i] = v3(me, i, 1, r);
    CHECK(shmem_long_broadcast(t->team, b->bc[k], b->s_bc, BN, root) == 0, "broadcast");
    for (int i = 0; i < BN; i++)
        if (b->bc[k][i] != v3(fc_world_pe(t, root), i, 1, r)) {
            FAIL("round %d team %s: broadcast root %d elem %d = %ld", r, tn, root, i, b->bc[k][i]);
            break;
        }
    /* fcollect */
    for (int i = 0; i < BN; i++)
        b->s_fc[i] = v3(me, i, 2, r);
    CHECK(shmem_long_fcollect(t->team, b->fc[k], b->s_fc, BN) == 0, "fcollect");
    for (int j = 0; j < n; j++)
        for (int i = 0; i < BN; i++)
            if (b->fc[k][j * BN + i] != v3(fc_world_pe(t, j), i, 2, r)) {
                FAIL("round %d team %s: fcollect team PE %d elem %d = %ld", r, tn, j, i, b->fc[k][j * BN + i]);
                j = n;
                break;
            }
    /* collect: team PE j gives (j + r) % 4 elements */
    int mine = (p + r) % 4;
    for (int i = 0; i < mine; i++)
        b->s_col[i] = v3(me, i, 3, r);
    CHECK(shmem_long_collect(t->team, b->col[k], b->s_col, (size_t)mine) == 0, "collect");
    int off = 0;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < (j + r) % 4; i++)
            if (b->col[k][off + i] != v3(fc_world_pe(t, j), i, 3, r)) {
                FAIL("round %d team %s: collect team PE %d elem %d = %ld", r, tn, j, i, b->col[k][off + i]);
                break;
            }
        off += (j + r) % 4;
    }
    /* alltoall */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < BN; i++)
            b->s_a2a[j * BN + i] = v3(me, j, 4 + i, r);
    CHECK(shmem_long_alltoall(t->team, b->a2a[k], b->s_a2a, BN) == 0, "alltoall");
    for (int j = 0; j < n; j++)
        for (int i = 0; i < BN; i++)
            if (b->a2a[k][j * BN + i] != v3(fc_world_pe(t, j), p, 4 + i, r)) {
                FAIL("round %d team %s: alltoall block %d elem %d = %ld", r, tn, j, i, b->a2a[k][j * BN + i]);
                j = n;
                break;
            }
    /* sum reduction, in place on odd rounds */
    long *rs = r % 2 ? b->red[k] : b->s_red;
    for (int i = 0; i < BN; i++)
        rs[i] = (long)(me + 1) * (i + 1) + r;
    CHECK(shmem_long_sum_reduce(t->team, b->red[k], rs, BN) == 0, "sum_reduce");
    long wsum = 0;
    for (int j = 0; j < n; j++)
        wsum += fc_world_pe(t, j) + 1;
    for (int i = 0; i < BN; i++)
        if (b->red[k][i] != wsum * (i + 1) + (long)n * r) {
            FAIL("round %d team %s: sum_reduce elem %d = %ld want %ld", r, tn, i, b->red[k][i],
                 wsum * (i + 1) + (long)n * r);
            break;
        }
}

static void back_to_back(void) {
    bufs_t *bw = shmem_calloc(1, sizeof(bufs_t)), *bt = shmem_calloc(1, sizeof(bufs_t));
    REQUIRE(bw && bt, "shmem_calloc");
    bufs_t *br = shmem_calloc(1, sizeof(bufs_t));
    REQUIRE(br, "shmem_calloc");
    const fc_team *sub = &teams[1];
    for (int r = 0; r < ROUNDS; r++) {
        round_on(&teams[0], bw, r);
        if (sub->idx >= 0)
            round_on(sub, bt, r);
        round_on(&teams[3], br, r);          /* every PE, reversed */
        if (r % 3 == 0 && teams[2].idx >= 0) /* a third team now and then: team_sync only */
            CHECK(shmem_team_sync(teams[2].team) == 0, "team_sync");
    }
    shmem_barrier_all();
    shmem_free(br);
    shmem_free(bt);
    shmem_free(bw);
}

int main(void) {
    fc_begin(teams);
    heap_s = fc_malloc((size_t)npes * MIB + 64);
    heap_d = fc_malloc((size_t)npes * MIB + 64);
    static const size_t ns[] = {0, 1, 13, 1023, 1024, 1025, 4099, 8191, 8192, 8193, 16384, MIB};
    int salt = 0;
    for (int ti = 0; ti < FC_NTEAMS; ti++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            if (ti == 2 && ns[k] == MIB)
                continue;
            /* symmetric heap, static data (.bss), and one of each */
            int kind = (int)(ti + k) % 3;
            int stat_ok = npes <= STATIC_PES;
            s1 = kind != 0 && stat_ok ? static_s : heap_s;
            d1 = kind == 2 || !stat_ok ? heap_d : static_d;
            if (kind == 0)
                d1 = heap_d;
            sizes(&teams[ti], ns[k], salt += 2);
        }
    back_to_back();
    return fc_end("coll_sizes", teams, heap_s, heap_d);
}
