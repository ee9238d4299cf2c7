#!/usr/bin/env bash
# deps.sh - installs what building gshmem (`deps.sh build`: a C/C++ compiler, CMake, Ninja; what scripts/demo.sh needs)
# or building and testing all of it (`deps.sh`, scripts/test.sh) needs on Debian 12; skips what is present.
set -euo pipefail
mode=${1:-all}
case "$mode" in build | all) ;; *) echo "usage: deps.sh [build|all]" >&2; exit 2 ;; esac
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
{ command -v cc && command -v c++; } >/dev/null || need+=(build-essential)
if [ "$mode" = all ]; then
  command -v python3 >/dev/null || need+=(python3)
  command -v pkg-config >/dev/null || need+=(pkg-config)
  command -v clang-format >/dev/null || need+=(clang-format)
  command -v clang >/dev/null || need+=(clang)
  # PMIx bootstrap and its tests (mpirun serves PMIx; the slurm_srun test starts a private one-node Slurm with munge);
  # mpi.h for the MPI check across network namespaces, and OSHMEM's oshcc for bench/compare.sh (libopenmpi-dev);
  # libfabric transport; ip for the network-namespace tests
  # FFTW (and FFTW-MPI) and OpenBLAS for the workloads in bench/apps (2D FFT, Cannon)
  # libFuzzer for scripts/fuzz.sh (libclang-rt-14-dev); hipcc (ROCm 5.2) to check the device headers build for AMD;
  # hwloc.h for the node topology (GPU/NIC affinity, oshrun --map-by numa/gpu; libhwloc is loaded at run time)
  # GCC's OpenMP offload to NVIDIA GPUs (gcc-offload-nvptx) for the OpenMP examples, tests and workloads (docs/omp.md)
  # llvm-spirv-14 (with clang-14) builds the Level Zero backend's kernels to SPIR-V, which the zefake_* tests run
  for pkg in libpmix-dev openmpi-bin libopenmpi-dev slurm-wlm munge libfabric-dev libfabric-bin iproute2 \
    libfftw3-dev libfftw3-mpi-dev libopenblas-dev \
    libclang-rt-14-dev hipcc libhwloc-dev gcc-offload-nvptx llvm-spirv-14; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
fi
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || {
      echo "deps.sh: missing ${need[*]}, and installing them needs root (or sudo); docs/using.md's \"Building" \
        "without root\" builds gshmem without installing anything" >&2
      exit 1
    }
    SUDO=sudo
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
