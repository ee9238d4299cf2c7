/* alloc.c - the collective symmetric allocation routines (shmem_malloc & co, the deprecated shmalloc names, spaces,
 * partitions, the GPU heap): the segment's allocator (mem) between barriers. Allocation is deterministic, so every PE
 * gets the same offset without communicating. */
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "gpu/gtl.h"
#include "mem/buddy.h"
#include "mem/mem.h"
#include "shmemg.h"
#include "shmemx.h"

/* The barrier that ends an allocation, for p, this PE's new block of size bytes (NULL: none, on every PE). In a
 * host segment each PE first reserves its block's pages in /dev/shm, and the barrier is a reduction that also says
 * whether every PE could: if one could not, every PE gives its block back and returns NULL (the heap stays
 * symmetric), and the lowest such PE says why. Else a PE, or a peer writing into its block, would die of SIGBUS at the
 * first page /dev/shm cannot back. */
static void *end_alloc(struct shmemi_seg *s, void *p, size_t size, const char *fn) {
    if (!shmemi_seg_reserves(s)) {
        shmem_barrier_all();
        return p;
    }
    size_t off = p ? (size_t)((char *)p - s->base) : 0;
    int e = p ? shmemi_seg_reserve(s, off, size) : 0;
    uint64_t mine = e ? (uint64_t)(shmemi_rt.n_pes - shmemi_rt.my_pe) : 0, worst = 0;
    shmem_quiet(); /* as shmem_barrier_all: our puts are visible before anyone leaves */
    shmemi_team_reduce_private(&gshmem_team_world, SHMEMI_OP_MAX, SHMEMI_DT_UINT64, &worst, &mine, 1, fn);
    if (!worst)
        return p;
    if (p) {
        shmemi_seg_unreserve(s); /* (what a PE reserved is no use to the others' refused blocks) */
        shmemi_buddy_free(s->alloc, off);
    }
    if (e && worst == mine)
        shmemi_seg_unbacked(s, fn, size, e);
    return NULL;
}

void *shmemi_seg_alloc(struct shmemi_seg *s, size_t size, size_t align, const char *fn) {
    shmemi_check_init(fn);
    void *p = shmemi_seg_alloc_local(s, size, align, fn);
    return end_alloc(s, p, size, fn);
}

static struct shmemi_seg *owner(void *ptr, size_t *off, const char *fn) {
    struct shmemi_seg *s = shmemi_find_seg(ptr, off);
    if (!s || !s->alloc || !shmemi_buddy_block_size(s->alloc, *off))
        shmemi_fatal(fn, "%p was not returned by a symmetric allocation routine (or was already freed)", ptr);
    return s;
}

void shmemi_seg_free(void *ptr, const char *fn) {
    shmemi_check_init(fn);
    shmem_barrier_all();
    if (!ptr)
        return;
    size_t off;
    struct shmemi_seg *s = owner(ptr, &off, fn);
    shmemi_buddy_free(s->alloc, off);
}

void *shmem_malloc(size_t size) { return shmemi_seg_alloc(&shmemi_rt.segs[0], size, 0, "shmem_malloc"); }

void *shmem_malloc_with_hints(size_t size, long hints) {
    /* all hints are performance advice; host shared memory already serves atomics and signals directly */
    return shmemi_seg_alloc(&shmemi_rt.segs[0], size, 0, "shmem_malloc_with_hints");
}

/* The allocation routines of every space, on segment s (realloc: NULL = the block's own segment) (memory of a GPU
 * segment is set and copied by the GPU layer: the CPU cannot touch it). */
static void *seg_calloc(struct shmemi_seg *s, size_t count, size_t size, const char *fn) {
    shmemi_check_init(fn);
    if (size && count > SIZE_MAX / size) {
        shmem_barrier_all();
        return NULL;
    }
    size_t n = count * size;
    void *p = NULL;
    size_t off;
    if (n && !shmemi_buddy_alloc(s->alloc, n, SHMEMI_ALLOC_ALIGN, &off)) {
        p = s->base + off;
        if (s->kind == SHMEMI_MEM_DEVICE)
            shmemi_gtl_memset(p, 0, n, fn);
        else if (!shmemi_seg_reserves(s))
            memset(p, 0, n);
    } else if (n) {
        shmemi_seg_exhausted(s, fn, n);
    }
    if (!shmemi_seg_reserves(s)) {
        shmem_barrier_all();
        return p;
    }
    /* host memory is zeroed once every PE holds its pages (until then a page might not be backed), and nobody may
     * use the block until every PE has zeroed its own */
    if ((p = end_alloc(s, p, n, fn)) != NULL) {
        memset(p, 0, n);
        shmemi_barrier_internal();
    }
    return p;
}

