/* fiber_x86_64.S - shmemi_fiber_swap(void **save_sp, void *new_sp): pushes the System V callee-saved registers and
 * the x87/SSE control words on the current stack, stores the stack pointer in *save_sp, loads new_sp and pops the same
 * from there. A new fiber's stack is laid out by fiber.c so that the pops land in shmemi_fiber_boot. */
#if defined(__x86_64__) && !defined(GSHMEM_FIBER_UCONTEXT)
    .text
    .globl shmemi_fiber_swap
    .hidden shmemi_fiber_swap
    .type shmemi_fiber_swap, @function
shmemi_fiber_swap:
    .cfi_startproc
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .cfi_endproc
    .size shmemi_fiber_swap, .-shmemi_fiber_swap
#endif
    .section .note.GNU-stack,"",@progbits
