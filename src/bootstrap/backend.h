/* backend.h - what a bootstrap backend gives the dispatcher (bootstrap.c): one ops table each, chosen once in
 * shmemb_init. Private to src/bootstrap; the rest of the library sees only bootstrap.h. */
#ifndef GSHMEM_BOOTSTRAP_BACKEND_H
#define GSHMEM_BOOTSTRAP_BACKEND_H

#include "bootstrap/bootstrap.h"

struct shmemb_ops {
    const char *name;
    /* 0: compiled without what the backend needs (pmix.h missing); every entry is then a stub that fails */
    int available;
    int (*init)(struct shmemb_info *info);
    int (*allgather)(const void *in, void *out, size_t len);
    int (*barrier)(void);
    int (*finalize)(void);
    void (*abort)(int code, const char *msg) __attribute__((noreturn));
};

/* PEs of oshrun (GSHMEM_BOOT_FD), or a singleton when no launcher started the program */
SHMEMB_HIDDEN extern const struct shmemb_ops shmemb_local_ops;
/* PEs of a PMIx launcher: mpirun, prterun, srun --mpi=pmix */
SHMEMB_HIDDEN extern const struct shmemb_ops shmemb_pmix_ops;

/* 1 if the launcher put NAME in the environment (its value, or NULL). For the launchers' own variables (PMIX_RANK,
 * PMI_SIZE, SLURM_PROCID, ...), which are not gshmem settings and so not rows of env.def: they only say which
 * launcher started the process. */
SHMEMB_HIDDEN int shmemb_launcher_var(const char *name);
SHMEMB_HIDDEN const char *shmemb_launcher_val(const char *name);

/* Writes one line to stderr in one write(), so it stays whole among the other PEs' output. */
SHMEMB_HIDDEN void shmemb_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
