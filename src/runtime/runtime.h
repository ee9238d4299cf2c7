/* runtime.h - the orchestration above every layer: shmem_init/finalize start and stop them in order, the exit hook
 * for a PE that leaves without shmem_finalize, and the library's self-description (shmem_info). */
#ifndef GSHMEM_RUNTIME_H
#define GSHMEM_RUNTIME_H

#include <stdio.h>

#include "state.h"

/* At the end of shmem_init: the exit hook. */
SHMEMI_HIDDEN void shmemi_exit_setup(void);
/* shmem_finalize; implicit = 1 from the exit hook */
SHMEMI_HIDDEN void shmemi_finalize(int implicit);
/* shmem_info --all and SHMEM_INFO=1: everything, every variable with its value; shmemi_info_brief: shmem_info's
 * summary (version, build, GPU, the heap as resolved here, what the environment sets or misspells) */
SHMEMI_HIDDEN void shmemi_info_print(FILE *f);
SHMEMI_HIDDEN void shmemi_info_brief(FILE *f);
/* Once the bootstrap is up: fatal errors end the whole job through it */
SHMEMI_HIDDEN void shmemi_abort_setup(void);
/* Once the job id is known: what a PE whose launcher is gone removes before it ends */
SHMEMI_HIDDEN void shmemi_watch_setup(void);

#endif
