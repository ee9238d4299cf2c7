#!/usr/bin/env bash
# compare-apps.sh - builds each host workload of bench/apps/*/ with gshmem and with Open MPI's OSHMEM, runs them
# alternately on the same machine and prints/writes a markdown table of the medians with the targets marked PASS/MISS.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/compare-apps.sh [options]
  --gshmem DIR      gshmem install prefix (DIR/bin/oshcc, DIR/bin/oshrun) or CMake build dir (libgshmem built
                    there: ninja gshmem oshrun) (default: /tmp/gshmem-prefix)
  --oshmem DIR      prefix of the peer OSHMEM wrappers (default: /usr, i.e. /usr/bin/oshcc, /usr/bin/oshrun)
  --np N            PEs per run (default 2; an app's compare.conf may fix its own, e.g. cannon needs a square)
  --rounds R        alternating rounds: gshmem, OSHMEM, gshmem, OSHMEM, ... for each run (default 3)
  --apps A,B        only these workloads (default: every bench/apps/*/ with a host program)
  --out DIR         binaries, JSON, logs and summary.md (default /tmp/gshmem-compare-apps)
  --summary FILE    also copy the markdown summary to FILE (e.g. bench/results/<date>-apps-<machine>.md)
  --title TEXT      heading of the summary (default: date and host)
  --no-verify       measurement runs without --verify (default: every run verifies; set-up and checks are not
                    timed, they only make the runs longer)
  --quick           each app's small "quick" arguments, 1 round unless --rounds: a smoke test, not a measurement
How each app is built and run: bench/apps/<app>/compare.conf (bash, sourced): sources, cflags, libs, env, np, runs
(one measurement run each), quick, targets ("METRIC le|ge FACTOR", METRIC may be a glob such as time_*). Without
one, the sources of gshmem_add_app() in its CMakeLists.txt, libraries guessed from it, no arguments, "time* le 1.0".
EOF
}

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
appsdir="$here/apps"
gdir=/tmp/gshmem-prefix
odir=/usr
np=2
rounds=
out=/tmp/gshmem-compare-apps
summary=
title=
only_apps=
verify=--verify
quick_mode=0

while [ $# -gt 0 ]; do
  case "$1" in
    --gshmem) gdir=$2; shift 2 ;;
    --oshmem) odir=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --apps) only_apps=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --summary) summary=$2; shift 2 ;;
    --title) title=$2; shift 2 ;;
    --no-verify) verify=; shift ;;
    --quick) quick_mode=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare-apps.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$rounds" ] || { [ $quick_mode = 1 ] && rounds=1 || rounds=3; }

mkdir -p "$out/bin"
out=$(CDPATH='' cd -- "$out" && pwd)
log="$out/compare-apps.log"
: >"$log"
t_start=$(date +%s)
tty=0
[ -t 2 ] && tty=1
say() { echo "$*" >>"$log"; [ $tty = 1 ] && printf '\r%-100s\r' '' >&2; echo "$*" >&2; }
# progress: overwritten in place on a terminal, one line per run in the log
progress() { echo "$*" >>"$log"; if [ $tty = 1 ]; then printf '\r%-100.100s' "$*" >&2; else echo "$*" >&2; fi; }

# ---- the two implementations ----
g_cc=(); g_run=; g_ldflags=()
if [ -x "$gdir/bin/oshcc" ] && [ -x "$gdir/bin/oshrun" ]; then
  g_cc=("$gdir/bin/oshcc"); g_run="$gdir/bin/oshrun"
elif [ -f "$gdir/CMakeCache.txt" ]; then
  # a build tree: its wrappers/oshcc expects an install layout, so compile as gshmem_add_app does (the public headers
  # of the source tree and of the build tree, libgshmem from the build tree)
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$gdir/CMakeCache.txt")
  lib=$(find "$gdir" -maxdepth 2 -name 'libgshmem.so' | head -n1)
  g_run=$(find "$gdir" -maxdepth 3 -type f -name oshrun -perm -u+x | head -n1)
  if [ -z "$lib" ] || [ -z "$g_run" ] || [ ! -f "$src/include/shmem.h" ]; then
    echo "compare-apps.sh: $gdir is a build dir without libgshmem.so or oshrun (ninja -C $gdir gshmem oshrun)" >&2
    exit 1
  fi
  g_cc=("${CC:-cc}" -I"$src/include" -I"$gdir/include")
  g_ldflags=(-L"$(dirname "$lib")" "-Wl,-rpath,$(dirname "$lib")" -lgshmem -lpthread -ldl -lrt)
else
  echo "compare-apps.sh: no gshmem oshcc/oshrun under $gdir (give --gshmem PREFIX or a build dir)" >&2
  exit 1
fi
o_cc="$odir/bin/oshcc"; o_run="$odir/bin/oshrun"
if [ ! -x "$o_cc" ] || [ ! -x "$o_run" ]; then
  echo "compare-apps.sh: no OSHMEM wrappers at $odir/bin (give --oshmem PREFIX)" >&2
  exit 1
fi
# Open MPI refuses root without these; its osc/rdma component crashes in shmem_finalize on this setup.
# OSHMEM sizes its heap from SMA_SYMMETRIC_SIZE (256 MiB by default; it ignores SHMEM_SYMMETRIC_SIZE)
o_env=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc=^rdma "SMA_SYMMETRIC_SIZE=${SMA_SYMMETRIC_SIZE:-1G}")

# ---- the workloads and how to build/run them ----
apps=()
for d in "$appsdir"/*/; do
  a=$(basename "$d")
  [ "$a" = common ] && continue
  if [ -n "$only_apps" ] && [[ ",$only_apps," != *",$a,"* ]]; then
    continue
  fi
  apps+=("$a")
done
if [ ${#apps[@]} -eq 0 ]; then
  echo "compare-apps.sh: no workloads under $appsdir${only_apps:+ matching $only_apps}" >&2
  exit 1
fi

# load_conf APP: sets sources cflags libs env np_app runs targets conf_note (runs: the quick ones with --quick)
load_conf() {
  local d="$appsdir/$1"
  sources=; cflags=; libs=; env=(); np=$np_default; runs=(""); quick=(); targets=("time* le 1.0"); conf_note=
  if [ -f "$d/compare.conf" ]; then
    # shellcheck disable=SC1090,SC1091
    . "$d/compare.conf"
  elif [ -f "$d/CMakeLists.txt" ]; then
    # gshmem_add_app(name srcs...) names the host program; the libraries it links are guessed from the file
    sources=$(tr '\n' ' ' <"$d/CMakeLists.txt" | sed -n 's/.*gshmem_add_app( *[A-Za-z0-9_]* *\([^)]*\)).*/\1/p')
    grep -q 'fftw3' "$d/CMakeLists.txt" && libs="$libs -lfftw3"
    if grep -qi 'openblas' "$d/CMakeLists.txt"; then
      cflags="$cflags $(pkg-config --cflags openblas 2>/dev/null || true)"
      libs="$libs $(pkg-config --libs openblas 2>/dev/null || echo -lopenblas)"
    fi
    libs="$libs -lm"
    conf_note="no compare.conf: sources from CMakeLists.txt, default arguments"
  fi
  np_app=$np
  np=$np_default
  if [ $quick_mode = 1 ] && [ ${#quick[@]} -gt 0 ]; then
    runs=("${quick[@]}")
  elif [ $quick_mode = 1 ]; then
    runs=("${runs[@]/%/ --reps 1 --warmup 0}")
  fi
}
np_default=$np

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  # shellcheck disable=SC1091
  [ -r /etc/os-release ] && . /etc/os-release && echo "os: ${PRETTY_NAME:-unknown}"
  echo "gshmem: $g_run (compiler: ${g_cc[*]} -O2 ... ${g_ldflags[*]})"
  echo "oshmem: $o_run ($("$o_run" --version 2>/dev/null | head -n1 || true))"
  kind=measurement
  [ $quick_mode = 1 ] && kind="quick (smoke test)"
  echo "np: $np (unless an app fixes its own), rounds: $rounds, $kind${verify:+, runs with --verify}"
} >"$out/machine.txt"
cat "$out/machine.txt" >>"$log"

# ---- build everything before any timing, so the compiler does not compete with the runs ----
built=()
: >"$out/plan.tsv" # app, run index, np, args, targets (for the summary)
for a in "${apps[@]}"; do
  load_conf "$a"
  d="$appsdir/$a"
  if [ -z "${sources// /}" ]; then
    say "skip $a: no host program found (no compare.conf, no gshmem_add_app in CMakeLists.txt)"
    echo -e "$a\t-\t-\t-\tno host program" >>"$out/plan.tsv"
    continue
  fi
  [ -n "$conf_note" ] && say "$a: $conf_note"
  srcs=()
  for s in $sources; do srcs+=("$d/$s"); done
  ok=1
  say "build $a (gshmem): ${g_cc[*]} -O2 -I$appsdir/common $cflags ${srcs[*]} $libs"
  # shellcheck disable=SC2086  # cflags/libs are word lists
  "${g_cc[@]}" -O2 -I"$appsdir/common" $cflags "${srcs[@]}" -o "$out/bin/$a-gshmem" ${g_ldflags[@]+"${g_ldflags[@]}"} \
    $libs >>"$log" 2>&1 || ok=0
  say "build $a (OSHMEM): $o_cc -O2 -I$appsdir/common $cflags ${srcs[*]} $libs"
  # shellcheck disable=SC2086
  "$o_cc" -O2 -I"$appsdir/common" $cflags "${srcs[@]}" -o "$out/bin/$a-oshmem" $libs >>"$log" 2>&1 || ok=0
  if [ $ok = 0 ]; then
    say "skip $a: build failed (see $log)"
    echo -e "$a\t-\t-\t-\tbuild failed" >>"$out/plan.tsv"
    continue
  fi
  built+=("$a")
  for i in "${!runs[@]}"; do
    echo -e "$a\t$i\t$np_app\t${runs[$i]}\t$(IFS=';'; echo "${targets[*]}")" >>"$out/plan.tsv"
  done
done

# ---- runs: per round, per app and run, gshmem then OSHMEM ----
total=0
for a in "${built[@]}"; do load_conf "$a"; total=$((total + 2 * rounds * ${#runs[@]})); done
n=0
failed=0
run_one() { # app index impl round args...
  local a=$1 i=$2 impl=$3 r=$4 rc=0 t0 t1
  shift 4
  local json="$out/$a-$i-$impl-r$r.json" txt="$out/$a-$i-$impl-r$r.txt" lim=600
  [ $quick_mode = 1 ] && lim=120
  n=$((n + 1))
  rm -f "$json" "$out/$a-$i-$impl-r$r.skip"
  progress "[$n/$total] $a run $i, $impl, round $r, $np_app PEs: $* (load $(cut -d' ' -f1 /proc/loadavg))"
  t0=$(date +%s.%N)
  if [ "$impl" = gshmem ]; then
    timeout $lim env ${env[@]+"${env[@]}"} "$g_run" -np "$np_app" "$out/bin/$a-gshmem" "$@" $verify --quiet \
      --json "$json" >"$txt" 2>&1 || rc=$?
  else
    local ov=()
    [ "$np_app" -gt 2 ] && ov=(--oversubscribe)
    timeout $lim "${o_env[@]}" ${env[@]+"${env[@]}"} "$o_run" ${ov[@]+"${ov[@]}"} -np "$np_app" \
      "$out/bin/$a-oshmem" "$@" $verify --quiet --json "$json" >"$txt" 2>&1 || rc=$?
  fi
  t1=$(date +%s.%N)
  echo "  exit $rc, $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s" >>"$log"
  if [ $rc = 77 ]; then
    say "  $a run $i ($impl): skipped by the program at $np_app PEs (exit 77)"
    rm -f "$json"
    touch "$out/$a-$i-$impl-r$r.skip"
  elif [ $rc -ne 0 ] || [ ! -s "$json" ]; then
    say "  $a run $i ($impl) round $r FAILED (exit $rc); last lines of $txt:"
    tail -n 8 "$txt" | tee -a "$log" >&2
    failed=$((failed + 1))
    [ -s "$json" ] || rm -f "$json"
  fi
  return 0
}
for r in $(seq 1 "$rounds"); do
  for a in "${built[@]}"; do
    load_conf "$a"
    for i in "${!runs[@]}"; do
      # shellcheck disable=SC2086  # run arguments are a word list
      run_one "$a" "$i" gshmem "$r" ${runs[$i]}
      # shellcheck disable=SC2086
      run_one "$a" "$i" oshmem "$r" ${runs[$i]}
    done
  done
done
[ $tty = 1 ] && printf '\r%-100s\r' '' >&2
elapsed=$(($(date +%s) - t_start))
echo "elapsed: ${elapsed} s (builds and runs)" >>"$out/machine.txt"

# ---- aggregate: per app/run/impl/metric the median over rounds of each run's median ----
[ -n "$title" ] || title="bench/apps: gshmem vs Open MPI OSHMEM — $(date -u +%Y-%m-%d), $(uname -n)"
python3 - "$out" "$rounds" "$title" "$failed" "$quick_mode" <<'PY'
import fnmatch, glob, json, os, re, statistics, sys

out, rounds, title, failed, quick = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
plan = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "plan.tsv")) if l.strip()]
data, units, variants, verify = {}, {}, {}, {}
for f in glob.glob(os.path.join(out, "*-r*.json")):
    m = re.match(r"(.+)-(\d+)-(gshmem|oshmem)-r(\d+)\.json$", os.path.basename(f))
    if not m:
        continue
    a, i, impl = m.group(1), m.group(2), m.group(3)
    try:
        doc = json.load(open(f))
    except ValueError:
        continue
    variants[(a, i)] = doc.get("variant", "")
    verify.setdefault((a, i, impl), set()).add(doc.get("verify", "?"))
    for name, v in doc.get("metrics", {}).items():
        data.setdefault((a, i, impl, name), []).append(v["median"])
        units[(a, name)] = v.get("unit", "")

def med(k):
    v = data.get(k)
    return statistics.median(v) if v else None

def fmt(x):
    if x is None:
        return "n/a"
    a = abs(x)
    return "%.3g" % x if a < 1000 else "%.0f" % x if a < 1e6 else "%.4g" % x

def nat(name):  # time_4096 after time_1024
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]

lines = ["# " + title, ""]
lines += ["```"] + open(os.path.join(out, "machine.txt")).read().strip().splitlines() + ["```", ""]
if quick:
    lines += ["**--quick: smoke-test sizes and 1 repetition; not a measurement.**", ""]
lines += ["Each figure is the median over rounds of each run's median of its repetitions (the slowest PE's time per "
          "repetition, set-up excluded). ratio = gshmem / OSHMEM. Target: `le F` PASS when gshmem <= F x OSHMEM "
          "(a time), `ge F` PASS when gshmem >= F x OSHMEM (a rate). n/a: a side has no result.", ""]
if failed:
    lines += ["**%d run(s) FAILED** (wrong result, crash or timeout): see compare-apps.log." % failed, ""]
hdr = ["app", "variant", "PEs", "args", "metric", "unit", "gshmem", "OSHMEM", "ratio", "target", "result"]
lines += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
res = []
for row in plan:
    a, i, npes, args, targets = (row + [""] * 5)[:5]
    if i == "-":
        lines.append("| %s | | | | | | | | | | %s |" % (a, targets))
        continue
    tl = [t.split() for t in targets.split(";") if t.strip()]
    names = sorted({n for (aa, ii, _, n) in data if aa == a and ii == i}, key=nat)
    shown = [(n, t) for t in tl for n in names if fnmatch.fnmatchcase(n, t[0])]
    if not names:
        why = "no results: see compare-apps.log"
        if glob.glob(os.path.join(out, "%s-%s-*-r*.skip" % (a, i))):
            why = "skipped by the program at %s PEs (exit 77)" % npes
        lines.append("| %s | | %s | `%s` | | | | | | | %s |" % (a, npes, args.strip(), why))
        continue
    for t in tl:
        if not any(fnmatch.fnmatchcase(n, t[0]) for n in names):
            lines.append("| %s | %s | %s | `%s` | %s | | | | | %s | not reported |" %
                         (a, variants.get((a, i), ""), npes, args.strip(), t[0], " ".join(t[1:])))
    for n, (pat, kind, factor) in shown:
        g, o = med((a, i, "gshmem", n)), med((a, i, "oshmem", n))
        factor = float(factor)
        ratio = g / o if g is not None and o else None
        if ratio is None:
            r = "n/a"
        elif kind == "le":
            r = "PASS" if ratio <= factor else "MISS"
        else:
            r = "PASS" if ratio >= factor else "MISS"
        bad = [s for s in ("gshmem", "oshmem") if "failed" in verify.get((a, i, s), ())]
        if bad:
            r += " (verify failed: %s)" % ",".join(bad)
        res.append(r)
        lines.append("| %s | %s | %s | `%s` | %s | %s | %s | %s | %s | %s %g | **%s** |" %
                     (a, variants.get((a, i), ""), npes, args.strip(), n, units.get((a, n), ""), fmt(g), fmt(o),
                      "n/a" if ratio is None else "%.2fx" % ratio, kind, factor, r))
lines += ["", "Targets met: %d of %d." % (sum(1 for r in res if r.startswith("PASS")), len(res)), ""]

# every other metric, for the record
lines += ["## All metrics", "", "| app | variant | PEs | metric | unit | gshmem | OSHMEM | ratio |",
          "|---|---|---|---|---|---|---|---|"]
for row in plan:
    a, i, npes = row[0], row[1], row[2]
    if i == "-":
        continue
    for n in sorted({n for (aa, ii, _, n) in data if aa == a and ii == i}, key=nat):
        g, o = med((a, i, "gshmem", n)), med((a, i, "oshmem", n))
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" %
                     (a, variants.get((a, i), ""), npes, n, units.get((a, n), ""), fmt(g), fmt(o),
                      "%.2fx" % (g / o) if g is not None and o else "n/a"))
lines.append("")
md = "\n".join(lines)
open(os.path.join(out, "summary.md"), "w").write(md)
print(md)
PY

if [ -n "$summary" ]; then
  mkdir -p "$(dirname -- "$summary")"
  cp "$out/summary.md" "$summary"
  say "summary copied to $summary"
fi
say "results in $out (summary.md, <app>-<run>-<impl>-r<N>.json/.txt, compare-apps.log); ${elapsed} s"
if [ "$failed" -gt 0 ]; then
  say "compare-apps.sh: $failed run(s) failed; see $log"
  exit 1
fi
