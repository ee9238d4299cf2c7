#!/usr/bin/env bash
# compare.sh - build shmem-perf against gshmem and Open MPI's OSHMEM, run them alternately on the same machine,
# and print/write a side-by-side table with the performance targets marked PASS or MISS.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/compare.sh [options]
  --gshmem DIR      gshmem install prefix (DIR/bin/oshcc, DIR/bin/oshrun) or CMake build dir
                    (default: /tmp/gshmem-prefix)
  --oshmem DIR      prefix of the peer OSHMEM wrappers (default: /usr, i.e. /usr/bin/oshcc, /usr/bin/oshrun)
  --rounds N        alternating rounds: gshmem, OSHMEM, gshmem, OSHMEM, ... (default 3)
  --np N            PEs per run (default 2)
  --out DIR         where JSON, logs and markdown go (default /tmp/gshmem-compare)
  --summary FILE    also copy the markdown summary to FILE (e.g. bench/results/<date>-<machine>.md)
  --title TEXT      heading of the markdown summary (default: date and uname)
  --only gshmem|oshmem   run one side only (the table shows n/a for the other)
  --gshmem-env VAR=VALUE environment for the gshmem runs (repeatable), e.g. SHMEM_WAIT_SPIN=100000000
  --oshmem-env VAR=VALUE environment for the OSHMEM runs (repeatable), e.g. UCX_TLS=tcp,self
  --gshmem-bind     bind gshmem PE i to CPU i (taskset) when np <= cores, as Open MPI's oshrun binds its PEs by
                    default there; gshmem's oshrun does not bind (unbound PEs may share a core on a busy host)
  --aset            also run gshmem with shmem-perf --aset (collectives through the active-set forms, the API
                    OSHMEM 4.1 has) each round: gshmem, gshmem --aset, OSHMEM, ...
  --quick           shmem-perf --quick (smoke test of this script, not a measurement)
  -- ARGS...        extra arguments for shmem-perf (e.g. -- --test put_lat,pingpong --max 64K;
                    -- --test coll for the barrier, syncs and collectives only)
EOF
}

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
src="$here/shmem-perf.c"
gdir=/tmp/gshmem-prefix
odir=/usr
rounds=3
np=2
out=/tmp/gshmem-compare
summary=
title=
only=
quick=
aset=0
g_bind=0
perf_args=()
g_env=()
o_env=()

while [ $# -gt 0 ]; do
  case "$1" in
    --gshmem) gdir=$2; shift 2 ;;
    --oshmem) odir=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --summary) summary=$2; shift 2 ;;
    --title) title=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --quick) quick=--quick; shift ;;
    --aset) aset=1; shift ;;
    --gshmem-bind) g_bind=1; shift ;;
    --gshmem-env) g_env+=("$2"); shift 2 ;;
    --oshmem-env) o_env+=("$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; perf_args=("$@"); break ;;
    *) echo "compare.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

mkdir -p "$out"
out=$(CDPATH= cd -- "$out" && pwd)
log="$out/compare.log"
: >"$log"
say() { echo "$*" | tee -a "$log" >&2; }

# ---- locate the two implementations ----
do_g=1; do_o=1
[ "$only" = oshmem ] && do_g=0
[ "$only" = gshmem ] && do_o=0

g_cc=; g_run=; g_bin=
if [ $do_g = 1 ]; then
  if [ -x "$gdir/bin/oshcc" ] && [ -x "$gdir/bin/oshrun" ]; then
    g_cc="$gdir/bin/oshcc"; g_run="$gdir/bin/oshrun"
  elif [ -f "$gdir/CMakeCache.txt" ]; then
    # a build tree: the shmem-perf target is built there from the same source; oshrun sits somewhere under tools/
    g_run=$(find "$gdir" -maxdepth 3 -type f -name oshrun -perm -u+x | head -n1)
    [ -x "$gdir/bench/shmem-perf" ] && g_bin="$gdir/bench/shmem-perf"
    g_cc=$(find "$gdir" -maxdepth 3 -type f -name oshcc -perm -u+x | head -n1)
  fi
  if [ -z "$g_run" ] || { [ -z "$g_cc" ] && [ -z "$g_bin" ]; }; then
    echo "compare.sh: no gshmem oshcc/oshrun under $gdir (give --gshmem PREFIX or a build dir, or --only oshmem)" >&2
    exit 1
  fi
fi
o_cc="$odir/bin/oshcc"; o_run="$odir/bin/oshrun"
if [ $do_o = 1 ] && { [ ! -x "$o_cc" ] || [ ! -x "$o_run" ]; }; then
  echo "compare.sh: no OSHMEM wrappers at $odir/bin (give --oshmem PREFIX or --only gshmem)" >&2
  exit 1
