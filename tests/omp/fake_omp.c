/* fake_omp.c - a stand-in OpenMP runtime for the device path of KIND=LIBOMP partitions in CI: the OpenMP routines
 * gshmem looks up, with omp_target_alloc giving device memory of the CUDA driver (tests/fakecuda under ctest). */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#define MAXMAP 64

typedef int (*mem_alloc_fn)(uintptr_t *, size_t);
typedef int (*mem_free_fn)(uintptr_t);
static mem_alloc_fn cu_alloc;
static mem_free_fn cu_free;
static struct {
    const void *host, *dev;
    int device;
} maps[MAXMAP];

/* FAKEOMP_DEVICES offload devices (default 1); as OpenMP 5 numbers them, the host is the one after the last */
int omp_get_num_devices(void) {
    const char *e = getenv("FAKEOMP_DEVICES");
    return e ? atoi(e) : 1;
}
int omp_get_initial_device(void) { return omp_get_num_devices(); }
int omp_get_default_device(void) { return 0; }

static int driver(void) {
    if (!cu_alloc) {
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
        if (!lib)
            return -1;
        cu_alloc = (mem_alloc_fn)(uintptr_t)dlsym(lib, "cuMemAlloc_v2");
        cu_free = (mem_free_fn)(uintptr_t)dlsym(lib, "cuMemFree_v2");
    }
    return cu_alloc && cu_free ? 0 : -1;
}

/* FAKEOMP_FOREIGN=1: the device's memory is not the CUDA driver's (a device of another vendor than the GPU layer's) */
static int foreign(void) { return getenv("FAKEOMP_FOREIGN") != NULL; }

void *omp_target_alloc(size_t size, int device) {
    if (device == omp_get_initial_device() || (foreign() && device >= 0 && device < omp_get_num_devices()))
        return malloc(size);
    uintptr_t p;
    if (device < 0 || device >= omp_get_num_devices() || driver() || cu_alloc(&p, size))
        return NULL;
    return (void *)p;
}

void omp_target_free(void *p, int device) {
    if (device == omp_get_initial_device() || foreign())
        free(p);
    else if (p && (driver() || cu_free((uintptr_t)p)))
        abort(); /* freeing what the device did not give: the real runtimes crash or corrupt here too */
}

/* a host address may be associated once per device, and never on the host itself (OpenMP 5.1, 3.8.9) */
int omp_target_associate_ptr(const void *host, const void *dev, size_t size, size_t off, int device) {
    if (device < 0 || device >= omp_get_num_devices() || !host || !dev || !size)
        return EINVAL;
    int free_slot = -1;
    for (int i = 0; i < MAXMAP; i++) {
        if (maps[i].host == host && maps[i].device == device)
            return EINVAL;
        if (!maps[i].host && free_slot < 0)
            free_slot = i;
    }
    if (free_slot < 0)
        return ENOMEM;
    maps[free_slot].host = host;
    maps[free_slot].dev = (const char *)dev + off;
    maps[free_slot].device = device;
    return 0;
}

int omp_target_disassociate_ptr(const void *host, int device) {
    for (int i = 0; i < MAXMAP; i++)
        if (maps[i].host == host && maps[i].device == device) {
            maps[i].host = NULL;
            return 0;
        }
    return EINVAL;
}

/* for the test: the device address host is associated with on device 0, or NULL */
const void *fakeomp_associated(const void *host) {
    for (int i = 0; i < MAXMAP; i++)
        if (maps[i].host == host && maps[i].device == 0)
            return maps[i].dev;
    return NULL;
}
