/* emu.h - the CPU emulation of a GPU (src/device/emu): what its files share. The program-facing calls are the
 * gshmem_emu_* of include/gshmem/emu/abi.h. */
#ifndef GSHMEM_DEVICE_EMU_H
#define GSHMEM_DEVICE_EMU_H

#include <stddef.h>

#include "gshmem/emu/abi.h"
#include "shmemi.h"

struct shmemi_emu_kernel {
    struct gshmem_emu_dim3 grid, block;
    size_t shmem;
    void (*fn)(void *);
    void *closure;
    void (*release)(void *);
    int coop; /* cudaLaunchCooperativeKernel */
};
struct emu_pool;
/* Runs a kernel to its end on the calling (stream) thread and the stream's helpers (*pool, made on first use). */
SHMEMI_HIDDEN void shmemi_emu_run_kernel(struct emu_pool **pool, const struct shmemi_emu_kernel *k);
/* The blocks running now (0: no kernel is), and in where the device routine one of their threads is in (or entered
 * last) and which thread that is */
SHMEMI_HIDDEN int shmemi_emu_running(char *where, size_t len);
/* Waits until every stream has run all that was queued on it, for up to wait_s seconds (< 0: as long as it takes):
 * 0, or -1 when work is left */
SHMEMI_HIDDEN int shmemi_emu_idle_wait(int wait_s);
/* Blocks of nthreads threads a cooperative launch may have: all must be resident at once */
SHMEMI_HIDDEN unsigned shmemi_emu_coop_max(unsigned nthreads);
/* The emulated threads' stacks (stacks.c): a block takes one per thread while it runs (waiting for running blocks to
 * give theirs back when the process may map no more), each shmemi_emu_stack_len() bytes, its lowest page a guard */
SHMEMI_HIDDEN void shmemi_emu_stacks_take(unsigned n, char **out);
SHMEMI_HIDDEN void shmemi_emu_stacks_give(unsigned n, char **stacks);
SHMEMI_HIDDEN size_t shmemi_emu_stack_len(void);
/* Blocks of n threads whose stacks the process may hold at once */
SHMEMI_HIDDEN unsigned shmemi_emu_stacks_blocks(unsigned n);
/* Tests: guards by MADV_GUARD_INSTALL (1), by mprotect (0) or whichever works (-1), and the vm.max_map_count to assume
 * (0: read it); before the first kernel */
SHMEMI_HIDDEN void shmemi_emu_stacks_setup(int light, long max_map_count);
/* whether guards are lightweight (MADV_GUARD_INSTALL, Linux 6.13), costing no mapping of their own */
SHMEMI_HIDDEN int shmemi_emu_stacks_light(void);
/* Ends the job: a line naming what failed, as the library's fatal errors do (or, outside a job, exits 1). */
SHMEMI_HIDDEN void shmemi_emu_fatal(const char *what, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
/* 1 once a program built for the emulation said so (gshmem_emu_program) */
SHMEMI_HIDDEN extern int shmemi_emu_program;

#endif
