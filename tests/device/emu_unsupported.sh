#!/usr/bin/env bash
# emu_unsupported.sh CXX INCDIR [CUDA_INCDIR] - what the CPU emulation of the GPU does not provide stops compilation
# with a message naming the feature (never CUDA's own header, which only nvcc compiles, nor an undeclared name); and
# what it provides (cooperative groups) compiles even with CUDA's include directory on the path, as a CMake project
# that links CUDA::cudart puts it. Each snippet compiles as gshmem_add_emu_program and oshcc --emulate-gpu compile.
set -u
CXX=$1 INC=$2 CUDA_INC=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
flags=(-std=c++17 -fsyntax-only -include gshmem/emu/cuda.hpp -I"$INC" -I"$INC/gshmem/emu/sys")
cuda_flags=()
[ -n "$CUDA_INC" ] && [ -d "$CUDA_INC" ] && cuda_flags=(-I"$CUDA_INC" -I"$CUDA_INC/cccl")

# expect NAME 'EXPECTED REGEX' [extra flags...] < snippet: compilation must fail with the expected message first
expect() {
  local name=$1 re=$2
  shift 2
  cat > "$tmp/$name.cpp"
  if "$CXX" "${flags[@]}" "$@" "$tmp/$name.cpp" > "$tmp/$name.log" 2>&1; then
    echo "FAIL: $name compiled; it must stop with: $re"
    fail=1
    return
  fi
  local first
  first=$(grep -m1 -E 'error' "$tmp/$name.log")
  if ! grep -q -E "$re" <<< "$first"; then
    echo "FAIL: $name: the first error is not the expected one ($re):"
    head -5 "$tmp/$name.log"
    fail=1
    return
  fi
  echo "ok: $name: $first"
}

compiles() {
  local name=$1
  shift
  cat > "$tmp/$name.cpp"
  if ! "$CXX" "${flags[@]}" "$@" "$tmp/$name.cpp" > "$tmp/$name.log" 2>&1; then
    echo "FAIL: $name does not compile:"
    head -20 "$tmp/$name.log"
    fail=1
    return
  fi
  echo "ok: $name compiles"
}

