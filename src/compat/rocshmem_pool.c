/* rocshmem_pool.c - the runtime state of gshmem's rocSHMEM front end (include/gshmem/compat/rocshmem): initialization
 * with GPU support, and the pool of device contexts that kernels take with rocshmem_wg_ctx_create, handed to every
 * translation unit that includes the front end. Over the public API only (shmem.h, shmemg.h). */
#include <pthread.h>
#include <shmem.h>
#include <shmemg.h>
#include <stdio.h>
#include <string.h>

#include <gshmem/compat/rocshmem/pool.h>

#define UNITS_MAX 256 /* translation units (and shared libraries) that include the front end */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int (*units[UNITS_MAX])(const struct gshmemx_rocshmem_info *);
static int nunits;
static struct gshmemx_rocshmem_info info; /* pool != NULL between init and finalize */
static shmem_ctx_t ctxs[GSHMEM_ROCSHMEM_POOL];

static void upload_failed(const char *fn) {
    fprintf(stderr,
            "%s: PE %d: the rocSHMEM front end's state could not be copied to a translation unit's device "
            "symbols (hipMemcpyToSymbol failed): is the GPU usable?\n",
            fn, shmem_my_pe());
    shmem_global_exit(1);
}

__attribute__((visibility("default"))) void
gshmemx_rocshmem_register_unit(int (*upload)(const struct gshmemx_rocshmem_info *)) {
    pthread_mutex_lock(&lock);
    if (nunits == UNITS_MAX) {
        pthread_mutex_unlock(&lock);
        fprintf(stderr, "rocshmem_init: more than %d translation units include <rocshmem/rocshmem.hpp>\n", UNITS_MAX);
        return;
    }
    units[nunits++] = upload;
    int now = info.pool != NULL; /* a shared library loaded after rocshmem_init */
    struct gshmemx_rocshmem_info in = info;
    pthread_mutex_unlock(&lock);
    if (now && upload(&in))
        upload_failed("rocshmem_init");
}

static void upload_all(const char *fn) {
    pthread_mutex_lock(&lock);
    int n = nunits;
    struct gshmemx_rocshmem_info in = info;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++)
        if (units[i](&in))
            upload_failed(fn);
}

__attribute__((visibility("default"))) int gshmemx_rocshmem_init(int requested, int *provided) {
    /* rocSHMEM's host rocshmem_my_pe/n_pes work before rocshmem_init (programs choose their GPU with them), so the
     * front end initializes at the first of them, and the program's rocshmem_init then finds the library ready */
    pthread_mutex_lock(&lock);
    int ready = info.pool != NULL;
    pthread_mutex_unlock(&lock);
    if (ready) {
        if (provided)
            *provided = requested;
        return 0;
    }
    int got = 0;
    /* rocSHMEM's kernels communicate and its host routines take GPU memory: both, whatever thread level is asked */
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_HOST_INIT | SHMEM_DEVICE_KERNEL_INIT, &got);
    if (!(got & SHMEM_DEVICE_KERNEL_INIT) || !(got & SHMEM_DEVICE_HOST_INIT)) {
        fprintf(stderr,
                "rocshmem_init: PE %d: kernels cannot communicate here (no usable GPU: SHMEM_INFO=1 says why; "
                "without a GPU build the program with oshcc --emulate-gpu)\n",
                shmem_my_pe());
        shmem_global_exit(1);
    }
    struct gshmemx_rocshmem_pool host;
    memset(&host, 0, sizeof host);
    for (int i = 0; i < GSHMEM_ROCSHMEM_POOL; i++) {
        if (shmem_ctx_create(SHMEM_DEVICE_CTX, &ctxs[i])) {
            fprintf(stderr, "rocshmem_init: PE %d: could not create device context %d of the %d kernels take\n",
                    shmem_my_pe(), i, GSHMEM_ROCSHMEM_POOL);
            shmem_global_exit(1);
        }
        host.handle[i] = (uint64_t)(uintptr_t)ctxs[i];
    }
    struct gshmemx_rocshmem_pool *pool = shmemg_calloc(1, sizeof *pool);
    if (!pool) {
        fprintf(stderr, "rocshmem_init: PE %d: no room for the context pool in the GPU heap\n", shmem_my_pe());
        shmem_global_exit(1);
    }
    shmem_putmem(pool, &host, sizeof host, shmem_my_pe()); /* (GPU memory: through the GPU-aware path) */
    shmem_quiet();
    pthread_mutex_lock(&lock);
    info.ctx_default = (void *)SHMEM_DEVICE_CTX_DEFAULT;
    info.team_world = (void *)SHMEM_DEVICE_TEAM_WORLD;
    info.pool = pool;
    pthread_mutex_unlock(&lock);
    upload_all("rocshmem_init");
    if (provided)
        *provided = requested;
    return 0;
}

__attribute__((visibility("default"))) void gshmemx_rocshmem_finalize(void) {
    pthread_mutex_lock(&lock);
    struct gshmemx_rocshmem_pool *pool = info.pool;
    memset(&info, 0, sizeof info);
    pthread_mutex_unlock(&lock);
    if (pool) {
        shmem_barrier_all(); /* no PE's kernel still holds a context of the pool */
        for (int i = 0; i < GSHMEM_ROCSHMEM_POOL; i++)
            shmem_ctx_destroy(ctxs[i]);
        shmemg_free(pool);
    }
    shmem_finalize();
}
