#!/usr/bin/env bash
# rocshmem-coverage.sh [ROCSHMEM] - how many of rocSHMEM's public routine names gshmem's rocSHMEM front end provides, by
# family; prints the markdown table kept in bench/results/2026-11-27-rocshmem-coverage.md (exit 77 without the headers).
#
# Method. ROCSHMEM is a rocSHMEM source tree (include/rocshmem/*.hpp) or a bare git directory of one (its HEAD is read;
# default: /work/.mirror/ROCm+rocSHMEM/repo); nothing of it is copied into this repository. rocSHMEM declares every
# typed routine by hand (no generating macros), so its names are read from its headers with comments stripped
# (c++ -fpreprocessed): an identifier rocshmem_* directly followed by '(' is a name. gshmem's are read from the
# preprocessed front end (c++ -E under the CPU emulation's flags, as oshcc --emulate-gpu --compat=rocshmem compiles),
# so each macro-made typed name is spelled out; names declared only to be refused at compile time
# (ROCSHMEMI_NOT_PROVIDED) are not provided. Provided = gshmem's names that rocSHMEM also has. A family is the first
# pattern that matches in the order of `family` below (setup first, so rocshmem_wg_init is setup; work-group and
# wavefront forms before RMA and collectives, so rocshmem_ctx_putmem_wg and rocshmem_ctx_int_sum_wg_reduce are
# "work-group/wave forms"). The older names (roc_shmem_*, before rocSHMEM's 2024 rename) are not in rocSHMEM's current
# headers: that row counts rocSHMEM's current names under the old prefix against the macros of gshmem's
# <roc_shmem/roc_shmem.hpp> that lead to a provided name, and is not part of the total.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
ROC=${1:-${ROCSHMEM:-/work/.mirror/ROCm+rocSHMEM/repo}}
CXX=${CXX:-c++}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
if [ -d "$ROC/include/rocshmem" ]; then
  cp -r "$ROC/include" "$w/roc"
elif git --git-dir="$ROC" rev-parse --verify -q HEAD > /dev/null 2>&1; then
  mkdir "$w/roc"
  git --git-dir="$ROC" archive HEAD include/rocshmem | tar -x -C "$w/roc" --strip-components=1
  echo "rocSHMEM: $(git --git-dir="$ROC" log -1 --format='%h (%cs)' HEAD)" >&2
else
  echo "no rocSHMEM headers (include/rocshmem) under $ROC"
  exit 77
