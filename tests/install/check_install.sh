#!/usr/bin/env bash
# check_install.sh - installs the build into a scratch prefix and checks that programs build the ways users build
# them: oshcc, oshc++, <mpp/shmem.h>, pkg-config and find_package(gshmem); then runs them with the installed oshrun.
# grep reads the whole output (no -q): with -q it exits at the first match and the writer may die of SIGPIPE under pipefail.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
P=$tmp/prefix
for f in bin/oshcc bin/oshc++ bin/oshrun bin/shmem_info include/shmem.h include/shmemx.h include/mpp/shmem.h include/pshmem.h \
         lib/pkgconfig/gshmem.pc lib/cmake/gshmem/gshmemConfig.cmake share/gshmem/env.sh; do
  [ -e "$P/$f" ] || { echo "missing $f in the install"; exit 1; }
done
# share/gshmem/env.sh puts gshmem's programs before Open MPI's /usr/bin/oshrun and oshcc and lets pkg-config and CMake
# find it, in bash (which finds the file's own directory) and in sh (which uses the prefix written at install time),
# also when the tree was moved; twice sourced, PATH holds it once
for sh in bash sh; do
  got=$(env -i HOME="$tmp" PATH=/usr/bin:/bin "$sh" -c '. "$1/share/gshmem/env.sh"; . "$1/share/gshmem/env.sh"
    pc=nopc; pkg-config --exists gshmem 2>/dev/null && pc=pc
    echo "$(command -v oshrun) $(command -v oshcc) $pc $CMAKE_PREFIX_PATH $PATH"' _ "$P")
  want="$P/bin/oshrun $P/bin/oshcc pc $P $P/bin:/usr/bin:/bin"
  [ "$got" = "$want" ] || { echo "env.sh in $sh: got '$got', want '$want'" >&2; exit 1; }
done
mv "$P" "$tmp/moved"
got=$(env -i PATH=/usr/bin:/bin bash -c '. "$1/share/gshmem/env.sh"; command -v oshrun' _ "$tmp/moved")
mv "$tmp/moved" "$P"
[ "$got" = "$tmp/moved/bin/oshrun" ] || { echo "env.sh of a moved tree, in bash: oshrun is '$got'" >&2; exit 1; }
cat > "$tmp/old.c" <<'C'
#include <mpp/shmem.h>
#include <stdio.h>
static long x;
int main(void) {
    start_pes(0);
    int me = _my_pe(), n = _num_pes();
    long *h = (long *)shmalloc(sizeof(long));
    shmem_long_p(&x, me, (me + 1) % n);
    *h = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(h, 1, 0);
    shmem_barrier_all();
    if (x != (me + n - 1) % n || (me == 0 && *h != n)) { printf("bad\n"); return 1; }
    if (me == 0) printf("ok %d\n", n);
    shfree(h);
    return 0;
}
C
cat > "$tmp/cxx.cpp" <<'C'
#include <shmem.h>
#include <cstdio>
int main() {
    shmem_init();
    int *v = static_cast<int *>(shmem_malloc(2 * sizeof(int)));
    shmem_p(v, shmem_my_pe(), 0);                        // C++ overload
    shmem_barrier_all();
    shmem_sum_reduce(SHMEM_TEAM_WORLD, v + 1, v, 1);     // team reduction through the overload set
    shmem_sync(SHMEM_TEAM_WORLD);
    shmem_free(v);
    shmem_finalize();
    return 0;
}
C
"$P/bin/oshcc" -Wno-deprecated-declarations "$tmp/old.c" -o "$tmp/old"
# deprecated routines warn (so -Werror stops), unless the switch is given: the oshcc option or the macro
if "$P/bin/oshcc" -Werror -c "$tmp/old.c" -o "$tmp/old-w.o" 2>/dev/null; then
  echo "oshcc: deprecated routines did not warn under -Werror" >&2; exit 1
fi
"$P/bin/oshcc" --no-deprecation-warnings -Werror -c "$tmp/old.c" -o "$tmp/old-w.o"
"$P/bin/oshcc" -DGSHMEM_NO_DEPRECATION_WARNINGS -Werror -c "$tmp/old.c" -o "$tmp/old-w.o"
"$P/bin/oshc++" "$tmp/cxx.cpp" -o "$tmp/cxx"
"$P/bin/oshcc" -c "$tmp/old.c" -o "$tmp/old.o" -Wno-deprecated-declarations && "$P/bin/oshcc" "$tmp/old.o" -o "$tmp/old2"
"$P/bin/oshrun" -np 3 "$tmp/old" | grep "ok 3" >/dev/null
"$P/bin/oshrun" -np 2 "$tmp/old2" | grep "ok 2" >/dev/null
"$P/bin/oshrun" -np 2 "$tmp/cxx"
if command -v pkg-config >/dev/null; then
  cc "$tmp/old.c" -Wno-deprecated-declarations -o "$tmp/pc" $(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs gshmem)
  "$P/bin/oshrun" -np 2 "$tmp/pc" | grep "ok 2" >/dev/null
fi
mkdir -p "$tmp/cm"
cat > "$tmp/cm/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.25)
project(use_gshmem C)
find_package(gshmem REQUIRED)
add_executable(old ../old.c)
target_compile_options(old PRIVATE -Wno-deprecated-declarations)
target_link_libraries(old PRIVATE gshmem::gshmem)
C
cmake -S "$tmp/cm" -B "$tmp/cm/b" -G Ninja -DCMAKE_PREFIX_PATH="$P" >/dev/null
cmake --build "$tmp/cm/b" >/dev/null
"$P/bin/oshrun" -np 2 "$tmp/cm/b/old" | grep "ok 2" >/dev/null
"$P/bin/shmem_info" --all | grep SHMEM_SYMMETRIC_SIZE >/dev/null
"$P/bin/shmem_info" | grep '^Symmetric heap: [0-9]' >/dev/null
# the installed demo and shmem-perf run as the README runs them (they find the library through their RUNPATH)
"$P/bin/oshrun" -np 2 "$P/bin/gshmem-demo" >/dev/null
if [ -x "$P/bin/shmem-perf" ]; then "$P/bin/oshrun" -np 2 "$P/bin/shmem-perf" --quick >/dev/null; fi
# a CUDA program built for the CPU emulation by the installed oshcc (compiled and linked in one step, and in two),
# run by the installed oshrun: kernels put around the ring and meet in a device barrier
mkdir -p "$tmp/cu"
cat >"$tmp/cu/ring.cu" <<'CU'
#include <cstdio>
#include <shmem.h>
#include <shmemg.h>
__global__ void ring(long *d, long *s) {
    int me = shmemg_my_pe(), n = shmemg_n_pes();
    *s = me;
    shmemg_putmem(d, s, sizeof(long), (me + 1) % n);
    shmemg_quiet();
    shmemg_sync_all();
}
int main() {
    int prov = 0;
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_KERNEL_INIT, &prov);
    long *b = (long *)shmemg_calloc(2, sizeof(long)), h = -1;
    ring<<<1, 1>>>(b, b + 1);
    cudaMemcpy(&h, b, sizeof h, cudaMemcpyDeviceToHost);
    int me = shmem_my_pe(), n = shmem_n_pes();
    printf("%s %d\n", (prov & SHMEM_DEVICE_KERNEL_INIT) && h == (me + n - 1) % n ? "ring ok" : "ring FAILED", me);
    shmem_finalize();
    return 0;
}
CU
"$P/bin/oshcc" --emulate-gpu "$tmp/cu/ring.cu" -o "$tmp/cu/ring1"
(cd "$tmp/cu" && "$P/bin/oshcc" --emulate-gpu -c ring.cu && "$P/bin/oshcc" --emulate-gpu ring.o -o ring2)
for r in ring1 ring2; do
  SHMEM_SYMMETRIC_SIZE_DEVICE=16M "$P/bin/oshrun" -np 2 "$tmp/cu/$r" >"$tmp/cu/out"
  [ "$(grep -c 'ring ok' "$tmp/cu/out")" = 2 ] || { echo "oshcc --emulate-gpu: $r did not run right:" >&2; cat "$tmp/cu/out" >&2; exit 1; }
