/* device.h - the host side of the device library: the device state kernels read (segments and their peer mappings,
 * device teams and contexts, the request ring), the translation units that hold a copy of it, and the proxy's start
 * and stop. Up when shmem_init_thread provides SHMEM_DEVICE_KERNEL_INIT. */
#ifndef GSHMEM_DEVICE_DEVICE_H
#define GSHMEM_DEVICE_DEVICE_H

#include <stddef.h>

#include "state.h"

/* Builds the device state, hands it to every registered translation unit, starts the proxy (collective: it allocates
 * in the GPU heap). 0, or -1 with why (the GPU backend cannot run kernels: no GPU, or the emulated GPU without a
 * program built for it). */
SHMEMI_HIDDEN int shmemi_device_init(char *why, size_t len);
SHMEMI_HIDDEN void shmemi_device_fini(void);
/* shmem_finalize, before anything goes: waits up to SHMEM_DEVICE_FINALIZE_WAIT seconds for the PE's kernels (and
 * whatever else is queued on its GPU) to finish, then ends the job with one line (fn, the PE, where the kernel is when
 * that is known) if they have not */
SHMEMI_HIDDEN void shmemi_device_quiesce(const char *fn);
SHMEMI_HIDDEN int shmemi_device_up(void);
/* Device teams and contexts enter and leave the tables kernels look their handles up in. A context: 0, or -1 when the
 * table (SHMEM_DEVICE_MAX_CTX) is full. */
SHMEMI_HIDDEN void shmemi_device_team_added(struct gshmem_team *t);
SHMEMI_HIDDEN void shmemi_device_team_removed(struct gshmem_team *t);
SHMEMI_HIDDEN int shmemi_device_ctx_added(struct gshmem_ctx *c);
SHMEMI_HIDDEN void shmemi_device_ctx_removed(struct gshmem_ctx *c);

#endif
