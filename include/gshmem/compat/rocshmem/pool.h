/* pool.h - the contract between gshmem's rocSHMEM front end (rocshmem.hpp) and its runtime state in libgshmem
 * (src/compat/rocshmem_pool.c): the device contexts kernels take with rocshmem_wg_ctx_create. C and C++. */
#ifndef GSHMEM_COMPAT_ROCSHMEM_POOL_H
#define GSHMEM_COMPAT_ROCSHMEM_POOL_H
#include <stdint.h>

#define GSHMEM_ROCSHMEM_POOL 16 /* device contexts kernels may hold at once */
#ifdef __cplusplus
extern "C" {
#endif
/* in the GPU heap: kernels claim a slot with an atomic compare-and-swap on used[i] */
struct gshmemx_rocshmem_pool {
    uint64_t handle[GSHMEM_ROCSHMEM_POOL]; /* shmem_ctx_t of a device context (SHMEM_DEVICE_CTX) */
    unsigned int used[GSHMEM_ROCSHMEM_POOL];
};
/* what kernels of every translation unit need, handed to each unit's upload function at rocshmem_init (and at its
 * registration, for a unit loaded after it) */
struct gshmemx_rocshmem_info {
    void *ctx_default, *team_world;
    struct gshmemx_rocshmem_pool *pool;
};
void gshmemx_rocshmem_register_unit(int (*upload)(const struct gshmemx_rocshmem_info *));
/* shmem_init_thread with GPU support for host routines and kernels, then the pool; 0 or the job ends */
int gshmemx_rocshmem_init(int requested, int *provided);
void gshmemx_rocshmem_finalize(void);
#ifdef __cplusplus
}
#endif
#endif
