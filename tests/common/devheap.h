/* devheap.h - forced (-include) into the "devheap" builds of the functional and collective tests: every object they
 * allocate on the symmetric heap lands in the GPU heap instead (SHMEM_SPACE_DEVICE), so each routine they test runs
 * with GPU memory as its symmetric target, source or buffer, while static symmetric objects and local buffers stay
 * in host memory. The programs check results by reading their objects directly, so they need a GPU whose memory the
 * CPU may load and store: SHMEM_GPU=emulate-visible, or tests/fakecuda with FAKECUDA_HOST_VISIBLE=1. */
#ifndef GSHMEM_TEST_DEVHEAP_H
#define GSHMEM_TEST_DEVHEAP_H
#include <shmem.h>
#include <shmemx.h>

#define shmem_malloc(size) shmem_space_malloc(SHMEM_SPACE_DEVICE, (size))
#define shmem_calloc(count, size) shmem_space_calloc(SHMEM_SPACE_DEVICE, (count), (size))
#define shmem_align(alignment, size) shmem_space_align(SHMEM_SPACE_DEVICE, (alignment), (size))
#define shmem_realloc(ptr, size) shmem_space_realloc(SHMEM_SPACE_DEVICE, (ptr), (size))
#define shmem_malloc_with_hints(size, hints) ((void)(hints), shmem_space_malloc(SHMEM_SPACE_DEVICE, (size)))
#endif
