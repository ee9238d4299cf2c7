/* shmemg.h - the OpenSHMEM GPU auxiliary specification, host side: GPU support requested at initialization, the GPU
 * symmetric heap, the predefined device teams. Compiles without any GPU header or compiler. */
#ifndef GSHMEM_SHMEMG_H
#define GSHMEM_SHMEMG_H
#include <shmem.h>

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Options OR-ed into shmem_init_thread's `requested`; `provided` holds a bit only when that support works. */
#define SHMEM_DEVICE_HOST_INIT (1 << 8)   /* GPU-aware: GPU memory in host-initiated routines */
#define SHMEM_DEVICE_KERNEL_INIT (1 << 9) /* GPU-centric: shmemg_* routines called from kernels */

/* shmem_ctx_create / shmem_team_create_ctx option: a context for kernels (on a device team), not for the host */
#define SHMEM_DEVICE_CTX (1L << 3)

/* What device routines are declared with: __device__ under nvcc and hipcc, nothing elsewhere */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SHMEMG_DEVICE __device__
#else
#define SHMEMG_DEVICE
#endif

/* Hints to shmem_malloc_with_hints: who will mostly operate on the memory. Advice only. */
#define SHMEM_DEVICE_MALLOC_HOST_INIT (1L << 8)
#define SHMEM_DEVICE_MALLOC_KERNEL_INIT (1L << 9)

/* All PEs with a GPU (all PEs), and the PEs whose GPU heaps this PE maps (load/store through shmem_ptr). Valid when
 * SHMEM_DEVICE_HOST_INIT was provided. */
extern struct gshmem_team gshmem_team_device_world;
extern struct gshmem_team gshmem_team_device_shared;
#define SHMEM_DEVICE_TEAM_WORLD (&gshmem_team_device_world)
#define SHMEM_DEVICE_TEAM_SHARED (&gshmem_team_device_shared)
/* The context of device routines that take none; pass it to kernels or name it there. Valid when
 * SHMEM_DEVICE_KERNEL_INIT was provided. */
extern struct gshmem_ctx gshmem_ctx_device_default;
#define SHMEM_DEVICE_CTX_DEFAULT (&gshmem_ctx_device_default)

/* The GPU symmetric heap (SHMEM_DEVICE_SYMMETRIC_SIZE, the same heap as SHMEM_SPACE_DEVICE). Collective over the
 * world team, as shmem_malloc & co. */
void *shmemg_malloc(size_t size);
void *shmemg_calloc(size_t count, size_t size);
void *shmemg_align(size_t alignment, size_t size);
void shmemg_free(void *ptr);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

/* Device code (nvcc, hipcc, oshcc --emulate-gpu): the shmemg_* device routines */
#if defined(__cplusplus) && (defined(__CUDACC__) || defined(__HIPCC__) || defined(GSHMEM_EMULATE_GPU))
#include <gshmem/device/shmemg_device.h>
#endif
#endif
