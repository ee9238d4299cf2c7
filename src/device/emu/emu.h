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
};
struct emu_pool;
/* Runs a kernel to its end on the calling (stream) thread and the stream's helpers (*pool, made on first use). */
SHMEMI_HIDDEN void shmemi_emu_run_kernel(struct emu_pool **pool, const struct shmemi_emu_kernel *k);
/* Ends the job: a line naming what failed, as the library's fatal errors do (or, outside a job, exits 1). */
SHMEMI_HIDDEN void shmemi_emu_fatal(const char *what, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
/* 1 once a program built for the emulation said so (gshmem_emu_program) */
SHMEMI_HIDDEN extern int shmemi_emu_program;

#endif
