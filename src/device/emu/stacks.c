/* stacks.c - the stacks of the CPU emulation's GPU threads: one pool per process, from which a block takes a stack per
 * thread when it starts and to which it gives them back when it ends, so only resident blocks hold stacks. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "device/emu/emu.h"
#include "state.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102 /* Linux 6.13: a guard region made in the page tables, without a mapping of its own */
#endif

/* Stacks are mapped this many at a time: with lightweight guards a slab is one mapping (VMA) whatever it holds */
enum { SLAB = 32 };

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ready;
    int light;      /* guards by MADV_GUARD_INSTALL; else by mprotect, which splits a mapping in two per stack */
    int test_light; /* shmemi_emu_stacks_setup: -1 find out, 0 or 1 */
    long test_maps; /* and a vm.max_map_count to assume (0: read it) */
    long max_maps;  /* vm.max_map_count */
    size_t len;     /* of a stack, its guard page (the lowest) included */
    size_t budget;  /* stacks this process may map: what vm.max_map_count leaves, after the program's own share */
    size_t mapped;  /* stacks mapped so far (never unmapped: reused) */
    size_t in_use;  /* by running blocks */
    char **free;    /* stacks not in use, the last given back on top (its pages are the warmest) */
    size_t nfree;
    uint64_t next, serving; /* blocks take stacks in the order they asked */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, .test_light = -1};

void shmemi_emu_stacks_setup(int light, long max_map_count) {
    pthread_mutex_lock(&pool.lock);
    pool.test_light = light;
    pool.test_maps = max_map_count;
    pool.ready = 0; /* (nothing is mapped before the first block) */
    pthread_mutex_unlock(&pool.lock);
}

static size_t page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static long read_long(const char *path, long dflt) {
    FILE *f = fopen(path, "r");
    long v = dflt;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = dflt;
        fclose(f);
    }
    return v;
}

