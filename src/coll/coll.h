/* coll.h - collectives, written once for teams and for the deprecated active sets.
 *
 * Both kinds become a group (a strided set of world PEs); an active set gets a cached implicit team on first use.
 * Every member's buffers are mapped, so collectives read and write peers' memory directly (docs/collectives.md):
 *  - small data on a team: each PE copies its contribution into its slot's scratch ring (16 buffers, by epoch) and
 *    publishes its `ready` epoch; readers copy or reduce straight from the peers' scratch. One flag hop, and the
 *    caller may return at once (a buffer is reused only once every member has moved past its epoch);
 *  - large data, and active sets without a team: barrier, move data between the mapped user buffers (reductions and
 *    scans split by address: each PE reduces one slice across all PEs and writes it to every PE), barrier. A team
 *    barrier is a flat epoch exchange; an active-set barrier one counter hop on pSync, restored on return. */
#ifndef GSHMEM_COLL_H
#define GSHMEM_COLL_H

#include "state.h"

#include "comm/comm.h"

/* ---- the collectives the generated API forwards to (sizes in bytes unless named nelems) ---- */
SHMEMI_HIDDEN int shmemi_broadcast(shmem_team_t team, void *dest, const void *src, size_t nbytes, int root,
                                   const char *fn);
SHMEMI_HIDDEN int shmemi_collect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *fn);
SHMEMI_HIDDEN int shmemi_fcollect(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *fn);
SHMEMI_HIDDEN int shmemi_alltoall(shmem_team_t team, void *dest, const void *src, size_t nbytes, const char *fn);
SHMEMI_HIDDEN int shmemi_alltoalls(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                   size_t nelems, size_t esize, const char *fn);
SHMEMI_HIDDEN int shmemi_reduce(shmem_team_t team, int op, int dtype, void *dest, const void *src, size_t nreduce,
                                const char *fn);
SHMEMI_HIDDEN int shmemi_scan(shmem_team_t team, int exclusive, int dtype, void *dest, const void *src, size_t nelems,
                              const char *fn);

/* active-set forms (deprecated): the set is PE_start + i * 2^logPE_stride, i < PE_size */
SHMEMI_HIDDEN void shmemi_broadcast_aset(void *dest, const void *src, size_t nbytes, int root, int start, int logs,
                                         int size, long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_collect_aset(void *dest, const void *src, size_t nbytes, int start, int logs, int size,
                                       long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_fcollect_aset(void *dest, const void *src, size_t nbytes, int start, int logs, int size,
                                        long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_alltoall_aset(void *dest, const void *src, size_t nbytes, int start, int logs, int size,
                                        long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_alltoalls_aset(void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                                         size_t esize, int start, int logs, int size, long *psync, const char *fn);
SHMEMI_HIDDEN void shmemi_to_all(int op, int dtype, void *dest, const void *src, int nreduce, int start, int logs,
                                 int size, void *pwrk, long *psync, const char *fn);

/* Collective allocation from segment s (a barrier on the way out, as shmem_malloc) and its release (alloc.c) */
SHMEMI_HIDDEN void *shmemi_seg_alloc(struct shmemi_seg *s, size_t size, size_t align, const char *fn);
SHMEMI_HIDDEN void shmemi_seg_free(void *ptr, const char *fn);
/* barrier_all / sync_all on the world team (barrier.c) */
SHMEMI_HIDDEN void shmemi_barrier_internal(void);

/* internal uses by team management: reduce private (non-symmetric) buffers of at most SHMEMI_COLL_SCRATCH bytes */
SHMEMI_HIDDEN void shmemi_team_reduce_private(struct gshmem_team *t, int op, int dtype, void *dest, const void *src,
                                              size_t n, const char *fn);
SHMEMI_HIDDEN void shmemi_team_sync_internal(struct gshmem_team *t, const char *fn);
/* Zeroes this PE's network signal counters in the team's slot, so the next team there starts from 0; call it after
 * the team's last barrier (every signal for the team has arrived) and before the slot is offered again. */
SHMEMI_HIDDEN void shmemi_coll_slot_reset(struct gshmem_team *t);
SHMEMI_HIDDEN struct gshmem_team *shmemi_team_check(shmem_team_t team, const char *fn);
SHMEMI_HIDDEN void shmemi_teams_init(void);
typedef void (*shmemi_maxreduce_fn)(void *arg, uint64_t *r, const uint64_t *v, size_t n, const char *fn);
SHMEMI_HIDDEN struct gshmem_team *shmemi_team_implicit(int start, int stride, int size, int my_idx,
                                                       shmemi_maxreduce_fn red, void *arg, int offer, const char *fn);

#endif
