/* omp.h - the OpenMP runtime of an OpenMP program, reached at run time: omp_target_alloc and friends for
 * KIND=LIBOMP partitions and shmemx_omp_map. The library never links libgomp or libomp (docs/omp.md). */
#ifndef GSHMEM_OMP_H
#define GSHMEM_OMP_H

#include <stddef.h>

#include "shmemi.h"

/* Where a KIND=LIBOMP partition goes. want: the OMP_DEVICE=<n> of the partition, -1 for omp_get_default_device().
 * 1: an offload device (*dev its number); 0: host memory, why says so ("no OpenMP offload device", ...); -1: the
 * partition cannot be made, why says why (no OpenMP runtime in the program, no such device). */
SHMEMI_HIDDEN int shmemi_omp_place(int want, int *dev, char *why, size_t whylen);
/* omp_target_alloc / omp_target_free on device dev (NULL: the runtime is missing or out of device memory) */
SHMEMI_HIDDEN void *shmemi_omp_alloc(size_t size, int dev);
SHMEMI_HIDDEN void shmemi_omp_free(void *p, int dev);
/* omp_target_associate_ptr / omp_target_disassociate_ptr: 0 on success, else the runtime's code (-1: no runtime) */
SHMEMI_HIDDEN int shmemi_omp_associate(const void *host, const void *devp, size_t size, int dev);
SHMEMI_HIDDEN int shmemi_omp_disassociate(const void *host, int dev);
/* "libgomp: 1 offload device, default 0" style line for shmem_info, or why there is no runtime */
SHMEMI_HIDDEN void shmemi_omp_describe(char *buf, size_t len);

#endif
