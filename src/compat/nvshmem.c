/* nvshmem.c - the state NVSHMEM's API needs beyond gshmem's public one (include/gshmem/compat/nvshmem.h): integer team
 * handles and their device copies, the unique-ID and MPI-communicator initializations, registered buffers. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gshmem/compat/nvshmem_abi.h>

#include "core/state.h"
#include "shmemg.h"

#define API __attribute__((visibility("default")))

/* Integer handle -> gshmem team (a device team whenever kernels may communicate, so a kernel can name it too) */
static shmem_team_t teams[GSHMEMX_NV_MAX_TEAMS];
static uint64_t dev_tab[GSHMEMX_NV_MAX_TEAMS]; /* what each unit's __constant__ copy receives */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int (**units)(const void *, size_t);
static int nunits, up;
static int kernels; /* SHMEM_DEVICE_KERNEL_INIT was provided */
static struct {
    void *addr;
    size_t len;
} bufs[64];
static int bufs_full; /* a registration was not remembered: unregister accepts any address from then on */

static void publish(void) { /* every unit's copy of the table, after each change (host side, between kernels) */
    pthread_mutex_lock(&lock);
    for (int i = 0; i < GSHMEMX_NV_MAX_TEAMS; i++)
        dev_tab[i] = (uint64_t)(uintptr_t)teams[i];
    for (int i = 0; i < nunits; i++)
        if (units[i](dev_tab, sizeof dev_tab))
            shmemi_fatal("nvshmem team table", "cannot hand the team table to a unit (cudaMemcpyToSymbol failed)");
    pthread_mutex_unlock(&lock);
}

API void gshmemx_nv_register_unit(int (*upload)(const void *, size_t)) {
    pthread_mutex_lock(&lock);
    int (**u)(const void *, size_t) = realloc(units, (size_t)(nunits + 1) * sizeof *u);
    if (u) {
        units = u;
        units[nunits++] = upload;
    }
    int now = up;
    pthread_mutex_unlock(&lock);
    if (!u)
        shmemi_fatal("nvshmem front end", "out of memory registering a translation unit");
    if (now && upload(dev_tab, sizeof dev_tab))
        shmemi_fatal("nvshmem front end", "cannot hand the team table to a newly loaded unit");
}

/* The unique ID: gshmem's launcher (oshrun, PMIx) already tells each PE its rank and the job's size, so the ID only
 * has to show that every PE was given the same one, by the program, for this job: a tag, the creator's host id and
 * pid and a time. */
