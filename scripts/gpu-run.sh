#!/bin/bash
# gpu-run.sh [OUT [STAGE...]] - everything a session with a GPU machine runs, in one command: the build, the GPU tests,
# gshmem's device-initiated figures beside NVSHMEM's and the raw floor's, the host-initiated curves. Packs after every
# stage; stops starting stages when its time budget is near. Without a GPU every stage after the build skips (77).
#
# How to run it (the device tool's `run`; a session has 15 minutes of device time in all, the machine's start
# included, and a command at most 10):
#   0. here, once (downloads the NVSHMEM wheel the first time):   bash bench/nvshmem/build.sh
#      (builds .nvshmem/: nvshmem-perf-dev and the two libraries it loads, 56 MB; the repository adds about 5 MB, the
#      tool carries 64 MiB at most)
#   1. run  command: scripts/gpu-run.sh "$OUT"
#           carry: [".nvshmem"]        timeout_s: 570        (kind left out: an H100 or an H200, either will do)
#   2. if device time is left, on the same warm machine (its build is kept):
#      run  command: GPU_RUN_BUDGET=200 scripts/gpu-run.sh "$OUT" curves pinned mps
#           carry: [".nvshmem"]        timeout_s: 230
#   Then give_back. What comes back: OUT/summary.txt (read it first: every stage's tests passed, failed, skipped, and
#   the tables below), OUT/dev-ratio.md (gshmem / NVSHMEM and gshmem / floor per figure; dev-ratio-mps.md from mps),
#   OUT/dev-results.md (a bench/results/ entry to complete), OUT/curves.md (the host-initiated curves beside the CUDA
#   copy floor), OUT/gpu-<stages>.tgz (every log and JSON file).
#
# Stages (default: build devtests hosttests perfdev nvshmem floor curves, in this order):
#   build      configure (Release; sm_90 machine code; libfabric, PMIx, hwloc, HIP, Level Zero, OpenMP offload, FFTW
#              and OpenBLAS off, as that machine has none of them) and build everything in parallel: the library, tests
#              and benchmarks, the workloads' nvcc forms, shmem-perf-dev and gpu-floor by nvcc, and tests/device by
#              nvcc (as an application builds them: plain nvcc -c, no -rdc)
#   devtests   the tests CMake defines for tests/device, the spec examples, the workloads' GPU forms and
#              shmem-perf-dev on the CPU emulation, run with the nvcc builds in their place, at 1 and 2 PEs, the
#              2-PE ones again with SHMEM_DEVICE_PROXY_ALL=1, then proxy reordering, misuse and mutation checks; no
#              fake-driver or emulation test (scripts/gpu-run-tests.py)
#   hosttests  the GPU-aware host tests on the real driver (GPU heap, collectives, types, local, ordering, GPU errors)
#   perfdev    shmem-perf-dev: gshmem's device-initiated figures (bench/devbench.cuh)
#   nvshmem    the same figures by NVSHMEM (.nvshmem, carried; if it was not, built there from an installed
#              nvidia-nvshmem package when Python finds one)
#   floor      the same figures as raw stores, copies and atomics through CUDA IPC (gpu-floor --mode dev), then the
#              table of the three (bench/dev-ratio.py)
#   curves     gpu-floor --mode copy and shmem-perf put/get latency and bandwidth for H-H, H-D, D-H, D-D (curve-XY: one)
#   pinned     H-D and D-H again with SHMEM_GPU_PIN_HOST=1
#   cutover    put and get latency up to 64 KiB for H-D, D-H, D-D with SHMEM_GPU_COPY_CUTOVER=0, 4k, 64k (cutover-N)
#   mps        the ping-pongs of perfdev, nvshmem and floor again under CUDA MPS, where the two PEs' kernels run at once
#              (without it two processes take turns on the GPU, and a ping-pong waits for the other's turn)
#
# Time: GPU_RUN_BUDGET seconds in all (default 540), counted from the start; a stage starts only with at least
# GPU_RUN_MIN_STAGE (30) left, and is stopped at its own limit or when the budget is spent, keeping 10 s for the
# packing. Limits (GPU_RUN_LIMIT_<NAME>, s): BUILD 300, DEVTESTS 150, HOSTTESTS 75, PERFDEV 60, NVSHMEM 60, FLOOR 45
# (mps: the same three), FLOORCOPY 60 and CURVE 90 (each combination). Every test has its own timeout (60 s) inside
# its stage's. On 16 cores the build should take 2-4 minutes, so the first call's budget ends about at the floor
# stage; the curves wait for the second call.
# Environment: GPU_RUN_JOBS (tests at a time, 4; tests whose kernels wait for each other slow down when many share
# the GPU), GPU_RUN_TESTS (a regex: only the tests so named, e.g. those that timed out, again with GPU_RUN_JOBS=1),
# GPU_RUN_BUILD_JOBS (compilers at a time: ninja's default, and the
# cores for tests/device's nvcc runs), GPU_RUN_ARCH (sm_90), BUILD (build-gpu), WORK (the work folder),
# GPU_RUN_QUICK_BUILD=1 (build the library and tools only, and check that every other target this script needs is
# defined: scripts/test.sh's dry run on a machine without a GPU).
# Exit status: 0 every stage that ran passed, 1 a stage failed (the summary says which), 77 no GPU (after the build).
set -u
cd "$(dirname "$0")/.." || exit 1
out=${1:-${OUT:-/tmp/gpu-out}}
shift $(($# > 0 ? 1 : 0))
stages=${*:-build devtests hosttests perfdev nvshmem floor curves}
build=${BUILD:-build-gpu}
arch=${GPU_RUN_ARCH:-sm_90}
jobs=${GPU_RUN_JOBS:-4}
budget=${GPU_RUN_BUDGET:-540}
min_stage=${GPU_RUN_MIN_STAGE:-30}
np=2
max=${MAX:-64M}
tag=$(echo "$stages" | tr ' ' '_')
work=${WORK:-/tmp/gpu-work-$tag}
mkdir -p "$out" "$work" || exit 1
case $build in /*) ;; *) build=$PWD/$build ;; esac
: > "$out/summary.txt"
status=0
mps_up=0

say() { echo "$*" | tee -a "$out/summary.txt"; }
pack() {
    cp "$out/summary.txt" "$work/" 2>/dev/null
    tar czf "$out/gpu-$tag.tgz" -C "$work" . 2>/dev/null
}
mps_stop() {
    if [ "$mps_up" = 1 ]; then
        echo quit | nvidia-cuda-mps-control > /dev/null 2>&1
        mps_up=0
    fi
}
trap 'mps_stop; pack' EXIT

have_gpu() { nvidia-smi -L 2> /dev/null | grep -q '^GPU '; }

# seconds a stage may run: its own limit, less what the budget has left (10 s kept for packing)
limit_for() {
    local var="GPU_RUN_LIMIT_${1^^}" dflt=$2 left=$((budget - SECONDS - 10))
    local lim=${!var:-$dflt}
    echo $((lim < left ? lim : left))
}

# ---- build ----

# every program of tests/device: each X.cu with a main is the program X (the emulation's build of it is
# build/tests/device/X), but emu_runtime (the emulation's own) and dev_two (two units and a library: its own rule)
dev_progs=$(grep -l '^int main' tests/device/*.cu | sed 's|.*/||; s|\.cu$||' |
    grep -v -x -e emu_runtime -e dev_two_a -e dev_two_b | tr '\n' ' ')
nvcc_targets=(shmem-perf-dev-cuda gups-gpu-cuda bucket_sort_gpu_cuda cannon_gpu_cuda fft2d_gpu_cuda heat3d-gpu-cuda)

# pool CMD...: runs CMD in the background once fewer jobs than cores run; pool_wait: waits for all, 1 if any failed
pool_n=0
pool_bad=0
pool() {
    if [ $pool_n -ge "${GPU_RUN_BUILD_JOBS:-$(nproc)}" ]; then
        wait -n || pool_bad=1
        pool_n=$((pool_n - 1))
    fi
    "$@" &
    pool_n=$((pool_n + 1))
}
pool_wait() {
    while [ $pool_n -gt 0 ]; do
        wait -n || pool_bad=1
        pool_n=$((pool_n - 1))
    done
    local b=$pool_bad
    pool_bad=0
    return $b
}

# nv LOG ARGS...: one nvcc run with nv_flags, its output appended to $build/gpu-nvcc/LOG.log
nvcc=${GSHMEM_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
nv_flags=()
# shellcheck disable=SC2317 # (called through pool)
nv() {
    local log=$1
    shift
    "$nvcc" "${nv_flags[@]}" "$@" >> "$build/gpu-nvcc/$log.log" 2>&1
}

# tests/device with nvcc, as tests/device/nvcc_build.sh builds them: each unit alone, no -rdc; two units in one
# program, kernels in a shared library. compile: the objects (headers only: alongside the library's build); link:
# after the library.
nvcc_devtests() {
    local phase=$1 d=$build/gpu-nvcc src=tests/device lib=$build t
    nv_flags=(-std=c++17 -O2 -arch="$arch" -Iinclude -I"$src")
    mkdir -p "$d"
    if [ "$phase" = compile ]; then
        for t in $dev_progs dev_api_compile dev_two_a dev_two_b dev_lib; do
            # (an object newer than every header and test source is kept: a second call on a warm machine)
            [ -f "$d/$t.o" ] && [ -z "$(find include "$src" -newer "$d/$t.o" -print -quit)" ] && continue
            rm -f "$d/$t.log"
            case $t in
            dev_two_a) pool nv "$t" -DWITH_LIB=1 -c "$src/$t.cu" -o "$d/$t.o" ;;
            dev_lib) pool nv "$t" -Xcompiler -fPIC -c "$src/$t.cu" -o "$d/$t.o" ;;
            *) pool nv "$t" -c "$src/$t.cu" -o "$d/$t.o" ;;
            esac
        done
    else
        for t in $dev_progs; do
            pool nv "$t" "$d/$t.o" -L"$lib" -Xlinker -rpath -Xlinker "$lib" -lgshmem -o "$d/$t"
        done
        pool nv dev_lib -shared "$d/dev_lib.o" -L"$lib" -lgshmem -o "$d/libdev_lib.so"
        pool_wait || return 1
        pool nv dev_two_a "$d/dev_two_a.o" "$d/dev_two_b.o" -L"$d" -L"$lib" -Xlinker -rpath -Xlinker "$d:$lib" \
            -ldev_lib -lgshmem -o "$d/dev_two"
    fi
    pool_wait
}

