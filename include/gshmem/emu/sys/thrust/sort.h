/* thrust/sort.h - for programs built with oshcc --emulate-gpu: not emulated, so compilation stops here instead of
 * picking up CUDA's own header, which only nvcc can compile. */
#error "Thrust (thrust/sort.h) is not emulated by oshcc --emulate-gpu (docs/device.md lists what is emulated)"
