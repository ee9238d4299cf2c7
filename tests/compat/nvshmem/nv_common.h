/* nv_common.h - what the NVSHMEM front-end tests share: CUDA error checks and a result check that prints one FAIL
 * line per wrong value, written as NVSHMEM's own examples are, so each test also builds against NVSHMEM. */
#ifndef NV_COMMON_H
#define NV_COMMON_H
#include <stdio.h>
#include <stdlib.h>

#define CUDA_CHECK(stmt)                                                                                               \
    do {                                                                                                               \
        cudaError_t cuda_rc = (stmt);                                                                                  \
        if (cudaSuccess != cuda_rc) {                                                                                  \
            fprintf(stderr, "[%s:%d] CUDA failed with %s\n", __FILE__, __LINE__, cudaGetErrorString(cuda_rc));         \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

static int nv_fails;
#define EXPECT(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            if (nv_fails++ < 10) {                                                                                     \
                fprintf(stderr, "FAIL PE %d: ", nvshmem_my_pe());                                                      \
                fprintf(stderr, __VA_ARGS__);                                                                          \
                fputc('\n', stderr);                                                                                   \
            }                                                                                                          \
        }                                                                                                              \
    } while (0)
#endif
