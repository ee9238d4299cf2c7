#!/usr/bin/env bash
# onnode-bw.sh - one-node put bandwidth of gshmem against Open MPI's OSHMEM and a plain memcpy of the same size, run
# alternately (gshmem, OSHMEM, memcpy, gshmem, ...) so a loaded host weighs on all three alike; medians and ratios.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/onnode-bw.sh [options]
  --gshmem DIR     gshmem CMake build dir (DIR/bench/shmem-perf, DIR/tools/oshrun) or install prefix
                   (default: ./build)
  --oshmem DIR     prefix of Open MPI's oshcc/oshrun (default: /usr)
  --rounds N       alternating rounds (default 5)
  --size BYTES     put size (default 1M; suffixes K, M)
  --clock LIST     wall, cpu or wall,cpu (default): shmem-perf --clock; cpu is PE 0's thread CPU time, which a
                   loaded host moves less than the wall clock
  --offset N       shmem-perf --offset N: source and target N bytes past a page in both libraries (default: where
                   each library's shmem_malloc and malloc put them)
  --gshmem-env VAR=VALUE  environment of the gshmem put runs (repeatable), e.g. SHMEM_WAIT_SPIN=100000000 keeps
                   PE 1 spinning in its barrier as OSHMEM's does instead of sleeping
  --out DIR        JSON and logs (default /tmp/onnode-bw)
  --csv FILE       every run's figures as CSV (default DIR/onnode-bw.csv)
  --md FILE        the summary as Markdown (default DIR/onnode-bw.md)
  --report         no runs: the summary of the CSV of an earlier run (--csv, or --out's)
The memcpy probe is shmem-perf's memcpy_bw at 1 PE bound to CPU 0 like PE 0 (a window of memcpy between private
buffers, nothing of the library in the loop); each put run also reports its own memcpy_bw and memcpy_sym_bw (into
its own heap).
EOF
}

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
gdir=$here/../build
odir=/usr
rounds=5
size=1M
clocks=wall,cpu
offset=
out=/tmp/onnode-bw
csv=
md=
g_env=()
report=
while [ $# -gt 0 ]; do
  case "$1" in
    --gshmem) gdir=$2; shift 2 ;;
    --oshmem) odir=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --clock) clocks=$2; shift 2 ;;
    --offset) offset=$2; shift 2 ;;
    --gshmem-env) g_env+=("$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --md) md=$2; shift 2 ;;
    --report) report=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "onnode-bw.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(CDPATH= cd -- "$out" && pwd)
csv=${csv:-$out/onnode-bw.csv}
md=${md:-$out/onnode-bw.md}

summarize() { # CSV of the runs -> Markdown summary on stdout and in $md
  python3 - "$csv" "$md" "$size" "${offset:-}" "${g_env[*]:-}" <<'EOF'
import csv, statistics, sys, datetime, os
path, mdpath, size, offset, genv = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
med = {}
for clock in sorted({r["clock"] for r in rows}, reverse=True):
    for impl, test in [("gshmem", "put_bw"), ("oshmem", "put_bw"), ("memcpy", "memcpy_bw"),
                       ("gshmem", "memcpy_bw"), ("gshmem", "memcpy_sym_bw"), ("oshmem", "memcpy_bw"),
                       ("oshmem", "memcpy_sym_bw")]:
        v = [float(r["median"]) for r in rows if r["clock"] == clock and r["impl"] == impl and r["test"] == test]
        if v:
            med[clock, impl, test] = (statistics.median(v), min(v), max(v), len(v))
loads = [float(r["load1"]) for r in rows]
out = [f"{len(set(r['round'] for r in rows))} alternating rounds, {size} puts, 2 PEs, "
       f"buffers {'at --offset ' + offset if offset else 'where each library allocates them'}"
       f"{'; gshmem with ' + genv if genv else ''}; "
       f"load average {min(loads):.1f}-{max(loads):.1f} ({os.cpu_count()} CPUs), "
       f"{datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc):%Y-%m-%d %H:%M} UTC (end)", "",
       "| clock | gshmem put | OSHMEM put | memcpy probe | gshmem/OSHMEM | gshmem/memcpy | OSHMEM/memcpy "
       "| gshmem memcpy_bw, memcpy_sym_bw in-run | OSHMEM in-run |",
       "|---|---|---|---|---|---|---|---|---|"]
for clock in ("wall", "cpu"):
    g, o, m = (med.get((clock, i, t)) for i, t in [("gshmem", "put_bw"), ("oshmem", "put_bw"), ("memcpy", "memcpy_bw")])
    if not (g and o and m):
        continue
    f = lambda x: f"{x[0]:.1f} ({x[1]:.1f}-{x[2]:.1f})"
    inr = lambda i: " / ".join(f"{med[clock, i, t][0]:.1f}" for t in ("memcpy_bw", "memcpy_sym_bw") if (clock, i, t) in med)
    out.append(f"| {clock} | {f(g)} | {f(o)} | {f(m)} | {g[0] / o[0]:.2f} | {g[0] / m[0]:.2f} | {o[0] / m[0]:.2f} "
               f"| {inr('gshmem')} | {inr('oshmem')} |")
out += ["", "GB/s, median over rounds of each run's median of 5 repetitions (range over rounds in parentheses)."]
text = "\n".join(out) + "\n"
open(mdpath, "w").write(text)
print(text)
EOF
}