static void *seg_align(struct shmemi_seg *s, size_t alignment, size_t size, const char *fn) {
    /* not a power of two (0 included, as programs expect): the spec asks for NULL; more than the base's alignment:
     * blocks are aligned relative to the base, so more would not hold */
    if (!alignment || alignment & (alignment - 1) || alignment > s->base_align) {
        shmemi_check_init(fn);
        shmemi_seg_misaligned(s, fn, alignment, size);
        shmem_barrier_all();
        return NULL;
    }
    return shmemi_seg_alloc(s, size, alignment, fn);
}

static void *seg_realloc(struct shmemi_seg *s, void *ptr, size_t size, const char *fn) {
    if (!ptr)
        return shmemi_seg_alloc(s ? s : &shmemi_rt.segs[0], size, 0, fn);
    if (!size) {
        shmemi_seg_free(ptr, fn);
        return NULL;
    }
    shmemi_check_init(fn);
    size_t off;
    struct shmemi_seg *o = owner(ptr, &off, fn);
    if (s && o != s)
        shmemi_fatal(fn, "%p is in the %s, not in the %s this call reallocates in", ptr, o->name, s->name);
    s = o; /* shmem_realloc (s NULL): the block stays in its own segment */
    size_t have = shmemi_buddy_block_size(s->alloc, off);
    shmem_barrier_all(); /* nobody may still be writing the old block when it moves */
    void *r = ptr;
    if (size > have) {
        size_t noff;
        if (shmemi_buddy_alloc(s->alloc, size, SHMEMI_ALLOC_ALIGN, &noff)) {
            r = NULL; /* the old block is left unchanged */
            shmemi_seg_exhausted(s, fn, size);
        } else {
            r = s->base + noff;
        }
        /* in host memory, every PE must hold the new block's pages before anyone copies (NULL on every PE else,
         * the old block left unchanged) */
        if (shmemi_seg_reserves(s))
            r = end_alloc(s, r, size, fn);
        if (r) {
            if (s->kind == SHMEMI_MEM_DEVICE)
                shmemi_gtl_copy(r, ptr, have, fn);
            else
                memcpy(r, ptr, have);
            shmemi_buddy_free(s->alloc, off);
        }
    }
    shmem_barrier_all();
    return r;
}

void *shmem_calloc(size_t count, size_t size) { return seg_calloc(&shmemi_rt.segs[0], count, size, "shmem_calloc"); }
void *shmem_align(size_t alignment, size_t size) {
    return seg_align(&shmemi_rt.segs[0], alignment, size, "shmem_align");
}
void shmem_free(void *ptr) { shmemi_seg_free(ptr, "shmem_free"); } /* memory of any space */
void *shmem_realloc(void *ptr, size_t size) { return seg_realloc(NULL, ptr, size, "shmem_realloc"); }

void *shmalloc(size_t size) { return shmemi_seg_alloc(&shmemi_rt.segs[0], size, 0, "shmalloc"); }
void shfree(void *ptr) { shmemi_seg_free(ptr, "shfree"); }
void *shrealloc(void *ptr, size_t size) { return seg_realloc(NULL, ptr, size, "shrealloc"); }
void *shmemalign(size_t alignment, size_t size) { return seg_align(&shmemi_rt.segs[0], alignment, size, "shmemalign"); }

void *shmem_partition_malloc(size_t size, int id) {
    const char *fn = "shmem_partition_malloc";
    shmemi_check_init(fn);
    for (int i = 0; i < shmemi_rt.nsegs; i++)
        if (shmemi_rt.segs[i].role == SHMEMI_SEG_PARTITION && shmemi_rt.segs[i].part_id == id)
            return shmemi_seg_alloc(&shmemi_rt.segs[i], size, 0, fn);
    shmemi_fatal(fn, "partition %d is not defined; set SHMEM_SYMMETRIC_PARTITION%d=SIZE=<bytes> for every PE", id, id);
}

