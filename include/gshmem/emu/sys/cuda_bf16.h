/* cuda_bf16.h - for programs built with oshcc --emulate-gpu: not emulated, so compilation stops here instead of
 * picking up CUDA's own header, which only nvcc can compile. */
#error "bfloat16 (__nv_bfloat16, cuda_bf16.h) is not emulated by oshcc --emulate-gpu (docs/device.md lists what is emulated)"
