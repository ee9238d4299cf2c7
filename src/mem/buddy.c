/* buddy.c - buddy allocator for symmetric heaps: all bookkeeping lives in host memory beside the pool, which
 * is only ever named by offsets, so device-memory pools work and identical call sequences give identical offsets. */
#include "buddy.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#define NIL UINT32_MAX
#define MAX_ORDERS 64
/* Freed blocks parked per order before coalescing. Without it a program that allocates and frees one small
 * object on a mostly empty heap splits and re-merges ~20 levels each time (~400 ns instead of ~30 ns). The
 * cache is flushed before any -ENOMEM, so parking never turns a satisfiable request into a failure. */
#define CACHE_DEPTH 4

enum blk_state { BLK_LIVE, BLK_FREE, BLK_CACHED };

/* One record per block, free or live. Blocks are disjoint, so the start offset identifies a block; records
 * are addressed by index so the arrays can be realloc'ed without fixing up pointers. */
struct blk {
    size_t off;
    uint32_t prev, next; /* free-list links while free; next also chains unused records */
    uint8_t order;
    uint8_t state; /* enum blk_state; a cached block is free but not on a list and never merged */
};

/* Oldest first: evictions take the oldest (least likely to be reused), allocations the newest (warmest). */
struct blk_cache {
    uint32_t rec[CACHE_DEPTH];
    uint8_t first, n;
};

/* Open addressing with linear probing and backward-shift deletion: no tombstones, so lookups stay short under
 * endless alloc/free churn. The key is kept in the slot to avoid touching the record on a miss. */
struct slot {
    size_t off;
    uint32_t rec; /* NIL = empty */
};

struct shmemi_buddy {
    struct blk *recs;
    uint32_t rec_cap, rec_used, rec_top, rec_unused; /* rec_top: high-water mark; rec_unused: chain head */
    struct slot *tab;
    size_t tab_mask, tab_count;
    unsigned tab_shift;
    uint32_t head[MAX_ORDERS]; /* LIFO free lists: the most recently freed block is reused first (warm) */
    uint64_t nonempty;         /* bit k set iff head[k] != NIL: finds the smallest fitting order in one ctz */
    struct blk_cache cache[MAX_ORDERS];
    size_t ncached;
    unsigned min_shift, max_order;
    size_t usable, bytes_free;
};

static inline size_t order_bytes(const struct shmemi_buddy *b, unsigned k) { return (size_t)1 << (b->min_shift + k); }

static inline size_t tab_home(const struct shmemi_buddy *b, size_t off) {
    /* Fibonacci hashing: offsets are multiples of min_block and often of much more, so mix the high bits in. */
    return (size_t)(((uint64_t)(off >> b->min_shift) * 0x9E3779B97F4A7C15ull) >> b->tab_shift);
}

static inline size_t tab_find(const struct shmemi_buddy *b, size_t off) {
    for (size_t i = tab_home(b, off);; i = (i + 1) & b->tab_mask) {
        if (b->tab[i].rec == NIL)
            return SIZE_MAX;
        if (b->tab[i].off == off)
            return i;
    }
}

static inline void tab_put(struct shmemi_buddy *b, size_t off, uint32_t rec) {
    size_t i = tab_home(b, off);
    while (b->tab[i].rec != NIL)
        i = (i + 1) & b->tab_mask;
    b->tab[i].off = off;
    b->tab[i].rec = rec;
    b->tab_count++;
}

static inline void tab_del(struct shmemi_buddy *b, size_t i) {
    size_t j = i;
    for (;;) {
        j = (j + 1) & b->tab_mask;
        if (b->tab[j].rec == NIL)
            break;
        /* An entry may move back into the hole only if that does not put it before its home slot. */
        size_t h = tab_home(b, b->tab[j].off);
        if (((j - h) & b->tab_mask) >= ((j - i) & b->tab_mask)) {
            b->tab[i] = b->tab[j];
            i = j;
        }
    }
    b->tab[i].rec = NIL;
    b->tab_count--;
}

static int tab_resize(struct shmemi_buddy *b, unsigned bits) {
    size_t n = (size_t)1 << bits;
    struct slot *t = malloc(n * sizeof(*t));
    if (!t)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        t[i].rec = NIL;
    struct slot *old = b->tab;
    size_t old_n = old ? b->tab_mask + 1 : 0;
    b->tab = t;
    b->tab_mask = n - 1;
    b->tab_shift = 64 - bits;
    b->tab_count = 0;
    for (size_t i = 0; i < old_n; i++)
        if (old[i].rec != NIL)
            tab_put(b, old[i].off, old[i].rec);
    free(old);
    return 0;
}

/* Grows both tables before an operation that adds up to n blocks, so that the operation itself cannot fail
 * half-way and leave the lists and the table disagreeing. */