void shmem_partition_free(void *ptr) { shmemi_seg_free(ptr, "shmem_partition_free"); }

/* ---- memory spaces (shmemx.h) and the GPU auxiliary specification's heap (shmemg.h): one GPU heap ---- */
static struct shmemi_seg *gpu_heap(const char *fn) {
    shmemi_check_init(fn);
    if (shmemi_rt.dev_heap < 0)
        shmemi_fatal(fn,
                     "there is no GPU symmetric heap: GPU support is off (%s); on a machine with a GPU, initialize "
                     "with shmem_init_thread(level | SHMEM_DEVICE_HOST_INIT, &provided) or set "
                     "SHMEM_SYMMETRIC_SIZE_DEVICE, and check that it was provided",
                     shmemi_rt.gpu_why);
    return &shmemi_rt.segs[shmemi_rt.dev_heap];
}

static struct shmemi_seg *space_seg(shmem_space_t space, const char *fn) {
    if (space == SHMEM_SPACE_DEFAULT)
        return &shmemi_rt.segs[0];
    if (space == SHMEM_SPACE_DEVICE)
        return gpu_heap(fn);
    shmemi_check_init(fn);
    shmemi_fatal(fn, "space %d is neither SHMEM_SPACE_DEFAULT (%d) nor SHMEM_SPACE_DEVICE (%d)", (int)space,
                 SHMEM_SPACE_DEFAULT, SHMEM_SPACE_DEVICE);
}

void *shmem_space_malloc(shmem_space_t space, size_t size) {
    return shmemi_seg_alloc(space_seg(space, "shmem_space_malloc"), size, 0, "shmem_space_malloc");
}
void *shmem_space_calloc(shmem_space_t space, size_t count, size_t size) {
    return seg_calloc(space_seg(space, "shmem_space_calloc"), count, size, "shmem_space_calloc");
}
void *shmem_space_alloc(shmem_space_t space, size_t count, size_t size) {
    return seg_calloc(space_seg(space, "shmem_space_alloc"), count, size, "shmem_space_alloc");
}
void *shmem_space_realloc(shmem_space_t space, void *ptr, size_t size) {
    return seg_realloc(space_seg(space, "shmem_space_realloc"), ptr, size, "shmem_space_realloc");
}
void *shmem_space_align(shmem_space_t space, size_t alignment, size_t size) {
    return seg_align(space_seg(space, "shmem_space_align"), alignment, size, "shmem_space_align");
}
void shmem_space_free(shmem_space_t space, void *ptr) {
    const char *fn = "shmem_space_free";
    struct shmemi_seg *s = space_seg(space, fn);
    size_t off;
    struct shmemi_seg *o = ptr ? owner(ptr, &off, fn) : s;
    if (o != s)
        shmemi_fatal(fn, "%p is in the %s, not in the %s of space %d", ptr, o->name, s->name, (int)space);
    shmemi_seg_free(ptr, fn);
}

int shmem_query_device_awareness(void) { return shmemi_rt.init_state == 1 && shmemi_rt.dev_local; }

void *shmemg_malloc(size_t size) { return shmemi_seg_alloc(gpu_heap("shmemg_malloc"), size, 0, "shmemg_malloc"); }
void *shmemg_calloc(size_t count, size_t size) {
    return seg_calloc(gpu_heap("shmemg_calloc"), count, size, "shmemg_calloc");
}
void *shmemg_align(size_t alignment, size_t size) {
    return seg_align(gpu_heap("shmemg_align"), alignment, size, "shmemg_align");
}
void shmemg_free(void *ptr) {
    const char *fn = "shmemg_free";
    struct shmemi_seg *s = gpu_heap(fn);
    size_t off;
    if (ptr && owner(ptr, &off, fn) != s)
        shmemi_fatal(fn, "%p is not in the GPU symmetric heap; free it with shmem_free", ptr);
    shmemi_seg_free(ptr, fn);
}