static long count_maps(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    if (!f)
        return 0;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static int probe_light(void) {
    size_t pg = page();
    void *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return 0;
    int ok = madvise(m, pg, MADV_GUARD_INSTALL) == 0;
    munmap(m, 2 * pg);
    return ok;
}

/* The budget: a quarter of what vm.max_map_count leaves stays the program's (its threads, allocations, the
 * library's shared memory); a slab costs one mapping with lightweight guards, two per stack without. */
static void setup(void) {
    size_t pg = page();
    size_t sz = shmemi_env.emu_stack ? (size_t)shmemi_env.emu_stack : (size_t)256 << 10;
    pool.len = ((sz + pg - 1) & ~(pg - 1)) + pg;
    pool.light = pool.test_light >= 0 ? pool.test_light : probe_light();
    pool.max_maps = pool.test_maps > 0 ? pool.test_maps : read_long("/proc/sys/vm/max_map_count", 65530);
    long left = pool.max_maps - count_maps();
    left -= left / 4;
    size_t per_slab = pool.light ? 1 : 2 * SLAB;
    pool.budget = left > 0 ? (size_t)left / per_slab * SLAB : 0;
    pool.ready = 1;
}

static int map_slab(void) {
    size_t n = pool.budget - pool.mapped < SLAB ? pool.budget - pool.mapped : SLAB, pg = page();
    char **fl = realloc(pool.free, (pool.mapped + n) * sizeof *fl);
    if (!fl)
        return -1;
    pool.free = fl;
    char *m = mmap(NULL, n * pool.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                   -1, 0);
    if (m == MAP_FAILED)
        return -1;
    /* an overflowing emulated thread faults on its guard instead of writing over its neighbour */
    for (size_t i = 0; i < n; i++) {
        char *g = m + i * pool.len;
        if (pool.light ? madvise(g, pg, MADV_GUARD_INSTALL) : mprotect(g, pg, PROT_NONE)) {
            munmap(m, n * pool.len);
            return -1;
        }
    }
    for (size_t i = n; i-- > 0;)
        pool.free[pool.nfree++] = m + i * pool.len;
    pool.mapped += n;
    return 0;
}

size_t shmemi_emu_stack_len(void) {
    pthread_mutex_lock(&pool.lock);
    if (!pool.ready)
        setup();
    size_t len = pool.len;
    pthread_mutex_unlock(&pool.lock);
    return len;
}

int shmemi_emu_stacks_light(void) {
    pthread_mutex_lock(&pool.lock);
    if (!pool.ready)
        setup();
    int light = pool.light;
    pthread_mutex_unlock(&pool.lock);
    return light;
}

/* Blocks that may be resident at once, of n threads each, as far as stacks go */
unsigned shmemi_emu_stacks_blocks(unsigned n) {
    pthread_mutex_lock(&pool.lock);
    if (!pool.ready)
        setup();
    size_t b = n ? pool.budget / n : 0;
    pthread_mutex_unlock(&pool.lock);
    return b > 65536 ? 65536 : (unsigned)b;
}

static void too_many(unsigned n) __attribute__((noreturn));
static void too_many(unsigned n) {
    size_t b = pool.budget;
    pthread_mutex_unlock(&pool.lock);
    shmemi_emu_fatal("a kernel launch",
                     "a block of %u threads needs a stack for each, and this process may map only %zu: "
                     "vm.max_map_count (%ld) is too low (each stack costs %s); raise it (sysctl -w vm.max_map_count=N)",
                     n, b, pool.max_maps,
                     pool.light ? "a share of one mapping"
                                : "two mappings, its guard page made by mprotect before Linux 6.13");
}

void shmemi_emu_stacks_take(unsigned n, char **out) {
    pthread_mutex_lock(&pool.lock);
    if (!pool.ready)
        setup();
    if (n > pool.budget)
        too_many(n);
    uint64_t me = pool.next++;
    time_t since = time(NULL);
    int warned = 0;
    for (;;) {
        if (me == pool.serving) {
            while (pool.nfree < n && pool.mapped < pool.budget)
                if (map_slab()) {
                    int e = errno;
                    if (pool.in_use == 0) { /* nothing will be given back */
                        pthread_mutex_unlock(&pool.lock);
                        shmemi_emu_fatal(
                            "a kernel launch",
                            "cannot map stacks for a block of %u threads (SHMEM_EMU_STACK=%zu bytes each): "
                            "%s; lower SHMEM_EMU_STACK",
                            n, pool.len - page(), strerror(e));
                    }
                    pool.budget = pool.mapped; /* what the system gives: wait for those */
                    if (n > pool.budget)
                        too_many(n);
                    break;
                }
            if (pool.nfree >= n)
                break;
        }
        /* running blocks hold the rest: they give them back when they end, unless they wait for this one */
        if (!warned && time(NULL) - since >= 10) {
            warned = 1;
            fprintf(stderr,
                    "gshmem: a kernel (emulated GPU): a block of %u threads has waited 10 s for stacks: running blocks "
                    "hold %zu of the %zu this process may map (vm.max_map_count=%ld); if they wait for this block, "
                    "raise vm.max_map_count\n",
                    n, pool.in_use, pool.budget, pool.max_maps);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&pool.cond, &pool.lock, &until);
    }
    for (unsigned i = 0; i < n; i++)
        out[i] = pool.free[--pool.nfree];
    pool.in_use += n;
    pool.serving++;
    pthread_cond_broadcast(&pool.cond);
    pthread_mutex_unlock(&pool.lock);
}

void shmemi_emu_stacks_give(unsigned n, char **stacks) {
    pthread_mutex_lock(&pool.lock);
    for (unsigned i = n; i-- > 0;)
        pool.free[pool.nfree++] = stacks[i];
    pool.in_use -= n;
    pthread_cond_broadcast(&pool.cond);
    pthread_mutex_unlock(&pool.lock);
}
