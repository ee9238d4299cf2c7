/* dev_size.cu - a one-kernel program, compiled to PTX by nvcc_build.sh to check what the device library costs a unit:
 * one kernel (the stream-ordered routines' kernels only where called: -DWITH_STREAM adds one) and one out-of-line
 * failure path that the checks call, instead of a copy of it per check. */
#include <shmem.h>
#include <shmemg.h>

__global__ void k_put(char *dst, const char *src, size_t n, int pe) { shmemg_putmem(dst, src, n, pe); }

#ifdef WITH_STREAM
void barrier_on(shmemx_stream_t s) { shmemx_barrier_all_on_stream(s); }
#endif
