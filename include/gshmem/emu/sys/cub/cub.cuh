/* cub/cub.cuh - for programs built with oshcc --emulate-gpu: not emulated, so compilation stops here instead of
 * picking up CUDA's own header, which only nvcc can compile. */
#error "CUB (cub/cub.cuh) is not emulated by oshcc --emulate-gpu (docs/device.md lists what is emulated)"
