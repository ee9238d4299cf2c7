/* omp.c - finds the OpenMP runtime's device-memory routines in the running program (dlsym), so that gshmem serves
 * OpenMP offload programs without depending on libgomp or libomp itself. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "omp/omp.h"

/* The OpenMP 4.5/5.x API routines gshmem uses, as their specification declares them */
static struct {
    void *(*target_alloc)(size_t, int);
    void (*target_free)(void *, int);
    int (*get_default_device)(void);
    int (*get_initial_device)(void);
    int (*get_num_devices)(void);
    int (*associate)(const void *, const void *, size_t, size_t, int);
    int (*disassociate)(const void *, int);
    const char *missing; /* the first routine not found, NULL when all are there */
} rt;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *sym(const char *name) {
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p && !rt.missing)
        rt.missing = name;
    return p;
}

/* An OpenMP program has its runtime loaded already; a program without one gets no KIND=LIBOMP partition */
static void lookup(void) {
    *(void **)&rt.target_alloc = sym("omp_target_alloc");
    *(void **)&rt.target_free = sym("omp_target_free");
    *(void **)&rt.get_default_device = sym("omp_get_default_device");
    *(void **)&rt.get_initial_device = sym("omp_get_initial_device");
    *(void **)&rt.get_num_devices = sym("omp_get_num_devices");
    *(void **)&rt.associate = sym("omp_target_associate_ptr");
    *(void **)&rt.disassociate = sym("omp_target_disassociate_ptr");
}

static int have(void) {
    pthread_once(&once, lookup);
    return !rt.missing;
}

int shmemi_omp_place(int want, int *dev, char *why, size_t whylen) {
    if (!have()) {
        snprintf(why, whylen,
                 "the program has no OpenMP runtime (%s is not defined in it): KIND=LIBOMP partitions are for "
                 "programs compiled and linked with -fopenmp (OpenMP 4.5 or later)",
                 rt.missing);
        return -1;
    }
    int n = rt.get_num_devices(), init = rt.get_initial_device();
    int d = want >= 0 ? want : rt.get_default_device();
    *dev = d;
    if (n <= 0) {
        snprintf(why, whylen, "host memory (no OpenMP offload device)");
        return 0;
    }
    if (d == init) {
        snprintf(why, whylen, "host memory (OpenMP device %d is the host)", d);
        return 0;
    }
    if (d < 0 || d >= n) {
        if (want < 0) { /* an unusable default-device-var: OpenMP runs target regions on the host then */
            snprintf(why, whylen, "host memory (the default OpenMP device %d is not one of the %d offload devices)", d,
                     n);
            return 0;
        }
        snprintf(why, whylen,
                 "OMP_DEVICE=%d, but the OpenMP runtime has %d offload device%s (0 to %d) and the host (%d)", d, n,
                 n == 1 ? "" : "s", n - 1, init);
        return -1;
    }
    snprintf(why, whylen, "OpenMP device %d of %d", d, n);
    return 1;
}

void *shmemi_omp_alloc(size_t size, int dev) { return have() ? rt.target_alloc(size, dev) : NULL; }

void shmemi_omp_free(void *p, int dev) {
    if (have() && p)
        rt.target_free(p, dev);
}

int shmemi_omp_associate(const void *host, const void *devp, size_t size, int dev) {
    return have() ? rt.associate(host, devp, size, 0, dev) : -1;
}

int shmemi_omp_disassociate(const void *host, int dev) { return have() ? rt.disassociate(host, dev) : -1; }

void shmemi_omp_describe(char *buf, size_t len) {
    if (!have()) {
        snprintf(buf, len, "no OpenMP runtime in this program (%s not found)", rt.missing);
        return;
    }
    int n = rt.get_num_devices();
    snprintf(buf, len, "runtime loaded; %d offload device%s, default device %d, initial (host) device %d", n,
             n == 1 ? "" : "s", rt.get_default_device(), rt.get_initial_device());
}
