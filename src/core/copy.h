/* copy.h - the CPU copy of the shared-memory data path (puts and gets to mapped peers). glibc's memcpy copies 2 KiB
 * to about 1 MiB with `rep movsb`, which some CPUs (AMD EPYC here) run 20-30x slower when source and destination are
 * not equally aligned within 64 bytes: a get from the heap into a malloc'd buffer (16 bytes past a page) of 8 KiB took
 * 5.7 us instead of 0.2. Those copies take a vector loop instead; everything else stays memcpy's. */
#ifndef GSHMEM_CORE_COPY_H
#define GSHMEM_CORE_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shmemi.h"

#if defined(__x86_64__) && defined(__GNUC__)
SHMEMI_HIDDEN void shmemi_copy_vec(void *dst, const void *src, size_t n);
SHMEMI_HIDDEN extern int shmemi_copy_have_vec;
#define SHMEMI_COPY_VEC_MIN ((size_t)2 << 10)
#define SHMEMI_COPY_VEC_MAX ((size_t)1 << 20)
static inline void shmemi_copy(void *dst, const void *src, size_t n) {
    if (n >= SHMEMI_COPY_VEC_MIN && n < SHMEMI_COPY_VEC_MAX && (((uintptr_t)dst - (uintptr_t)src) & 63) &&
        shmemi_copy_have_vec)
        shmemi_copy_vec(dst, src, n);
    else
        memcpy(dst, src, n);
}
#else
static inline void shmemi_copy(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
#endif

#endif
