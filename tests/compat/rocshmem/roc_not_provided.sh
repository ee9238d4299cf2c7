#!/usr/bin/env bash
# roc_not_provided.sh CXX INCDIR - a rocSHMEM routine gshmem's front end does not provide stops compilation with a
# message naming it (as oshcc --emulate-gpu compiles), and a provided one compiles in the same program.
set -u
CXX=$1 INC=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c++17 -fsyntax-only -include gshmem/emu/cuda.hpp -I"$INC" -I"$INC/gshmem/emu/sys" -I"$INC/gshmem/compat")
fail=0
for call in "rocshmem_dump_stats()" "rocshmem_wg_team_create_ctx(ROCSHMEM_TEAM_WORLD, 0L, (rocshmem_ctx_t *)0)" \
  "rocshmem_int_wait_until_any((int *)0, (size_t)1, (const int *)0, ROCSHMEM_CMP_EQ, 1)" "rocshmem_query_thread((int *)0)"; do
  name=${call%%(*}
  printf '#include <rocshmem/rocshmem.hpp>\nusing namespace rocshmem;\nvoid f() { rocshmem_quiet(); %s; }\n' "$call" \
    > "$tmp/t.cpp"
  if "$CXX" "${flags[@]}" "$tmp/t.cpp" > "$tmp/out" 2>&1; then
    echo "FAIL: $name compiled, though the front end does not provide it"
    fail=1
  elif ! grep -q "$name is not provided by gshmem's rocSHMEM front end" "$tmp/out"; then
    echo "FAIL: $name stopped compilation without naming itself:"
    head -5 "$tmp/out"
    fail=1
  else
    echo "ok: $name stops compilation naming itself"
  fi
done
# every wait and test docs/porting.md lists as missing, in one program: each call must stop compilation naming itself
names=(rocshmem_signal_fetch_wave rocshmem_reset_stats)
for t in char schar uchar short ushort float double; do names+=(rocshmem_${t}_wait_until rocshmem_${t}_test); done
for t in char schar uchar short ushort float double int long longlong uint ulong ulonglong; do
  for f in all any some; do names+=(rocshmem_${t}_wait_until_$f rocshmem_${t}_wait_until_${f}_vector); done
done
{
  printf '#include <rocshmem/rocshmem.hpp>\nusing namespace rocshmem;\nvoid f() {\n'
  for n in "${names[@]}"; do printf '  %s((void *)0, 1);\n' "$n"; done
  printf '}\n'
} > "$tmp/all.cpp"
"$CXX" "${flags[@]}" -fmax-errors=0 "$tmp/all.cpp" > "$tmp/out" 2>&1 && { echo "FAIL: the missing waits compiled"; fail=1; }
missing=0
for n in "${names[@]}"; do
  grep -q "$n is not provided by gshmem's rocSHMEM front end" "$tmp/out" || { echo "FAIL: $n does not stop naming itself"; missing=$((missing + 1)); }
done
[ $missing = 0 ] && echo "ok: all ${#names[@]} missing waits, tests and stats routines stop naming themselves" || fail=1
printf '#include <rocshmem/rocshmem.hpp>\nusing namespace rocshmem;\nvoid f() { rocshmem_quiet(); }\n' > "$tmp/t.cpp"
"$CXX" "${flags[@]}" "$tmp/t.cpp" || { echo "FAIL: a program using only provided routines does not compile"; fail=1; }
exit $fail
