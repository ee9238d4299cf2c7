/* ring_client.h - what the tests that play a kernel on a stand-in GPU driver share: the device state the library
 * hands over (gshmemx_device_register_unit), and the device library's proxy() for one requester, writing the ring. */
#ifndef RING_CLIENT_H
#define RING_CLIENT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gshmem/device/state.h>
#include <shmem.h>

void gshmemx_device_register_unit(int (*upload)(const void *state, size_t len));

static struct shmemgi_dstate st;
static int got;
static inline int take_state(const void *s, size_t len) {
    memcpy(&st, s, len < sizeof st ? len : sizeof st);
    got = 1;
    return 0;
}

/* shmem_init_thread with kernel-side communication, and the device state taken; without a GPU backend the program
 * ends as a skip (77) */
static inline void ring_client_init(void) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_KERNEL_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_KERNEL_INIT)) {
        if (shmem_my_pe() == 0)
            printf("SKIP: no kernel-side communication (no GPU backend)\n");
        shmem_finalize();
        exit(77);
    }
    gshmemx_device_register_unit(take_state);
}

static inline double ring_now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* the next ticket's slot, filled, published; blocking ones wait for the answer. limit_s > 0: a slot that never comes
 * free or a proxy that never answers ends the program with a line after that long (a proxy that is gone shows as a
 * wait, not a hang); 0: waits for ever */
static uint64_t ring_tail;
static inline uint64_t ring_request(struct shmemgi_req r, double limit_s) {
    uint64_t t = ring_tail++;
    struct shmemgi_req *q = &st.ring->slot[t % SHMEMGI_RING_SLOTS];
    double end = limit_s > 0 ? ring_now_s() + limit_s : 0;
    while (__atomic_load_n(&q->seq, __ATOMIC_ACQUIRE) != t)
        if (end && ring_now_s() > end) {
            printf("FAIL PE %d: the ring's slot never came free\n", st.my_pe);
            fflush(stdout);
            _exit(1);
        }
    r.seq = q->seq;
    r.done = 0;
    memcpy((char *)q + 8, (char *)&r + 8, sizeof r - 8);
    __atomic_store_n(&q->seq, t + 1, __ATOMIC_RELEASE);
    if (!r.wait)
        return 0;
    while (!__atomic_load_n(&q->done, __ATOMIC_ACQUIRE)) {
        if (end && ring_now_s() > end) {
            printf("FAIL PE %d: the proxy never answered (op %u)\n", st.my_pe, r.op);
            fflush(stdout);
            _exit(1);
        }
        usleep(100);
    }
    uint64_t v = q->result[0];
    __atomic_store_n(&q->seq, t + SHMEMGI_RING_SLOTS, __ATOMIC_RELEASE);
    return v;
}

#endif
