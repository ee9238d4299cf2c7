/* coll_bcast.c - team broadcast: every standard RMA type and broadcastmem, 0/1/odd/larger element counts, every
 * team PE as root, on the world team and two strided subteams. The root's dest is updated too (team-based
 * broadcast); nothing past nelems is written; PEs outside the team see no writes; source stays intact. */
#include "fc.h"

#define MAXN 1000
static char *src, *dst; /* symmetric, (MAXN + 2) * 16 bytes each */
static fc_team teams[FC_NTEAMS];

#define DEF_BCAST(TN, T)                                                                                               \
    static void bcast_##TN(const fc_team *t, size_t n, int root, int salt) {                                           \
        T *s = (T *)src, *d = (T *)dst;                                                                                \
        for (size_t i = 0; i < n + 1; i++)                                                                             \
            s[i] = (T)fc_val(me, (long)i, salt, 1);                                                                    \
        fc_fill(d, (n + 2) * sizeof(T));                                                                               \
        shmem_barrier_all();                                                                                           \
        if (t->idx >= 0) {                                                                                             \
            int rc = shmem_##TN##_broadcast(t->team, d, s, n, root);                                                   \
            CHECK(rc == 0, #TN "_broadcast returned %d", rc);                                                          \
            int wroot = fc_world_pe(t, root);                                                                          \
            for (size_t i = 0; i < n; i++)                                                                             \
                if (d[i] != (T)fc_val(wroot, (long)i, salt, 1)) {                                                      \
                    FAIL(#TN "_broadcast team %s root %d n %zu: dest[%zu] = %Lg want %d", t->name, root, n, i,         \
                         (long double)d[i], fc_val(wroot, (long)i, salt, 1));                                          \
                    break;                                                                                             \
                }                                                                                                      \
            CHECK(fc_first_unfilled(d + n, 2 * sizeof(T)) == 2 * sizeof(T),                                            \
                  #TN "_broadcast team %s root %d n %zu: wrote past nelems", t->name, root, n);                        \
            for (size_t i = 0; i < n + 1; i++)                                                                         \
                if (s[i] != (T)fc_val(me, (long)i, salt, 1)) {                                                         \
                    FAIL(#TN "_broadcast team %s: source[%zu] changed", t->name, i);                                   \
                    break;                                                                                             \
                }                                                                                                      \
        } else {                                                                                                       \
            CHECK(fc_first_unfilled(d, (n + 2) * sizeof(T)) == (n + 2) * sizeof(T),                                    \
                  #TN "_broadcast team %s: PE outside the team written", t->name);                                     \
        }                                                                                                              \
    }
GT_RMA_TYPES(DEF_BCAST)

static void bcast_mem(const fc_team *t, size_t n, int root, int salt) {
    unsigned char *s = (unsigned char *)src, *d = (unsigned char *)dst;
    for (size_t i = 0; i < n + 1; i++)
        s[i] = (unsigned char)fc_val(me, (long)i, salt, 2);
    fc_fill(d, n + 2);
    shmem_barrier_all();
    if (t->idx >= 0) {
        CHECK(shmem_broadcastmem(t->team, d, s, n, root) == 0, "broadcastmem returned nonzero");
        int wroot = fc_world_pe(t, root);
        for (size_t i = 0; i < n; i++)
            if (d[i] != (unsigned char)fc_val(wroot, (long)i, salt, 2)) {
                FAIL("broadcastmem team %s root %d n %zu: byte %zu = %d", t->name, root, n, i, d[i]);
                break;
            }
        CHECK(d[n] == FC_FILL && d[n + 1] == FC_FILL, "broadcastmem team %s: wrote past nelems", t->name);
    } else {
        CHECK(fc_first_unfilled(d, n + 2) == n + 2, "broadcastmem team %s: PE outside the team written", t->name);
    }
}

int main(void) {
    fc_begin(teams);
    src = fc_malloc((MAXN + 2) * 16);
    dst = fc_malloc((MAXN + 2) * 16);

    static const size_t ns[] = {0, 1, 7, MAXN};
    int salt = 0;
    for (int ti = 0; ti < FC_NTEAMS; ti++) {
        const fc_team *t = &teams[ti];
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            size_t n = ns[k];
#define RUN_BCAST(TN, T) bcast_##TN(t, n, salt % t->size, salt), salt++;
            GT_RMA_TYPES(RUN_BCAST)
            bcast_mem(t, n * 3 + 1, salt % t->size, salt), salt++;
        }
        /* every team PE as root */
        for (int root = 0; root < t->size; root++) {
            bcast_long(t, 5, root, salt++);
            bcast_mem(t, 13, root, salt++);
            bcast_longdouble(t, 3, root, salt++);
        }
    }
    return fc_end("coll_bcast", teams, src, dst);
}