done
# an NVSHMEM program as it is, through the front end oshcc --compat=nvshmem puts first on the include path
"$P/bin/oshcc" --emulate-gpu --compat=nvshmem "$src/tests/compat/nvshmem/nv_ring.cu" -o "$tmp/cu/nv_ring"
SHMEM_SYMMETRIC_SIZE_DEVICE=16M "$P/bin/oshrun" -np 2 "$tmp/cu/nv_ring" >"$tmp/cu/out"
[ "$(grep -c ': ok' "$tmp/cu/out")" = 2 ] || { echo "oshcc --compat=nvshmem: nv_ring did not run right:" >&2; cat "$tmp/cu/out" >&2; exit 1; }
# and for a GPU, compiled by nvcc and linked in one step: the host code's C++ and maths libraries come along, as with
# nvcc's own link (a host-side ceil() did not link before)
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  printf '%s\n' '#include <math.h>' '#include <nvshmem.h>' '#include <nvshmemx.h>' \
    '__global__ void k(int *d) { nvshmem_int_p(d, 1, 0); }' \
    'int main(int argc, char **argv) { (void)argv; nvshmem_init(); int *d = (int *)nvshmem_malloc(4);' \
    '  k<<<1, 1>>>(d); nvshmem_free(d); nvshmem_finalize(); return (int)ceil(argc / 2.0) - 1; }' >"$tmp/cu/nvm.cu"
  "$P/bin/oshcc" --compat=nvshmem "$tmp/cu/nvm.cu" -o "$tmp/cu/nvm" ||
    { echo "oshcc --compat=nvshmem: an nvcc build with a host-side ceil() did not link" >&2; exit 1; }
fi
[ "$("$P/bin/oshcc" --compat=nvshmem --showme:compile)" = "-I$P/include -I$P/include/gshmem/compat" ] ||
  { echo "oshcc --compat=nvshmem --showme:compile: $("$P/bin/oshcc" --compat=nvshmem --showme:compile)" >&2; exit 1; }
