/* coherent.c - GPU memory the CPU reaches coherently (APUs such as MI300A, Grace-Hopper): decides up to which size
 * transfers to and from it are CPU loads and stores rather than copy-engine copies, from a measurement at init. */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gtl.h"
#include "state.h"

static char coherent_desc[160];

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* best of 5 host->device copies of n bytes, by the CPU (cpu) or by the backend */
static double time_copy(char *dev, const char *host, size_t n, int cpu) {
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = now_us();
        if (cpu)
            memcpy(dev, host, n);
        else if (shmemi_gtl->copy(dev, host, n))
            return 1e30;
        double t = now_us() - t0;
        best = t < best ? t : best;
    }
    return best;
}

/* The largest size, 64 B to 1 MiB by factors of 4, at which a CPU copy into device memory is not slower than the
 * backend's: sizes above the first loss are not tried (copy engines only get better with size). */
static size_t measure(void) {
    const size_t max = (size_t)1 << 20;
    void *dev = NULL;
    char *host = aligned_alloc(4096, max);
    if (!host || shmemi_gtl->alloc(max, &dev)) {
        free(host);
        snprintf(coherent_desc, sizeof coherent_desc, "coherent, but no memory to measure with: copies as usual");
        return 0;
    }
    memset(host, 1, max);
    size_t best = 0;
    double tc = 0, tg = 0;
    for (size_t n = 64; n <= max; n *= 4) {
        double c = time_copy(dev, host, n, 1), g = time_copy(dev, host, n, 0);
        if (c > g)
            break;
        best = n, tc = c, tg = g;
    }
    shmemi_gtl->free(dev, max);
    free(host);
    if (best)
        snprintf(coherent_desc, sizeof coherent_desc,
                 "coherent: the CPU moves up to %zu B (measured at that size: CPU %.2f us, copy engine %.2f us)", best,
                 tc, tg);
    else
        snprintf(coherent_desc, sizeof coherent_desc,
                 "coherent, but the copy engine was faster from 64 B (measured): copies as usual");
    return best;
}

/* A driver's "coherent" is checked once by touching: a CPU store and load of a word of fresh device memory, under a
 * guard for the fault a non-coherent device gives (init runs before the program's threads, so the handlers may be
 * swapped for the moment). 1: the CPU reached it. */
static sigjmp_buf probe_env;
static void probe_fault(int sig) { siglongjmp(probe_env, sig); }

static int probe(void) {
    void *dev = NULL;
    if (shmemi_gtl->alloc(4096, &dev))
        return 0;
    struct sigaction sa, old_segv, old_bus;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = probe_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    volatile int ok = 0;
    if (!sigsetjmp(probe_env, 1)) {
        volatile uint64_t *w = dev;
        *w = 0x9e3779b97f4a7c15ull;
        uint64_t back = 0;
        ok = *w == 0x9e3779b97f4a7c15ull && !shmemi_gtl->copy(&back, dev, sizeof back) && back == 0x9e3779b97f4a7c15ull;
    }
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    shmemi_gtl->free(dev, 4096);
    return ok;
}

size_t shmemi_gtl_coherent_setup(char *why, size_t whylen) {
    const char *want = shmemi_env.gpu_coherent;
    int said = shmemi_gtl->coherent && shmemi_gtl->coherent() == 1, hw = said && strcmp(want, "0") && probe();
    coherent_desc[0] = '\0';
    if (said && !hw && strcmp(want, "0"))
        snprintf(coherent_desc, sizeof coherent_desc,
                 "the driver says coherent, but a CPU store to device memory faulted or was lost: copies as usual");
    if (!strcmp(want, "0") || (!hw && !strcmp(want, "auto"))) {
        if (said && !strcmp(want, "0"))
            snprintf(coherent_desc, sizeof coherent_desc, "coherent, not used (SHMEM_GPU_COHERENT=0)");
        return 0;
    }
    if (!hw) {
        snprintf(why, whylen,
                 "SHMEM_GPU_COHERENT=1, but the %s device's memory is not coherently accessible by the CPU (not an "
                 "APU); unset SHMEM_GPU_COHERENT",
                 shmemi_gtl->name);
        return (size_t)-1;
    }
    if (!strcmp(want, "1")) {
        snprintf(coherent_desc, sizeof coherent_desc, "coherent: the CPU moves every size (SHMEM_GPU_COHERENT=1)");
        return SIZE_MAX / 2; /* every size ((size_t)-1 says the setting failed) */
    }
    if (shmemi_env.gpu_coherent_cutover) {
        snprintf(coherent_desc, sizeof coherent_desc,
                 "coherent: the CPU moves up to %zu B (SHMEM_GPU_COHERENT_CUTOVER)", shmemi_env.gpu_coherent_cutover);
        return shmemi_env.gpu_coherent_cutover;
    }
    return measure();
}

const char *shmemi_gtl_coherent_describe(void) { return coherent_desc[0] ? coherent_desc : NULL; }
