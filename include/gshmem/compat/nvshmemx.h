/* nvshmemx.h - NVSHMEM's extensions header: under gshmem's front end everything is declared by nvshmem.h, which
 * this includes, so programs that include either or both build as they do with NVSHMEM. */
#ifndef GSHMEM_COMPAT_NVSHMEMX_H
#define GSHMEM_COMPAT_NVSHMEMX_H
#include <gshmem/compat/nvshmem.h>
/* and NVSHMEM's nvshmemx.h the driver API's (the emulation has its own <cuda.h>, with its build) */
#if !defined(GSHMEM_EMULATE_GPU) && !defined(__HIPCC__) && defined(__has_include)
#if __has_include(<cuda.h>)
#include <cuda.h>
#endif
#endif
#endif
