/* finalize_fake.c - shmem_finalize while a kernel of the PE still runs, on a stand-in GPU driver (fake CUDA or HIP):
 * a thread of this program plays the kernel (fakegpu_app_kernel marks it running, as cuCtxSynchronize sees a kernel)
 * and writes requests into the ring as the device library does. late: it starts asking once the host is in finalize,
 * which must wait for it with the proxy still serving; stuck: the last PE's never ends, which finalize must report in
 * one line and end the job. Prints "PE <me> job <id>" first. Usage: finalize_fake late|stuck */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemg.h>

#include "ring_client.h"

static int me, np;
static void (*app_kernel)(int);
static long *d; /* GPU heap: each PE's holds 1000 + its number */
static volatile int played;

/* a proxy that is gone shows as a wait of 10 s, not a hang */
static uint64_t request(struct shmemgi_req r) { return ring_request(r, 10); }

static void *kernel_late(void *arg) {
    (void)arg;
    usleep(300000); /* the host is in shmem_finalize by now */
    int peer = (me + 1) % np;
    struct shmemgi_req r = {0};
    r.op = SHMEMGI_OP_GET; /* a g: the value comes back in the slot */
    r.size = 1;
    r.pe = peer;
    r.src = (uint64_t)(uintptr_t)d;
    r.len = sizeof(long);
    r.wait = 1;
    uint64_t v = request(r);
    if (v != (uint64_t)(1000 + peer)) {
        printf("FAIL PE %d: got %llu from PE %d's GPU heap, expected %d\n", me, (unsigned long long)v, peer,
               1000 + peer);
        fflush(stdout);
        _exit(1);
    }
    memset(&r, 0, sizeof r);
    r.op = SHMEMGI_OP_QUIET;
    r.pe = -1;
    r.wait = 1;
    request(r);
    played = 1;
    app_kernel(0);
    return NULL;
}

static void *kernel_stuck(void *arg) {
    (void)arg;
    for (;;)
        sleep(1);
    return NULL;
}

int main(int argc, char **argv) {
    int late = argc > 1 && !strcmp(argv[1], "late"), stuck = argc > 1 && !strcmp(argv[1], "stuck");
    if (!late && !stuck) {
        fprintf(stderr, "usage: finalize_fake late|stuck\n");
        return 2;
    }
    ring_client_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    const char *job = getenv("GSHMEM_JOBID");
    printf("PE %d job %s\n", me, job ? job : "?");
    fflush(stdout);
    const char *libs[] = {"libcuda.so.1", "libamdhip64.so"};
    for (int i = 0; i < 2 && !app_kernel; i++) {
        void *h = dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD);
        if (h)
            app_kernel = (void (*)(int))dlsym(h, "fakegpu_app_kernel");
    }
    if (!st.ring || !app_kernel) {
        printf("FAIL PE %d: %s\n", me,
               !st.ring ? "the library did not hand over the device state"
                        : "no stand-in driver with fakegpu_app_kernel is loaded (run with a fake GPU driver)");
        shmem_global_exit(1);
    }
    d = shmemg_malloc(sizeof(long));
    long v = 1000 + me;
    shmem_putmem(d, &v, sizeof v, me);
    shmem_barrier_all();
    pthread_t t;
    if (late || me == np - 1) {
        app_kernel(1);
        pthread_create(&t, NULL, late ? kernel_late : kernel_stuck, NULL);
    }
    shmem_finalize(); /* the "kernel" was not waited for: finalize must */
    if (stuck) {
        printf("FAIL PE %d: shmem_finalize returned while a kernel ran for ever\n", me);
        return 1;
    }
    pthread_join(t, NULL);
    if (!played) {
        printf("FAIL PE %d: the kernel did not finish\n", me);
        return 1;
    }
    printf("PE %d: finalize_fake late: ok\n", me);
    return 0;
}
