/* nvshmemx.h - NVSHMEM's extensions header: under gshmem's front end everything is declared by nvshmem.h, which
 * this includes, so programs that include either or both build as they do with NVSHMEM. */
#ifndef GSHMEM_COMPAT_NVSHMEMX_H
#define GSHMEM_COMPAT_NVSHMEMX_H
#include <gshmem/compat/nvshmem.h>
#endif
