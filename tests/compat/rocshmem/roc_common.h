/* roc_common.h - what the rocSHMEM front-end tests share: a failure count kernels add to, and its check on every PE
 * at the end (each test checks its own results; written as rocSHMEM programs are). */
#ifndef GSHMEM_TEST_ROC_COMMON_H
#define GSHMEM_TEST_ROC_COMMON_H
#include <cstdio>
#include <cstdlib>
#include <hip/hip_runtime.h>
#include <rocshmem/rocshmem.hpp>

using namespace rocshmem;

#define DCHECK(c, ...)                                                                                                 \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL PE %d (kernel, thread %u) line %d: ", rocshmem_my_pe(), (unsigned)threadIdx.x, __LINE__);     \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            atomicAdd(fails, 1);                                                                                       \
        }                                                                                                              \
    } while (0)
#define HIPOK(x)                                                                                                       \
    do {                                                                                                               \
        if ((x) != hipSuccess) {                                                                                       \
            printf("FAIL PE %d line %d: %s\n", rocshmem_my_pe(), __LINE__, #x);                                        \
            rocshmem_global_exit(1);                                                                                   \
        }                                                                                                              \
    } while (0)

/* the failures kernels counted on every PE: 0, or this PE says so and the exit code is 1 */
static int roc_finish(const char *name, int *fails) {
    HIPOK(hipDeviceSynchronize());
    int f = 0, me = rocshmem_my_pe(), n = rocshmem_n_pes();
    HIPOK(hipMemcpy(&f, fails, sizeof f, hipMemcpyDeviceToHost));
    int *all = (int *)rocshmem_malloc(sizeof(int));
    HIPOK(hipMemcpy(all, &f, sizeof f, hipMemcpyHostToDevice));
    rocshmem_barrier_all();
    int total = 0;
    for (int p = 0; p < n; p++)
        total += rocshmem_int_g(all, p);
    rocshmem_barrier_all();
    rocshmem_free(all);
    rocshmem_free(fails);
    rocshmem_finalize();
    if (f)
        printf("FAIL PE %d: %s: %d failed checks\n", me, name, f);
    else if (me == 0 && !total)
        printf("%s: ok on %d PEs\n", name, n);
    return total != 0;
}
static int *roc_fails(void) {
    int *f = (int *)rocshmem_malloc(sizeof(int));
    HIPOK(hipMemset(f, 0, sizeof(int)));
    return f;
}
#endif
