/* cub/config.cuh - for programs built with oshcc --emulate-gpu: CUB include this, so a header of
 * theirs found on the include path stops compilation here, named in the "In file included from" lines. */
#error "a CUDA header that oshcc --emulate-gpu does not emulate was included (named in the lines above): CUDA's own headers need nvcc (docs/device.md lists what is emulated)"
