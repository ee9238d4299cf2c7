/* partition_place.c - PGSIZE and POLICY of host partitions take effect: partition 1's pages are the page size asked
 * for (read back from /proc/self/smaps, on this PE's copy and on the mapped peer's) and carry the NUMA policy asked
 * for (get_mempolicy), and RMA still reaches them.  Usage: rt_partition_place PGSIZE_KIB POLICY [NODES]
 * (POLICY: default, interleave, bind, preferred; NODES: the expected node mask, e.g. 1) with
 * SHMEM_SYMMETRIC_PARTITION1 set to match. */
#include <linux/mempolicy.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL PE %d line %d: ", shmem_my_pe(), __LINE__);                                                   \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            fflush(stdout);                                                                                            \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

/* KernelPageSize of the mapping holding p, in KiB (0: not found) */
static long page_kib(const void *p) {
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[256];
    int in = 0;
    long kib = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = (unsigned long)p >= lo && (unsigned long)p < hi;
            continue;
        }
        if (in && sscanf(line, "KernelPageSize: %ld kB", &kib) == 1)
            break;
    }
    if (f)
        fclose(f);
    return in ? kib : 0;
}

int main(int argc, char **argv) {
    long want_kib = argc > 1 ? atol(argv[1]) : 4;
    const char *pol = argc > 2 ? argv[2] : "default";
    unsigned long want_nodes = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
    int want_mode = !strcmp(pol, "interleave")  ? MPOL_INTERLEAVE
                    : !strcmp(pol, "bind")      ? MPOL_BIND
                    : !strcmp(pol, "preferred") ? MPOL_PREFERRED
                                                : MPOL_DEFAULT;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    size_t len = (size_t)4 << 20;
    long *p = shmem_partition_malloc(len, 1);
    CHECK(p, "shmem_partition_malloc(4 MiB, 1) failed");
    for (size_t i = 0; i < len / sizeof(long); i += 512)
        p[i] = -1;
    shmem_barrier_all();
    long kib = page_kib(p);
    CHECK(kib == want_kib, "partition 1 is backed by %ld KiB pages, expected %ld", kib, want_kib);
    long *peer = shmem_ptr(p, right);
    if (peer) { /* the peer's copy, as mapped here */
        long pk = page_kib(peer);
        CHECK(pk == want_kib, "PE %d's partition 1, mapped here, has %ld KiB pages, expected %ld", right, pk, want_kib);
    }
    int mode = -1;
    unsigned long mask[16] = {0};
    CHECK(!syscall(SYS_get_mempolicy, &mode, mask, (unsigned long)(sizeof mask * 8), p, MPOL_F_ADDR),
          "get_mempolicy failed");
    CHECK(mode == want_mode, "policy of partition 1 is %d, expected %d (%s)", mode, want_mode, pol);
    if (want_mode != MPOL_DEFAULT && want_nodes)
        CHECK(mask[0] == want_nodes, "policy nodes 0x%lx, expected 0x%lx", mask[0], want_nodes);
    /* RMA across the whole partition still works */
    for (size_t i = 0; i < len / sizeof(long); i += 4096 / sizeof(long))
        shmem_long_p(&p[i], me * 1000000L + (long)i, right);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    for (size_t i = 0; i < len / sizeof(long); i += 4096 / sizeof(long))
        CHECK(p[i] == left * 1000000L + (long)i, "p[%zu] = %ld", i, p[i]);
    shmem_free(p);
    if (me == 0)
        printf("partition 1: %ld KiB pages, policy %s: ok\n", kib, pol);
    shmem_finalize();
    return 0;
}
