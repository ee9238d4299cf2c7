/* headers.c - compiled, not run (fc_headers_*): <shmemx.h>, <shmemg.h>, <shmem.h> and <mpp/shmem.h>, twice,
 * (and <pshmem.h> when FC_PSHMEM_H) must compile as strict C99, C11 and C++17 with -pedantic -Wall -Wextra -Werror, and
 * ordinary user code with the constants, handles and a few routines must not draw a warning. */
#include <shmemx.h>
#include <shmemg.h>
#include <shmem.h>
#include <mpp/shmem.h>
#include <shmem.h>
#include <shmemx.h>
#include <shmemg.h>
#if FC_PSHMEM_H
#include <pshmem.h>
#include <pshmem.h>
#endif

static long psync[SHMEM_BCAST_SYNC_SIZE];
static long psync_r[SHMEM_REDUCE_SYNC_SIZE];
static long wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int headers_use(void);
int headers_use(void) {
    shmem_team_t team = SHMEM_TEAM_WORLD;
    shmem_team_t dteam = SHMEM_DEVICE_TEAM_WORLD;
    shmem_space_t space = SHMEM_SPACE_DEVICE;
    (void)dteam;
    (void)space;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmem_team_config_t cfg;
    int major = 0, minor = 0, x = 0;
    cfg.num_contexts = 1;
    shmem_info_get_version(&major, &minor);
    shmem_int_put(&x, &x, 1, 0);
    shmem_ctx_int_put(ctx, &x, &x, 1, 0);
    (void)shmem_team_my_pe(team);
    (void)shmem_team_split_strided(team, 0, 1, 1, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &team);
    (void)shmem_int_sum_reduce(team, &x, &x, 1);
    (void)shmem_broadcastmem(team, &x, &x, sizeof x, 0);
    psync[0] = SHMEM_SYNC_VALUE;
    psync_r[0] = SHMEM_SYNC_VALUE;
    wrk[0] = 0;
#if FC_PSHMEM_H
    pshmem_int_put(&x, &x, 1, 0);
    (void)pshmem_team_my_pe(team);
#endif
    return major * 100 + minor + SHMEM_MAJOR_VERSION + SHMEM_CMP_EQ + (int)SHMEM_CTX_PRIVATE + x;
}

int main(void) { return 0; }
