#!/usr/bin/env bash
# not_provided.sh CXX INCDIR - a call of an NVSHMEM routine gshmem's front end does not provide stops compilation with
# a message naming the routine (under the emulation's compiler, as oshcc --emulate-gpu --compat=nvshmem compiles), and
# the front end's headers compile as C11 with -pedantic for host-only C programs.
set -u
CXX=$1 INC=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
flags=(-std=c++17 -fsyntax-only -include gshmem/emu/cuda.hpp -I"$INC" -I"$INC/gshmem/emu/sys" -I"$INC/gshmem/compat")
for call in "nvshmemx_qp_create(1, 2)" "nvshmemx_cumodule_init(nullptr)" "nvshmemx_tile_sum_allreduce_block(0)" \
            "nvshmemx_mc_ptr(0, nullptr)" "nvshmem_int_iput(nullptr, nullptr, 1, 1, 1, 0)"; do
  name=${call%%(*}
  printf '#include <nvshmem.h>\n#include <nvshmemx.h>\nint f() { return (int)%s; }\n' "$call" > "$tmp/$name.cpp"
  if "$CXX" "${flags[@]}" "$tmp/$name.cpp" > "$tmp/$name.log" 2>&1; then
    echo "FAIL: a call of $name compiled"
    fail=1
  elif ! grep -m1 'error' "$tmp/$name.log" | grep -q "$name is not provided by gshmem's NVSHMEM front end"; then
    echo "FAIL: $name: the first error does not name it:"
    head -5 "$tmp/$name.log"
    fail=1
  else
    echo "ok: $(grep -m1 -o "$name is not provided[^\"]*" "$tmp/$name.log")"
  fi
done
CC=${CC:-cc}
printf '#include <nvshmem.h>\n#include <nvshmemx.h>\nint main(void) { nvshmem_init(); int r = nvshmem_my_pe(); nvshmem_finalize(); return r; }\n' > "$tmp/host.c"
if "$CC" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$INC" -I"$INC/gshmem/compat" "$tmp/host.c" > "$tmp/host.log" 2>&1; then
  echo "ok: nvshmem.h compiles as C11 -pedantic for host code"
else
  echo "FAIL: nvshmem.h as C11:"
  head -10 "$tmp/host.log"
  fail=1
fi
exit $fail
