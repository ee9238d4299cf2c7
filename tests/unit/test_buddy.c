/* test_buddy.c - the symmetric-heap buddy allocator against a per-unit reference model: random alloc/free
 * sequences on several pool shapes, exhaustion, determinism, bad frees, and an informational timing. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mem/buddy.h"

static int failures;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);                                   \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            if (++failures > 20)                                                                                       \
                exit(1);                                                                                               \
        }                                                                                                              \
    } while (0)

/* xorshift64*: a fixed generator so a failure reproduces from the printed seed on any libc. */
static uint64_t rng_state;
static uint64_t rnd(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static size_t rnd_below(size_t n) { return (size_t)(rnd() % n); }

static size_t pow2_ceil(size_t x) {
    size_t p = 1;
    while (p < x)
        p <<= 1;
    return p;
}

/* ---- reference model: who owns each min_block unit ---- */
struct live {
    size_t off, bsize;
};

struct model {
    size_t pool, minb, usable, units, largest;
    int *owner; /* per unit: index into lv[], -1 = free */
    struct live *lv;
    size_t nlive, cap;
    size_t used_bytes;
};

static void model_init(struct model *m, size_t pool, size_t minb) {
    memset(m, 0, sizeof(*m));
    m->pool = pool;
    m->minb = minb;
    m->usable = pool / minb * minb;
    m->units = m->usable / minb;
    m->largest = 1;
    while (m->largest * 2 <= m->usable)
        m->largest *= 2;
    m->owner = malloc(m->units * sizeof(int));
    for (size_t i = 0; i < m->units; i++)
        m->owner[i] = -1;
    m->cap = m->units + 1;
    m->lv = malloc(m->cap * sizeof(*m->lv));
}

static void model_fini(struct model *m) {
    free(m->owner);
    free(m->lv);
}

/* Is there an entirely free region of `bytes` (a power of two) starting at a multiple of itself? With eager
 * coalescing the allocator must find one whenever the model says it exists. */
static int model_has_free_aligned(const struct model *m, size_t bytes) {
    if (bytes > m->usable)
        return 0;
    size_t n = bytes / m->minb;
    for (size_t u = 0; u + n <= m->units; u += n) {
        size_t i = 0;
        while (i < n && m->owner[u + i] < 0)
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

static void model_add(struct model *m, size_t off, size_t bsize) {
    size_t idx = m->nlive++;
    m->lv[idx].off = off;
    m->lv[idx].bsize = bsize;
    for (size_t u = off / m->minb; u < (off + bsize) / m->minb; u++)
        m->owner[u] = (int)idx;
    m->used_bytes += bsize;
}

static void model_remove(struct model *m, size_t idx) {
    struct live x = m->lv[idx];
    for (size_t u = x.off / m->minb; u < (x.off + x.bsize) / m->minb; u++)
        m->owner[u] = -1;
    m->used_bytes -= x.bsize;
    size_t last = --m->nlive;
    if (idx != last) {
        m->lv[idx] = m->lv[last];
        for (size_t u = m->lv[idx].off / m->minb; u < (m->lv[idx].off + m->lv[idx].bsize) / m->minb; u++)
            m->owner[u] = (int)idx;
    }
}

/* One checked allocation; returns 1 if it succeeded. */
static int checked_alloc(struct shmemi_buddy *b, struct model *m, size_t size, size_t align) {
    size_t off = (size_t)0xdeadbeef;
    int rc = shmemi_buddy_alloc(b, size, align, &off);
    size_t eff_align = align > m->minb ? align : m->minb;
    size_t want = pow2_ceil(size > m->minb ? size : m->minb);
    size_t need = want > eff_align ? want : eff_align;
    if (rc == -ENOMEM) {
        CHECK(off == (size_t)0xdeadbeef, "ENOMEM but off_out written (%zu)", off);
        CHECK(!model_has_free_aligned(m, need),
              "ENOMEM for size %zu align %zu though a free aligned %zu-byte region exists", size, align, need);
        return 0;
    }
    CHECK(rc == 0, "alloc(%zu, %zu) returned %d", size, align, rc);
    if (rc != 0)
        return 0;
    size_t bs = shmemi_buddy_block_size(b, off);
    CHECK(off % eff_align == 0, "off %zu not aligned to %zu", off, eff_align);
    CHECK(bs == want, "block_size %zu, expected %zu for size %zu", bs, want, size);
    CHECK(off + bs <= m->usable && off + bs > off, "block [%zu,+%zu) outside usable pool %zu", off, bs, m->usable);
    if (off % eff_align || off + bs > m->usable || bs != want)
        exit(1);
    for (size_t u = off / m->minb; u < (off + bs) / m->minb; u++)
        if (m->owner[u] >= 0) {
            CHECK(0, "block [%zu,+%zu) overlaps live block at %zu", off, bs, m->lv[m->owner[u]].off);
            exit(1);
        }
    model_add(m, off, bs);
    CHECK(shmemi_buddy_bytes_free(b) == m->usable - m->used_bytes, "bytes_free %zu, model %zu",
          shmemi_buddy_bytes_free(b), m->usable - m->used_bytes);
    return 1;
}

static void checked_free(struct shmemi_buddy *b, struct model *m, size_t idx) {
    size_t off = m->lv[idx].off;
    int rc = shmemi_buddy_free(b, off);
    CHECK(rc == 0, "free(%zu) returned %d", off, rc);
    model_remove(m, idx);
    CHECK(shmemi_buddy_block_size(b, off) == 0, "block_size of freed %zu not 0", off);
    CHECK(shmemi_buddy_bytes_free(b) == m->usable - m->used_bytes, "bytes_free %zu, model %zu after free",
          shmemi_buddy_bytes_free(b), m->usable - m->used_bytes);
    /* Double free and a free of the middle of a block must both be refused. */
    if ((rnd() & 7) == 0) {
        CHECK(shmemi_buddy_free(b, off) == -EINVAL, "double free of %zu accepted", off);
    }
}

static size_t random_size(size_t usable) {
    switch (rnd_below(8)) {
    case 0:
    case 1:
    case 2: return 1 + rnd_below(128);
    case 3:
    case 4: return 1 + rnd_below(2048);
    case 5: return 1 + rnd_below(usable / 8 + 1);
    case 6: return (size_t)1 << rnd_below(12);
    default: return 1 + rnd_below(usable + usable / 4); /* sometimes more than fits */
    }
}

static size_t random_align(void) {
    unsigned r = (unsigned)rnd_below(10);
    if (r < 6)
        return 0;
    return (size_t)1 << rnd_below(14);
}

/* Random churn against the model, then free everything and check the pool coalesced back whole. */
static void random_run(size_t pool, size_t minb, uint64_t seed, int steps) {
    rng_state = seed;
    struct shmemi_buddy *b = NULL;
    int rc = shmemi_buddy_create(&b, pool, minb);
    CHECK(rc == 0 && b, "create(%zu, %zu) = %d", pool, minb, rc);
    if (rc)
        return;
    struct model m;
    model_init(&m, pool, minb);
    CHECK(shmemi_buddy_bytes_free(b) == m.usable, "fresh bytes_free %zu != %zu", shmemi_buddy_bytes_free(b), m.usable);
    for (int i = 0; i < steps; i++) {
        /* Bias towards allocation until fragments appear, then towards frees, so both full and empty pools
         * are visited many times. */
        int phase = (i / 500) & 1;
        int do_alloc = m.nlive == 0 || rnd_below(100) < (phase ? 35u : 70u);
        if (do_alloc) {
            checked_alloc(b, &m, random_size(m.usable), random_align());
        } else {
            checked_free(b, &m, rnd_below(m.nlive));
        }
        if ((i & 63) == 0 && m.nlive) {
            /* Offsets that are not block starts: inside a live block, past the pool, a free unit. */
            struct live x = m.lv[rnd_below(m.nlive)];
            if (x.bsize > minb) {
                CHECK(shmemi_buddy_free(b, x.off + minb) == -EINVAL, "free inside block accepted");
                CHECK(shmemi_buddy_block_size(b, x.off + minb) == 0, "block_size inside block not 0");
            }
            CHECK(shmemi_buddy_free(b, m.usable + minb * 4) == -EINVAL, "free past pool accepted");
            CHECK(shmemi_buddy_free(b, x.off + 1) == -EINVAL, "misaligned free accepted");
            for (size_t u = 0; u < m.units; u++)
                if (m.owner[u] < 0) {
                    CHECK(shmemi_buddy_free(b, u * minb) == -EINVAL, "free of free unit %zu accepted", u);
                    break;
                }
        }
    }
    while (m.nlive)
        checked_free(b, &m, rnd_below(m.nlive));
    CHECK(shmemi_buddy_bytes_free(b) == m.usable, "after freeing all: %zu != %zu", shmemi_buddy_bytes_free(b),
          m.usable);
    /* Only a fully coalesced pool can hand out the largest top-level block at offset 0 and then fill every
     * smaller top-level block exactly. */
    size_t off = 1, expect = 0;
    for (size_t t = m.largest; t >= minb; t >>= 1) {
        if (!(m.usable & t))
            continue;
        rc = shmemi_buddy_alloc(b, t, 0, &off);
        CHECK(rc == 0 && off == expect, "top block %zu: rc %d off %zu expected %zu", t, rc, off, expect);
        expect += t;
    }
    CHECK(shmemi_buddy_bytes_free(b) == 0, "pool not full after taking every top block");
    rc = shmemi_buddy_alloc(b, 1, 0, &off);
    CHECK(rc == -ENOMEM, "alloc from full pool: %d", rc);
    shmemi_buddy_destroy(b);
    model_fini(&m);
}

/* Two allocators fed the same calls must hand out the same offsets: that is what makes the heap symmetric. */
static void determinism(void) {
    struct shmemi_buddy *a = NULL, *c = NULL;
    size_t pool = (size_t)1000 * 4096 + 192;
    CHECK(shmemi_buddy_create(&a, pool, 64) == 0, "create a");
    CHECK(shmemi_buddy_create(&c, pool, 64) == 0, "create c");
    size_t *offs = malloc(4096 * sizeof(size_t));
    size_t n = 0;
    rng_state = 0x1234567;
    for (int i = 0; i < 200000; i++) {
        if (n < 4096 && (n == 0 || rnd_below(100) < 55)) {
            size_t sz = random_size(pool / 16), al = random_align();
            size_t oa = 1, oc = 2;
            int ra = shmemi_buddy_alloc(a, sz, al, &oa), rcc = shmemi_buddy_alloc(c, sz, al, &oc);
            CHECK(ra == rcc, "rc differ at step %d: %d vs %d", i, ra, rcc);
            if (ra == 0) {
                CHECK(oa == oc, "offsets differ at step %d: %zu vs %zu", i, oa, oc);
                offs[n++] = oa;
            }
        } else {
            size_t j = rnd_below(n);
            CHECK(shmemi_buddy_free(a, offs[j]) == 0 && shmemi_buddy_free(c, offs[j]) == 0, "free differ");
            offs[j] = offs[--n];
        }
    }
    free(offs);
    shmemi_buddy_destroy(a);
    shmemi_buddy_destroy(c);
}

static void edge_cases(void) {
    struct shmemi_buddy *b = NULL;
    size_t off;
    CHECK(shmemi_buddy_create(&b, 4096, 0) == -EINVAL, "min_block 0 accepted");
    CHECK(shmemi_buddy_create(&b, 4096, 48) == -EINVAL, "min_block 48 accepted");
    CHECK(shmemi_buddy_create(&b, 32, 64) == -EINVAL, "pool smaller than min_block accepted");

    CHECK(shmemi_buddy_create(&b, 4096, 64) == 0, "create 4096/64");
    CHECK(shmemi_buddy_alloc(b, 0, 0, &off) == -EINVAL, "size 0 accepted");
    CHECK(shmemi_buddy_alloc(b, 8, 3, &off) == -EINVAL, "align 3 accepted");
    CHECK(shmemi_buddy_alloc(b, SIZE_MAX, 0, &off) == -ENOMEM, "SIZE_MAX not ENOMEM");
    CHECK(shmemi_buddy_alloc(b, (SIZE_MAX >> 1) + 2, 0, &off) == -ENOMEM, "huge size not ENOMEM");
    CHECK(shmemi_buddy_alloc(b, 8, (size_t)1 << 40, &off) == -ENOMEM, "alignment beyond pool not ENOMEM");
    CHECK(shmemi_buddy_free(b, 0) == -EINVAL, "free of never-allocated 0 accepted");
    /* Exhaust with minimum blocks: exactly pool/min_block of them, then ENOMEM without touching off. */
    size_t count = 0;
    for (;;) {
        off = 777;
        int rc = shmemi_buddy_alloc(b, 1, 0, &off);
        if (rc) {
            CHECK(rc == -ENOMEM && off == 777, "exhaustion: rc %d off %zu", rc, off);
            break;
        }
        count++;
        if (count > 64)
            break;
    }
    CHECK(count == 64, "got %zu min blocks from a 4096/64 pool", count);
    CHECK(shmemi_buddy_bytes_free(b) == 0, "bytes_free not 0 when full");
    for (size_t o = 0; o < 4096; o += 64)
        CHECK(shmemi_buddy_free(b, o) == 0, "free %zu", o);
    CHECK(shmemi_buddy_bytes_free(b) == 4096, "bytes_free after refill");
    CHECK(shmemi_buddy_alloc(b, 4096, 0, &off) == 0 && off == 0, "whole pool after coalescing");
    CHECK(shmemi_buddy_block_size(b, 0) == 4096, "block_size of whole pool");
    CHECK(shmemi_buddy_free(b, 0) == 0, "free whole pool");
    /* Over-aligned small request: returns an aligned offset, occupies only its own size. */
    size_t o1, o2;
    CHECK(shmemi_buddy_alloc(b, 64, 0, &o1) == 0 && o1 == 0, "first 64");
    CHECK(shmemi_buddy_alloc(b, 64, 1024, &o2) == 0 && o2 == 1024, "aligned 64 at %zu", o2);
    CHECK(shmemi_buddy_block_size(b, o2) == 64, "aligned block size %zu", shmemi_buddy_block_size(b, o2));
    CHECK(shmemi_buddy_bytes_free(b) == 4096 - 128, "over-aligned request used more than its size");
    CHECK(shmemi_buddy_free(b, o1) == 0 && shmemi_buddy_free(b, o2) == 0, "free aligned");
    CHECK(shmemi_buddy_bytes_free(b) == 4096, "bytes_free after aligned");
    shmemi_buddy_destroy(b);
    shmemi_buddy_destroy(NULL);

    /* Bookkeeping must not scale with the pool: a 64 TiB pool costs nothing until used. */
    size_t big = (size_t)64 << 40;
    CHECK(shmemi_buddy_create(&b, big + 4096 + 64, 64) == 0, "create 64 TiB");
    CHECK(shmemi_buddy_alloc(b, big, 0, &off) == 0 && off == 0, "alloc 64 TiB");
    CHECK(shmemi_buddy_alloc(b, 60, 0, &off) == 0 && off == big + 4096, "then the 64-byte tail block: %zu", off);
    CHECK(shmemi_buddy_alloc(b, 3000, 0, &off) == 0 && off == big, "then the 4096 block: %zu", off);
    CHECK(shmemi_buddy_alloc(b, 1, 0, &off) == -ENOMEM, "full");
    CHECK(shmemi_buddy_free(b, 0) == 0 && shmemi_buddy_free(b, big) == 0 && shmemi_buddy_free(b, big + 4096) == 0,
          "free big");
    CHECK(shmemi_buddy_bytes_free(b) == big + 4096 + 64, "big bytes_free");
    shmemi_buddy_destroy(b);
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Informational only: printed, never asserted, since CI machines vary. */
static void timing(void) {
    struct shmemi_buddy *b = NULL;
    if (shmemi_buddy_create(&b, (size_t)1 << 30, 64))
        return;
    size_t off;
    const int n = 2000000;
    double t0 = now_ns();
    for (int i = 0; i < n; i++) {
        shmemi_buddy_alloc(b, 64, 0, &off);
        shmemi_buddy_free(b, off);
    }
    double t1 = now_ns();
    printf("buddy timing: alloc+free of 64 B on an empty 1 GiB pool: %.1f ns per pair\n", (t1 - t0) / n);

    /* Steady state with 4096 live blocks of mixed sizes: the usual shape of a symmetric heap in use. */
    enum { LIVE = 4096, SIZES = 1 << 16 };
    size_t *live = malloc(LIVE * sizeof(size_t));
    size_t *sizes = malloc(SIZES * sizeof(size_t));
    rng_state = 99;
    for (int i = 0; i < SIZES; i++)
        sizes[i] = 8 + rnd_below((size_t)1 << (6 + rnd_below(10)));
    for (int i = 0; i < LIVE; i++)
        shmemi_buddy_alloc(b, sizes[i], 0, &live[i]);
    t0 = now_ns();
    for (int i = 0; i < n; i++) {
        size_t j = (size_t)(i * 2654435761u) % LIVE;
        shmemi_buddy_free(b, live[j]);
        shmemi_buddy_alloc(b, sizes[i & (SIZES - 1)], 0, &live[j]);
    }
    t1 = now_ns();
    printf("buddy timing: alloc+free, mixed 8 B..64 KiB sizes, 4096 live blocks: %.1f ns per pair\n", (t1 - t0) / n);
    free(live);
    free(sizes);
    shmemi_buddy_destroy(b);
}

int main(void) {
    edge_cases();
    determinism();
    static const struct {
        size_t pool, minb;
    } shapes[] = {
        {1 << 16, 64},                    /* power of two */
        {64 * 1000 + 37, 64},             /* neither a power of two nor a multiple of min_block */
        {7 * 64, 64},                     /* three top-level blocks, tiny */
        {(1 << 18) + (1 << 12) + 64, 64}, /* a big block followed by small ones */
        {10000, 8},                       /* small min_block */
        {(size_t)3 << 20, 4096},          /* page-sized blocks */
        {64, 64},                         /* a single block */
    };
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            random_run(shapes[i].pool, shapes[i].minb, seed * 0x9E3779B97F4A7C15ull + i, 20000);
    timing();
    if (failures) {
        fprintf(stderr, "test_buddy: %d failures\n", failures);
        return 1;
    }
    printf("test_buddy: ok\n");
    return 0;
}
