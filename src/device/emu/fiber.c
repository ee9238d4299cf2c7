/* fiber.c - fibers for the CPU emulation of GPU blocks (see fiber.h). */
#include "device/emu/fiber.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_ASAN 1
#endif
#endif
#ifdef FIBER_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__x86_64__) && !defined(GSHMEM_FIBER_UCONTEXT)
#define FIBER_ASM 1
void shmemi_fiber_swap(void **save_sp, void *new_sp) __attribute__((visibility("hidden")));
#else
#include <ucontext.h>
#endif

static inline size_t page_size(void) {
    static size_t pg;
    if (!pg)
        pg = (size_t)sysconf(_SC_PAGESIZE);
    return pg;
}

int shmemi_fiber_init(struct shmemi_fiber *f) {
    memset(f, 0, sizeof *f);
#ifndef FIBER_ASM
    if (!(f->uctx = calloc(1, sizeof(ucontext_t))))
        return -1;
#endif
    return 0;
}

void shmemi_fiber_destroy(struct shmemi_fiber *f) {
#ifndef FIBER_ASM
    free(f->uctx);
#endif
    memset(f, 0, sizeof *f);
}

#ifdef FIBER_ASAN
static void asan_enter(void **fake, const struct shmemi_fiber *to) {
    if (to->stack)
        __sanitizer_start_switch_fiber(fake, to->stack + page_size(), to->size - page_size());
    else
        __sanitizer_start_switch_fiber(fake, NULL, 0); /* back to the OS thread's own stack: ASan knows its bounds */
}
#endif

/* First code on a new fiber's stack. */
static void fiber_boot_c(struct shmemi_fiber *f) {
#ifdef FIBER_ASAN
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    f->entry(f->arg);
    abort(); /* entry switched away for good; nothing may resume this fiber */
}

#ifdef FIBER_ASM
/* Popped from a new stack by shmemi_fiber_swap: the fiber's pointer arrives in r12 */
__asm__(".text\n"
        ".type shmemi_fiber_boot, @function\n"
        "shmemi_fiber_boot:\n"
        "    movq %r12, %rdi\n"
        "    andq $-16, %rsp\n"
        "    call fiber_boot_trampoline\n"
        "    ud2\n"
        ".size shmemi_fiber_boot, .-shmemi_fiber_boot\n");
void shmemi_fiber_boot(void);
__attribute__((used)) void fiber_boot_trampoline(struct shmemi_fiber *f) { fiber_boot_c(f); }

void shmemi_fiber_start(struct shmemi_fiber *f, char *stack, size_t size, void (*entry)(void *), void *arg) {
    f->stack = stack;
    f->size = size;
    f->entry = entry;
    f->arg = arg;
    /* top of the stack, 16-aligned, then what shmemi_fiber_swap pops: control words, r15..rbp, return address */
    uintptr_t top = ((uintptr_t)(f->stack + f->size) & ~(uintptr_t)15) - 16;
    uint64_t *sp = (uint64_t *)top;
    *--sp = (uint64_t)(uintptr_t)shmemi_fiber_boot; /* ret */
    *--sp = 0;                                      /* rbp */
    *--sp = 0;                                      /* rbx */
    *--sp = (uint64_t)(uintptr_t)f;                 /* r12 */
    *--sp = 0;                                      /* r13 */
    *--sp = 0;                                      /* r14 */
    *--sp = 0;                                      /* r15 */
    uint32_t mxcsr;
    uint16_t fcw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fcw));
    *--sp = (uint64_t)mxcsr | (uint64_t)fcw << 32;
    f->sp = sp;
}

void shmemi_fiber_switch(struct shmemi_fiber *from, struct shmemi_fiber *to) {
#ifdef FIBER_ASAN
    asan_enter(&from->asan_fake, to);
#endif
    shmemi_fiber_swap(&from->sp, to->sp);
#ifdef FIBER_ASAN
    __sanitizer_finish_switch_fiber(from->asan_fake, NULL, NULL);
#endif
}
#else
static void uctx_entry(unsigned hi, unsigned lo) {
    fiber_boot_c((struct shmemi_fiber *)(uintptr_t)((uint64_t)hi << 32 | lo));
}

void shmemi_fiber_start(struct shmemi_fiber *f, char *stack, size_t size, void (*entry)(void *), void *arg) {
    f->stack = stack;
    f->size = size;
    f->entry = entry;
    f->arg = arg;
    ucontext_t *u = f->uctx;
    getcontext(u);
    u->uc_stack.ss_sp = f->stack + page_size();
    u->uc_stack.ss_size = f->size - page_size();
    u->uc_link = NULL;
    uint64_t p = (uint64_t)(uintptr_t)f;
    makecontext(u, (void (*)(void))uctx_entry, 2, (unsigned)(p >> 32), (unsigned)p);
}

void shmemi_fiber_switch(struct shmemi_fiber *from, struct shmemi_fiber *to) {
    if (!from->uctx && !(from->uctx = calloc(1, sizeof(ucontext_t))))
        abort();
#ifdef FIBER_ASAN
    asan_enter(&from->asan_fake, to);
#endif
    swapcontext(from->uctx, to->uctx);
#ifdef FIBER_ASAN
    __sanitizer_finish_switch_fiber(from->asan_fake, NULL, NULL);
#endif
}
#endif
