/* init_query.c - library setup and query routines: init/init_thread, thread levels, PE numbering, accessibility,
 * shmem_ptr (load/store to a peer's symmetric object), library version/name.  Arg "plain": use shmem_init. */
#include "ftest.h"

#include <stdint.h>

#define MAXPE 64
static int seen_data[MAXPE] = {-1, -1, -1}; /* .data */
static long seen_bss[MAXPE];                /* .bss  */
int global_init = 42;                       /* external linkage, .data */

#ifndef FTEST_HAVE_TEAMS
#define FTEST_HAVE_TEAMS FTEST_HAVE_15
#endif

static int on_my_node(int pe) {
#if FTEST_HAVE_TEAMS
    return shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
#else
    (void)pe;
    return 1; /* without teams to ask, assume one node: our oshrun and the peer validation run PEs locally */
#endif
}

int main(int argc, char **argv) {
    int plain = argc > 1 && strcmp(argv[1], "plain") == 0;
    int provided = -1;
    if (plain) {
        shmem_init();
    } else {
        int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
        if (rc != 0) {
            fprintf(stderr, "FAIL: shmem_init_thread(SHMEM_THREAD_MULTIPLE) returned %d\n", rc);
            return 1;
        }
    }
    int me = shmem_my_pe(), npes = shmem_n_pes();
    REQUIRE(npes >= 1 && npes <= MAXPE, "shmem_n_pes()=%d", npes);
    REQUIRE(me >= 0 && me < npes, "shmem_my_pe()=%d npes=%d", me, npes);

    /* thread level */
    int q = -1;
    shmem_query_thread(&q);
    CHECK(q == SHMEM_THREAD_SINGLE || q == SHMEM_THREAD_FUNNELED || q == SHMEM_THREAD_SERIALIZED ||
              q == SHMEM_THREAD_MULTIPLE,
          "shmem_query_thread gave invalid level %d", q);
    if (!plain) {
        CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE,
              "init_thread provided invalid level %d", provided);
        CHECK(q == provided, "shmem_query_thread=%d but init_thread provided %d", q, provided);
    }
    CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED && SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
              SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
          "thread level constants not monotonic");

    /* deprecated queries agree */
    CHECK(_my_pe() == me, "_my_pe()=%d, shmem_my_pe()=%d", _my_pe(), me);
    CHECK(_num_pes() == npes, "_num_pes()=%d, shmem_n_pes()=%d", _num_pes(), npes);

    /* PE numbers are distinct and dense: everyone writes its number into slot me on every PE */
    for (int i = npes; i < MAXPE; i++)
        seen_data[i] = -7;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        shmem_int_p(&seen_data[me], me, pe);
        shmem_long_p(&seen_bss[me], 1000 + me, pe);
    }
    shmem_barrier_all();
    for (int i = 0; i < npes; i++) {
        CHECK(seen_data[i] == i, "seen_data[%d]=%d, expected %d (PE numbers not distinct?)", i, seen_data[i], i);
        CHECK(seen_bss[i] == 1000 + i, "seen_bss[%d]=%ld, expected %d", i, seen_bss[i], 1000 + i);
    }

    /* accessibility */
    for (int pe = 0; pe < npes; pe++)
        CHECK(shmem_pe_accessible(pe) == 1, "shmem_pe_accessible(%d)=0", pe);
    CHECK(shmem_pe_accessible(-1) == 0, "shmem_pe_accessible(-1) != 0");
    CHECK(shmem_pe_accessible(npes) == 0, "shmem_pe_accessible(npes=%d) != 0", npes);

    long *heap = shmem_malloc(16 * sizeof(long));
    REQUIRE(heap, "shmem_malloc(128) returned NULL");
    int stack_var = 5;
    char *private_mem = malloc(64);
    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_addr_accessible(heap, pe) == 1, "addr_accessible(heap, %d) != 1", pe);
        CHECK(shmem_addr_accessible(heap + 15, pe) == 1, "addr_accessible(heap+15, %d) != 1", pe);
        CHECK(shmem_addr_accessible(seen_data, pe) == 1, "addr_accessible(.data, %d) != 1", pe);
        CHECK(shmem_addr_accessible(&seen_bss[3], pe) == 1, "addr_accessible(.bss, %d) != 1", pe);
        CHECK(shmem_addr_accessible(&global_init, pe) == 1, "addr_accessible(global, %d) != 1", pe);
        CHECK(shmem_addr_accessible(&stack_var, pe) == 0, "addr_accessible(stack, %d) != 0", pe);
        CHECK(shmem_addr_accessible(private_mem, pe) == 0, "addr_accessible(malloc, %d) != 0", pe);
    }

    /* shmem_ptr: own PE gives the address itself; on-node peers give a usable pointer */
    CHECK(shmem_ptr(heap, me) == heap, "shmem_ptr(heap, me)=%p, expected %p", shmem_ptr(heap, me), (void *)heap);
    CHECK(shmem_ptr(&seen_bss[0], me) == &seen_bss[0], "shmem_ptr(.bss, me) != address");
    /* (shmem_ptr of a non-symmetric address is a misuse, not a NULL return: not tested here) */
    for (int i = 0; i < 16; i++)
        heap[i] = -1;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        long *rh = shmem_ptr(heap, pe);
        int *rd = shmem_ptr(&seen_data[0], pe);
        if (!on_my_node(pe))
            continue;
        CHECK(rh != NULL, "shmem_ptr(heap, on-node PE %d) = NULL", pe);
        /* static data may legitimately be unreachable by load/store (NULL); if a pointer is given, it must work */
        if (rd && me == 0 && pe != me)
            rd[MAXPE - 1] = 4242;
        if (rh)
            rh[me] = 100 * me + pe;
    }
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        if (on_my_node(pe))
            CHECK(heap[pe] == 100 * pe + me, "store through shmem_ptr by PE %d: heap[%d]=%ld want %d", pe, pe, heap[pe],
                  100 * pe + me);
    if (me != 0 && on_my_node(0) && shmem_ptr(&seen_data[0], 0))
        CHECK(seen_data[MAXPE - 1] == 4242, "store through shmem_ptr(.data) by PE 0 not seen: %d",
              seen_data[MAXPE - 1]);
    /* read a peer's .data through shmem_ptr, when it is reachable that way */
    int right = (me + 1) % npes;
    global_init = 42 + me;
    shmem_barrier_all();
    int *rg = shmem_ptr(&global_init, right);
    if (rg) {
        CHECK(*rg == 42 + right, "load through shmem_ptr(&global_init, %d) = %d want %d", right, *rg, 42 + right);
    }

    /* version and name */
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION, "version %d.%d, header says %d.%d", major,
          minor, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    CHECK(major == _SHMEM_MAJOR_VERSION && minor == _SHMEM_MINOR_VERSION, "deprecated version macros disagree");
    char name[SHMEM_MAX_NAME_LEN + 8];
    memset(name, 'X', sizeof name);
    shmem_info_get_name(name);
    size_t len = strnlen(name, sizeof name);
    CHECK(len > 0 && len < SHMEM_MAX_NAME_LEN, "shmem_info_get_name length %zu", len);
    if (len < SHMEM_MAX_NAME_LEN)
        CHECK(strncmp(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN) == 0, "name '%s' != SHMEM_VENDOR_STRING '%s'",
              name, SHMEM_VENDOR_STRING);

    free(private_mem);
    shmem_barrier_all();
    shmem_free(heap);
    return ftest_finish(plain ? "init_plain" : "init_query");
}
