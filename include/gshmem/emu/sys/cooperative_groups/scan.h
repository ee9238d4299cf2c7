/* cooperative_groups/scan.h - for programs built with oshcc --emulate-gpu: not emulated, so compilation stops here instead of
 * picking up CUDA's own header, which only nvcc can compile. */
#error "cooperative_groups::inclusive_scan and exclusive_scan (cooperative_groups/scan.h) is not emulated by oshcc --emulate-gpu (docs/device.md lists what is emulated)"