cg_program='#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int *p) {
    cg::thread_block b = cg::this_thread_block();
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
    p[b.thread_rank()] = w.shfl((int)w.thread_rank(), 0) + w.ballot(1);
    cg::this_grid().sync();
}
int main() {
    int *p = nullptr;
    void *args[] = {&p};
    return (int)cudaLaunchCooperativeKernel(k, dim3(1), dim3(32), args);
}'
compiles cg_provided <<< "$cg_program"
if [ ${#cuda_flags[@]} -gt 0 ]; then
  compiles cg_provided_with_cuda_on_path "${cuda_flags[@]}" <<< "$cg_program"
fi

# half and bfloat16 are emulated (gshmem/emu/cuda_fp16.hpp), with what CUDA refuses refused: below
fp16_program='#include <cuda_bf16.h>
__global__ void k(__half *h, __nv_bfloat16 *b) { h[0] = h[0] * __half(2) + __float2half(1.5f); b[0] = __hmax(b[0], b[1]); }'
for extra in "" cuda; do
  f=()
  sfx=""
  if [ "$extra" = cuda ]; then
    [ ${#cuda_flags[@]} -gt 0 ] || continue
    f=("${cuda_flags[@]}")
    sfx=_with_cuda_on_path
  fi
  expect "fp8$sfx" '8-bit floating point .* is not emulated by oshcc --emulate-gpu' "${f[@]}" <<< '#include <cuda_fp8.h>'
  compiles "fp16$sfx" "${f[@]}" <<< "$fp16_program"
  expect "cg_reduce$sfx" 'cooperative_groups::reduce .* is not emulated' "${f[@]}" <<< \
    '#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>'
  expect "libcuxx$sfx" 'libcu\+\+ .* is not emulated' "${f[@]}" <<< '#include <cuda/atomic>'
  expect "thrust$sfx" 'Thrust .* is not emulated' "${f[@]}" <<< '#include <thrust/device_vector.h>'
done
if [ ${#cuda_flags[@]} -gt 0 ]; then
  # a CUDA header with no stand-in: its own includes reach one
  expect cuda_header_without_standin 'a CUDA header that oshcc --emulate-gpu does not emulate was included' \
    "${cuda_flags[@]}" <<< '#include <cuda/std/span>'
fi
# as nvcc: __half + float is ambiguous (float's built-in + or __half's), the macros remove conversions and operators
expect half_plus_float "ambiguous overload for .operator\\+. \\(operand types are .__half. and .float.\\)" <<< \
  '#include <cuda_fp16.h>
__global__ void k(__half *p) { p[0] = p[0] + 1.0f; }'
expect half_no_conversions "conversion from .float. to non-scalar type .__half. requested" -D__CUDA_NO_HALF_CONVERSIONS__ <<< \
  '#include <cuda_fp16.h>
__global__ void k(__half *p) { __half h = 1.0f; p[0] = h; }'
expect bf16_no_operators "ambiguous overload for .operator\\*. \\(operand types are .__nv_bfloat16. and .__nv_bfloat16.\\)" -D__CUDA_NO_BFLOAT16_OPERATORS__ <<< \
  '#include <cuda_bf16.h>
__global__ void k(__nv_bfloat16 *p) { p[0] = p[0] * p[1]; }'
expect bf16_no_conversions "conversion from .float. to non-scalar type .__nv_bfloat16. requested" \
  -D__CUDA_NO_BFLOAT16_CONVERSIONS__ <<< '#include <cuda_bf16.h>
__global__ void k(__nv_bfloat16 *p) { __nv_bfloat16 b = 1.0f; p[0] = b; }'
expect half_no_operators "ambiguous overload for .operator\\*. \\(operand types are .__half. and .__half.\\)" -D__CUDA_NO_HALF_OPERATORS__ <<< \
  '#include <cuda_fp16.h>
__global__ void k(__half *p) { p[0] = p[0] * p[1]; }'
# the pair types have no conversions, so without their operators nothing matches
for t in half2:cuda_fp16:HALF2 nv_bfloat162:cuda_bf16:BFLOAT162; do
  IFS=: read -r ty hdr m <<< "$t"
  expect "${ty}_no_operators" "no match for .operator\\+. \\(operand types are .__$ty. and .__$ty.\\)" "-D__CUDA_NO_${m}_OPERATORS__" \
    <<< "#include <$hdr.h>
__global__ void k(__$ty *p) { p[0] = p[0] + p[1]; }"
done
expect half_from_bf16_implicit "conversion from .__nv_bfloat16. to non-scalar type .__half. requested" <<< \
  '#include <cuda_bf16.h>
__global__ void k(__half *h, __nv_bfloat16 *b) { __half x = b[0]; h[0] = x; }'
# what the macros leave compiles (cuda_bf16.h defined __half's bfloat16 constructor that they had removed)
compiles fp16_all_macros -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF2_OPERATORS__ \
  -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_OPERATORS__ -D__CUDA_NO_BFLOAT162_OPERATORS__ <<< \
  '#include <cuda_bf16.h>
__global__ void k(__half *h, __nv_bfloat16 *b) { h[0] = __hadd(h[0], __float2half(1.5f)); b[0] = __hmax(b[0], b[1]); }'
expect mempool 'cudaMallocFromPoolAsync: memory pools is not emulated' <<< \
  'int main() { void *p; cudaMemPool_t pool = nullptr; return (int)cudaMallocFromPoolAsync(&p, 64, pool, nullptr); }'
expect coalesced 'cooperative_groups::coalesced_threads: coalesced_group is not emulated' <<< \
  '#include <cooperative_groups.h>
__global__ void k() { auto g = cooperative_groups::coalesced_threads(); (void)g; }'
expect tile64 'thread_block_tile larger than a warp .* is not emulated' <<< \
  '#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k() { auto t = cg::tiled_partition<64>(cg::this_thread_block()); t.sync(); }'
# HIP (gshmem/emu/hip_runtime.h): a launch hipcc refuses, what the emulation does not provide, and a program that
# compiles (its <<<>>> launches are gshmem-emu-cu's, tested by the emu_hip_* programs)
expect hip_arg_count 'hipLaunchKernelGGL: Argument Count Mismatch' <<< \
  '#include <hip/hip_runtime.h>
__global__ void k(int *p, int n) { p[threadIdx.x] = n; }
void f(int *p) { hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, p); }'
expect hip_fp16 'half precision .*hip/hip_fp16.h. is not emulated' <<< '#include <hip/hip_fp16.h>'
expect hip_module 'hipModuleLaunchKernel: code objects .* is not emulated' <<< \
  '#include <hip/hip_runtime.h>
void f() { (void)hipModuleLaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0); }'
compiles hip_program <<< '#include <hip/hip_runtime.h>
__global__ void k(float *p, float v) { p[hipThreadIdx_x] = v + __shfl(v, 0); }
int main() {
    float *p = nullptr;
    if (hipMalloc(&p, 64 * sizeof(float)) != hipSuccess) return 1;
    hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, p, 1); /* (an int converts to the float parameter, as in HIP) */
    return hipDeviceSynchronize() != hipSuccess;
}'
exit $fail