fi

# ---- build (before any timing, so the compiler does not compete with the benchmark) ----
if [ $do_g = 1 ] && [ -z "$g_bin" ]; then
  g_bin="$out/shmem-perf-gshmem"
  say "build: $g_cc -O2 -o $g_bin $src"
  "$g_cc" -O2 -o "$g_bin" "$src" 2>>"$log"
fi
if [ $do_o = 1 ]; then
  o_bin="$out/shmem-perf-oshmem"
  say "build: $o_cc -O2 -o $o_bin $src"
  "$o_cc" -O2 -o "$o_bin" "$src" 2>>"$log"
fi

# Open MPI refuses root without these; its osc/rdma component crashes in shmem_finalize on this setup.
oshmem_env=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc=^rdma ${o_env[@]+"${o_env[@]}"})
o_extra=()
[ "$np" -gt "$(nproc)" ] && o_extra=(--oversubscribe)
# --gshmem-bind: each PE execs itself under taskset with CPU GSHMEM_RANK (Open MPI binds to cores when np <= cores)
g_wrap=()
if [ $g_bind = 1 ] && [ "$np" -le "$(nproc)" ]; then
  g_wrap=(sh -c 'exec taskset -c "$GSHMEM_RANK" "$@"' shmem-perf-bound)
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  [ -r /etc/os-release ] && . /etc/os-release && echo "os: ${PRETTY_NAME:-unknown}"
  echo "gshmem: ${g_run:-skipped} (binary ${g_bin:-none})${g_env[*]:+ with ${g_env[*]}}$([ ${#g_wrap[@]} -gt 0 ] && echo ', PE i bound to CPU i (--gshmem-bind)')"
  echo "oshmem: ${o_run} ($("$o_run" --version 2>/dev/null | head -n1 || true))${o_env[*]:+ with ${o_env[*]}}"
  echo "np: $np, rounds: $rounds, shmem-perf args: $quick ${perf_args[*]:-}$([ $aset = 1 ] && [ $do_g = 1 ] && echo ' (gshmem also with --aset)')"
} >"$out/machine.txt"
cat "$out/machine.txt" >>"$log"

run_one() { # impl round; impl is gshmem, gshmem-aset (shmem-perf --aset) or oshmem
  local impl=$1 r=$2 json="$out/$1-r$2.json" rc=0 extra=
  say "round $r: $impl (load: $(cut -d' ' -f1-3 /proc/loadavg))"
  [ "$impl" = gshmem-aset ] && extra=--aset
  if [ "$impl" != oshmem ]; then
    timeout 900 env ${g_env[@]+"${g_env[@]}"} "$g_run" -np "$np" ${g_wrap[@]+"${g_wrap[@]}"} "$g_bin" $quick $extra \
      ${perf_args[@]+"${perf_args[@]}"} --json "$json" >"$out/$impl-r$r.txt" 2>&1 || rc=$?
  else
    timeout 900 "${oshmem_env[@]}" "$o_run" ${o_extra[@]+"${o_extra[@]}"} -np "$np" "$o_bin" $quick \
      ${perf_args[@]+"${perf_args[@]}"} --json "$json" >"$out/$impl-r$r.txt" 2>&1 || rc=$?
  fi
  if [ $rc -ne 0 ] || [ ! -s "$json" ]; then
    say "  $impl round $r FAILED (exit $rc); last lines of its output:"
    failed=$((failed + 1))
    tail -n 15 "$out/$impl-r$r.txt" | tee -a "$log" >&2
    rm -f "$json"
  fi
}

failed=0
for r in $(seq 1 "$rounds"); do
  [ $do_g = 1 ] && run_one gshmem "$r"
  [ $do_g = 1 ] && [ $aset = 1 ] && run_one gshmem-aset "$r"
  [ $do_o = 1 ] && run_one oshmem "$r"
done


# ---- aggregate: per implementation, the median over rounds of each round's median ----
[ -n "$title" ] || title="gshmem vs Open MPI OSHMEM — $(date -u +%Y-%m-%d), $(uname -n)"
python3 - "$out" "$rounds" "$title" "$failed" <<'PY'
import glob, json, os, statistics, sys

