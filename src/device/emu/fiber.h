/* fiber.h - the CPU emulation's threads of a GPU block: fibers (stackful coroutines) that switch only where the
 * emulated code waits (block and warp barriers, polls). A switch saves the callee-saved registers on the old stack and
 * resumes the new one: tens of nanoseconds on x86-64 (fiber_x86_64.S); other machines fall back to ucontext. */
#ifndef GSHMEM_EMU_FIBER_H
#define GSHMEM_EMU_FIBER_H

#include <stddef.h>

#define SHMEMI_HIDDEN_FIBER __attribute__((visibility("hidden")))

struct shmemi_fiber {
    void *sp;    /* saved stack pointer while switched out (x86-64) */
    void *uctx;  /* ucontext_t while switched out (fallback) */
    char *stack; /* mapping: a guard page, then the stack */
    size_t size; /* of the mapping */
    void (*entry)(void *);
    void *arg;
    void *asan_fake; /* AddressSanitizer's fake stack while switched out */
};

/* A fiber on its own stack of `size` bytes (plus a guard page) that runs entry(arg) when first switched to; entry must
 * not return: it switches away for good. 0 or -1. */
SHMEMI_HIDDEN_FIBER int shmemi_fiber_init(struct shmemi_fiber *f, size_t size);
SHMEMI_HIDDEN_FIBER void shmemi_fiber_start(struct shmemi_fiber *f, void (*entry)(void *), void *arg);
SHMEMI_HIDDEN_FIBER void shmemi_fiber_destroy(struct shmemi_fiber *f);
/* Saves the running context in `from` and resumes `to` (from may be a fiber with no stack of its own: the OS
 * thread's). */
SHMEMI_HIDDEN_FIBER void shmemi_fiber_switch(struct shmemi_fiber *from, struct shmemi_fiber *to);

#endif