#define UID_TAG 0x67736e76756964ULL /* "gsnvuid" */
API int gshmemx_nv_get_uniqueid(void *id, size_t len) {
    uint64_t w[4];
    struct timespec t;
    if (!id || len < sizeof w)
        return 1;
    clock_gettime(CLOCK_REALTIME, &t);
    w[0] = UID_TAG;
    w[1] = (uint64_t)gethostid();
    w[2] = (uint64_t)getpid();
    w[3] = (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
    memset(id, 0, len);
    memcpy(id, w, sizeof w);
    return 0;
}

static void check_uid(const char *fn, const void *id, size_t len, int myrank, int nranks) {
    uint64_t tag;
    int me = shmem_my_pe(), n = shmem_n_pes();
    memcpy(&tag, id, sizeof tag);
    if (tag != UID_TAG)
        shmemi_fatal(fn, "the unique ID was not made by nvshmemx_get_uniqueid (or was not copied whole to this PE)");
    if (myrank != me || nranks != n)
        shmemi_fatal(
            fn,
            "nvshmemx_set_attr_uniqueid_args gave rank %d of %d, but the launcher started this PE as %d of %d: "
            "under gshmem the launcher's ranks are the PEs; pass them",
            myrank, nranks, me, n);
    /* every PE must hold PE 0's ID: two jobs' IDs mixed up is the error this bootstrap exists to catch */
    char *sym = shmem_malloc(2 * len);
    if (!sym)
        shmemi_fatal(fn, "no room in the symmetric heap to compare the unique IDs");
    memcpy(sym, id, len);
    shmem_broadcastmem(SHMEM_TEAM_WORLD, sym + len, sym, len, 0);
    int same = me == 0 || memcmp(sym, sym + len, len) == 0;
    shmem_free(sym);
    if (!same)
        shmemi_fatal(fn, "this PE's unique ID differs from PE 0's: every PE must be given the one ID PE 0 made");
}

API int gshmemx_nv_init(unsigned flags, int requested, int *provided, const void *mpi_comm, const void *uid,
                        size_t uid_len, int myrank, int nranks) {
    const char *fn = flags ? "nvshmemx_init_attr" : "nvshmem_init";
    if ((flags & GSHMEMX_NV_INIT_WITH_MPI_COMM) && !mpi_comm) {
        fprintf(stderr, "%s: NVSHMEMX_INIT_WITH_MPI_COMM with no communicator (attr.mpi_comm is NULL)\n", fn);
        return 1;
    }
    if ((flags & GSHMEMX_NV_INIT_WITH_UNIQUEID) && !uid) {
        fprintf(stderr, "%s: NVSHMEMX_INIT_WITH_UNIQUEID with no ID (call nvshmemx_set_attr_uniqueid_args first)\n",
                fn);
        return 1;
    }
    int got = 0;
    int rc = shmem_init_thread(requested | SHMEM_DEVICE_HOST_INIT | SHMEM_DEVICE_KERNEL_INIT, &got);
    if (rc)
        return rc;
    if (provided)
        *provided = got & 0xff;
    if ((flags & GSHMEMX_NV_INIT_WITH_UNIQUEID))
        check_uid(fn, uid, uid_len, myrank, nranks);
    /* an MPI communicator: gshmem does not use MPI; its launcher's PEs must be the communicator's ranks (mpirun with
     * PMIx starts both), which only the program can check against MPI_Comm_rank */
    if (!(got & SHMEM_DEVICE_HOST_INIT))
        shmemi_fatal(fn, "no GPU here (SHMEM_DEVICE_HOST_INIT not provided): NVSHMEM programs need one; build with "
                         "oshcc --emulate-gpu to run on the CPU");
    kernels = (got & SHMEM_DEVICE_KERNEL_INIT) != 0;
    memset(teams, 0, sizeof teams);
    teams[GSHMEMX_NV_TEAM_WORLD] = SHMEM_DEVICE_TEAM_WORLD;
    /* the PEs whose GPU memory this PE reaches by load/store (nvshmem_ptr) are NVSHMEM's SHARED; gshmem has no node
     * team apart from it, and on one node with peer access they are the same PEs */
    teams[GSHMEMX_NV_TEAM_SHARED] = SHMEM_DEVICE_TEAM_SHARED;
    teams[GSHMEMX_NV_TEAM_NODE] = SHMEM_DEVICE_TEAM_SHARED;
    pthread_mutex_lock(&lock);
    up = 1;
    pthread_mutex_unlock(&lock);
    publish();
    return 0;
}

API void gshmemx_nv_finalize(void) {
    for (int i = GSHMEMX_NV_TEAMS_MIN; i < GSHMEMX_NV_MAX_TEAMS; i++)
        if (teams[i])
            shmem_team_destroy(teams[i]);
    memset(teams, 0, sizeof teams);
    pthread_mutex_lock(&lock);
    up = 0;
    pthread_mutex_unlock(&lock);
    shmem_finalize();
}

API shmem_team_t gshmemx_nv_team(int t, const char *fn) {
    if (t < 0 || t >= GSHMEMX_NV_MAX_TEAMS || !teams[t])
        shmemi_fatal(fn,
                     "team %d is not a valid NVSHMEM team (NVSHMEM_TEAM_WORLD, _SHARED, NVSHMEMX_TEAM_NODE or one "
                     "split and not yet destroyed)",
                     t);
    return teams[t];
}

API int gshmemx_nv_team_split_strided(int parent, int start, int stride, int size, int num_contexts, long mask,
                                      int *new_team) {
    const char *fn = "nvshmem_team_split_strided";
    shmem_team_t p = gshmemx_nv_team(parent, fn), t = SHMEM_TEAM_INVALID;
    shmem_team_config_t c;
    c.num_contexts = num_contexts;
    int rc = shmem_team_split_strided(p, start, stride, size, &c, mask, &t);
    *new_team = GSHMEMX_NV_TEAM_INVALID;
    if (t == SHMEM_TEAM_INVALID)
        return rc;
    /* every member takes the same free slot: slots are taken and freed collectively over the parent, in order */
    for (int i = GSHMEMX_NV_TEAMS_MIN; i < GSHMEMX_NV_MAX_TEAMS; i++)
        if (!teams[i]) {
            teams[i] = t;
            *new_team = i;
            publish();
            return rc;
        }
    shmemi_fatal(fn, "more than %d NVSHMEM teams at once", GSHMEMX_NV_MAX_TEAMS - GSHMEMX_NV_TEAMS_MIN);
}

API void gshmemx_nv_team_destroy(int t) {
    if (t < GSHMEMX_NV_TEAMS_MIN) /* the predefined teams, and NVSHMEM_TEAM_INVALID: nothing to do */
        return;
    shmem_team_t h = gshmemx_nv_team(t, "nvshmem_team_destroy");
    shmem_team_destroy(h);
    teams[t] = NULL;
    publish();
}

API int gshmemx_nv_buffer_register(void *addr, size_t len) {
    /* gshmem's host routines take any local GPU buffer as a source or destination without registration; the
     * registration is kept only so that a wrong unregister is reported, as NVSHMEM does */
    if (!addr || !len)
        return 1;
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (!bufs[i].addr) {
            bufs[i].addr = addr;
            bufs[i].len = len;
            return 0;
        }
    bufs_full = 1;
    return 0;
}

API int gshmemx_nv_buffer_unregister(void *addr) {
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i].addr == addr && addr) {
            bufs[i].addr = NULL;
            return 0;
        }
    return bufs_full ? 0 : 1;
}