static int reserve(struct shmemi_buddy *b, uint32_t n) {
    if ((uint64_t)b->rec_cap - b->rec_used < n) {
        uint64_t want = (uint64_t)b->rec_cap * 2;
        if (want < (uint64_t)b->rec_used + n)
            want = (uint64_t)b->rec_used + n;
        if (want >= NIL)
            return -ENOMEM;
        struct blk *r = realloc(b->recs, want * sizeof(*r));
        if (!r)
            return -ENOMEM;
        b->recs = r;
        b->rec_cap = (uint32_t)want;
    }
    /* Load factor <= 1/2 keeps linear-probe chains to a couple of slots. */
    if ((b->tab_count + n) * 2 > b->tab_mask + 1) {
        unsigned bits = 64 - b->tab_shift;
        while ((b->tab_count + n) * 2 > ((size_t)1 << bits))
            bits++;
        return tab_resize(b, bits);
    }
    return 0;
}

static inline uint32_t rec_new(struct shmemi_buddy *b) {
    uint32_t r = b->rec_unused;
    if (r != NIL)
        b->rec_unused = b->recs[r].next;
    else
        r = b->rec_top++;
    b->rec_used++;
    return r;
}

static inline void rec_release(struct shmemi_buddy *b, uint32_t r) {
    b->recs[r].next = b->rec_unused;
    b->rec_unused = r;
    b->rec_used--;
}

static inline void list_push(struct shmemi_buddy *b, uint32_t r, unsigned k) {
    struct blk *x = &b->recs[r];
    x->order = (uint8_t)k;
    x->state = BLK_FREE;
    x->prev = NIL;
    x->next = b->head[k];
    if (x->next != NIL)
        b->recs[x->next].prev = r;
    b->head[k] = r;
    b->nonempty |= (uint64_t)1 << k;
}

static inline void list_remove(struct shmemi_buddy *b, uint32_t r) {
    struct blk *x = &b->recs[r];
    unsigned k = x->order;
    if (x->prev != NIL)
        b->recs[x->prev].next = x->next;
    else
        b->head[k] = x->next;
    if (x->next != NIL)
        b->recs[x->next].prev = x->prev;
    if (b->head[k] == NIL)
        b->nonempty &= ~((uint64_t)1 << k);
    x->state = BLK_LIVE;
}

/* Smallest k with order_bytes(k) >= bytes; bytes <= the largest block. */
static inline unsigned order_for(const struct shmemi_buddy *b, size_t bytes) {
    if (bytes <= ((size_t)1 << b->min_shift))
        return 0;
    return (unsigned)(64 - __builtin_clzll((unsigned long long)(bytes - 1))) - b->min_shift;
}

/* Returns block r (not on any list, already counted in bytes_free) to the free lists, merging it with its
 * buddy for as long as the buddy is free: every listed free block is then maximal, which is what makes a failed
 * allocation (after the cache is flushed) mean "no free aligned region that large exists" rather than "the free
 * space is in too many pieces". s: r's table slot, or SIZE_MAX if unknown. */
static void coalesce(struct shmemi_buddy *b, uint32_t r, size_t s) {
    size_t off = b->recs[r].off;
    unsigned k = b->recs[r].order;
    while (k < b->max_order) {
        size_t boff = off ^ order_bytes(b, k);
        size_t bs = tab_find(b, boff);
        if (bs == SIZE_MAX)
            break;
        uint32_t br = b->tab[bs].rec;
        if (b->recs[br].state != BLK_FREE || b->recs[br].order != k)
            break;
        list_remove(b, br);
        /* The merged block keeps the lower record; the upper one leaves the table. */
        if (boff < off) {
            if (s == SIZE_MAX)
                s = tab_find(b, off);
            tab_del(b, s);
            rec_release(b, r);
            r = br;
            off = boff;
        } else {
            tab_del(b, bs);
            rec_release(b, br);
        }
        s = SIZE_MAX; /* a backward shift may have moved our slot: look it up again only if needed */
        k++;
    }
    list_push(b, r, k);
}

static void cache_flush(struct shmemi_buddy *b) {
    for (unsigned k = 0; k < MAX_ORDERS; k++) {
        struct blk_cache *c = &b->cache[k];
        for (unsigned i = 0; i < c->n; i++)
            coalesce(b, c->rec[(c->first + i) % CACHE_DEPTH], SIZE_MAX);
        c->first = c->n = 0;
    }
    b->ncached = 0;
}