do_build() {
    local t0=$SECONDS lim
    lim=$(limit_for build 300)
    nvidia-smi > "$work/nvidia-smi.txt" 2>&1
    cmake -G Ninja -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGSHMEM_WITH_OFI=OFF -DGSHMEM_WITH_PMIX=OFF \
        -DGSHMEM_HWLOC=OFF -DGSHMEM_HIP_KERNELS=OFF -DGSHMEM_ZE_KERNELS=OFF -DGSHMEM_OMP=OFF \
        -DGSHMEM_APPS_HOST_LIBS=OFF -DGSHMEM_CUDA_SASS_ARCHS="${arch#sm_}" -DGSHMEM_CUDA_BENCH_ARCH="$arch" \
        > "$work/build.log" 2>&1 ||
        { say "build: configure failed (build.log)"; tail -20 "$work/build.log"; return 1; }
    # every target named here must exist in this configuration (a renamed target fails here, not on the GPU)
    local t missing=""
    for t in gshmem oshrun shmem_info shmem-perf gpu-floor "${nvcc_targets[@]}"; do
        ninja -C "$build" -t query "$t" > /dev/null 2>&1 || missing="$missing $t"
    done
    for t in dev_api_compile dev_two_a dev_two_b dev_lib; do
        [ -f "tests/device/$t.cu" ] || missing="$missing tests/device/$t.cu"
    done
    [[ " $dev_progs " = *" dev_smoke "* ]] || missing="$missing tests/device's programs (found: $dev_progs)"
    [ -z "$missing" ] || { say "build: not defined in this configuration:$missing"; return 1; }
    if [ "${GPU_RUN_QUICK_BUILD:-0}" = 1 ]; then
        timeout "$lim" ninja -C "$build" ${GPU_RUN_BUILD_JOBS:+-j "$GPU_RUN_BUILD_JOBS"} gshmem oshrun shmem_info \
            >> "$work/build.log" 2>&1 ||
            { say "build: failed (build.log)"; tail -30 "$work/build.log"; return 1; }
        say "build (quick: library and tools; ${#nvcc_targets[@]} nvcc targets and tests/device" \
            "checked, not built): $((SECONDS - t0)) s"
    else
        nvcc_devtests compile &
        local dev=$!
        # -k 0: a workload that fails to build (cuBLAS or cuFFT missing) must not stop the rest
        timeout "$lim" ninja -C "$build" ${GPU_RUN_BUILD_JOBS:+-j "$GPU_RUN_BUILD_JOBS"} -k 0 all "${nvcc_targets[@]}" \
            >> "$work/build.log" 2>&1
        local rc=$?
        wait "$dev"
        local rcd=$?
        if [ -f "$build/libgshmem.so" ] && [ -x "$build/tools/oshrun" ]; then
            [ "$rcd" = 0 ] && nvcc_devtests link
            rcd=$?
        fi
        (cd "$build/gpu-nvcc" && tar czf "$work/nvcc-logs.tgz" ./*.log) 2> /dev/null
        [ "$rc" = 0 ] || say "build: ninja exited $rc (build.log): $(grep -c '^FAILED' "$work/build.log") failed steps"
        [ "$rcd" = 0 ] || say "build: tests/device by nvcc failed (nvcc-logs.tgz)"
        local lacking=""
        for t in bench/cuda/shmem-perf-dev bench/gpu-floor-bin/gpu-floor tools/oshrun libgshmem.so; do
            [ -e "$build/$t" ] || lacking="$lacking $t"
        done
        if [ -n "$lacking" ]; then
            say "build failed: missing$lacking"
            grep -A5 '^FAILED' "$work/build.log" | head -40
            return 1
        fi
        say "build: $((SECONDS - t0)) s"
    fi
    "$build/tools/shmem_info" > "$work/shmem_info.txt" 2>&1
    say "$(grep -m1 '^GPU' "$work/shmem_info.txt")"
    return 0
}

# ---- tests ----

run_tests() { # run_tests SET STAGE LIMIT [ARGS...]: scripts/gpu-run-tests.py until the stage's deadline
    local set=$1 lim
    lim=$(limit_for "$2" "$3")
    shift 3
    python3 scripts/gpu-run-tests.py --build "$build" --out "$work" --set "$set" --jobs "$jobs" --timeout 60 \
        --deadline $(($(date +%s) + lim)) --only "${GPU_RUN_TESTS:-}" "$@" > "$work/$set-summary.txt" 2>&1
    local rc=$?
    tee -a "$out/summary.txt" < "$work/$set-summary.txt" | head -60
    [ $rc = 0 ] || [ $rc = 77 ]
}

do_devtests() {
    local m=() t a
    for t in $dev_progs dev_two; do
        m+=(--map "$build/tests/device/$t=$build/gpu-nvcc/$t")
    done
    m+=(--map "$build/bench/shmem-perf-dev-emu=$build/bench/cuda/shmem-perf-dev")
    for a in gups/gups-gpu-emu:gups_gpu bucket_sort/bucket_sort_gpu_emu:bucket_sort_gpu \
        cannon/cannon_gpu_emu:cannon_gpu fft2d/fft2d_gpu_emu:fft2d_gpu heat3d/heat3d-gpu-emu:heat3d_gpu; do
        m+=(--map "$build/bench/apps/${a%%:*}=$build/bench/apps/${a%%/*}/cuda/${a##*:}")
    done
    run_tests device devtests 150 "${m[@]}" --max-np 2
}

do_hosttests() {
    local gpu='^(ft_gpu_|ft_err_gpu_|ft_err_space_device|ft_err_device_|perf_gpu_|gpu_floor_|topo_map_gpu_'
    run_tests host hosttests 75 --include "$gpu|rt_partition_refused_device)" --exclude 'coherent|fake|emu'
}

# ---- device-initiated figures ----

ratio() { # the table of what perfdev, nvshmem and floor have measured so far (and a results/ entry), beside the archive
    local res=()
    [ -n "$1" ] || res=(--results "$out/dev-results.md")
    python3 bench/dev-ratio.py --gshmem "$work/perfdev$1.json" --nvshmem "$work/nvshmem$1.json" \
        --floor "$work/floor$1.json" --out "$out/dev-ratio$1.md" "${res[@]}" \
        --run "scripts/gpu-run.sh (stages perfdev, nvshmem, floor$2)" > /dev/null 2>&1 &&
        cp "$out/dev-ratio$1.md" "$work/" && cp "$out/dev-results.md" "$work/" 2> /dev/null
    return 0
}

bench_run() { # bench_run NAME LIMIT CMD...: one benchmark, its table kept, its status said
    local name=$1 lim=$2
    shift 2
    timeout -k 5 "$lim" "$@" > "$work/$name.txt" 2>&1
    local rc=$?
    local why=""
    [ $rc = 124 ] && why=" (stopped after $lim s)"
    [ $rc = 77 ] && why=" (it found no GPU support: skipped)"
    say "$name: exit $rc$why"
    [ $rc = 0 ] || tail -5 "$work/$name.txt"
    return $rc
}

do_perfdev() { # $1: json suffix, $2: extra options
    local lim
    lim=$(limit_for perfdev 60)
    # shellcheck disable=SC2086 # ($2: options, split)
    bench_run "perfdev$1" "$lim" env SHMEM_SYMMETRIC_SIZE_DEVICE=64M "$build/tools/oshrun" -np $np \
        "$build/bench/cuda/shmem-perf-dev" --json "$work/perfdev$1.json" ${2:-}
    local rc=$?
    ratio "$1" "${3:-}"
    return $rc
}

nvshmem_bin() { # the carried build, else one made here from an installed package
    if [ -x .nvshmem/bin/nvshmem-perf-dev ]; then
        cp .nvshmem/BUILD-INFO "$work/nvshmem-BUILD-INFO.txt" 2> /dev/null
        echo "$PWD/.nvshmem/bin/nvshmem-perf-dev"
        return 0
    fi
    local home
    home=$(python3 -c 'import importlib.util as u
print(list(u.find_spec("nvidia.nvshmem").submodule_search_locations)[0])' 2> /dev/null)
    [ -n "$home" ] && [ -e "$home/lib/libnvshmem_device.a" ] || return 1
    NVSHMEM_HOME=$home NVSHMEM_ARCH=$arch NVSHMEM_CARRY_LIMIT_MB=1000 timeout 120 \
        bash bench/nvshmem/build.sh "$work/nvshmem-here" > "$work/nvshmem-build.log" 2>&1 || return 1
    cp "$work/nvshmem-here/BUILD-INFO" "$work/nvshmem-BUILD-INFO.txt"
    echo "$work/nvshmem-here/bin/nvshmem-perf-dev"
}

do_nvshmem() {
    local lim bin
    lim=$(limit_for nvshmem 60)
    if ! bin=$(nvshmem_bin); then
        say "nvshmem: skipped: no .nvshmem carried (bash bench/nvshmem/build.sh here, then carry .nvshmem) and no" \
            "NVSHMEM package with its device library found here"
        return 0
    fi
    # shellcheck disable=SC2086 # ($2: options, split)
    bench_run "nvshmem$1" "$lim" env NVSHMEM_SYMMETRIC_SIZE=256M "$build/tools/oshrun" -np $np "$bin" \
        --json "$work/nvshmem$1.json" ${2:-}
    local rc=$?
    ratio "$1" "${3:-}"
    return $rc
}

do_floor() {
    local lim
    lim=$(limit_for floor 45)
    # shellcheck disable=SC2086 # ($2: options, split)
    bench_run "floor$1" "$lim" "$build/bench/gpu-floor-bin/gpu-floor" --mode dev --json "$work/floor$1.json" ${2:-}
    local rc=$?
    ratio "$1" "${3:-}"
    return $rc
}

do_mps() {
    if ! command -v nvidia-cuda-mps-control > /dev/null; then
        say "mps: skipped: nvidia-cuda-mps-control is not installed"
        return 0
    fi
    export CUDA_MPS_PIPE_DIRECTORY=$work/mps-pipe CUDA_MPS_LOG_DIRECTORY=$work/mps-log
    export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 # (half the GPU each: NVSHMEM's full multi-process mode asks for it)
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    nvidia-cuda-mps-control -d || { say "mps: the MPS daemon did not start"; return 1; }
    mps_up=1
    local only="--only pingpong,sigpong --mps" rc=0
    do_perfdev -mps "$only" ", under MPS" || rc=1
    do_nvshmem -mps "$only" ", under MPS" || rc=1
    do_floor -mps "$only" ", under MPS" || rc=1
    mps_stop
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
    return $rc
}

# ---- host-initiated curves ----

perf() { # perf SRC DST TAG [ENV...]: one shmem-perf run of put/get latency and bandwidth
    local s=$1 d=$2 t=$3 lim
    shift 3
    lim=$(limit_for curve 90)
    env SHMEM_SYMMETRIC_SIZE=512M SHMEM_SYMMETRIC_SIZE_DEVICE=512M "$@" timeout -k 5 "$lim" "$build/tools/oshrun" \
        -np $np "$build/bench/shmem-perf" --src "$s" --dst "$d" --test put_lat,put_bw,get_lat,get_bw --max "$max" \
        --json "$work/shmem-perf-$t-np$np.json" > "$work/shmem-perf-$t-np$np.txt" 2>&1
    local rc=$?
    say "shmem-perf $s -> $d ($t): exit $rc$([ $rc = 124 ] && echo " (stopped after $lim s)")"
    curves
    return $rc
}

curves() { # the curves measured so far at a few sizes, beside the CUDA copy floor, beside the archive
    python3 bench/curve-table.py --floor "$work/floor-copy.json" --out "$out/curves.md" "$work"/shmem-perf-*.json \
        > /dev/null 2>&1 && cp "$out/curves.md" "$work/"
}

lat() { # lat SRC DST TAG [ENV...]: put and get latency up to 64 KiB
    local s=$1 d=$2 t=$3 lim
    shift 3
    lim=$(limit_for curve 60)
    env SHMEM_SYMMETRIC_SIZE_DEVICE=512M "$@" timeout -k 5 "$lim" "$build/tools/oshrun" -np $np \
        "$build/bench/shmem-perf" --src "$s" --dst "$d" --test put_lat,get_lat --max 64K \
        --json "$work/lat-$t-np$np.json" > "$work/lat-$t-np$np.txt" 2>&1
    local rc=$?
    say "latency $s -> $d ($t): exit $rc$([ $rc = 124 ] && echo " (stopped after $lim s)")"
    return $rc
}

do_curves() { # do_curves [XY...]: the combinations (default all four), after the copy floor
    local lim c s d rc=0
    if [ $# = 0 ]; then
        lim=$(limit_for floorcopy 60)
        bench_run floor-copy "$lim" "$build/bench/gpu-floor-bin/gpu-floor" --mode copy --max "$max" \
            --json "$work/floor-copy.json" || rc=1
        set -- hh hd dh dd
    fi
    for c in "$@"; do
        [ $((budget - SECONDS)) -ge "$min_stage" ] || { say "curve-$c: not started (budget)"; continue; }
        s=host d=host
        [ "${c:0:1}" = d ] && s=device
        [ "${c:1:1}" = d ] && d=device
        perf "$s" "$d" "$c" || rc=1
    done
    return $rc
}

# ---- the stages ----

for stage in $stages; do # (a misspelt stage must not cost a GPU run its first stages)
    case $stage in
    build | devtests | hosttests | perfdev | nvshmem | floor | mps | curves | curve-[hd][hd] | pinned | cutover | \
        cutover-0 | cutover-4k | cutover-64k) ;;
    *)
        say "gpu-run.sh: unknown stage $stage (build devtests hosttests perfdev nvshmem floor curves curve-XY pinned" \
            "cutover cutover-N mps)"
        exit 2
        ;;
    esac
done
gpu=1
have_gpu || gpu=0
for stage in $stages; do
    t0=$SECONDS
    if [ "$stage" != build ] && [ $gpu = 0 ]; then
        say "stage $stage: skipped (no GPU: nvidia-smi lists none)"
        continue
    fi
    if [ $((budget - SECONDS)) -lt "$min_stage" ]; then
        say "stage $stage: not started: $((budget - SECONDS)) s of the ${budget} s budget left (GPU_RUN_BUDGET)"
        continue
    fi
    if [ "$stage" != build ] && [ ! -f "$build/build.ninja" ]; then
        do_build || { status=1; break; }
    fi
    rc=0
    case $stage in
    build) do_build || { status=1; pack; break; } ;;
    devtests) do_devtests || rc=1 ;;
    hosttests) do_hosttests || rc=1 ;;
    perfdev) do_perfdev "" || rc=1 ;;
    nvshmem) do_nvshmem "" || rc=1 ;;
    floor) do_floor "" || rc=1 ;;
    mps) do_mps || rc=1 ;;
    curves) do_curves || rc=1 ;;
    curve-hh | curve-hd | curve-dh | curve-dd) do_curves "${stage#curve-}" || rc=1 ;;
    pinned)
        perf host device hd-pinned SHMEM_GPU_PIN_HOST=1 || rc=1
        perf device host dh-pinned SHMEM_GPU_PIN_HOST=1 || rc=1
        ;;
    cutover | cutover-0 | cutover-4k | cutover-64k)
        cuts="0 4k 64k"
        [ "$stage" = cutover ] || cuts=${stage#cutover-}
        for c in $cuts; do
            for sd in "host device hd" "device host dh" "device device dd"; do
                read -r s d t <<< "$sd"
                lat "$s" "$d" "$t-cut$c" SHMEM_GPU_COPY_CUTOVER="$c" || rc=1
            done
        done
        ;;
    esac
    [ $rc = 0 ] || status=1
    say "stage $stage: $((SECONDS - t0)) s$([ $rc = 0 ] || echo ", FAILED")"
    pack
done
for f in dev-ratio dev-ratio-mps curves; do
    [ -f "$out/$f.md" ] || continue
    say ""
    case $f in
    dev-ratio) say "Device-initiated figures (gshmem, NVSHMEM, raw floor: same run, same card):" ;;
    dev-ratio-mps) say "The ping-pongs under MPS (both PEs' kernels on the GPU at once):" ;;
    curves) say "Host-initiated curves (shmem-perf medians; / CUDA copy floor = ratio):" ;;
    esac
    tee -a "$out/summary.txt" < "$out/$f.md"
done
say "total: $SECONDS s of the ${budget} s budget"
pack
ls -la "$out"
if [ $status = 0 ] && [ $gpu = 0 ]; then
    exit 77
fi
exit $status
