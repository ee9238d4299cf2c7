#!/bin/bash
# gpu-run.sh [OUT] - on a machine with a GPU (the H200 that sessions are sometimes lent): build with the optional
# dependencies off (that machine has CUDA, CMake and Ninja, not libfabric or PMIx), run the GPU tests, then
# shmem-perf with H-H, H-D, D-H and D-D buffers and gpu-floor, the CUDA-IPC floor, in one go. Everything lands in OUT
# (default $OUT, else /tmp/gpu-out): build and test logs, shmem-perf-<combo>-np<N>.{txt,json}, gpu-floor.{txt,json}.
# Nothing is compared here: the medians go side by side in the issue note and bench/results/.
set -u
out=${1:-${OUT:-/tmp/gpu-out}}
build=${BUILD:-build-gpu}
np=${NP:-2}
max=${MAX:-64M}
mkdir -p "$out"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGSHMEM_WITH_OFI=OFF -DGSHMEM_WITH_PMIX=OFF \
    > "$out/build.log" 2>&1 && ninja -C "$build" >> "$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }
"$build/tools/shmem_info" > "$out/shmem_info.txt" 2>&1
(cd "$build" && ctest -R "gpu_|perf_gpu|gpu_floor" --output-on-failure --timeout 300) > "$out/ctest-gpu.log" 2>&1
grep -E "tests passed|tests failed|Failed|Skipped" "$out/ctest-gpu.log" | tail -20
"$build/bench/gpu-floor-bin/gpu-floor" --max "$max" --json "$out/gpu-floor.json" > "$out/gpu-floor.txt" 2>&1
for s in host device; do
    for d in host device; do
        c=${s:0:1}${d:0:1}
        SHMEM_SYMMETRIC_SIZE=512M SHMEM_SYMMETRIC_SIZE_DEVICE=512M timeout 600 "$build/tools/oshrun" -np "$np" "$build/bench/shmem-perf" \
            --src "$s" --dst "$d" --test put_lat,put_bw,get_lat,get_bw --max "$max" \
            --json "$out/shmem-perf-$c-np$np.json" > "$out/shmem-perf-$c-np$np.txt" 2>&1
        echo "shmem-perf $s -> $d: rc $?"
    done
done
ls -la "$out"
