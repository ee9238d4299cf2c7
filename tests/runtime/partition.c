/* partition.c - host-kind symmetric partitions: shmem_partition_malloc returns symmetric memory distinct from the
 * default heap that every RMA/AMO reaches, shmem_free takes it back, and an undefined ID ends the job. Run with
 * SHMEM_SYMMETRIC_PARTITION2=SIZE=4M:KIND=HOST and SHMEM_SYMMETRIC_PARTITION5=SIZE=1M. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL PE %d line %d: ", shmem_my_pe(), __LINE__);                                                   \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

int main(int argc, char **argv) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *h = shmem_malloc(1024 * sizeof(long));
    long *p2 = shmem_partition_malloc(1024 * sizeof(long), 2);
    long *p5 = shmem_partition_malloc(16 * sizeof(long), 5);
    CHECK(h && p2 && p5, "allocation failed: %p %p %p", (void *)h, (void *)p2, (void *)p5);
    CHECK((char *)p2 + 1024 * sizeof(long) <= (char *)h || (char *)h + 1024 * sizeof(long) <= (char *)p2,
          "partition memory overlaps the heap");
    CHECK(shmem_addr_accessible(p2, (me + 1) % n) && shmem_addr_accessible(p5, (me + 1) % n),
          "partition memory is not accessible");
    /* too big for partition 5 (1 MiB) even though the heap could hold it */
    void *big = shmem_partition_malloc(2 << 20, 5);
    CHECK(big == NULL, "2 MiB from a 1 MiB partition should be NULL");

    for (int i = 0; i < 1024; i++)
        p2[i] = -1;
    p5[0] = 0;
    shmem_barrier_all();
    long src[1024];
    for (int i = 0; i < 1024; i++)
        src[i] = me * 10000 + i;
    shmem_long_put(p2, src, 1024, (me + 1) % n);
    shmem_long_atomic_add(&p5[0], me + 1, 0);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    for (int i = 0; i < 1024; i++)
        CHECK(p2[i] == left * 10000 + i, "p2[%d] = %ld", i, p2[i]);
    if (me == 0)
        CHECK(p5[0] == (long)n * (n + 1) / 2, "atomic sum in partition 5 = %ld", p5[0]);
    long g = shmem_long_g(&p2[7], left);
    CHECK(g == ((left + n - 1) % n) * 10000 + 7, "get from partition = %ld", g);

    shmem_free(p2);
    long *again = shmem_partition_malloc(1024 * sizeof(long), 2);
    CHECK(again == p2, "freed partition block not reused deterministically");
    shmem_free(again);
    shmem_free(p5);
    shmem_free(h);
    if (argc > 1) /* misuse: partition 3 is not defined; must end the job with a message */
        shmem_partition_malloc(8, 3);
    if (me == 0)
        printf("partition: ok (%d PEs)\n", n);
    shmem_finalize();
    return 0;
}
