/* hip/hip_runtime_api.h - for HIP programs built with oshcc --emulate-gpu: the HIP names come from gshmem's CPU
 * emulation (gshmem/emu/hip_runtime.h), not from ROCm's header, which only hipcc compiles. */
#include <gshmem/emu/hip_runtime.h>
