#!/bin/sh
# plot_test.sh - the checks behind the bench_plot_* ctests (bench/plot_test.cmake): which PNGs bench/plot.py writes,
# where it writes them by default, and what their PNG text says (title, axis labels, the mark of a smoke-test run).
# usage: plot_test.sh MODE PYTHON PLOT_PY WORKDIR FIXTURE VENV_PYTHON [OSHRUN SHMEM_PERF]
#   smoke        the fixture, a measurement: every PNG there, none marked, units not repeated in labels
#   default-out  no --out: the PNGs go to a folder of their own beside plot.py, never into bench/results/plots
#   quick-flag   plot.py --quick: every PNG marked "not a measurement"
#   quick-dir    the fixture with a compare script's machine.txt of a --quick run: every PNG marked
#   quick-perf   a real shmem-perf --quick --json run (OSHRUN SHMEM_PERF): its PNGs marked
set -u
mode=$1 py=$2 plot=$3 work=$4 fixture=$5 venv=$6
[ -x "$venv" ] && "$venv" -c 'import matplotlib' 2>/dev/null && py=$venv
"$py" -c 'import matplotlib' 2>/dev/null || { echo "no matplotlib for $py (-DGSHMEM_PLOT_PYTHON=...)"; exit 77; }

fail() {
  echo "FAIL ($mode): $*"
  exit 1
}
# PNG text chunks are stored uncompressed, so grep -a sees them
has() { grep -aqF -- "$2" "$1"; }
expect_pngs() { # dir names...
  d=$1
  shift
  for f in "$@"; do
    test -s "$d/$f.png" || fail "plot.py did not write $d/$f.png"
  done
}
all_marked() { # dir: every PNG there says it is not a measurement
  n=0
  for f in "$1"/*.png; do
    [ -e "$f" ] || fail "no PNG in $1"
    has "$f" "not a measurement" || fail "$f is not marked as a smoke test (not a measurement)"
    n=$((n + 1))
  done
  echo "$n PNG(s) in $1 marked as not a measurement"
}

rm -rf "$work"
mkdir -p "$work"
case $mode in
  smoke)
    "$py" "$plot" --out "$work/out" "$fixture" || fail "plot.py exited $?"
    expect_pngs "$work/out" p2p_latency p2p_bandwidth collectives_npes apps_throughput apps_sizes
    for f in "$work"/out/*.png; do
      has "$f" "not a measurement" && fail "$f is marked as a smoke test, but the fixture is a measurement"
      has "$f" "axes:" || fail "$f carries no axis labels in its PNG text"
    done
    # the gups metric is named after its unit (GUP/s): the label says it once
    has "$work/out/apps_throughput.png" "GUP/s, higher is better" || fail "apps_throughput.png: no 'GUP/s' label"
    has "$work/out/apps_throughput.png" "GUP/s (GUP/s)" && fail "apps_throughput.png: unit repeated: GUP/s (GUP/s)"
    has "$work/out/apps_sizes.png" "busbw (GB/s)" || fail "apps_sizes.png: a metric and its unit: 'busbw (GB/s)'"
    ;;
  default-out)
    # a copy of plot.py in a tree of its own, with the tracked figures' folder holding a figure
    mkdir -p "$work/tree/bench/results/plots"
    cp "$plot" "$work/tree/bench/plot.py"
    echo tracked >"$work/tree/bench/results/plots/p2p_latency.png"
    (cd "$work" && "$py" tree/bench/plot.py "$fixture") || fail "plot.py exited $?"
    [ "$(cat "$work/tree/bench/results/plots/p2p_latency.png")" = tracked ] ||
      fail "plot.py without --out replaced bench/results/plots/p2p_latency.png (the published figures)"
    extra=$(find "$work/tree/bench/results/plots" -type f ! -name p2p_latency.png)
    [ -z "$extra" ] || fail "plot.py without --out wrote into bench/results/plots: $extra"
    expect_pngs "$work/tree/bench/plots" p2p_latency p2p_bandwidth collectives_npes apps_throughput apps_sizes
    ;;
  quick-flag)
    "$py" "$plot" --quick --out "$work/out" "$fixture" || fail "plot.py exited $?"
    all_marked "$work/out"
    ;;
  quick-dir)
    # as bench/compare-apps.sh --quick leaves it: machine.txt beside the JSON says the run was a smoke test
    cp -r "$fixture" "$work/in"
    printf 'date: 2000-01-01T00:00:00Z\nnp: 2 (unless an app fixes its own), rounds: 1, quick (smoke test)\n' \
      >"$work/in/machine.txt"
    "$py" "$plot" --out "$work/out" "$work/in" || fail "plot.py exited $?"
    all_marked "$work/out"
    ;;
  quick-perf)
    oshrun=$7 perf=$8
    "$oshrun" -np 2 "$perf" --quick --test put_lat,get_lat,put_bw,get_bw --max 4K --json "$work/perf.json" \
      >"$work/perf.txt" 2>&1 || { cat "$work/perf.txt"; fail "shmem-perf exited $?"; }
    "$py" "$plot" --out "$work/out" "$work/perf.json" || fail "plot.py exited $?"
    expect_pngs "$work/out" p2p_latency p2p_bandwidth
    all_marked "$work/out"
    ;;
  *) fail "unknown mode" ;;
esac
echo "ok ($mode)"
