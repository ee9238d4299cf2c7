#!/usr/bin/env bash
# demo.sh - installs a compiler, CMake and Ninja where missing, builds the library, tools and examples, installs them
# into build/prefix, and runs the 4-PE demo with gshmem's oshrun on shared memory. Usage: scripts/demo.sh [NPES]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh build
# optional dependencies found on this machine (libfabric, PMIx, hwloc, nvcc...) are used; none is needed
cmake -S . -B build/demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PWD/build/prefix" \
  -DGSHMEM_BUILD_TESTS=OFF -DGSHMEM_BUILD_BENCH=OFF >/dev/null
cmake --build build/demo -j 2
cmake --install build/demo >/dev/null
./build/prefix/bin/oshrun -np "${1:-4}" ./build/prefix/bin/gshmem-demo
echo "demo.sh: installed in build/prefix; 'source build/prefix/share/gshmem/env.sh' puts its oshcc and oshrun first on PATH"