out, rounds, title, failed = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
# run labels: gshmem (collectives through team forms), gshmem-aset (shmem-perf --aset), oshmem
IMPLS = ("gshmem", "gshmem-aset", "oshmem")
LABEL = {"gshmem": "gshmem", "gshmem-aset": "gshmem --aset", "oshmem": "OSHMEM"}
data = {}  # (impl, test, size) -> list of per-round medians
mins = {}
units = {}
names = {}
nround = {}
for impl in IMPLS:
    files = sorted(glob.glob(os.path.join(out, impl + "-r*.json")))
    nround[impl] = len(files)
    for f in files:
        for row in json.load(open(f)):
            k = (impl, row["test"], row["size"])
            data.setdefault(k, []).append(row["median"])
            units[(row["test"], row["size"])] = row["unit"]
            names[impl] = row.get("impl", impl)
            best = row["min"] if row["unit"] == "us" else row["max"]
            if k not in mins:
                mins[k] = best
            else:
                mins[k] = min(mins[k], best) if row["unit"] == "us" else max(mins[k], best)
# gshmem-aset columns only when that side ran; gshmem and OSHMEM always (n/a when skipped)
shown = [i for i in IMPLS if i != "gshmem-aset" or nround[i]]
gsides = [i for i in shown if i != "oshmem"]

def med(impl, test, size):
    v = data.get((impl, test, size))
    return statistics.median(v) if v else None

def spread(impl, test, size):
    v = data.get((impl, test, size))
    return (min(v), max(v)) if v else None

def memcpy_ref(test, size):
    ref = {"put_lat": "memcpy_lat", "get_lat": "memcpy_lat", "put_signal": "memcpy_lat",
           "put_bw": "memcpy_bw", "get_bw": "memcpy_bw"}.get(test)
    if not ref:
        return None
    v = [x for impl in IMPLS for x in data.get((impl, ref, size), [])]
    return statistics.median(v) if v else None

def fmt(x, unit):
    if x is None:
        return "n/a"
    if unit == "GB/s":
        return "%.2f" % x
    return "%.3f" % x if x < 10 else "%.1f" % x

def ratio(a, b):
    return "%.2fx" % (a / b) if a is not None and b else "n/a"

