/* cuda_bf16.h - for programs built with oshcc --emulate-gpu: the emulation's subset of CUDA's bfloat16
 * (gshmem/emu/cuda_bf16.hpp, which includes cuda_fp16.h's as CUDA's does; docs/device.md lists what it has). */
#include <gshmem/emu/cuda_bf16.hpp>
