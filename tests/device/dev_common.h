/* dev_common.h - what the kernel-side tests share: initialization that insists on SHMEM_DEVICE_KERNEL_INIT (a skip,
 * 77, where a real GPU build finds no GPU), a failure count kept in the GPU heap that kernels add to, and the check
 * at the end. */
#ifndef GSHMEM_TEST_DEV_COMMON_H
#define GSHMEM_TEST_DEV_COMMON_H
#include <cstdio>
#include <cstdlib>
#include <shmem.h>
#include <shmemg.h>

static int *dev_fail; /* GPU heap: kernels count failed checks here */

#define DCHECK(c, ...)                                                                                                 \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL PE %d (kernel, block %u thread %u) line %d: ", shmemg_my_pe(), blockIdx.x, threadIdx.x,       \
                   __LINE__);                                                                                          \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            atomicAdd(fails, 1);                                                                                       \
        }                                                                                                              \
    } while (0)
#define HCHECK(c, ...)                                                                                                 \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL PE %d line %d: ", shmem_my_pe(), __LINE__);                                                   \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            fflush(stdout);                                                                                            \
            shmem_global_exit(1);                                                                                      \
        }                                                                                                              \
    } while (0)

static void dev_init(void) {
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE | SHMEM_DEVICE_KERNEL_INIT, &provided);
    if (!(provided & SHMEM_DEVICE_KERNEL_INIT)) {
#ifdef GSHMEM_EMULATE_GPU
        printf("FAIL PE %d: SHMEM_DEVICE_KERNEL_INIT not provided on the emulated GPU\n", shmem_my_pe());
        shmem_global_exit(1);
#else
        if (shmem_my_pe() == 0)
            printf("SKIP: no kernel-side communication here (no GPU)\n");
        shmem_finalize();
        exit(77);
#endif
    }
    dev_fail = (int *)shmemg_calloc(1, sizeof(int));
}

/* the failures kernels counted, everywhere: 0 or the job ends */
static void dev_check(const char *name) {
    cudaDeviceSynchronize();
    int f = 0;
    cudaMemcpy(&f, dev_fail, sizeof f, cudaMemcpyDeviceToHost);
    HCHECK(f == 0, "%s: %d failed checks in kernels", name, f);
}

#endif
