/* bootstrap.h - how a PE learns its rank and the job size, and exchanges small blobs before symmetric memory exists.
 * Backends: local (PEs started by our oshrun, or a singleton run with no launcher) and pmix (mpirun, prterun,
 * srun --mpi=pmix), chosen by SHMEM_BOOTSTRAP (bootstrap.c). */
#ifndef GSHMEM_BOOTSTRAP_H
#define GSHMEM_BOOTSTRAP_H

#include <stddef.h>

#define SHMEMB_HIDDEN __attribute__((visibility("hidden")))

struct shmemb_info {
    int rank;         /* this PE */
    int size;         /* number of PEs in the job */
    char jobid[64];   /* unique per job; used to name shared-memory segments (/gshmem-<jobid>-...) */
    const char *name; /* backend name, e.g. "local" or "singleton" */
    /* PEs on this PE's node (itself included), ascending: they map each other's segments. From PMIx locality
     * (PMIX_LOCAL_PEERS) under a PMIx launcher; every PE for the local bootstrap. Owned by the bootstrap. */
    int nlocal;
    const int *local_ranks;
};

/* Connects to the launcher (or becomes a singleton). Returns 0 or a negative error after printing why. */
SHMEMB_HIDDEN int shmemb_init(struct shmemb_info *info);
/* out receives size * len bytes: rank r's `in` at out + r * len. Collective over all PEs. */
SHMEMB_HIDDEN int shmemb_allgather(const void *in, void *out, size_t len);
SHMEMB_HIDDEN int shmemb_barrier(void);
/* Allgathers and barriers this process has run so far: each is one round trip through the launcher (oshrun's socket,
 * or a PMIx fence), the cost that grows with the job at start-up; shmem_init reports its count (SHMEM_DEBUG). */
SHMEMB_HIDDEN unsigned shmemb_rounds(void);
/* Tells the launcher this PE finalized cleanly, then disconnects. */
SHMEMB_HIDDEN int shmemb_finalize(void);
/* Asks the launcher to tear the whole job down and exit with `code`; msg (may be NULL) is printed by the launcher.
 * Does not return: if no launcher answers, the process exits with `code` itself. */
SHMEMB_HIDDEN __attribute__((noreturn)) void shmemb_abort(int code, const char *msg);
/* The same for a PE that exits with the non-zero status `code` without shmem_finalize (the exit hook): the launcher
 * may let the other PEs end on their own for a moment first (oshrun does), so that what they print then is seen. */
SHMEMB_HIDDEN __attribute__((noreturn)) void shmemb_exit_abort(int code, const char *msg);
/* What a PE whose launcher is gone runs before it ends (the runtime's: libfabric's shared-memory regions, segment
 * names not yet removed): see watch.c. May run on another thread while this one is anywhere. */
SHMEMB_HIDDEN void shmemb_watch_cleanup(void (*cleanup)(void));
/* The backends this build has, for shmem_info's build line, e.g. "local (oshrun), pmix, singleton". */
SHMEMB_HIDDEN const char *shmemb_backends(void);

#endif
