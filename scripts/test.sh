#!/usr/bin/env bash
# test.sh - builds gshmem twice (optimized, and with AddressSanitizer + UBSan) and runs the whole ctest suite on
# both, the threaded tests under ThreadSanitizer, the configuration parsers under libFuzzer for a few seconds each, and
# the check that the generated API is up to date. Exit status is non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
python3 api/gen.py --check
bash scripts/check-format.sh
jobs=${GSHMEM_TEST_JOBS:-2}

cmake -S . -B build/ci -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSHMEM_WERROR=ON >/dev/null
cmake --build build/ci -j 2
# a venv with NumPy and shmem4py built against this gshmem, for the Python workload (app_train_mlp_*; about a minute of
# CPU, from PyPI): where PyPI cannot be reached those tests skip, and this says so
bash scripts/py-env.sh build/ci || echo "test.sh: py-env.sh failed: the app_train_mlp_* tests will skip" >&2
# (the stress suite, ctest -L stress, is opt-in: about 15 minutes of soak and link faults, docs/stress.md)
(cd build/ci && ctest --output-on-failure -j "$jobs" --timeout 300 -LE stress)
# the docs' commands again, with docs/using.md's build without root (a build of its own, about a minute), which the
# docs_commands test leaves out by default
(cd build/ci && DOCTEST_SLOW=1 ctest --output-on-failure -R '^docs_commands$')

# the build a GPU machine gets (none of Debian's packages there): no libfabric, PMIx, hwloc, hipcc, SPIR-V, nvcc or OpenMP
# offload; the library, oshrun and the demo must still build and run, and shmem_info say what is missing (about 1 min)
cmake -S . -B build/min -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSHMEM_WERROR=ON -DGSHMEM_BUILD_TESTS=OFF \
  -DGSHMEM_BUILD_BENCH=OFF -DGSHMEM_WITH_OFI=OFF -DGSHMEM_WITH_PMIX=OFF -DGSHMEM_HWLOC=OFF -DGSHMEM_HIP_KERNELS=OFF \
  -DGSHMEM_ZE_KERNELS=OFF -DGSHMEM_OMP=OFF -DGSHMEM_NVCC=GSHMEM_NVCC-NOTFOUND >/dev/null
cmake --build build/min -j 2 --target gshmem oshrun shmem_info gshmem-demo
# (its output captured first: with pipefail, grep -q quitting at the first match can kill shmem_info with SIGPIPE)
min_info=$(build/min/tools/shmem_info)
grep -q 'Topology: unknown — built without hwloc' <<<"$min_info" ||
  { echo "test.sh: the minimal build's shmem_info does not say it has no hwloc" >&2; exit 1; }
build/min/tools/oshrun -np 2 build/min/examples/gshmem-demo >/dev/null

# scripts/gpu-run.sh, the GPU machine's one command, dry: its build configures (that machine's options, nvcc on) and
# builds the library and tools, every target it builds there is defined, and every later stage skips with its message,
# the script exiting 77 (about 1-2 min); a GPU run is too scarce to find a typo in. Then the NVSHMEM benchmark must
# still compile and link against its wheel (about 1 min), only where the wheel is already cached on this machine
# (bench/nvshmem/build.sh fetched it once): CI does not download 180 MB from PyPI on every run.
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  dry=$(GPU_RUN_QUICK_BUILD=1 GPU_RUN_BUILD_JOBS=2 BUILD=build/gpu-dry WORK=build/gpu-dry-work \
    bash scripts/gpu-run.sh build/gpu-dry-out 2>&1) && rc=0 || rc=$?
  [ "$rc" = 77 ] || { echo "$dry"; echo "test.sh: gpu-run.sh without a GPU exited $rc, not 77 (skipped)" >&2; exit 1; }
  for s in devtests hosttests perfdev nvshmem floor curves; do
    grep -q "^stage $s: skipped (no GPU" <<<"$dry" ||
      { echo "$dry"; echo "test.sh: gpu-run.sh's stage $s did not skip cleanly without a GPU" >&2; exit 1; }
  done
  bash bench/nvshmem/build.sh --if-cached build/nvshmem-check
else
  echo "test.sh: no nvcc: gpu-run.sh's dry run and the NVSHMEM benchmark's build skipped" >&2
fi

# the parsers of sizes, partitions and the whole environment under libFuzzer (about 25 s)
bash scripts/fuzz.sh 5

cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGSHMEM_WERROR=ON -DGSHMEM_BUILD_BENCH=OFF \
  -DGSHMEM_SANITIZE=address,undefined >/dev/null
cmake --build build/asan -j 2
(cd build/asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs" --timeout 300 -LE 'nosan|ofi|netns|mrlocal|stress')
# the network path under the sanitizers too: every 2-PE functional test over libfabric tcp and net, and over tcp with
# local buffers registered (about 60 s)
(cd build/asan && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs" --timeout 300 -L 'ofi|mrlocal' -LE stress -R '_np2$')

# ThreadSanitizer over the tests with several threads per PE, on the shared-memory path and the GPU layers (emulated
# and the CUDA backend on the fake driver). Not over libfabric: it is not instrumented, so TSan cannot see its
# synchronisation (completions, counters) and reports the payloads it delivers as races. setarch -R (where allowed):
# TSan's shadow memory does not fit some kernels' randomised layouts.
cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGSHMEM_WERROR=ON -DGSHMEM_BUILD_BENCH=OFF \
  -DGSHMEM_SANITIZE=thread >/dev/null
cmake --build build/tsan -j 2 --target gshmem oshrun fakecuda ft_threads fc_ctx_threads fc_coll_threads dh_ft_threads \
  dh_fc_ctx_threads dh_fc_coll_threads ft_amo_flood ft_amo_flood_noprogress ft_progress_away
norand=()
if setarch "$(uname -m)" -R true 2>/dev/null; then norand=(setarch "$(uname -m)" -R); fi
(cd build/tsan && TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0 "${norand[@]}" \
  ctest --output-on-failure -j "$jobs" --timeout 300 --no-tests=error \
  -R '^(cudafake_)?(ft_threads|fc_ctx_threads|fc_coll_threads|devheap_(ctx_|coll_)?threads|ft_amo_flood|ft_amo_flood_noprogress|ft_progress_away)_np[0-9]+$')
