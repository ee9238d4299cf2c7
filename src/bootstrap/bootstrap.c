/* bootstrap.c - picks the bootstrap backend once, in shmemb_init, and forwards the collectives to it: local when
 * oshrun started the PE, pmix when a PMIx launcher did, else a singleton (SHMEM_BOOTSTRAP overrides the guess). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/backend.h"
#include "core/env.h"

extern char **environ;

static const struct shmemb_ops *ops; /* set once shmemb_init succeeded */
static unsigned rounds;              /* collectives through the launcher so far (shmemb_rounds) */

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

const char *shmemb_launcher_val(const char *name) {
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

int shmemb_launcher_var(const char *name) { return shmemb_launcher_val(name) != NULL; }

/* a launcher's count or rank; -1 if absent or not a number */
static long launcher_num(const char *name) {
    const char *v = shmemb_launcher_val(name);
    char *end;
    if (!v || !*v)
        return -1;
    long x = strtol(v, &end, 10);
    return *end ? -1 : x;
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

/* Launchers gshmem does not speak, found by their own variables: their N processes would each run as PE 0 of 1, so
 * the first of them says which launcher it was and what to use instead, and all stop. PMI-1/PMI-2 (Hydra's mpiexec,
 * which Sandia OpenSHMEM's oshrun runs, and srun --mpi=pmi2) set PMI_RANK and PMI_SIZE; srun with no MPI plugin sets
 * only SLURM_STEP_NUM_TASKS and SLURM_PROCID (a batch script's own step has no SLURM_STEP_NUM_TASKS). */
static int foreign_launcher(void) {
    const char *instead = shmemb_pmix_ops.available
                              ? "start it with gshmem's oshrun, or with a PMIx launcher (mpirun, prterun, srun "
                                "--mpi=pmix)"
                              : "start it with gshmem's oshrun (this gshmem was built without PMIx: with libpmix-dev "
                                "installed it also runs under mpirun, prterun and srun --mpi=pmix)";
    long size = launcher_num("PMI_SIZE"), rank = launcher_num("PMI_RANK");
    if (size > 1 && rank >= 0) {
        if (rank == 0)
            shmemb_say("gshmem: shmem_init: process 0 of %ld was started by a PMI-1/PMI-2 launcher (PMI_RANK and "
                       "PMI_SIZE are set: Hydra's mpiexec, as Sandia OpenSHMEM's oshrun runs it, or srun --mpi=pmi2), "
                       "which gshmem does not speak, so each process would be PE 0 of 1; %s, or set "
                       "SHMEM_BOOTSTRAP=local to run each process as a single PE",
                       size, instead);
        return 1;
    }
    size = launcher_num("SLURM_STEP_NUM_TASKS");
    rank = launcher_num("SLURM_PROCID");
    if (size > 1 && rank >= 0) {
        if (rank == 0)
            shmemb_say("gshmem: shmem_init: process 0 of %ld was started by srun without PMIx "
                       "(SLURM_STEP_NUM_TASKS=%ld, no PMIX_RANK), so each process would be PE 0 of 1; %s, or set "
                       "SHMEM_BOOTSTRAP=local to run each process as a single PE",
                       size, size,
                       shmemb_pmix_ops.available ? "run srun --mpi=pmix (or set SLURM_MPI_TYPE=pmix)" : instead);
        return 1;
    }
    return 0;
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
    if (foreign_launcher())
        return NULL;
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
    __atomic_add_fetch(&rounds, 1, __ATOMIC_RELAXED);
    return ops ? ops->allgather(in, out, len) : not_up("allgather");
}

int shmemb_barrier(void) {
    __atomic_add_fetch(&rounds, 1, __ATOMIC_RELAXED);
    return ops ? ops->barrier() : not_up("barrier");
}

unsigned shmemb_rounds(void) { return __atomic_load_n(&rounds, __ATOMIC_RELAXED); }

int shmemb_finalize(void) {
    if (!ops)
        return 0;
    shmemb_watch_stop(); /* the launcher may end before this PE from here on */
    return ops->finalize();
}

void shmemb_abort(int code, const char *msg) {
    shmemb_watch_quiet(); /* the launcher is asked to end the job: its end is no news */
    if (ops)
        ops->abort(code, msg);
    if (msg && *msg)
        shmemb_say("gshmem: %s", msg);
    _exit(code);
}

void shmemb_exit_abort(int code, const char *msg) {
    shmemb_watch_quiet();
    if (ops)
        ops->exit_abort(code, msg);
    shmemb_abort(code, msg);
}
