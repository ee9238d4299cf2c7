/* coll_collect.c - team collect (nelems differing from PE to PE, 0 on some or all PEs) and fcollect (0, 1, odd,
 * larger), every standard RMA type and the mem forms, on the world team and two strided subteams: dest holds the
 * contributions in team PE order, nothing past the total is written, PEs outside the team see no writes. */
#include "fc.h"

#define MAXC 1400 /* largest contribution of one PE */
static char *src, *dst;
static fc_team teams[FC_NTEAMS];

/* elements team PE j contributes under a collect pattern */
static size_t count(int pattern, int j, int tsize) {
    switch (pattern) {
    case 0: return 0;                                /* nobody */
    case 1: return (size_t)(j % 3);                  /* 0, 1, 2, 0, 1, ... */
    case 2: return j == tsize - 1 ? 5 : 0;           /* only the last PE */
    case 3: return (size_t)j + 1;                    /* 1, 2, 3, ... */
    case 4: return j == 0 ? 0 : (size_t)(2 * j - 1); /* the first PE gives nothing, odd counts */
    default: return 1000 + (size_t)(j % 8) * 37;     /* larger, different */
    }
}
#define NPATTERNS 6

#define DEF_COLLECT(TN, T)                                                                                             \
    static void collect_##TN(const fc_team *t, int pattern, size_t fixed, int salt) {                                  \
        T *s = (T *)src, *d = (T *)dst;                                                                                \
        int full = pattern < 0; /* fcollect with `fixed` elements from everyone */                                     \
        size_t mine = t->idx < 0 ? 3 : full ? fixed : count(pattern, t->idx, t->size), total = 0;                      \
        for (int j = 0; j < t->size; j++)                                                                              \
            total += full ? fixed : count(pattern, j, t->size);                                                        \
        for (size_t i = 0; i < mine + 1; i++)                                                                          \
            s[i] = (T)fc_val(me, (long)i, salt, 3);                                                                    \
        fc_fill(d, (total + 2) * sizeof(T));                                                                           \
        shmem_barrier_all();                                                                                           \
        if (t->idx < 0) {                                                                                              \
            CHECK(fc_first_unfilled(d, (total + 2) * sizeof(T)) == (total + 2) * sizeof(T),                            \
                  #TN " collect team %s: PE outside the team written", t->name);                                       \
            return;                                                                                                    \
        }                                                                                                              \
        int rc = full ? shmem_##TN##_fcollect(t->team, d, s, fixed) : shmem_##TN##_collect(t->team, d, s, mine);       \
        CHECK(rc == 0, #TN "_%scollect returned %d", full ? "f" : "", rc);                                             \
        size_t off = 0;                                                                                                \
        for (int j = 0; j < t->size; j++) {                                                                            \
            size_t c = full ? fixed : count(pattern, j, t->size);                                                      \
            int w = fc_world_pe(t, j);                                                                                 \
            for (size_t e = 0; e < c; e++)                                                                             \
                if (d[off + e] != (T)fc_val(w, (long)e, salt, 3)) {                                                    \
                    FAIL(#TN "_%scollect team %s pattern %d: dest[%zu] (team PE %d elem %zu) = %Lg want %d",           \
                         full ? "f" : "", t->name, pattern, off + e, j, e, (long double)d[off + e],                    \
                         fc_val(w, (long)e, salt, 3));                                                                 \
                    break;                                                                                             \
                }                                                                                                      \
            off += c;                                                                                                  \
        }                                                                                                              \
        CHECK(fc_first_unfilled(d + total, 2 * sizeof(T)) == 2 * sizeof(T),                                            \
              #TN "_%scollect team %s pattern %d: wrote past the %zu collected elements", full ? "f" : "", t->name,    \
              pattern, total);                                                                                         \
    }
GT_RMA_TYPES(DEF_COLLECT)

static void collect_mem(const fc_team *t, int pattern, size_t fixed, int salt) {
    unsigned char *s = (unsigned char *)src, *d = (unsigned char *)dst;
    int full = pattern < 0;
    size_t mine = t->idx < 0 ? 3 : full ? fixed : count(pattern, t->idx, t->size), total = 0;
    for (int j = 0; j < t->size; j++)
        total += full ? fixed : count(pattern, j, t->size);
    for (size_t i = 0; i < mine + 1; i++)
        s[i] = (unsigned char)fc_val(me, (long)i, salt, 4);
    fc_fill(d, total + 2);
    shmem_barrier_all();
    if (t->idx < 0) {
        CHECK(fc_first_unfilled(d, total + 2) == total + 2, "collectmem team %s: PE outside the team written", t->name);
        return;
    }
    int rc = full ? shmem_fcollectmem(t->team, d, s, fixed) : shmem_collectmem(t->team, d, s, mine);
    CHECK(rc == 0, "%scollectmem returned %d", full ? "f" : "", rc);
    size_t off = 0;
    for (int j = 0; j < t->size; j++) {
        size_t c = full ? fixed : count(pattern, j, t->size);
        for (size_t e = 0; e < c; e++)
            if (d[off + e] != (unsigned char)fc_val(fc_world_pe(t, j), (long)e, salt, 4)) {
                FAIL("%scollectmem team %s pattern %d: byte %zu (team PE %d) = %d", full ? "f" : "", t->name, pattern,
                     off + e, j, d[off + e]);
                break;
            }
        off += c;
    }
    CHECK(d[total] == FC_FILL && d[total + 1] == FC_FILL, "%scollectmem team %s: wrote past the total", full ? "f" : "",
          t->name);
}

int main(void) {
    fc_begin(teams);
    src = fc_malloc((MAXC + 2) * 16);
    dst = fc_malloc(((size_t)MAXC * FC_MAXPE + 2) * 16);

    int salt = 0;
    for (int ti = 0; ti < FC_NTEAMS; ti++) {
        const fc_team *t = &teams[ti];
#define RUN_COLLECT(TN, T)                                                                                             \
    collect_##TN(t, 1, 0, salt++);                                                                                     \
    collect_##TN(t, 3, 0, salt++);                                                                                     \
    collect_##TN(t, -1, 5, salt++);
        GT_RMA_TYPES(RUN_COLLECT)
        for (int p = 0; p < NPATTERNS; p++) {
            collect_long(t, p, 0, salt++);
            collect_mem(t, p, 0, salt++);
            collect_longdouble(t, p, 0, salt++);
        }
        static const size_t fixed[] = {0, 1, 7, 257};
        for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) {
            collect_int(t, -1, fixed[k], salt++);
            collect_mem(t, -1, fixed[k] * 3, salt++);
            collect_double(t, -1, fixed[k], salt++);
        }
    }
    return fc_end("coll_collect", teams, src, dst);
}
