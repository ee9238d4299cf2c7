#!/usr/bin/env bash
# binding.sh [BUILD_DIR] [RUNS] [--hog] - 2-PE shmem-perf latencies with oshrun's default binding (each PE on its own core)
# and with --bind-to none, RUNS (5) runs each, alternating; prints a markdown table of the medians over runs and
# each mode's fastest and slowest run, where unbound PEs sharing one core show up. --hog: with a low-priority busy
# process (nice 19) beside them, as on a machine where anything else runs.
set -euo pipefail
build=${1:-build}
runs=${2:-5}
hog=${3:-}
tests=pingpong,put_lat,get_lat,amo_fadd,put_signal
out=$(mktemp -d)
hogpid=
trap 'rm -rf "$out"; [ -z "$hogpid" ] || kill "$hogpid" 2>/dev/null' EXIT
if [ "$hog" = --hog ]; then
  nice -n 19 sh -c 'while :; do :; done' &
  hogpid=$!
fi
for r in $(seq 1 "$runs"); do
  for mode in core none; do
    "$build/tools/oshrun" -np 2 --bind-to "$mode" "$build/bench/shmem-perf" --test "$tests" --max 4K --factor 4 \
      --json "$out/$mode-$r.json" >/dev/null
  done
done
python3 - "$out" "$runs" <<'PY'
import glob, json, os, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
res = {}  # (test, size) -> mode -> [per-run medians]
for f in sorted(glob.glob(os.path.join(out, "*.json"))):
    mode = os.path.basename(f).split("-")[0]
    for p in json.load(open(f)):
        res.setdefault((p["test"], p["size"]), {}).setdefault(mode, []).append(p["median"])
print(f"| test | bytes | bound (core): median µs (fastest–slowest run) | unbound: median µs (fastest–slowest run) | unbound ÷ bound |")
print("|---|---|---|---|---|")
for (t, s), m in sorted(res.items()):
    b, u = m.get("core", []), m.get("none", [])
    if not b or not u:
        continue
    mb, mu = statistics.median(b), statistics.median(u)
    print(f"| {t} | {s} | {mb:.3f} ({min(b):.3f}–{max(b):.3f}) | {mu:.3f} ({min(u):.3f}–{max(u):.3f}) | {mu/mb:.1f} |")
print(f"\n{runs} runs per mode, alternating; each run's figure is shmem-perf's median of 3 repetitions.")
PY