fi
ls "$w"/roc/rocshmem/*.hpp > /dev/null 2>&1 || { echo "no include/rocshmem/*.hpp in $ROC"; exit 77; }
for f in "$w"/roc/rocshmem/*.hpp; do "$CXX" -w -fpreprocessed -dD -E -P -x c++ "$f"; done |
  grep -oE '\brocshmem_[a-z0-9_]+[[:space:]]*\(' | sed -E 's/[[:space:]]*\($//' | sort -u > "$w/roc.names"
printf '#include <rocshmem/rocshmem.hpp>\n' |
  "$CXX" -std=c++17 -E -P -include gshmem/emu/cuda.hpp -DGSHMEM_EMULATE_GPU=1 -I"$repo/include" \
    -I"$repo/include/gshmem/emu/sys" -I"$repo/include/gshmem/compat" -x c++ - |
  awk '/^namespace rocshmem/ { on = 1 } on' | grep -oE '\brocshmem_[a-z0-9_]+[[:space:]]*\(' |
  sed -E 's/[[:space:]]*\($//' | sort -u > "$w/gs.all"
grep -ohE '^ROCSHMEMI_NOT_PROVIDED\([a-z0-9_]+' "$repo/include/gshmem/compat/rocshmem/rocshmem.hpp" |
  sed 's/.*(//' | sort -u > "$w/refused"
comm -23 "$w/gs.all" "$w/refused" > "$w/gs"
comm -12 "$w/gs" "$w/roc.names" > "$w/both"
family() {
  awk '{
    n = $0; f = "other";
    if (n ~ /^rocshmem_(wg_)?(init|init_thread|finalize)$|global_exit|my_pe$|n_pes$|query_thread|_stats$/ &&
        n !~ /^rocshmem_team_/) f = "setup and query";
    else if (n ~ /^rocshmem_(malloc|free|ptr)$/) f = "memory";
    else if (n ~ /^rocshmem_team_/) f = "teams";
    else if (n ~ /ctx_create|ctx_destroy|create_ctx/) f = "contexts";
    else if (n ~ /_(wg|wave)$|_(wg|wave)_/) f = "work-group/wave forms";
    else if (n ~ /signal/) f = "signals";
    else if (n ~ /atomic/) f = "atomics";
    else if (n ~ /wait_until|_test$/) f = "waits/tests";
    else if (n ~ /quiet|fence/) f = "ordering";
    else if (n ~ /barrier|sync/) f = "barriers/sync";
    else if (n ~ /broadcast|alltoall|fcollect|reduce/) f = "collectives/reductions";
    else if (n ~ /put|get|_p$|_g$/) f = "RMA";
    print f "\t" n }'
}
# missing names folded by element type, so that one entry stands for a typed family
fold_types() {
  awk -v types="$types" 'BEGIN { nt = split(types, ty, " ") }
    { n = $0; t = "";
      for (i = 1; i <= nt; i++)
        if (index(n, "_" ty[i] "_")) { t = ty[i]; sub("_" t "_", "_TYPE_", n); break }
      if (!(n in seen)) { seen[n] = 1; order[++k] = n }
      if (t != "") { cnt[n]++; lst[n] = lst[n] (cnt[n] > 1 ? " " : "") t } }
    END { for (i = 1; i <= k; i++) { n = order[i];
        printf "%s%s", (i > 1 ? ", " : ""), n;
        if (cnt[n]) printf " (%s)", (cnt[n] > 7 ? cnt[n] " types" : lst[n]) } }'
}
types="longlong ulonglong int8 int16 int32 int64 uint8 uint16 uint32 uint64 size ptrdiff schar uchar ushort uint ulong \
short char int long float double"
order="setup and query|memory|teams|contexts|RMA|atomics|signals|waits/tests|ordering|barriers/sync|\
collectives/reductions|work-group/wave forms|other"
family < "$w/roc.names" > "$w/roc.f"
family < "$w/both" > "$w/both.f"
echo "| Family | gshmem provides | rocSHMEM | Missing (rocSHMEM names gshmem lacks) |"
echo "|---|---:|---:|---|"
IFS='|'
for f in $order; do
  t=$(awk -F'\t' -v f="$f" '$1 == f' "$w/roc.f" | wc -l)
  p=$(awk -F'\t' -v f="$f" '$1 == f' "$w/both.f" | wc -l)
  miss=$(awk -F'\t' -v f="$f" '$1 == f {print $2}' "$w/roc.f" | comm -23 - "$w/both" | fold_types | cut -c1-420)
  echo "| $f | $p | $t | $miss |"
done
unset IFS
echo "| **total** | $(wc -l < "$w/both") | $(wc -l < "$w/roc.names") | |"
# the older names: a macro roc_shmem_X -> rocshmem_X counts when rocshmem_X is provided and a rocSHMEM name
sed -E 's/^rocshmem_/roc_shmem_/' "$w/roc.names" > "$w/old.roc"
grep -oE '^#define roc_shmem_[a-z0-9_]+ rocshmem_[a-z0-9_]+$' "$repo/include/gshmem/compat/roc_shmem/roc_shmem.hpp" |
  awk '{print $3 "\t" $2}' | sort > "$w/old.map"
join -t "$(printf '\t')" "$w/old.map" "$w/both" | cut -f2 | sort -u > "$w/old.gs"
echo "| old roc_shmem_* names (not in the total) | $(comm -12 "$w/old.gs" "$w/old.roc" | wc -l) | $(wc -l < "$w/old.roc") | the same names as above, under the old prefix |"
echo
echo "gshmem names rocSHMEM does not have: $(comm -23 "$w/gs" "$w/roc.names" | tr '\n' ' ')"
echo "refused at compile time (ROCSHMEMI_NOT_PROVIDED): $(wc -l < "$w/refused"), of which not rocSHMEM names: $(comm -23 "$w/refused" "$w/roc.names" | tr '\n' ' ')"
