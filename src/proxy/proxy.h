/* proxy.h - the host side of kernel-initiated work: a thread per PE that serves the request ring kernels fill
 * (include/gshmem/device/state.h) through the host routines, and reports a kernel's misuse. */
#ifndef GSHMEM_PROXY_H
#define GSHMEM_PROXY_H

#include <gshmem/device/state.h>

#include "shmemi.h"

/* Starts serving ring; err is where kernels report misuse. 0, or -1 with why. */
SHMEMI_HIDDEN int shmemi_proxy_start(struct shmemgi_ring *ring, struct shmemgi_derror *err, char *why, size_t len);
/* Serves what is already in the ring, then stops. */
SHMEMI_HIDDEN void shmemi_proxy_stop(void);
/* What a kernel's misuse report says (shmemgi_derror's fields), in words: what is wrong and its fix, then only the
 * fields that mean something for that kind of misuse */
SHMEMI_HIDDEN void shmemi_proxy_misuse_text(unsigned what, int pe, uint64_t addr, uint64_t len, char *buf, size_t n);
/* The emulated GPU's kernels ring this after each request, so an idle proxy need not poll. */
SHMEMI_HIDDEN void shmemi_proxy_doorbell(void);

#endif