# a rocSHMEM program as it is, through oshcc --compat=rocshmem: it includes only rocSHMEM's header (which brings in HIP's
# runtime, as rocSHMEM's does), so --emulate-gpu must take the .cpp file as HIP for the header's sake
cat >"$tmp/cu/roc_shift.cpp" <<'ROC'
#include <cstdio>
#include <rocshmem/rocshmem.hpp>
using namespace rocshmem;
__global__ void shift(int *d) {
    rocshmem_int_p(d, rocshmem_my_pe(), (rocshmem_my_pe() + 1) % rocshmem_n_pes());
    rocshmem_quiet();
}
int main() {
    rocshmem_init();
    int *d = (int *)rocshmem_malloc(sizeof(int)), got = -1, me = rocshmem_my_pe(), n = rocshmem_n_pes();
    shift<<<1, 1>>>(d); // (hipcc takes the triple chevrons too: the emulation must rewrite them)
    if (hipDeviceSynchronize() != hipSuccess)
        return 1;
    rocshmem_barrier_all();
    if (hipMemcpy(&got, d, sizeof got, hipMemcpyDeviceToHost) != hipSuccess)
        return 1;
    printf("PE %d: %s\n", me, got == (me + n - 1) % n ? "shift ok" : "shift wrong");
    rocshmem_free(d);
    rocshmem_finalize();
    return 0;
}
ROC
"$P/bin/oshcc" --emulate-gpu --compat=rocshmem "$tmp/cu/roc_shift.cpp" -o "$tmp/cu/roc_shift"
SHMEM_SYMMETRIC_SIZE_DEVICE=16M "$P/bin/oshrun" -np 2 "$tmp/cu/roc_shift" >"$tmp/cu/out"
[ "$(grep -c 'shift ok' "$tmp/cu/out")" = 2 ] || { echo "oshcc --compat=rocshmem: roc_shift did not run right:" >&2; cat "$tmp/cu/out" >&2; exit 1; }
[ "$("$P/bin/oshc++" --compat=rocshmem --showme:compile)" = "-I$P/include -I$P/include/gshmem/compat" ] ||
  { echo "oshc++ --compat=rocshmem --showme:compile: $("$P/bin/oshc++" --compat=rocshmem --showme:compile)" >&2; exit 1; }
rc=0
"$P/bin/oshcc" --compat=openshmemx x.c 2>"$tmp/cu/err" || rc=$?
[ "$rc" = 2 ] && grep -F 'the front ends are --compat=nvshmem and --compat=rocshmem' "$tmp/cu/err" >/dev/null ||
  { echo "oshcc --compat=openshmemx: exit $rc, said: $(cat "$tmp/cu/err")" >&2; exit 1; }
# an object from hipcc links with oshcc alone (oshcc adds the HIP runtime and the C++ runtime its host code needs);
# nvcc's forms are the ones docs/device.md shows, run by docs_commands. Not run: no AMD GPU here.
if command -v hipcc >/dev/null; then
  cat >"$tmp/cu/ring_hip.cpp" <<'HIP'
#include <hip/hip_runtime.h>
#include <shmem.h>
#include <shmemg.h>
__global__ void ring(long *d, long *s) {
    *s = shmemg_my_pe();
    shmemg_putmem(d, s, sizeof(long), (shmemg_my_pe() + 1) % shmemg_n_pes());
    shmemg_quiet();
}
int main() {
    shmem_init_thread(SHMEM_THREAD_SINGLE | SHMEM_DEVICE_KERNEL_INIT, nullptr);
    long *b = (long *)shmemg_calloc(2, sizeof(long)), h = -1;
    ring<<<1, 1>>>(b, b + 1);
    return hipMemcpy(&h, b, sizeof h, hipMemcpyDeviceToHost) != hipSuccess;
}
HIP
  (cd "$tmp/cu" && hipcc -std=c++17 -c $("$P/bin/oshcc" --showme:compile) ring_hip.cpp 2>/dev/null &&
    "$P/bin/oshcc" ring_hip.o -o ring_hip) || { echo "oshcc could not link an object from hipcc" >&2; exit 1; }
fi
# Programs hold copies of the exported team and context objects sized as when they were linked (copy relocations),
# so those sizes must never change (src/core/state.h): 256 bytes per team, 128 for the default context.
if command -v nm >/dev/null; then
  so=$(ls "$P"/lib*/libgshmem.so | head -1)
  sizes=$(nm -D -S "$so" | awk '$4 ~ /^gshmem_(team|ctx)_/ {print $4 "=" $2}' | sort | tr '\n' ' ')
  want="gshmem_ctx_default=0000000000000080 gshmem_ctx_device_default=0000000000000080 gshmem_team_device_shared=0000000000000100 gshmem_team_device_world=0000000000000100 gshmem_team_shared=0000000000000100 gshmem_team_world=0000000000000100 "
  if [ "$sizes" != "$want" ]; then
    echo "exported object sizes changed (an ABI break for linked programs): $sizes; want $want" >&2
    exit 1
  fi
fi
echo "install checks passed"
