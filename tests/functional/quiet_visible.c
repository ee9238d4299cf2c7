/* quiet_visible.c - shmem_quiet's promise seen from the target: once PE 0's quiet returns, its puts are in PE 1's
 * memory, readable there by a plain load while PE 1 stays outside the library. PE 0 says its quiet returned through a
 * page of POSIX shared memory outside OpenSHMEM (the PEs share a node under oshrun, whose pid names the page). A quiet
 * that waits only until the provider has sent the writes (transmit completion: an injected write's counter on
 * libfabric's net and rxm) lets PE 1 read the old value. PE 1 waits for the word only so long: a quiet that is still
 * waiting for PE 1 to drive the provider (no progress thread) is right to, and PE 1 then calls the library. */
#include "ftest.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BIG (64 * 1024 / sizeof(long)) /* past any inject size: a write the provider sends from the buffer */
#define BURST 24                       /* 8-byte puts before one quiet: more than gshmem sends delivery-complete */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 450;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        shmem_finalize();
        return FTEST_SKIP;
    }
    char name[64];
    snprintf(name, sizeof name, "/gshmem-ft-quiet-visible-%ld", (long)getppid());
    int fd = me < 2 ? shm_open(name, O_CREAT | O_RDWR, 0600) : -1;
    if (me < 2 && (fd < 0 || ftruncate(fd, 4096))) {
        FAIL("shm_open/ftruncate %s failed", name);
        shmem_global_exit(1);
    }
    long *seen = me < 2 ? mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : NULL;
    if (seen == MAP_FAILED) {
        FAIL("mmap of %s failed", name);
        shmem_global_exit(1);
    }
    long *small = shmem_calloc(BURST, sizeof(long));
    long *big = shmem_calloc(BIG, sizeof(long));
    long *src = malloc(BIG * sizeof(long));
    if (me == 0)
        __atomic_store_n(seen, 0, __ATOMIC_RELAXED);
    shmem_barrier_all();
    long stale = 0, late = 0;
    /* rounds of three kinds: one 64 KiB put, one 8-byte put (quiets that follow single small puts closely), a burst of
     * 8-byte puts (many small puts per quiet); each kind's puts are then awaited differently by gshmem's quiet */
    static const char *const kind_name[] = {"64 KiB put", "8-byte put", "burst of 8-byte puts"};
    for (long r = 1; r <= rounds; r++) {
        int kind = r % 6 == 0 ? 0 : r % 6 == 5 ? 2 : 1; /* single 8-byte puts in a row: quiets closely follow puts */
        if (me == 0) {
            if (kind == 0) {
                for (size_t k = 0; k < BIG; k++)
                    src[k] = r;
                shmem_long_put(big, src, BIG, 1);
            } else if (kind == 1) {
                shmem_long_p(small, r, 1);
            } else {
                for (int k = BURST - 1; k >= 0; k--)
                    shmem_long_p(&small[k], r, 1);
            }
            shmem_quiet();
            __atomic_store_n(seen, r, __ATOMIC_RELEASE);
        } else if (me == 1) {
            double deadline = now() + 0.05;
            while (__atomic_load_n(seen, __ATOMIC_ACQUIRE) != r && now() < deadline)
                ;
            if (__atomic_load_n(seen, __ATOMIC_ACQUIRE) == r) {
                const volatile long *w = kind == 0 ? big : small;
                size_t n = kind == 0 ? BIG : kind == 1 ? 1 : BURST;
                long a = w[0], b = w[n - 1]; /* (a burst writes its last word first) */
                if (a != r || b != r) {
                    if (!stale++)
                        FAIL("round %ld (%s): PE 0's shmem_quiet returned, yet PE 1 reads %ld/%ld, not %ld", r,
                             kind_name[kind], a, b, r);
                }
            } else {
                late++; /* PE 0's quiet waits for this PE to drive the provider: allowed */
            }
        }
        shmem_barrier_all();
    }
    if (me == 1 && stale)
        FAIL("%ld of %ld rounds read stale data after the initiator's quiet", stale, rounds);
    if (me == 1 && getenv("FTEST_VERBOSE"))
        printf("PE 1: %ld rounds, %ld stale, %ld with the quiet still waiting after 50 ms\n", rounds, stale, late);
    shmem_barrier_all();
    if (me == 0)
        shm_unlink(name);
    free(src);
    shmem_free(big);
    shmem_free(small);
    return ftest_finish("quiet_visible");
}
