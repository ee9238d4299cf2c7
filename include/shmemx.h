/* shmemx.h - gshmem extensions beyond the OpenSHMEM specification (memory spaces, partitions, ...). */
#ifndef GSHMEM_SHMEMX_H
#define GSHMEM_SHMEMX_H
#include <shmem.h>

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Memory spaces (HPE's design for Cray OpenSHMEMX): a symmetric allocation names the memory it comes from.
 * SHMEM_SPACE_DEFAULT is the default symmetric heap; SHMEM_SPACE_DEVICE the GPU symmetric heap
 * (SHMEM_SYMMETRIC_SIZE_DEVICE), which exists when GPU support is on. Each routine has the semantics of its
 * default-heap counterpart (collective, barrier on exit; on entry for free); shmem_free accepts memory of any space. */
typedef int shmem_space_t;
#define SHMEM_SPACE_DEFAULT 0
#define SHMEM_SPACE_DEVICE 1
void *shmem_space_malloc(shmem_space_t space, size_t size);
void *shmem_space_calloc(shmem_space_t space, size_t count, size_t size);
/* HPE's memory-spaces design lists shmem_space_alloc beside the others without defining it; here it is
 * shmem_space_calloc under that name (count objects of size bytes, zeroed), the reading that keeps every shmem_space_*
 * routine a counterpart of a default-heap routine: shmem_calloc also takes (count, size). */
void *shmem_space_alloc(shmem_space_t space, size_t count, size_t size);
void *shmem_space_realloc(shmem_space_t space, void *ptr, size_t size);
void *shmem_space_align(shmem_space_t space, size_t alignment, size_t size);
void shmem_space_free(shmem_space_t space, void *ptr);
/* 1 when local (non-symmetric) GPU buffers may be sources of puts and destinations of gets
 * (SHMEM_ENABLE_DEVICE_AWARENESS=1 or SHMEM_DEVICE_HOST_INIT, with a GPU), else 0. */
int shmem_query_device_awareness(void);

/* Symmetric partitions (SHMEM_SYMMETRIC_PARTITION<ID>=SIZE=...): allocate from partition `id`. Collective. */
void *shmem_partition_malloc(size_t size, int id);
void shmem_partition_free(void *ptr);

/* OpenMP offload (docs/omp.md): a symmetric object of partition `partition_id` (KIND=LIBOMP: omp_target_alloc'd on
 * an OpenMP device) is associated with host_ptr[0, size) (omp_target_associate_ptr), so `#pragma omp target data
 * map(...)` finds it present and use_device_ptr/use_device_addr give the symmetric address: pass it to any shmem
 * routine. Returns that symmetric address. Without an offload device OpenMP maps every variable to itself: a
 * symmetric host_ptr (global, static or shmem_malloc'd) is returned as is, anything else gets a host object of the
 * partition that only the returned pointer reaches. Collective; NULL when the partition is full. */
void *shmemx_omp_map(void *host_ptr, size_t size, int partition_id);
/* Ends the association and frees the object; collective, after every PE has left the target regions using it. */
void shmemx_omp_unmap(void *host_ptr);

/* Stream-ordered operations (NVSHMEM's *_on_stream, for any vendor): shmemx_stream_t is the vendor's stream
 * (cudaStream_t, hipStream_t; the emulation's cudaStream_t). The routines themselves (shmemx_putmem_on_stream,
 * shmemx_barrier_all_on_stream, ...) are declared by <shmemg.h> in sources compiled for the GPU (nvcc, hipcc,
 * oshcc --emulate-gpu): each queues a copy (a put or get to a peer whose GPU heap this PE maps) or a one-block kernel
 * of the device library on the stream, so it runs after the stream's earlier work and before its later work, never
 * blocks the calling thread, and is captured into graphs like any copy or kernel. See docs/device.md. */
typedef void *shmemx_stream_t;

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif
