#!/bin/bash
# gpu-run.sh [OUT [STAGE...]] - on a machine with a GPU (the H200 that sessions are sometimes lent): build with the
# optional dependencies off (that machine has CUDA, CMake and Ninja, not libfabric or PMIx), run the GPU tests, then
# shmem-perf with H-H, H-D, D-H and D-D buffers and gpu-floor, the CUDA-IPC floor.
#
# Stages (default: all, in this order):
#   build     configure and build (any other stage builds first when the build directory is missing)
#   test      the GPU tests (ctest -R 'gpu_|perf_gpu|gpu_floor')
#   floor     gpu-floor: cudaMemcpy between two processes through CUDA IPC, and pinned host <-> device
#   perf      shmem-perf put/get latency and bandwidth for hh, hd, dh, dd; perf-hh ... perf-dd run one of them
#   pinned    H-D and D-H again with SHMEM_GPU_PIN_HOST=1
#   cutover   put and get latency up to 64 KiB for H-D, D-H and D-D with SHMEM_GPU_COPY_CUTOVER=0, 4k and 64k (where
#             kernels beat the copy engine, to choose its default); cutover-0, cutover-4k, cutover-64k run one
#
# The device tool runs one command for at most 10 minutes and brings back few files from $OUT; a session has about
# 15 minutes of device time in all (starts and idle time count), and a machine given back starts bare (the build
# again, about 2 minutes on 16 cores). So logs and results go to a work folder and are packed after every stage into
# ONE archive, $OUT/gpu-<stages>.tgz, with $OUT/summary.txt beside it (the lines this script prints). Plan two calls
# on one warm machine, each under 10 minutes, e.g.
#   scripts/gpu-run.sh $OUT build test floor perf-dd      then   scripts/gpu-run.sh $OUT perf-hd perf-dh cutover-4k
# Nothing is compared here: the medians go side by side in the issue note and bench/results/.
set -u
out=${1:-${OUT:-/tmp/gpu-out}}
shift $(($# > 0 ? 1 : 0))
stages=${*:-build test floor perf pinned cutover}
build=${BUILD:-build-gpu}
np=${NP:-2}
max=${MAX:-64M}
run_s=${RUN_S:-240} # limit per shmem-perf run
tag=$(echo "$stages" | tr ' ' '_')
work=${WORK:-/tmp/gpu-work-$tag}
mkdir -p "$out" "$work"
: > "$out/summary.txt"

say() { echo "$*" | tee -a "$out/summary.txt"; }
pack() { tar czf "$out/gpu-$tag.tgz" -C "$work" . 2>/dev/null; }
trap pack EXIT

perf() { # perf SRC DST TAG [ENV...]: one shmem-perf run of put/get latency and bandwidth
    local s=$1 d=$2 t=$3
    shift 3
    env SHMEM_SYMMETRIC_SIZE=512M SHMEM_SYMMETRIC_SIZE_DEVICE=512M "$@" timeout "$run_s" "$build/tools/oshrun" \
        -np "$np" "$build/bench/shmem-perf" --src "$s" --dst "$d" --test put_lat,put_bw,get_lat,get_bw --max "$max" \
        --json "$work/shmem-perf-$t-np$np.json" > "$work/shmem-perf-$t-np$np.txt" 2>&1
    say "shmem-perf $s -> $d ($t): rc $?"
}

lat() { # lat SRC DST TAG [ENV...]: put and get latency up to 64 KiB
    local s=$1 d=$2 t=$3
    shift 3
    env SHMEM_SYMMETRIC_SIZE_DEVICE=512M "$@" timeout "$run_s" "$build/tools/oshrun" -np "$np" \
        "$build/bench/shmem-perf" --src "$s" --dst "$d" --test put_lat,get_lat --max 64K \
        --json "$work/lat-$t-np$np.json" > "$work/lat-$t-np$np.txt" 2>&1
    say "latency $s -> $d ($t): rc $?"
}

do_build() {
    nvidia-smi > "$work/nvidia-smi.txt" 2>&1
    local t0=$SECONDS
    cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGSHMEM_WITH_OFI=OFF -DGSHMEM_WITH_PMIX=OFF \
        > "$work/build.log" 2>&1 && ninja -C "$build" >> "$work/build.log" 2>&1 ||
        { say "build failed: see build.log in the archive"; tail -30 "$work/build.log"; exit 1; }
    "$build/tools/shmem_info" > "$work/shmem_info.txt" 2>&1
    say "build: $((SECONDS - t0)) s; $(grep -m1 '^GPU' "$work/shmem_info.txt")"
}

for stage in $stages; do
    t0=$SECONDS
    [ "$stage" = build ] || [ -f "$build/build.ninja" ] || do_build
    case $stage in
    build) do_build ;;
    test)
        (cd "$build" && ctest -j4 -R "gpu_|perf_gpu|gpu_floor" --output-on-failure --timeout 300) \
            > "$work/ctest-gpu.log" 2>&1
        grep -E "tests passed|tests failed|\((Failed|Timeout|Skipped|SEGFAULT|Subprocess aborted)\)$" \
            "$work/ctest-gpu.log" | tail -40 |
            tee -a "$out/summary.txt"
        ;;
    floor)
        "$build/bench/gpu-floor-bin/gpu-floor" --max "$max" --json "$work/gpu-floor.json" > "$work/gpu-floor.txt" 2>&1
        say "gpu-floor: rc $?"
        ;;
    perf)
        for s in host device; do
            for d in host device; do
                perf "$s" "$d" "${s:0:1}${d:0:1}"
            done
        done
        ;;
    perf-hh | perf-hd | perf-dh | perf-dd)
        c=${stage#perf-}
        s=host d=host
        [ "${c:0:1}" = d ] && s=device
        [ "${c:1:1}" = d ] && d=device
        perf "$s" "$d" "$c"
        ;;
    pinned)
        perf host device hd-pinned SHMEM_GPU_PIN_HOST=1
        perf device host dh-pinned SHMEM_GPU_PIN_HOST=1
        ;;
    cutover | cutover-0 | cutover-4k | cutover-64k)
        cuts="0 4k 64k"
        [ "$stage" = cutover ] || cuts=${stage#cutover-}
        for c in $cuts; do
            lat host device "hd-cut$c" SHMEM_GPU_COPY_CUTOVER=$c
            lat device host "dh-cut$c" SHMEM_GPU_COPY_CUTOVER=$c
            lat device device "dd-cut$c" SHMEM_GPU_COPY_CUTOVER=$c
        done
        ;;
    *)
        say "gpu-run.sh: unknown stage $stage (build, test, floor, perf, perf-XY, pinned, cutover, cutover-N)"
        exit 2
        ;;
    esac
    say "stage $stage: $((SECONDS - t0)) s"
    pack
done
ls -la "$out"
