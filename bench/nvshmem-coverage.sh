#!/usr/bin/env bash
# nvshmem-coverage.sh [NVSHMEM_HOME] - how many of NVSHMEM's public API names gshmem's NVSHMEM front end provides, by
# family; prints the markdown table kept in bench/results/2026-11-27-nvshmem-coverage.md (needs nvcc; exit 77 without).
#
# Method. One unit that includes <nvshmem.h> and <nvshmemx.h> is compiled by nvcc with --keep, once against NVSHMEM
# (NVSHMEM_HOME, default: the PyPI wheel unpacked at /tmp/nvwhl/x/nvidia/nvshmem) and once against
# include/gshmem/compat; the preprocessed device pass (*.cpp1.ii) and host pass (*.cpp4.ii) are read, so every name a
# macro generates for each type is spelled out and names declared for one side only are counted. A name is an
# identifier nvshmem_* or nvshmemx_* directly followed by '(' (internal nvshmemi_* do not match), plus NVSHMEM's C++
# tile API, nvshmemx::tile_* (counted as such). Names the front end declares only to refuse them at compile time
# (NVSHMEMI_NOT_PROVIDED in include/gshmem/compat) are not provided. Provided = gshmem's names that NVSHMEM 3.8 also
# has; gshmem names that NVSHMEM 3.8 lacks are printed after the table. Families are assigned by the first matching
# pattern in the order of the table (so nvshmemx_int_sum_reduce_block is "block/warp", and a stream put is "on-stream").
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
NV=${1:-${NVSHMEM_HOME:-/tmp/nvwhl/x/nvidia/nvshmem}}
command -v nvcc > /dev/null || { echo "nvcc not found"; exit 77; }
[ -f "$NV/include/nvshmem.h" ] || { echo "NVSHMEM headers not found under $NV"; exit 77; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
printf '#include <nvshmem.h>\n#include <nvshmemx.h>\n' > "$w/u.cu"
names() { # $1: out file; rest: include flags
  local out=$1 d
  shift
  d=$(mktemp -d -p "$w")
  nvcc -std=c++17 -arch=sm_80 -rdc=true --keep --keep-dir "$d" "$@" -c "$w/u.cu" -o "$d/u.o" > "$d/log" 2>&1 ||
    { cat "$d/log"; exit 1; }
  cat "$d"/u.cpp1.ii "$d"/u.cpp4.ii | grep -v '^#' > "$d/all.ii"
  {
    grep -oE '\bnvshmemx?_[A-Za-z0-9_]+[[:space:]]*\(' "$d/all.ii" | sed -E 's/[[:space:]]*\($//'
    # the tile API: C++ templates in namespace nvshmemx, named without the prefix
    grep -oE '\btile_[a-z0-9_]+[[:space:]]*\(' "$d/all.ii" | sed -E 's/[[:space:]]*\($//; s/^/nvshmemx::/' |
      grep -vE '::tile_(memory|algo|coll)' || true
  } | sort -u > "$out"
}
names "$w/nv" -I"$NV/include"
names "$w/gs.all" -I"$repo/include" -I"$repo/include/gshmem/compat"
grep -ohE '^NVSHMEMI_NOT_PROVIDED\([a-z0-9_]+' "$repo"/include/gshmem/compat/*.h | sed 's/.*(//' | sort -u > "$w/refused"
comm -23 "$w/gs.all" "$w/refused" > "$w/gs"
comm -12 "$w/gs" "$w/nv" > "$w/both"
family() {
  awk '{
    n = $0; f = "other";
    if (n ~ /::tile_|_tile_/) f = "tile (nvshmemx::tile_*)";
    else if (n ~ /_qp_|ibgda|_qp$/) f = "IBGDA queue pairs";
    else if (n ~ /cumodule|culibrary/) f = "cumodule/culibrary";
    else if (n ~ /mc_ptr|_mc_|nvls|multicast/) f = "multicast (mc_ptr)";
    else if (n ~ /collective_launch/) f = "collective launch";
    else if (n ~ /_on_stream$/) f = "on-stream";
    else if (n ~ /_(block|warp|warpgroup)$/) f = "block/warp forms";
    else if (n ~ /_(sum|prod|min|max|and|or|xor)_(reduce|to_all|reducescatter)/ || n ~ /reducescatter/) f = "reductions";
    else if (n ~ /barrier|sync|fcollect|collect|alltoall|broadcast/) f = "barriers/collectives";
    else if (n ~ /signal/) f = "signals";
    else if (n ~ /wait|_test/) f = "point-to-point waits/tests";
    else if (n ~ /atomic/) f = "atomics";
    else if (n ~ /quiet|fence/) f = "ordering";
    else if (n ~ /team/) f = "teams";
    else if (n ~ /put|get|_p$|_g$/) f = "RMA";
    else if (n ~ /malloc|calloc|align|free|_ptr$|buffer_(un)?register|register_buffer/) f = "memory";
    else if (n ~ /init|finalize|my_pe|n_pes|version|uniqueid|global_exit|info_get|query|status|hostlib|vendor/)
      f = "setup/query";
    print f "\t" n }'
}
# missing names folded by element type, so that one entry stands for a typed family: nvshmem_TYPE_put (half, bfloat16)
fold_types() {
  awk -v types="$types" 'BEGIN { nt = split(types, ty, " ") }
    { n = $0; t = "";
      for (i = 1; i <= nt; i++)
        if (index(n, "_" ty[i] "_") || (ty[i] ~ /^[0-9]+$/ && n ~ ("(put|get)" ty[i] "(_|$)"))) {
          t = ty[i]; sub("_" t "_", "_TYPE_", n); sub("(put|get)" t, "&#", n); sub(t "#", "N", n); break }
      if (!(n in seen)) { seen[n] = 1; order[++k] = n }
      if (t != "") { cnt[n]++; if (cnt[n] <= 3) lst[n] = lst[n] (cnt[n] > 1 ? " " : "") t } }
    END { for (i = 1; i <= k; i++) { n = order[i];
        printf "%s%s", (i > 1 ? ", " : ""), n;
        if (cnt[n]) printf " (%s%s)", lst[n], (cnt[n] > 3 ? " ... " cnt[n] " types" : "") } }'
}
types="longlong ulonglong longdouble int8 int16 int32 int64 uint8 uint16 uint32 uint64 size ptrdiff schar uchar ushort \
uint ulong short char int long float double half bfloat16 8 16 32 64 128"
order="setup/query|memory|teams|RMA|atomics|signals|point-to-point waits/tests|ordering|barriers/collectives|\
reductions|block/warp forms|on-stream|collective launch|tile (nvshmemx::tile_*)|IBGDA queue pairs|\
cumodule/culibrary|multicast (mc_ptr)|other"
family < "$w/nv" > "$w/nv.f"
family < "$w/both" > "$w/both.f"
echo "| Family | gshmem provides | NVSHMEM 3.8 | Notable missing (NVSHMEM 3.8 names gshmem lacks) |"
echo "|---|---:|---:|---|"
IFS='|'
for f in $order; do
  t=$(awk -F'\t' -v f="$f" '$1 == f' "$w/nv.f" | wc -l)
  p=$(awk -F'\t' -v f="$f" '$1 == f' "$w/both.f" | wc -l)
  # missing names, folded by type so that one line stands for a whole typed family
  miss=$(awk -F'\t' -v f="$f" '$1 == f {print $2}' "$w/nv.f" | comm -23 - "$w/both" | fold_types | cut -c1-420)
  echo "| $f | $p | $t | $miss |"
done
unset IFS
echo "| **total** | $(wc -l < "$w/both") | $(wc -l < "$w/nv") | |"
echo
echo "gshmem names NVSHMEM 3.8 does not have: $(comm -23 "$w/gs" "$w/nv" | sed -E 's/_(int|long|longlong|short|float|double)_/_TYPE_/' | sort -u | tr '\n' ' ')"
echo "refused at compile time (NVSHMEMI_NOT_PROVIDED): $(wc -l < "$w/refused"), of which not NVSHMEM 3.8 names: $(comm -23 "$w/refused" "$w/nv" | tr '\n' ' ')"
