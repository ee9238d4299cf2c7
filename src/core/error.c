/* error.c - misuse reports: one line naming the routine, the PE and the fix, then a clean job-wide abort through
 * shmemi_rt.abort_job, which the runtime points at the bootstrap's (oshrun tears the other PEs down). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "state.h"

void shmemi_fatal(const char *fn, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    if (shmemi_rt.init_state == 1)
        fprintf(stderr, "gshmem: PE %d: %s: %s\n", shmemi_rt.my_pe, fn, msg);
    else
        fprintf(stderr, "gshmem: %s: %s\n", fn, msg);
    fflush(stderr);
    if (shmemi_rt.init_state == 1 && shmemi_rt.abort_job)
        shmemi_rt.abort_job(1, NULL);
    _Exit(1);
}

void shmemi_check_init(const char *fn) {
    if (SHMEMI_UNLIKELY(shmemi_rt.init_state != 1))
        shmemi_fatal(fn, "%s",
                     shmemi_rt.init_state == 0 ? "called before shmem_init; call shmem_init first"
                                               : "called after shmem_finalize");
}

void shmemi_err_pe(const char *fn, int pe) {
    shmemi_check_init(fn);
    if (shmemi_rt.n_pes == 1)
        shmemi_fatal(fn, "target PE %d is out of range: this job has 1 PE (the only valid PE is 0)", pe);
    shmemi_fatal(fn, "target PE %d is out of range: this job has %d PEs (valid PEs are 0 to %d)", pe, shmemi_rt.n_pes,
                 shmemi_rt.n_pes - 1);
}

void shmemi_err_null(const char *fn, const char *arg) {
    shmemi_check_init(fn);
    shmemi_fatal(fn, "%s is NULL but the element count is not zero; pass a valid buffer", arg);
}

void shmemi_err_sym(const char *fn, const void *addr, size_t len, int pe) {
    shmemi_check_init(fn);
    size_t off;
    struct shmemi_seg *s = shmemi_find_seg(addr, &off);
    if (!s)
        shmemi_fatal(fn,
                     "address %p (targeting PE %d) is not symmetric: it is in neither the symmetric heap, the "
                     "static data nor a partition; use memory from shmem_malloc or a global/static variable",
                     addr, pe);
    if (len > s->size - off)
        shmemi_fatal(fn,
                     "%zu bytes at %p (targeting PE %d) run past the end of the %s (%zu bytes from its start, "
                     "%zu bytes long)",
                     len, addr, pe, s->name, off, s->size);
    shmemi_fatal(fn, "PE %d cannot be reached: it is not on this node and no network transport is active", pe);
}

void shmemi_debug(const char *fmt, ...) {
    if (!shmemi_env.debug)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gshmem[%d] debug: %s\n", shmemi_rt.my_pe, msg);
}
