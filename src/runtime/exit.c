/* exit.c - the exit hook: a PE that ends without shmem_finalize (return from main, exit) is finalized at exit with
 * status 0, in finalize's own synchronization (comm/liveness.c), and says so in one line, or ends the job at once with
 * a non-zero status; the job-wide abort every fatal error ends in (core/error.c calls it through abort_job); and what
 * a PE whose launcher is gone removes before it ends (bootstrap/watch.c). */
#include <stdio.h>
#include <stdlib.h>

#include "bootstrap/bootstrap.h"
#include "comm/comm.h"
#include "mem/mem.h"
#include "runtime/runtime.h"
#include "transport/ofi/ofi.h"

/* the launcher may stop the others by signal; this PE leaves by _exit, so libfabric's shm regions go first */
static __attribute__((noreturn)) void abort_job(int status, const char *msg) {
    shmemi_ofi_regions_unlink();
    shmemb_abort(status, msg);
}

/* the same for a PE that exits non-zero: its launcher may let the others end on their own first */
static __attribute__((noreturn)) void exit_job(int status, const char *msg) {
    shmemi_ofi_regions_unlink();
    shmemb_exit_abort(status, msg);
}

static void at_exit(int status, void *arg) {
    (void)arg;
    if (shmemi_rt.init_state != 1)
        return;
    status &= 0xff; /* what the launcher will see */
    if (status != 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "ended with exit status %d without calling shmem_finalize; terminating the job",
                 status);
        fflush(stdout);
        exit_job(status, msg);
    }
    int me = shmemi_rt.my_pe;
    shmemi_finalize(1);
    /* said by the PE itself, so under any launcher, and after finalize: a PE that hung in it never claims it */
    fprintf(stderr, "gshmem: PE %d exited without calling shmem_finalize; finalized it\n", me);
}

/* The launcher is gone (bootstrap/watch.c), and with it whoever would remove what this PE leaves in /dev/shm. Runs on
 * the watch's thread; both calls are safe beside whatever this PE's other threads do. */
static void launcher_gone(void) {
    shmemi_ofi_regions_unlink();
    shmemi_segments_unlink_names();
}

void shmemi_abort_setup(void) { shmemi_rt.abort_job = abort_job; }

void shmemi_watch_setup(void) { shmemb_watch_cleanup(launcher_gone); }

void shmemi_exit_setup(void) {
    static int done;
    shmemi_liveness_init();
    if (!done++)
        on_exit(at_exit, NULL);
}
