#!/usr/bin/env bash
# init-scaling.sh - times shmem_init + shmem_finalize of a trivial program under oshrun at growing PE counts, for two
# environments run alternately (A: as given, B: A plus --b-env), and prints wall medians and CPU seconds per PE.
set -euo pipefail

usage() {
    cat <<EOF
usage: bench/init-scaling.sh [--build DIR] [--b-build DIR] [--np "2 4 8 16 32 64"] [--reps 3]
                             [--b-env "FI_PROVIDER=tcp"] [--csv FILE] [--transport ofi] [--provider tcp]
Each PE count runs A then B, --reps times (alternating, so load drift hits both alike). --b-build: B runs that
build's oshrun and library (A/B of two builds: B's environment is then A's unless --b-env is given too). Wall: seconds of the whole
oshrun job (median of the reps). CPU/PE: user+sys of oshrun and all its PEs (RUSAGE_CHILDREN via /usr/bin/time)
divided by the PE count (median). The CSV (one row per run: config,npes,rep,wall_s,cpu_s,cpu_per_pe_s) is for plotting.
EOF
}

here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
bbuild=""
nps="2 4 8 16 32 64"
reps=3
benv="FI_PROVIDER=tcp"
csv=""
transport=ofi
provider=tcp
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --b-build) bbuild=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --b-env) benv=$2; benv_set=1; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --transport) transport=$2; shift 2 ;;
    --provider) provider=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
[ -n "$bbuild" ] && [ -z "${benv_set:-}" ] && benv="B_=1"
[ -n "$bbuild" ] || bbuild=$build
[ -x /usr/bin/time ] || { echo "init-scaling.sh: needs /usr/bin/time (Debian: apt install time)" >&2; exit 1; }
for b in "$build" "$bbuild"; do
    [ -x "$b/tools/oshrun" ] && [ -e "$b/libgshmem.so" ] ||
        { echo "init-scaling.sh: no oshrun/libgshmem.so under $b: build first" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <shmem.h>\nint main(void) {\n    shmem_init();\n    shmem_finalize();\n    return 0;\n}\n' >"$tmp/if.c"
cc -I"$here/include" -o "$tmp/if" "$tmp/if.c" -L"$build" -lgshmem -Wl,-rpath,"$build"
cp "$tmp/if" "$tmp/ifb"
[ "$bbuild" = "$build" ] || cc -I"$here/include" -o "$tmp/ifb" "$tmp/if.c" -L"$bbuild" -lgshmem -Wl,-rpath,"$bbuild"
[ -n "$csv" ] || csv=$tmp/init-scaling.csv
echo "config,npes,rep,wall_s,cpu_s,cpu_per_pe_s" >"$csv"

one() { # config npes rep env...
    local cfg=$1 np=$2 rep=$3 b=$build prog=$tmp/if
    shift 3
    [ "$cfg" = A ] || { b=$bbuild; prog=$tmp/ifb; }
    env SHMEM_TRANSPORT="$transport" SHMEM_OFI_PROVIDER="$provider" "$@" /usr/bin/time -f "%e %U %S" -o "$tmp/t" \
        "$b/tools/oshrun" -np "$np" "$prog" >/dev/null 2>"$tmp/err" ||
        { echo "init-scaling.sh: $cfg at $np PEs failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    read -r wall u s <"$tmp/t"
    awk -v c="$cfg" -v n="$np" -v r="$rep" -v w="$wall" -v u="$u" -v s="$s" \
        'BEGIN { printf "%s,%d,%d,%.3f,%.3f,%.4f\n", c, n, r, w, u + s, (u + s) / n }' >>"$csv"
}

for np in $nps; do
    for r in $(seq 1 "$reps"); do
        one A "$np" "$r" A_=1
        # shellcheck disable=SC2086 # --b-env is a list of VAR=value words
        one B "$np" "$r" $benv
    done
done

echo "A: $build, SHMEM_TRANSPORT=$transport SHMEM_OFI_PROVIDER=$provider; B: $bbuild, A's environment + $benv;" \
    "medians of $reps"
awk -F, 'NR > 1 { k = $1 "," $2; w[k] = w[k] " " $4; c[k] = c[k] " " $6; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
function med(s,   a, m, i, j, t) { m = split(s, a, " "); for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
    if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t } return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
END { printf "| PEs | A wall s | B wall s | A CPU/PE s | B CPU/PE s |\n|---|---|---|---|---|\n"
      for (i = 1; i <= n; i++) { p = order[i]
          printf "| %d | %.2f | %.2f | %.3f | %.3f |\n", p, med(w["A," p]), med(w["B," p]), med(c["A," p]), med(c["B," p]) } }' "$csv"
[ "$csv" = "$tmp/init-scaling.csv" ] || echo "(runs in $csv)"
