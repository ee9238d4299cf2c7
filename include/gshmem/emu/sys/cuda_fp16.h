/* cuda_fp16.h - for programs built with oshcc --emulate-gpu: the emulation's subset of CUDA's half precision
 * (gshmem/emu/cuda_fp16.hpp; docs/device.md lists what it has). */
#include <gshmem/emu/cuda_fp16.hpp>
