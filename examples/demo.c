/* demo.c - the README's first job: every PE passes a token around a ring with put-with-signal, hammers one
 * counter with atomics, and PE 0 reports what it measured (latencies on this machine, results checked). */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long token[64]; /* static data is symmetric too */
static uint64_t arrived;
static long counter;

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), next = (me + 1) % n;
    const int laps = 1000, incs = 10000;
    long payload[64];

    shmem_barrier_all();
    double t0 = now_us();
    for (int lap = 0; lap < laps; lap++) {
        if (me == 0) {
            for (int i = 0; i < 64; i++)
                payload[i] = lap * 64 + i;
            shmem_long_put_signal(token, payload, 64, &arrived, (uint64_t)lap + 1, SHMEM_SIGNAL_SET, next);
            shmem_signal_wait_until(&arrived, SHMEM_CMP_GE, (uint64_t)lap + 1);
        } else {
            shmem_signal_wait_until(&arrived, SHMEM_CMP_GE, (uint64_t)lap + 1);
            shmem_long_put_signal(token, token, 64, &arrived, (uint64_t)lap + 1, SHMEM_SIGNAL_SET, next);
        }
    }
    double ring_us = (now_us() - t0) / laps;
    int ok = token[63] == (long)(laps - 1) * 64 + 63;

    shmem_barrier_all();
    t0 = now_us();
    for (int i = 0; i < incs; i++)
        shmem_long_atomic_inc(&counter, 0);
    shmem_barrier_all();
    double amo_us = (now_us() - t0) / incs;
    long total = shmem_long_atomic_fetch(&counter, 0);
    ok &= total == (long)incs * n;

    int all_ok = ok;
    static int oks[1024];
    shmem_int_p(&oks[me], ok, 0);
    shmem_barrier_all();
    if (me == 0) {
        for (int i = 0; i < n && i < 1024; i++)
            all_ok &= oks[i];
        char name[SHMEM_MAX_NAME_LEN];
        shmem_info_get_name(name);
        printf("%s: %d PE%s\n", name, n, n == 1 ? "" : "s");
        printf("  ring of put_signal (512 B) : %.2f us per lap of %d hop%s\n", ring_us, n, n == 1 ? "" : "s");
        printf("  atomic_inc on PE 0         : %.3f us each, total %ld (expected %ld)\n", amo_us, total,
               (long)incs * n);
        printf("  result                     : %s\n", all_ok ? "OK" : "WRONG");
    }
    shmem_finalize();
    return all_ok || me ? 0 : 1;
}