if [ -n "$report" ]; then
  summarize
  exit 0
fi

if [ -x "$gdir/bench/shmem-perf" ] && [ -x "$gdir/tools/oshrun" ]; then
  g_bin=$gdir/bench/shmem-perf; g_run=$gdir/tools/oshrun
elif [ -x "$gdir/bin/shmem-perf" ] && [ -x "$gdir/bin/oshrun" ]; then
  g_bin=$gdir/bin/shmem-perf; g_run=$gdir/bin/oshrun
else
  echo "onnode-bw.sh: no shmem-perf and oshrun under $gdir (build the shmem-perf and oshrun targets)" >&2
  exit 1
fi
if [ ! -x "$odir/bin/oshcc" ] || [ ! -x "$odir/bin/oshrun" ]; then
  echo "onnode-bw.sh: no OSHMEM oshcc/oshrun under $odir/bin" >&2
  exit 1
fi
o_bin=$out/shmem-perf-oshmem
"$odir/bin/oshcc" -O2 -o "$o_bin" "$here/shmem-perf.c"
# Open MPI refuses root without these; its osc/rdma component crashes in shmem_finalize on this setup
o_env=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc=^rdma)

# Both launchers bind PE 0 to CPU 0 at 2 PEs; so is the probe, which unbound would take the less busy CPU
probe_bind=()
command -v taskset >/dev/null && probe_bind=(taskset -c 0)

args=(--min "$size" --max "$size" --reps 5)
[ -n "$offset" ] && args+=(--offset "$offset")
echo "round,impl,clock,test,size,median,min,max,load1" >"$csv"
run() { # round impl clock
  local r=$1 impl=$2 clock=$3 json="$out/$2-$3-r$1.json" load
  load=$(cut -d' ' -f1 /proc/loadavg)
  case "$impl" in
    gshmem) timeout 300 env ${g_env[@]+"${g_env[@]}"} "$g_run" -np 2 "$g_bin" "${args[@]}" --clock "$clock" --test put_bw,memcpy_bw,memcpy_sym_bw \
              --json "$json" >"$out/$impl-$clock-r$r.txt" 2>&1 ;;
    oshmem) timeout 300 "${o_env[@]}" "$odir/bin/oshrun" -np 2 "$o_bin" "${args[@]}" --clock "$clock" \
              --test put_bw,memcpy_bw,memcpy_sym_bw --json "$json" >"$out/$impl-$clock-r$r.txt" 2>&1 ;;
    memcpy) timeout 300 "${probe_bind[@]}" "$g_run" -np 1 "$g_bin" "${args[@]}" --clock "$clock" --test memcpy_bw --json "$json" \
              >"$out/$impl-$clock-r$r.txt" 2>&1 ;;
  esac
  python3 - "$json" "$r" "$impl" "$clock" "$load" >>"$csv" <<'EOF'
import json, sys
path, r, impl, clock, load = sys.argv[1:]
for row in json.load(open(path)):
    print(f"{r},{impl},{clock},{row['test']},{row['size']},{row['median']},{row['min']},{row['max']},{load}")
EOF
  echo "round $r $impl ($clock, load $load): $(grep -E '^(put|memcpy)' "$out/$impl-$clock-r$r.txt" | awk '{printf "%s %s  ", $1, $3}')" >&2
}

for r in $(seq 1 "$rounds"); do
  for clock in ${clocks//,/ }; do
    for impl in gshmem oshmem memcpy; do
      run "$r" "$impl" "$clock"
    done
  done
done
summarize
