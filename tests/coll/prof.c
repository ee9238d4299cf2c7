/* prof.c - the profiling interface: every routine also has a pshmem_ name. This program defines its own
 * shmem_int_put (a profiling wrapper that counts calls and forwards to pshmem_int_put); calls through the typed name
 * and through the C11 generic shmem_put must reach the wrapper, and the data must still arrive. Other pshmem_ entry
 * points (setup, queries, barrier, AMO, reduction, teams, broadcast, memory, contexts) work like their shmem_ names.
 * Skips when neither <pshmem.h> nor <shmem.h> declares pshmem_int_put; fails naming any other pshmem_ routine used
 * here that is not declared. */
#include "fc.h"

#if FC_PSHMEM_HEADER
#include <pshmem.h>
#endif

static int wrapped_puts;

void shmem_int_put(int *dest, const int *source, size_t nelems, int pe) {
    wrapped_puts++;
    pshmem_int_put(dest, source, nelems, pe);
}

static int missing;
static void need(int have, const char *name) {
    if (!have) {
        fprintf(stderr, "FAIL: %s is not declared (the profiling interface names every routine)\n", name);
        missing++;
    }
}

static int dst[16], src[16];

int main(void) {
#if FC_HAVE_PSHMEM_INIT
    pshmem_init();
#else
    shmem_init();
#endif
    me = shmem_my_pe();
    npes = shmem_n_pes();
    need(FC_HAVE_PSHMEM_INIT, "pshmem_init");
    need(FC_HAVE_PSHMEM_FINALIZE, "pshmem_finalize");
    need(FC_HAVE_PSHMEM_MY_PE, "pshmem_my_pe");
    need(FC_HAVE_PSHMEM_N_PES, "pshmem_n_pes");
    need(FC_HAVE_PSHMEM_BARRIER_ALL, "pshmem_barrier_all");
    need(FC_HAVE_PSHMEM_LONG_ATOMIC_FETCH_ADD, "pshmem_long_atomic_fetch_add");
    need(FC_HAVE_PSHMEM_INT_SUM_REDUCE, "pshmem_int_sum_reduce");
    need(FC_HAVE_PSHMEM_TEAM_MY_PE, "pshmem_team_my_pe");
    need(FC_HAVE_PSHMEM_TEAM_SYNC, "pshmem_team_sync");
    need(FC_HAVE_PSHMEM_BROADCASTMEM, "pshmem_broadcastmem");
    need(FC_HAVE_PSHMEM_MALLOC, "pshmem_malloc");
    need(FC_HAVE_PSHMEM_FREE, "pshmem_free");
    need(FC_HAVE_PSHMEM_CTX_CREATE, "pshmem_ctx_create");
    need(FC_HAVE_PSHMEM_CTX_DESTROY, "pshmem_ctx_destroy");
    need(FC_HAVE_PSHMEM_INT_P, "pshmem_int_p");
    need(FC_HAVE_PSHMEM_INT_G, "pshmem_int_g");
    need(FC_HAVE_PSHMEM_QUIET, "pshmem_quiet");
    CHECK(!missing, "%d pshmem_ names missing", missing);

    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
#if FC_HAVE_PSHMEM_MY_PE && FC_HAVE_PSHMEM_N_PES
    CHECK(pshmem_my_pe() == me && pshmem_n_pes() == npes, "pshmem_my_pe/pshmem_n_pes");
#endif
    for (int i = 0; i < 16; i++)
        src[i] = me * 100 + i;
    shmem_barrier_all();
    shmem_int_put(dst, src, 8, right);     /* the wrapper */
    shmem_put(dst + 8, src + 8, 8, right); /* C11 generic: selects shmem_int_put, so the wrapper too */
    CHECK(wrapped_puts == 2, "the shmem_int_put wrapper saw %d calls, want 2", wrapped_puts);
#if FC_HAVE_PSHMEM_BARRIER_ALL
    pshmem_barrier_all();
#else
    shmem_barrier_all();
#endif
    for (int i = 0; i < 16; i++)
        CHECK(dst[i] == left * 100 + i, "dst[%d] = %d after the wrapped put", i, dst[i]);
#if FC_HAVE_PSHMEM_INT_P && FC_HAVE_PSHMEM_INT_G && FC_HAVE_PSHMEM_QUIET
    static int pv;
    pshmem_int_p(&pv, -me, right);
    pshmem_quiet();
    shmem_barrier_all();
    CHECK(pshmem_int_g(&pv, right) == -me, "pshmem_int_p/pshmem_int_g");
    shmem_barrier_all();
#endif
#if FC_HAVE_PSHMEM_LONG_ATOMIC_FETCH_ADD
    static long ctr;
    long old = pshmem_long_atomic_fetch_add(&ctr, 1, 0);
    CHECK(old >= 0 && old < npes, "pshmem_long_atomic_fetch_add returned %ld", old);
    shmem_barrier_all();
    if (me == 0)
        CHECK(ctr == npes, "pshmem AMO counter %ld", ctr);
#endif
#if FC_HAVE_PSHMEM_INT_SUM_REDUCE && FC_HAVE_PSHMEM_TEAM_MY_PE && FC_HAVE_PSHMEM_TEAM_SYNC
    static int rs[4], rd[4];
    for (int i = 0; i < 4; i++)
        rs[i] = me + i;
    CHECK(pshmem_team_my_pe(SHMEM_TEAM_WORLD) == me, "pshmem_team_my_pe");
    CHECK(pshmem_team_sync(SHMEM_TEAM_WORLD) == 0, "pshmem_team_sync");
    CHECK(pshmem_int_sum_reduce(SHMEM_TEAM_WORLD, rd, rs, 4) == 0, "pshmem_int_sum_reduce");
    for (int i = 0; i < 4; i++)
        CHECK(rd[i] == npes * (npes - 1) / 2 + npes * i, "pshmem_int_sum_reduce [%d] = %d", i, rd[i]);
#endif
#if FC_HAVE_PSHMEM_MALLOC && FC_HAVE_PSHMEM_FREE && FC_HAVE_PSHMEM_BROADCASTMEM
    char *b = pshmem_malloc(64);
    REQUIRE(b, "pshmem_malloc");
    char msg[64];
    snprintf(msg, sizeof msg, "from PE %d", npes - 1);
    if (me == npes - 1)
        strcpy(b + 32, msg);
    shmem_barrier_all();
    CHECK(pshmem_broadcastmem(SHMEM_TEAM_WORLD, b, b + 32, 32, npes - 1) == 0, "pshmem_broadcastmem");
    CHECK(strcmp(b, msg) == 0, "pshmem_broadcastmem gave '%.32s'", b);
    shmem_barrier_all();
    pshmem_free(b);
#endif
#if FC_HAVE_PSHMEM_CTX_CREATE && FC_HAVE_PSHMEM_CTX_DESTROY
    shmem_ctx_t ctx;
    CHECK(pshmem_ctx_create(0, &ctx) == 0, "pshmem_ctx_create");
    pshmem_ctx_destroy(ctx);
#endif
    CHECK(wrapped_puts == 2, "pshmem_ calls went through the shmem_int_put wrapper (%d calls)", wrapped_puts);
    return ftest_finish("prof");
}