def human(n):
    if n == 0:
        return "-"
    for u, d in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= d and n % d == 0:
            return "%d %s" % (n // d, u)
    return "%d B" % n

# the performance targets gshmem holds itself to on one node: (label, test, size, kind, factor)
#   le: gshmem <= factor * OSHMEM (time);  ge: gshmem >= factor * OSHMEM (bandwidth);  mem: >= factor * memcpy
targets = [
    ("8 B put + quiet no slower than OSHMEM", "put_lat", 8, "le", 1.0),
    ("8 B get no slower than OSHMEM", "get_lat", 8, "le", 1.0),
    ("fetch-add no slower than OSHMEM", "amo_fadd", 8, "le", 1.0),
    ("one-way ping-pong at most 0.5x OSHMEM", "pingpong", 8, "le", 0.5),
    ("1 MiB put bandwidth at least 0.95x OSHMEM", "put_bw", 1 << 20, "ge", 0.95),
    ("1 MiB put bandwidth near memcpy (at least 0.8x)", "put_bw", 1 << 20, "mem", 0.8),
    ("barrier_all at most 0.5x OSHMEM", "barrier", 0, "le", 0.5),
]
for t, what in (("bcast", "broadcast"), ("collect", "collect"), ("fcollect", "fcollect"), ("reduce", "long sum reduce"),
                ("alltoall", "alltoall")):
    targets.append(("8 B %s at most 0.5x OSHMEM" % what, t, 8, "le", 0.5))
for t, what in (("bcast", "broadcast"), ("collect", "collect"), ("fcollect", "fcollect"), ("reduce", "long sum reduce"),
                ("alltoall", "alltoall")):
    targets.append(("1 MiB %s no slower than OSHMEM" % what, t, 1 << 20, "le", 1.0))

lines = ["# " + title, ""]
try:
    lines += ["```"] + open(os.path.join(out, "machine.txt")).read().strip().splitlines() + ["```", ""]
except OSError:
    pass
lines += ["Implementations as they name themselves: " +
          ", ".join("%s = `%s`" % (k, v) for k, v in sorted(names.items())), ""]
lines += ["Rounds completed: %s of %d (alternating %s). Each figure is the median over rounds of "
          "each round's median of its repetitions; \"rounds\" gives the lowest and highest round median." %
          (", ".join("%s %d" % (LABEL[i], nround[i]) for i in shown), rounds, ", ".join(LABEL[i] for i in shown)), ""]
if "gshmem-aset" in shown:
    lines += ["`gshmem` calls the collectives through the OpenSHMEM 1.5 team forms, `gshmem --aset` through the "
              "active-set forms (pSync, pWrk) that OSHMEM 4.1 implements and is measured with.", ""]
if failed:
    lines += ["**%d run(s) FAILED** (wrong result, crash or timeout): see compare.log; their figures are missing." %
              failed, ""]

def sp(impl, test, size, unit):
    r = spread(impl, test, size)
    return "%s–%s" % (fmt(r[0], unit), fmt(r[1], unit)) if r else "n/a"

hdr = ["target"] + [LABEL[i] for i in shown] + ["memcpy"] + ["ratio" if g == "gshmem" else "ratio (--aset)"
                                                             for g in gsides]
hdr += ["rounds (%s)" % LABEL[i] for i in shown] + ["result" if g == "gshmem" else "result (--aset)" for g in gsides]
lines += ["## Targets", "", "| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
verdicts = []
for label, test, size, kind, factor in targets:
    if not any((i, test, size) in data for i in IMPLS):
        continue  # not measured in this comparison
    unit = units.get((test, size), "GB/s" if test.endswith("_bw") else "us")
    o, m = med("oshmem", test, size), memcpy_ref(test, size)
    wu = lambda x: fmt(x, unit) + ("" if x is None else " " + unit)
    rs, res = [], []
    for g in gsides:
        v = med(g, test, size)
        if kind == "le":
            ok = None if v is None or o is None else v <= factor * o
            r = ratio(v, o)
        elif kind == "ge":
            ok = None if v is None or o is None else v >= factor * o
            r = ratio(v, o)
        else:
            ok = None if v is None or m is None else v >= factor * m
            r = ratio(v, m) + " of memcpy"
        rs.append(r)
        res.append("n/a" if ok is None else ("PASS" if ok else "MISS"))
        verdicts.append((label + ("" if g == "gshmem" else " (--aset)"), res[-1]))
    row = [label] + [wu(med(i, test, size)) for i in shown] + [fmt(m, unit) if kind == "mem" else ""] + rs
    row += [sp(i, test, size, unit) for i in shown] + ["**%s**" % r for r in res]
    lines.append("| " + " | ".join(row) + " |")
lines.append("")

order = ["put_lat", "get_lat", "put_signal", "pingpong", "amo_fadd", "amo_fetch", "amo_cswap", "amo_add",
         "barrier", "sync_all", "team_sync", "bcast", "collect", "fcollect", "reduce", "alltoall", "put_bw", "get_bw"]
keys = sorted({(t, s) for (_, t, s) in data if not t.startswith("memcpy")},
              key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[0], k[1]))
hdr = ["test", "size", "unit"] + [LABEL[i] for i in shown] + ["memcpy"]
hdr += ["%s/OSHMEM" % LABEL[g] for g in gsides] + ["gshmem/memcpy"] + ["%s best" % LABEL[i] for i in shown]
lines += ["## All points", "",
          "Latency in µs (lower is better), bandwidth in GB/s = 1e9 bytes/s (higher is better). "
          "memcpy: local copy of the same size in the same process (`memcpy_lat` / `memcpy_bw`). "
          "best: fastest repetition seen in any round. Collectives (`bcast` … `alltoall`): size is each PE's "
          "contribution (alltoall: the block for each PE), the time is the slowest PE's per call.", "",
          "| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
for t, s in keys:
    unit = units[(t, s)]
    o, m = med("oshmem", t, s), memcpy_ref(t, s)
    row = [t, human(s), unit] + [fmt(med(i, t, s), unit) for i in shown] + [fmt(m, unit)]
    row += [ratio(med(g, t, s), o) for g in gsides] + [ratio(med("gshmem", t, s), m)]
    row += [fmt(mins.get((i, t, s)), unit) for i in shown]
    lines.append("| " + " | ".join(row) + " |")
lines.append("")

md = "\n".join(lines)
open(os.path.join(out, "summary.md"), "w").write(md)
json.dump([dict({"test": t, "size": s, "unit": units[(t, s)], "memcpy": memcpy_ref(t, s)},
                **{i: med(i, t, s) for i in shown}) for t, s in keys] +
          [{"target": l, "result": r} for l, r in verdicts],
          open(os.path.join(out, "summary.json"), "w"), indent=1)
print(md)
PY

if [ -n "$summary" ]; then
  mkdir -p "$(dirname -- "$summary")"
  cp "$out/summary.md" "$summary"
  say "summary copied to $summary"
fi
say "results in $out (summary.md, summary.json, <impl>-r<N>.json/.txt, compare.log)"
if [ "$failed" -gt 0 ]; then
  say "compare.sh: $failed run(s) failed (a wrong collective result exits shmem-perf with 3); see $log"
  exit 1
fi
