/* coll_alltoall.c - team alltoall (every standard RMA type, alltoallmem; 0, 1, odd, larger blocks) and alltoalls
 * (strides dst/sst of 1, 2, 3, 4 in both arrays, alltoallsmem) on the world team and two strided subteams: block k
 * of dest holds what team PE k sent this PE, strided elements land exactly at dst*index and nothing between them or
 * past the end is written; PEs outside the team see no writes. */
#include "fc.h"

#define MAXE 6000 /* elements per buffer */
static char *src, *dst;
static fc_team teams[FC_NTEAMS];

/* the element e of the block team PE `from` (world PE wfrom) sends to team PE `to` */
static inline int a2a_val(int wfrom, int to, size_t e, int salt) { return fc_val(wfrom * 7 + to, (long)e, salt, 5); }

#define DEF_A2A(TN, T)                                                                                                 \
    static void a2a_##TN(const fc_team *t, size_t n, ptrdiff_t dst_s, ptrdiff_t sst_s, int salt) {                     \
        T *s = (T *)src, *d = (T *)dst;                                                                                \
        int strided = dst_s != 1 || sst_s != 1 || salt % 2; /* also alltoalls with unit strides */                     \
        size_t total = n * (size_t)t->size;                                                                            \
        size_t sext = total ? (total - 1) * (size_t)sst_s + 1 : 0, dext = total ? (total - 1) * (size_t)dst_s + 1 : 0; \
        REQUIRE(sext + 2 <= MAXE && dext + 2 <= MAXE, "buffers too small");                                            \
        for (size_t i = 0; i < sext + 2; i++)                                                                          \
            s[i] = (T)(100 + (int)(i % 7)); /* not a value a2a_val makes (<= 98) */                                    \
        for (int j = 0; j < t->size; j++)                                                                              \
            for (size_t e = 0; e < n; e++)                                                                             \
                s[(size_t)sst_s * ((size_t)j * n + e)] = (T)a2a_val(me, j, e, salt);                                   \
        fc_fill(d, (dext + 2) * sizeof(T));                                                                            \
        shmem_barrier_all();                                                                                           \
        if (t->idx < 0) {                                                                                              \
            CHECK(fc_first_unfilled(d, (dext + 2) * sizeof(T)) == (dext + 2) * sizeof(T),                              \
                  #TN " alltoall team %s: PE outside the team written", t->name);                                      \
            return;                                                                                                    \
        }                                                                                                              \
        int rc = strided ? shmem_##TN##_alltoalls(t->team, d, s, dst_s, sst_s, n)                                      \
                         : shmem_##TN##_alltoall(t->team, d, s, n);                                                    \
        CHECK(rc == 0, #TN "_alltoall%s returned %d", strided ? "s" : "", rc);                                         \
        for (size_t i = 0; i < dext + 2; i++) {                                                                        \
            int ok;                                                                                                    \
            long want = -1;                                                                                            \
            if (i < dext && i % (size_t)dst_s == 0) {                                                                  \
                size_t q = i / (size_t)dst_s, k = q / n, e = q % n;                                                    \
                want = a2a_val(fc_world_pe(t, (int)k), t->idx, e, salt);                                               \
                ok = d[i] == (T)want;                                                                                  \
            } else {                                                                                                   \
                ok = fc_first_unfilled(&d[i], sizeof(T)) == sizeof(T);                                                 \
            }                                                                                                          \
            if (!ok) {                                                                                                 \
                FAIL(#TN "_alltoall%s team %s n %zu dst %td sst %td: dest[%zu] = %Lg want %ld (-1: untouched)",        \
                     strided ? "s" : "", t->name, n, dst_s, sst_s, i, (long double)d[i], want);                        \
                break;                                                                                                 \
            }                                                                                                          \
        }                                                                                                              \
    }
GT_RMA_TYPES(DEF_A2A)

static void a2a_mem(const fc_team *t, size_t n, ptrdiff_t dst_s, ptrdiff_t sst_s, int salt) {
    unsigned char *s = (unsigned char *)src, *d = (unsigned char *)dst;
    int strided = dst_s != 1 || sst_s != 1;
    size_t total = n * (size_t)t->size;
    size_t sext = total ? (total - 1) * (size_t)sst_s + 1 : 0, dext = total ? (total - 1) * (size_t)dst_s + 1 : 0;
    REQUIRE(sext + 2 <= MAXE * 16 && dext + 2 <= MAXE * 16, "buffers too small");
    memset(s, 200, sext + 2);
    for (int j = 0; j < t->size; j++)
        for (size_t e = 0; e < n; e++)
            s[(size_t)sst_s * ((size_t)j * n + e)] = (unsigned char)a2a_val(me, j, e, salt);
    fc_fill(d, dext + 2);
    shmem_barrier_all();
    if (t->idx < 0) {
        CHECK(fc_first_unfilled(d, dext + 2) == dext + 2, "alltoallmem team %s: PE outside the team written", t->name);
        return;
    }
    int rc = strided ? shmem_alltoallsmem(t->team, d, s, dst_s, sst_s, n) : shmem_alltoallmem(t->team, d, s, n);
    CHECK(rc == 0, "alltoall%smem returned %d", strided ? "s" : "", rc);
    for (size_t i = 0; i < dext + 2; i++) {
        int want = FC_FILL;
        if (i < dext && i % (size_t)dst_s == 0) {
            size_t q = i / (size_t)dst_s;
            want = a2a_val(fc_world_pe(t, (int)(q / n)), t->idx, q % n, salt);
        }
        if (d[i] != want) {
            FAIL("alltoall%smem team %s n %zu dst %td sst %td: byte %zu = %d want %d", strided ? "s" : "", t->name, n,
                 dst_s, sst_s, i, d[i], want);
            break;
        }
    }
}

int main(void) {
    fc_begin(teams);
    src = fc_malloc(MAXE * 16);
    dst = fc_malloc(MAXE * 16);

    static const ptrdiff_t strides[][2] = {{1, 1}, {2, 1}, {1, 3}, {3, 2}, {4, 4}};
    int salt = 0;
    for (int ti = 0; ti < FC_NTEAMS; ti++) {
        const fc_team *t = &teams[ti];
        static const size_t ns[] = {0, 1, 3};
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
#define RUN_A2A(TN, T) a2a_##TN(t, ns[k], 1, 1, 2 * salt++);
            GT_RMA_TYPES(RUN_A2A)
        }
        for (size_t k = 0; k < sizeof strides / sizeof strides[0]; k++) {
            ptrdiff_t ds = strides[k][0], ss = strides[k][1];
#define RUN_A2AS(TN, T) a2a_##TN(t, 2, ds, ss, 2 * salt++ + 1);
            GT_RMA_TYPES(RUN_A2AS)
            a2a_mem(t, 5, ds, ss, salt++);
            a2a_long(t, 64, ds, ss, 2 * salt++ + 1);
            a2a_mem(t, 0, ds, ss, salt++);
        }
        a2a_long(t, 64, 1, 1, 2 * salt++);
        a2a_long(t, 200, 1, 1, 2 * salt++); /* 1600 bytes per PE pair: over 8 KiB in all at 8 PEs */
        a2a_mem(t, 1, 1, 1, salt++);
        a2a_mem(t, 333, 1, 1, salt++);
        a2a_int16(t, 0, 2, 2, 2 * salt++ + 1);
    }
    return fc_end("coll_alltoall", teams, src, dst);
}
