/* hip/hip_cooperative_groups.h - for HIP programs built with oshcc --emulate-gpu: not emulated, so compilation stops here instead of
 * picking up ROCm's own header, which only hipcc can compile. */
#error "HIP cooperative groups (hip/hip_cooperative_groups.h) is not emulated by oshcc --emulate-gpu (docs/device.md lists what is emulated)"
