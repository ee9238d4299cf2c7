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
    char *stack; /* a guard page, then the stack (src/device/emu/stacks.c maps them) */
    size_t size; /* both */
    void (*entry)(void *);
    void *arg;
    void *asan_fake; /* AddressSanitizer's fake stack while switched out */
};

/* A fiber without a stack yet. 0 or -1. */
SHMEMI_HIDDEN_FIBER int shmemi_fiber_init(struct shmemi_fiber *f);
/* Makes f run entry(arg) on [stack, stack + size) (its lowest page a guard) when next switched to; entry must not
 * return: it switches away for good, after which f may start again, on that stack or another. */
SHMEMI_HIDDEN_FIBER void shmemi_fiber_start(struct shmemi_fiber *f, char *stack, size_t size, void (*entry)(void *),
                                            void *arg);
SHMEMI_HIDDEN_FIBER void shmemi_fiber_destroy(struct shmemi_fiber *f);
/* Saves the running context in `from` and resumes `to` (from may be a fiber with no stack of its own: the OS
 * thread's). */
SHMEMI_HIDDEN_FIBER void shmemi_fiber_switch(struct shmemi_fiber *from, struct shmemi_fiber *to);

#endif