int shmemi_buddy_create(struct shmemi_buddy **out, size_t pool_size, size_t min_block) {
    if (!out || min_block == 0 || (min_block & (min_block - 1)) || pool_size < min_block)
        return -EINVAL;
    struct shmemi_buddy *b = calloc(1, sizeof(*b));
    if (!b)
        return -ENOMEM;
    b->min_shift = (unsigned)__builtin_ctzll(min_block);
    b->usable = pool_size & ~(min_block - 1);
    size_t units = b->usable >> b->min_shift;
    b->max_order = 63u - (unsigned)__builtin_clzll(units);
    b->rec_unused = NIL;
    for (unsigned k = 0; k < MAX_ORDERS; k++)
        b->head[k] = NIL;
    int rc = tab_resize(b, 7);
    if (rc == 0)
        rc = reserve(b, 64);
    if (rc) {
        shmemi_buddy_destroy(b);
        return rc;
    }
    /* Top-level blocks in decreasing size: each then starts at a multiple of its own size, so buddy arithmetic
     * (off ^ size) holds inside every one of them, and no two top-level blocks can ever look like buddies
     * because the neighbour of a top-level block is always smaller than it. */
    size_t off = 0;
    for (int k = (int)b->max_order; k >= 0; k--) {
        if (!(units & ((size_t)1 << k)))
            continue;
        uint32_t r = rec_new(b);
        b->recs[r].off = off;
        list_push(b, r, (unsigned)k);
        tab_put(b, off, r);
        off += order_bytes(b, (unsigned)k);
    }
    b->bytes_free = b->usable;
    *out = b;
    return 0;
}

int shmemi_buddy_alloc(struct shmemi_buddy *b, size_t size, size_t align, size_t *off_out) {
    if (size == 0 || (align & (align - 1)))
        return -EINVAL;
    size_t largest = order_bytes(b, b->max_order);
    if (size > largest || align > largest)
        return -ENOMEM;
    unsigned k_size = order_for(b, size);
    /* Blocks are aligned to their own size, so an over-aligned request takes a block of the alignment's order
     * and keeps only its first, naturally aligned, part; the rest goes back to the free lists. */
    unsigned k_min = align ? order_for(b, align) : 0;
    if (k_min < k_size)
        k_min = k_size;
    struct blk_cache *c = &b->cache[k_size];
    if (c->n) {
        uint32_t r = c->rec[(c->first + c->n - 1) % CACHE_DEPTH];
        size_t off = b->recs[r].off;
        if (!(off & (order_bytes(b, k_min) - 1))) {
            c->n--;
            b->ncached--;
            b->recs[r].state = BLK_LIVE;
            b->bytes_free -= order_bytes(b, k_size);
            *off_out = off;
            return 0;
        }
    }
    uint64_t fit = b->nonempty >> k_min;
    if (!fit) {
        if (!b->ncached)
            return -ENOMEM;
        cache_flush(b);
        fit = b->nonempty >> k_min;
        if (!fit)
            return -ENOMEM;
    }
    unsigned k = k_min + (unsigned)__builtin_ctzll(fit);
    if (k > k_size && reserve(b, k - k_size))
        return -ENOMEM;
    uint32_t r = b->head[k];
    list_remove(b, r);
    size_t off = b->recs[r].off;
    /* Keep the lower half at each split so the offset keeps the alignment of the block it came from. */
    while (k > k_size) {
        k--;
        uint32_t u = rec_new(b);
        size_t uoff = off + order_bytes(b, k);
        b->recs[u].off = uoff;
        list_push(b, u, k);
        tab_put(b, uoff, u);
    }
    b->recs[r].order = (uint8_t)k_size;
    b->bytes_free -= order_bytes(b, k_size);
    *off_out = off;
    return 0;
}

int shmemi_buddy_free(struct shmemi_buddy *b, size_t off) {
    size_t s = tab_find(b, off);
    if (s == SIZE_MAX)
        return -EINVAL;
    uint32_t r = b->tab[s].rec;
    if (b->recs[r].state != BLK_LIVE)
        return -EINVAL;
    unsigned k = b->recs[r].order;
    b->bytes_free += order_bytes(b, k);
    struct blk_cache *c = &b->cache[k];
    if (c->n == CACHE_DEPTH) {
        uint32_t old = c->rec[c->first];
        c->first = (uint8_t)((c->first + 1) % CACHE_DEPTH);
        c->n--;
        b->ncached--;
        coalesce(b, old, SIZE_MAX);
    }
    b->recs[r].state = BLK_CACHED;
    c->rec[(c->first + c->n) % CACHE_DEPTH] = r;
    c->n++;
    b->ncached++;
    return 0;
}

size_t shmemi_buddy_block_size(const struct shmemi_buddy *b, size_t off) {
    size_t s = tab_find(b, off);
    if (s == SIZE_MAX)
        return 0;
    const struct blk *x = &b->recs[b->tab[s].rec];
    return x->state == BLK_LIVE ? order_bytes(b, x->order) : 0;
}

size_t shmemi_buddy_bytes_free(const struct shmemi_buddy *b) { return b->bytes_free; }

void shmemi_buddy_destroy(struct shmemi_buddy *b) {
    if (!b)
        return;
    free(b->tab);
    free(b->recs);
    free(b);
}
