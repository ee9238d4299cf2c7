/* buddy.h - the symmetric-heap allocator: a buddy allocator over offsets of a pool it never touches,
 * so the pool may be device memory, and every PE making the same calls gets the same offsets. */
#ifndef GSHMEM_BUDDY_H
#define GSHMEM_BUDDY_H

#include <stddef.h>

#define SHMEMI_BUDDY_HIDDEN __attribute__((visibility("hidden")))

/* Not thread-safe: the heap's owner serializes calls (allocation is collective anyway). */
struct shmemi_buddy;

/* min_block: a power of two (e.g. 64), the smallest block and the minimum alignment. pool_size need not be a
 * power of two (the usable part is pool_size rounded down to min_block). Returns 0, -EINVAL or -ENOMEM. */
SHMEMI_BUDDY_HIDDEN int shmemi_buddy_create(struct shmemi_buddy **out, size_t pool_size, size_t min_block);

/* size > 0; align a power of two or 0 (= min_block). *off_out is aligned to max(align, min_block) relative to
 * the pool start. Returns 0, -EINVAL (size 0, bad align) or -ENOMEM (no free block large enough). */
SHMEMI_BUDDY_HIDDEN int shmemi_buddy_alloc(struct shmemi_buddy *b, size_t size, size_t align, size_t *off_out);

/* Returns 0, or -EINVAL if off is not the start of a live block (double free included). */
SHMEMI_BUDDY_HIDDEN int shmemi_buddy_free(struct shmemi_buddy *b, size_t off);

/* Usable size of the live block starting at off (>= the size asked for), 0 if there is none. */
SHMEMI_BUDDY_HIDDEN size_t shmemi_buddy_block_size(const struct shmemi_buddy *b, size_t off);

SHMEMI_BUDDY_HIDDEN size_t shmemi_buddy_bytes_free(const struct shmemi_buddy *b);

SHMEMI_BUDDY_HIDDEN void shmemi_buddy_destroy(struct shmemi_buddy *b);

#endif
