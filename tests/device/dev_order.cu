/* dev_order.cu - a kernel's shmemg_fence orders its operations to one PE even when they take different paths: some
 * through the proxy (a network, large copies past SHMEM_DEVICE_COPY_CUTOVER, every put with SHMEM_DEVICE_PROXY_ALL)
 * and some by the kernel's own stores and atomics. Each even PE sends to the next odd one, which checks, once it sees
 * each round's flag, that what was sent before the fence is there. Run with SHMEM_DEVICE_PROXY_REORDER, which holds
 * the proxy's requests back: a fence that does not wait for them shows as a FAIL line. */
#include "dev_common.h"

#define ROUNDS 40
#define WORDS 64 /* 512 bytes: past the cutover the tests set */

struct objs {
    long *x;                  /* A: counts the atomic adds */
    long *flag_a, *flag_b, *flag_c;
    long *data_b, *data_c;    /* [WORDS] */
    long *src;                /* [WORDS] */
    uint64_t *sig_c;
};

enum { ATOMIC_THEN_P, PUT_THEN_ATOMIC, PUT_SIGNAL_THEN_P };

__global__ void k_send(objs o, int peer, int what, int *fails) {
    if (threadIdx.x || blockIdx.x)
        return;
    for (long i = 1; i <= ROUNDS; i++) {
        switch (what) {
        case ATOMIC_THEN_P: /* a non-fetching atomic, then the round's flag by a plain p */
            shmemg_long_atomic_add(o.x, 1, peer);
            shmemg_fence();
            shmemg_long_p(o.flag_a, i, peer);
            break;
        case PUT_THEN_ATOMIC: /* a nonblocking put, then the flag by an atomic */
            for (int w = 0; w < WORDS; w++)
                o.src[w] = i;
            shmemg_putmem_nbi(o.data_b, o.src, WORDS * sizeof(long), peer);
            shmemg_fence();
            shmemg_long_atomic_set(o.flag_b, i, peer);
            shmemg_quiet(); /* (the source is rewritten next round) */
            break;
        default: /* a nonblocking put with signal, then the flag by a p */
            for (int w = 0; w < WORDS; w++)
                o.src[w] = i;
            shmemg_putmem_signal_nbi(o.data_c, o.src, WORDS * sizeof(long), o.sig_c, (uint64_t)i, SHMEM_SIGNAL_SET,
                                     peer);
            shmemg_fence();
            shmemg_long_p(o.flag_c, i, peer);
            shmemg_quiet();
        }
    }
}

__global__ void k_check(objs o, int what, int *fails) {
    if (threadIdx.x || blockIdx.x)
        return;
    for (long i = 1; i <= ROUNDS; i++) {
        if (what == ATOMIC_THEN_P) {
            shmemg_long_wait_until(o.flag_a, SHMEM_CMP_GE, i);
            long x = *(volatile long *)o.x;
            DCHECK(x >= i, "round %ld: the flag arrived before the atomic add fenced ahead of it (x %ld)", i, x);
        } else if (what == PUT_THEN_ATOMIC) {
            shmemg_long_wait_until(o.flag_b, SHMEM_CMP_GE, i);
            long b = *(volatile long *)&o.data_b[WORDS - 1];
            DCHECK(b >= i, "round %ld: the flag (an atomic) arrived before the put fenced ahead of it (%ld)", i, b);
        } else {
            shmemg_long_wait_until(o.flag_c, SHMEM_CMP_GE, i);
            uint64_t sg = *(volatile uint64_t *)o.sig_c;
            long c = *(volatile long *)&o.data_c[WORDS - 1];
            DCHECK(sg >= (uint64_t)i && c >= i,
                   "round %ld: the flag arrived before the put with signal fenced ahead of it (signal %lu, data %ld)",
                   i, (unsigned long)sg, c);
        }
    }
}

int main() {
    dev_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    objs o;
    o.x = (long *)shmemg_calloc(1, sizeof(long));
    o.flag_a = (long *)shmemg_calloc(1, sizeof(long));
    o.flag_b = (long *)shmemg_calloc(1, sizeof(long));
    o.flag_c = (long *)shmemg_calloc(1, sizeof(long));
    o.data_b = (long *)shmemg_calloc(WORDS, sizeof(long));
    o.data_c = (long *)shmemg_calloc(WORDS, sizeof(long));
    o.src = (long *)shmemg_calloc(WORDS, sizeof(long));
    o.sig_c = (uint64_t *)shmemg_calloc(1, sizeof(uint64_t));
    for (int what = ATOMIC_THEN_P; what <= PUT_SIGNAL_THEN_P; what++) { /* one at a time: each flag its own */
        if (me % 2 == 0 && me + 1 < np)
            k_send<<<1, 32>>>(o, me + 1, what, dev_fail);
        else if (me % 2 == 1)
            k_check<<<1, 32>>>(o, what, dev_fail);
        dev_check("dev_order");
        shmem_barrier_all();
    }
    if (me == 0)
        printf("dev_order: ok (%d PEs, %d rounds)\n", np, ROUNDS);
    shmem_finalize();
    return 0;
}
