/* nvshmem_abi.h - what NVSHMEM's front end (nvshmem.h) and gshmem's src/compat agree on: NVSHMEM's team handles and
 * initialization flags, and the routines that keep the front end's own state. Plain C; not for programs. */
#ifndef GSHMEM_COMPAT_NVSHMEM_ABI_H
#define GSHMEM_COMPAT_NVSHMEM_ABI_H
#include <shmem.h>
#include <stddef.h>

/* NVSHMEM's values (its nvshmem_team_t is an int32_t index) */
#define GSHMEMX_NV_TEAM_INVALID (-1)
#define GSHMEMX_NV_TEAM_WORLD 0
#define GSHMEMX_NV_TEAM_SHARED 1
#define GSHMEMX_NV_TEAM_NODE 2
#define GSHMEMX_NV_TEAM_SAME_MYPE_NODE 3
#define GSHMEMX_NV_TEAMS_MIN 7 /* the first index of a team the program splits */
#define GSHMEMX_NV_MAX_TEAMS 64
#define GSHMEMX_NV_INIT_THREAD_PES 1
#define GSHMEMX_NV_INIT_WITH_MPI_COMM (1 << 1)
#define GSHMEMX_NV_INIT_WITH_SHMEM (1 << 2)
#define GSHMEMX_NV_INIT_WITH_UNIQUEID (1 << 3)

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif
#ifdef __cplusplus
extern "C" {
#endif
int gshmemx_nv_init(unsigned flags, int requested, int *provided, const void *mpi_comm, const void *uid, size_t uid_len,
                    int myrank, int nranks);
void gshmemx_nv_finalize(void);
/* a unit's way to receive the table of device team handles, indexed by NVSHMEM team (as the device state's) */
void gshmemx_nv_register_unit(int (*upload)(const void *table, size_t len));
shmem_team_t gshmemx_nv_team(int team, const char *fn); /* ends the job, naming fn, for a team that is not valid */
int gshmemx_nv_team_split_strided(int parent, int start, int stride, int size, int num_contexts, long config_mask,
                                  int *new_team);
void gshmemx_nv_team_destroy(int team);
int gshmemx_nv_get_uniqueid(void *id, size_t len);
int gshmemx_nv_buffer_register(void *addr, size_t len);
int gshmemx_nv_buffer_unregister(void *addr);
#ifdef __cplusplus
}
#endif
#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif
