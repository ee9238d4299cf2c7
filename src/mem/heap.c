/* heap.c - the collective symmetric allocation routines (shmem_malloc & co, the deprecated shmalloc names and
 * partitions). Allocation is deterministic, so every PE gets the same offset without communicating. */
#include <stdio.h>
#include <string.h>

#include "mem/buddy.h"
#include "state.h"

#define DEFAULT_ALIGN 64 /* at least max_align_t; a cache line avoids false sharing between blocks */

void *shmemi_seg_alloc(struct shmemi_seg *s, size_t size, size_t align, const char *fn) {
    shmemi_check_init(fn);
    void *p = NULL;
    if (size) {
        size_t off;
        if (!shmemi_buddy_alloc(s->alloc, size, align < DEFAULT_ALIGN ? DEFAULT_ALIGN : align, &off))
            p = s->base + off;
        else
            shmemi_debug("%s(%zu): the %s is exhausted (%zu bytes free)", fn, size, s->name,
                         shmemi_buddy_bytes_free(s->alloc));
    }
    shmem_barrier_all();
    return p;
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

void *shmem_calloc(size_t count, size_t size) {
    shmemi_check_init("shmem_calloc");
    if (size && count > SIZE_MAX / size) {
        shmem_barrier_all();
        return NULL;
    }
    size_t n = count * size;
    struct shmemi_seg *s = &shmemi_rt.segs[0];
    void *p = NULL;
    size_t off;
    if (n && !shmemi_buddy_alloc(s->alloc, n, DEFAULT_ALIGN, &off)) {
        p = s->base + off;
        memset(p, 0, n);
    }
    shmem_barrier_all();
    return p;
}

void *shmem_align(size_t alignment, size_t size) {
    if (alignment & (alignment - 1)) {
        shmemi_check_init("shmem_align");
        shmem_barrier_all();
        return NULL; /* not a power of two: the spec asks for NULL */
    }
    return shmemi_seg_alloc(&shmemi_rt.segs[0], size, alignment, "shmem_align");
}

void shmem_free(void *ptr) { shmemi_seg_free(ptr, "shmem_free"); }

void *shmem_realloc(void *ptr, size_t size) {
    const char *fn = "shmem_realloc";
    if (!ptr)
        return shmemi_seg_alloc(&shmemi_rt.segs[0], size, 0, fn);
    if (!size) {
        shmemi_seg_free(ptr, fn);
        return NULL;
    }
    shmemi_check_init(fn);
    size_t off;
    struct shmemi_seg *s = owner(ptr, &off, fn);
    size_t have = shmemi_buddy_block_size(s->alloc, off);
    shmem_barrier_all(); /* nobody may still be writing the old block when it moves */
    void *r = ptr;
    if (size > have) {
        size_t noff;
        if (shmemi_buddy_alloc(s->alloc, size, DEFAULT_ALIGN, &noff)) {
            r = NULL; /* the old block is left unchanged */
        } else {
            r = s->base + noff;
            memcpy(r, ptr, have);
            shmemi_buddy_free(s->alloc, off);
        }
    }
    shmem_barrier_all();
    return r;
}

void *shmalloc(size_t size) { return shmemi_seg_alloc(&shmemi_rt.segs[0], size, 0, "shmalloc"); }
void shfree(void *ptr) { shmemi_seg_free(ptr, "shfree"); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }

void *shmem_partition_malloc(size_t size, int id) {
    const char *fn = "shmem_partition_malloc";
    shmemi_check_init(fn);
    for (int i = 0; i < shmemi_rt.nsegs; i++)
        if (shmemi_rt.segs[i].role == SHMEMI_SEG_PARTITION && shmemi_rt.segs[i].part_id == id)
            return shmemi_seg_alloc(&shmemi_rt.segs[i], size, 0, fn);
    shmemi_fatal(fn, "partition %d is not defined; set SHMEM_SYMMETRIC_PARTITION%d=SIZE=<bytes> for every PE", id, id);
}

void shmem_partition_free(void *ptr) { shmemi_seg_free(ptr, "shmem_partition_free"); }
