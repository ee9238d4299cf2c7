/* bootstrap.c - picks the bootstrap backend once, in shmemb_init, and forwards the collectives to it: local when
 * oshrun started the PE, pmix when a PMIx launcher did, else a singleton (SHMEM_BOOTSTRAP overrides the guess). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/backend.h"
#include "core/env.h"

extern char **environ;

static const struct shmemb_ops *ops; /* set once shmemb_init succeeded */

void shmemb_say(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(2, line, (size_t)n);
    (void)w;
}

int shmemb_launcher_var(const char *name) {
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return 1;
    return 0;
}

/* Every PMIx launcher gives its processes PMIX_NAMESPACE and PMIX_RANK (PMIx_server_setup_fork); PMIX_SERVER_URI*
 * alone is also exported to tools, which are not members of a job. PMIx_Init reads them itself. */
static int pmix_launcher_present(void) {
    return shmemb_launcher_var("PMIX_NAMESPACE") && shmemb_launcher_var("PMIX_RANK");
}

const char *shmemb_backends(void) {
    return shmemb_pmix_ops.available ? "local (oshrun), pmix (mpirun, prterun, srun --mpi=pmix), singleton"
                                     : "local (oshrun), singleton; pmix not built (pmix.h was not found)";
}

static const struct shmemb_ops *choose(void) {
    const char *want = shmemi_env.bootstrap && *shmemi_env.bootstrap ? shmemi_env.bootstrap : "auto";
    if (!strcmp(want, "local"))
        return &shmemb_local_ops;
    if (!strcmp(want, "pmix")) {
        if (!shmemb_pmix_ops.available) {
            shmemb_say("gshmem: SHMEM_BOOTSTRAP=pmix, but this gshmem was built without PMIx (pmix.h was not found "
                       "when it was configured; install libpmix-dev and rebuild)");
            return NULL;
        }
        return &shmemb_pmix_ops;
    }
    if (shmemi_env.boot_fd >= 0)
        return &shmemb_local_ops; /* oshrun, even when oshrun itself runs under a PMIx launcher */
    if (pmix_launcher_present()) {
        if (!shmemb_pmix_ops.available) {
            /* going on as a singleton would run N copies of PE 0 of 1 */
            shmemb_say("gshmem: this program was started by a PMIx launcher (PMIX_NAMESPACE and PMIX_RANK are set: "
                       "mpirun, prterun or srun --mpi=pmix), but this gshmem was built without PMIx; rebuild it with "
                       "libpmix-dev installed, start the program with oshrun, or set SHMEM_BOOTSTRAP=local to run "
                       "each process as a single PE");
            return NULL;
        }
        return &shmemb_pmix_ops;
    }
    return &shmemb_local_ops; /* a singleton, unless GSHMEM_RANK/GSHMEM_SIZE say something is amiss */
}

int shmemb_init(struct shmemb_info *info) {
    if (ops) {
        shmemb_say("gshmem: the bootstrap was started twice (shmem_init after shmem_finalize is not supported)");
        return -1;
    }
    const struct shmemb_ops *o = choose();
    if (!o)
        return -1;
    int rc = o->init(info);
    if (rc == 0)
        ops = o;
    return rc;
}

static int not_up(const char *what) {
    shmemb_say("gshmem: bootstrap %s called before shmem_init", what);
    return -1;
}

int shmemb_allgather(const void *in, void *out, size_t len) {
    return ops ? ops->allgather(in, out, len) : not_up("allgather");
}

int shmemb_barrier(void) { return ops ? ops->barrier() : not_up("barrier"); }

int shmemb_finalize(void) { return ops ? ops->finalize() : 0; }

void shmemb_abort(int code, const char *msg) {
    if (ops)
        ops->abort(code, msg);
    if (msg && *msg)
        shmemb_say("gshmem: %s", msg);
    _exit(code);
}
