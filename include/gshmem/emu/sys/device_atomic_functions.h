/* device_atomic_functions.h - for programs built with oshcc --emulate-gpu: the CUDA names come from gshmem's CPU emulation. */
#include <gshmem/emu/cuda.hpp>
