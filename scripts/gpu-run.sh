#!/bin/bash
# gpu-run.sh [OUT [STAGE...]] - on a machine with a GPU (the H200 that sessions are sometimes lent): build with the
# optional dependencies off (that machine has CUDA, CMake and Ninja, not libfabric or PMIx), run the GPU tests, then
# shmem-perf with H-H, H-D, D-H and D-D buffers and gpu-floor, the CUDA-IPC floor. Everything lands in OUT (default
# $OUT, else /tmp/gpu-out): build and test logs, shmem-perf-<combo>-np<N>.{txt,json}, gpu-floor.{txt,json}.
# Stages (default: all, in this order): build, test, floor, perf (the four combinations), pinned (H-D and D-H again
# with SHMEM_GPU_PIN_HOST=1), cutover (put and get latency up to 64 KiB for H-D, D-H and D-D with
# SHMEM_GPU_COPY_CUTOVER=0, 4k and 64k: where kernels beat the copy engine, to choose its default). The device tool allows 10 minutes per command: run the stages in separate calls there
# (the build directory is kept between calls on a warm machine), e.g. `scripts/gpu-run.sh $OUT build test`, then
# `scripts/gpu-run.sh $OUT floor perf`, then `... pinned`.
# Nothing is compared here: the medians go side by side in the issue note and bench/results/.
set -u
out=${1:-${OUT:-/tmp/gpu-out}}
shift $(($# > 0 ? 1 : 0))
stages=${*:-build test floor perf pinned cutover}
build=${BUILD:-build-gpu}
np=${NP:-2}
max=${MAX:-64M}
mkdir -p "$out"

perf() { # perf SRC DST TAG [ENV...]: one shmem-perf run of put/get latency and bandwidth
    local s=$1 d=$2 tag=$3
    shift 3
    env SHMEM_SYMMETRIC_SIZE=512M SHMEM_SYMMETRIC_SIZE_DEVICE=512M "$@" timeout 300 "$build/tools/oshrun" -np "$np" \
        "$build/bench/shmem-perf" --src "$s" --dst "$d" --test put_lat,put_bw,get_lat,get_bw --max "$max" \
        --json "$out/shmem-perf-$tag-np$np.json" > "$out/shmem-perf-$tag-np$np.txt" 2>&1
    echo "shmem-perf $s -> $d ($tag): rc $?"
}

lat() { # lat SRC DST TAG [ENV...]: put and get latency up to 64 KiB
    local s=$1 d=$2 tag=$3
    shift 3
    env SHMEM_SYMMETRIC_SIZE_DEVICE=512M "$@" timeout 300 "$build/tools/oshrun" -np "$np" "$build/bench/shmem-perf" \
        --src "$s" --dst "$d" --test put_lat,get_lat --max 64K --json "$out/lat-$tag-np$np.json" \
        > "$out/lat-$tag-np$np.txt" 2>&1
    echo "latency $s -> $d ($tag): rc $?"
}

for stage in $stages; do
    case $stage in
    build)
        nvidia-smi > "$out/nvidia-smi.txt" 2>&1
        cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGSHMEM_WITH_OFI=OFF -DGSHMEM_WITH_PMIX=OFF \
            > "$out/build.log" 2>&1 && ninja -C "$build" >> "$out/build.log" 2>&1 ||
            { echo "build failed: $out/build.log"; exit 1; }
        "$build/tools/shmem_info" > "$out/shmem_info.txt" 2>&1
        ;;
    test)
        (cd "$build" && ctest -R "gpu_|perf_gpu|gpu_floor" --output-on-failure --timeout 300) > "$out/ctest-gpu.log" 2>&1
        grep -E "tests passed|tests failed|Failed|Skipped" "$out/ctest-gpu.log" | tail -20
        ;;
    floor)
        "$build/bench/gpu-floor-bin/gpu-floor" --max "$max" --json "$out/gpu-floor.json" > "$out/gpu-floor.txt" 2>&1
        echo "gpu-floor: rc $?"
        ;;
    perf)
        for s in host device; do
            for d in host device; do
                perf "$s" "$d" "${s:0:1}${d:0:1}"
            done
        done
        ;;
    pinned)
        perf host device hd-pinned SHMEM_GPU_PIN_HOST=1
        perf device host dh-pinned SHMEM_GPU_PIN_HOST=1
        ;;
    cutover)
        for c in 0 4k 64k; do
            lat host device "hd-cut$c" SHMEM_GPU_COPY_CUTOVER=$c
            lat device host "dh-cut$c" SHMEM_GPU_COPY_CUTOVER=$c
            lat device device "dd-cut$c" SHMEM_GPU_COPY_CUTOVER=$c
        done
        ;;
    *)
        echo "gpu-run.sh: unknown stage $stage (build, test, floor, perf, pinned, cutover)"
        exit 2
        ;;
    esac
done
ls -la "$out"
