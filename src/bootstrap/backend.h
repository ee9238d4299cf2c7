/* backend.h - what a bootstrap backend gives the dispatcher (bootstrap.c): one ops table each, chosen once in
 * shmemb_init. Private to src/bootstrap; the rest of the library sees only bootstrap.h. */
#ifndef GSHMEM_BOOTSTRAP_BACKEND_H
#define GSHMEM_BOOTSTRAP_BACKEND_H

#include <sys/types.h>

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
    void (*exit_abort)(int code, const char *msg) __attribute__((noreturn)); /* (abort where nothing differs) */
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

/* The launcher watch (watch.c). A backend names this PE and its launcher (name, process; 0 if unknown) as soon as it
 * knows them, then starts the watch once it is up: fd is a connection whose other end only the launcher holds (-1:
 * none); parent = 1 when the launcher's process is this one's parent (a launcher's node daemon counts). Returns -1
 * when there is nothing to watch or no thread could start. */
SHMEMB_HIDDEN void shmemb_watch_who(int rank, const char *name, pid_t pid);
SHMEMB_HIDDEN int shmemb_watch_start(int fd, int parent);
/* finalize: the thread ends (joined); abort: the launcher may now end first without a word from this PE */
SHMEMB_HIDDEN void shmemb_watch_stop(void);
SHMEMB_HIDDEN void shmemb_watch_quiet(void);
SHMEMB_HIDDEN int shmemb_watch_is_quiet(void);
/* The launcher is gone (how: what showed it): cleanup, one line naming this PE and the launcher, _exit(1). Once per
 * process: a second caller waits for the first to end it. */
SHMEMB_HIDDEN void shmemb_launcher_gone(const char *how) __attribute__((noreturn));

/* Writes one line to stderr in one write(), so it stays whole among the other PEs' output. */
SHMEMB_HIDDEN void shmemb_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
