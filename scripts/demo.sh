#!/usr/bin/env bash
# demo.sh - installs dependencies, builds and installs gshmem into build/prefix, and runs the 4-PE demo with our
# oshrun on the embedded shared-memory transport. Usage: scripts/demo.sh [NPES]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$PWD/build/prefix" >/dev/null
cmake --build build -j 2
cmake --install build >/dev/null
./build/prefix/bin/oshrun -np "${1:-4}" ./build/prefix/bin/gshmem-demo
