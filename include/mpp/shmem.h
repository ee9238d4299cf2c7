/* mpp/shmem.h - the historical include path (SGI/Cray SHMEM) that old OpenSHMEM programs still use. */
#ifndef GSHMEM_MPP_SHMEM_H
#define GSHMEM_MPP_SHMEM_H
#include <shmem.h>
#endif
