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

/* Symmetric partitions (SHMEM_SYMMETRIC_PARTITION<ID>=SIZE=...): allocate from partition `id`. Collective. */
void *shmem_partition_malloc(size_t size, int id);
void shmem_partition_free(void *ptr);

#ifdef __cplusplus
}
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif
