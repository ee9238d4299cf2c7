#!/usr/bin/env bash
# sos-compare.sh - builds bench/shmem-perf.c against gshmem and Sandia OpenSHMEM, runs them alternately on each
# libfabric provider both can use here, with fabtests' floor per provider (and the loopback socket's, under tcp and
# net: tcp-floor.c), and writes a markdown table and a CSV.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/peers/sos-compare.sh [options]
  --gshmem DIR     gshmem CMake build dir (DIR/wrappers/oshcc, DIR/tools/oshrun) or install prefix (DIR/bin/...)
                   (default: build)
  --sos DIR        SOS install prefix (default: what bench/peers/build-sos.sh prints; it is run to get it)
  --fabtests DIR   fabtests prefix holding bin/fi_rdm_pingpong, bin/fi_rma_bw (default: from build-sos.sh)
  --rounds N       rounds per provider (default 5): gshmem and SOS back to back (latencies, then bandwidth; who goes
                   first swaps every round), then the floor; tables show medians of the rounds
  --providers LIST comma-separated gshmem providers (default: net,net;ofi_rxm,tcp,tcp;ofi_rxm,sockets,udp;ofi_rxd);
                   SOS runs the same name, except net, which SOS runs as net;ofi_rxm (plain net has no atomics for it)
  --domain NAME    SHMEM_OFI_DOMAIN for both libraries (default lo: both talk over loopback)
  --timeout S      limit of one run (default 60); a library that fails or hangs on a provider the first time it runs
                   there is not tried there again; a later failure (a slow patch of the machine) loses that round only
  --out DIR        logs, JSON, binaries (default /tmp/gshmem-sos-compare)
  --md FILE        markdown table (default bench/results/<date>-sos-side-by-side.md)
  --csv FILE       CSV (default: the --md name with .csv)
  --gshmem-env V=X extra environment for the gshmem runs (repeatable); --sos-env V=X likewise for SOS
  --quick          one round, shmem-perf --quick (a test of this script, not a measurement)
EOF
}

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
top=$(CDPATH= cd -- "$here/../.." && pwd)
src="$top/bench/shmem-perf.c"
gdir=$top/build
sos=
fab=
rounds=5
providers="net,net;ofi_rxm,tcp,tcp;ofi_rxm,sockets,udp;ofi_rxd"
domain=lo
tmo=60
out=/tmp/gshmem-sos-compare
md=
csv=
quick=
g_env=()
s_env=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gshmem) gdir=$2; shift 2 ;;
    --sos) sos=$2; shift 2 ;;
    --fabtests) fab=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --providers) providers=$2; shift 2 ;;
    --domain) domain=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --md) md=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --gshmem-env) g_env+=("$2"); shift 2 ;;
    --sos-env) s_env+=("$2"); shift 2 ;;
    --quick) quick=--quick; rounds=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "sos-compare.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$md" ] || md="$top/bench/results/$(date -u +%Y-%m-%d)-sos-side-by-side.md"
[ -n "$csv" ] || csv="${md%.md}.csv"

if [ -z "$sos" ] || [ -z "$fab" ]; then # build-sos.sh skips what is built, and says where things are
  eval "$("$here/build-sos.sh" | grep -E '^(SOS|FABTESTS)_PREFIX=')"
  sos=${sos:-$SOS_PREFIX}
  fab=${fab:-$FABTESTS_PREFIX}
fi
mkdir -p "$out"
out=$(CDPATH= cd -- "$out" && pwd)
if [ -x "$gdir/bin/oshcc" ]; then g_cc=$gdir/bin/oshcc g_run=$gdir/bin/oshrun; else
  # a build tree: oshcc finds headers and library relative to itself, so give it a prefix of links into the tree
  # (the program then runs the build's library as it is rebuilt, which is what one wants when trying changes)
  [ -f "$gdir/wrappers/oshcc" ] && [ -e "$gdir/libgshmem.so" ] ||
    { echo "sos-compare.sh: $gdir is neither a gshmem prefix nor a build with the gshmem target built" >&2; exit 1; }
  gdir=$(CDPATH= cd -- "$gdir" && pwd)
  v="$out/gshmem-view"
  rm -rf "$v"
  mkdir -p "$v/bin" "$v/lib"
  cp "$gdir/wrappers/oshcc" "$v/bin/oshcc"
  chmod +x "$v/bin/oshcc"
  ln -s "$top/include" "$v/include"
  ln -s "$gdir"/libgshmem.so* "$v/lib/"
  g_cc=$v/bin/oshcc g_run=$gdir/tools/oshrun
fi
for f in "$g_cc" "$g_run" "$sos/bin/oshcc" "$sos/bin/oshrun" "$fab/bin/fi_rdm_pingpong" "$fab/bin/fi_rma_bw"; do
  [ -x "$f" ] || { echo "sos-compare.sh: $f missing (build gshmem's gshmem and oshrun targets; run build-sos.sh)" >&2; exit 1; }
done

log=$out/compare.log
: >"$log"
say() { echo "$*" | tee -a "$log" >&2; }

# one source, two compilers: the same program measures both libraries
"$g_cc" -O2 -o "$out/perf-gshmem" "$src" 2>>"$log"
"$sos/bin/oshcc" -O2 -o "$out/perf-sos" "$src" 2>>"$log"
cc -O2 -o "$out/tcp-floor" "$here/tcp-floor.c" 2>>"$log"
say "built $out/perf-gshmem ($g_cc) and $out/perf-sos ($sos/bin/oshcc) from $src"

# two launches per run: the 8 B latencies, then 1 MiB put bandwidth (shmem-perf's sized tests share one size range)
lat_args=(--test put_lat,get_lat,amo_fadd,pingpong --min 8 --max 8 $quick)
bw_args=(--test put_bw --min 1M --max 1M $quick)
sos_prov() { if [ "$1" = net ]; then echo "net;ofi_rxm"; else echo "$1"; fi; }
key() { echo "$1" | tr ';' '+'; }
declare -A broken=() ran=()
port=50200

run_lib() { # lib provider round part (lat or bw)
  local lib=$1 p=$2 r=$3 part=$4 k rc=0 sp
  k=$(key "$p")
  [ -z "${broken[$lib/$p]:-}" ] || return 0
  local json txt
  {
    json="$out/$lib-$k-$part-r$r.json" txt="$out/$lib-$k-$part-r$r.txt"
    local -n args=${part}_args
    rm -f "$json"
    if [ "$lib" = gshmem ]; then
      timeout -k 5 "$tmo" env SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER="$p" SHMEM_OFI_DOMAIN="$domain" \
        ${g_env[@]+"${g_env[@]}"} "$g_run" -np 2 "$out/perf-gshmem" "${args[@]}" --json "$json" >"$txt" 2>&1 || rc=$?
    else
      sp=$(sos_prov "$p")
      local xs=()
      for v in ${s_env[@]+"${s_env[@]}"}; do xs+=(-x "$v"); done
      # Open MPI's mpirun (SOS's launcher here, PMIx) refuses root without these; it starts both PEs on this node
      timeout -k 5 "$tmo" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SHMEM_OFI_PROVIDER="$sp" \
        SHMEM_OFI_DOMAIN="$domain" "$sos/bin/oshrun" -np 2 -x SHMEM_OFI_PROVIDER -x SHMEM_OFI_DOMAIN \
        ${xs[@]+"${xs[@]}"} "$out/perf-sos" "${args[@]}" --json "$json" >"$txt" 2>&1 || rc=$?
    fi
  }
  if [ $rc -ne 0 ] || [ ! -s "$json" ]; then
    local why="exit $rc"
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && why="killed after ${tmo} s"
    rm -f "$json"
    if [ -z "${ran[$lib/$p]:-}" ]; then # never worked here: a provider this library cannot use (or hangs on)
      broken[$lib/$p]=$why
      echo "$why: $(grep -v '^\s*$' "$txt" | tail -n 2 | tr '\n' ' ' | cut -c1-300)" >"$out/$lib-$k.failed"
      say "  $lib on $p round $r: FAILED ($why); not retried. $(tail -n 3 "$txt" | tr '\n' ' ' | cut -c1-300)"
    else # it ran before: a slow patch of the machine; this round is lost, the next one tries again
      echo "round $r: $why" >>"$out/$lib-$k.lost"
      say "  $lib on $p round $r: lost ($why); tried again next round"
    fi
    return 0
  fi
  ran[$lib/$p]=1
}

run_floor() { # provider-as-given round: fi_rdm_pingpong 8 B and fi_rma_bw 1 MiB writes, server then client
  local p=$1 r=$2 k t rc
  k=$(key "$p")
  # under tcp and net, the sockets themselves: 1 MiB writes over loopback between two pinned processes (once a round)
  case $p in *tcp* | net*) [ -e "$out/floor-socket-r$r.txt" ] ||
    timeout -k 5 "$tmo" "$out/tcp-floor" 2048 >"$out/floor-socket-r$r.txt" 2>&1 || true ;; esac
  for t in pingpong rma_bw; do
    [ -z "${broken[floor-$t/$p]:-}" ] || continue
    # iteration counts bounded: at 2 PEs on a loaded 2-core machine a round trip can take 0.3 ms
    local args=(-p "$p" -S 8 -I 2000) f="$out/floor-$t-$k-r$r.txt"
    [ $t = rma_bw ] && args=(-p "$p" -o write -S 1048576 -I 200)
    port=$((port + 1))
    rc=0
    timeout -k 5 "$tmo" "$fab/bin/fi_$([ $t = pingpong ] && echo rdm_pingpong || echo rma_bw)" "${args[@]}" \
      -s 127.0.0.1 -B "$port" >"$f.server" 2>&1 &
    local spid=$!
    sleep 0.5
    timeout -k 5 "$tmo" "$fab/bin/fi_$([ $t = pingpong ] && echo rdm_pingpong || echo rma_bw)" "${args[@]}" \
      -P "$port" 127.0.0.1 >"$f" 2>&1 || rc=$?
    wait "$spid" 2>/dev/null || true
    if [ $rc -ne 0 ]; then
      local why="exit $rc"
      [ $rc -eq 124 ] || [ $rc -eq 137 ] && why="killed after ${tmo} s"
      broken[floor-$t/$p]=$why
      echo "$why: $(tail -n 2 "$f" | tr '\n' ' ' | cut -c1-300)" >"$out/floor-$t-$k.failed"
      say "  floor $t on $p round $r: FAILED ($why); not retried"
    fi
  done
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "libfabric: $(fi_info --version 2>/dev/null | tr '\n' ' ')"
  echo "gshmem: $g_run (git $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'))${g_env[*]:+ with ${g_env[*]}}"
  echo "sos: $sos ($(cat "$sos/.built" 2>/dev/null || echo 'no stamp'))${s_env[*]:+ with ${s_env[*]}}"
  echo "fabtests: $fab ($(cat "$fab/.built" 2>/dev/null || echo 'no stamp'))"
  echo "rounds: $rounds, shmem-perf ${lat_args[*]}, then ${bw_args[*]}; SHMEM_OFI_DOMAIN=$domain"
} >"$out/machine.txt"
cat "$out/machine.txt" >>"$log"

IFS=, read -r -a plist <<<"$providers"
for r in $(seq 1 "$rounds"); do
  for p in "${plist[@]}"; do
    say "round $r, $p (load $(cut -d' ' -f1-3 /proc/loadavg))"
    # the two libraries back to back for each part, first one then the other, swapped every round: on a small
    # machine the speed of every transfer drifts between modes within minutes, and runs minutes apart can catch the
    # two libraries in different ones
    for part in lat bw; do
      if [ $((r % 2)) = 1 ]; then
        run_lib gshmem "$p" "$r" "$part"
        run_lib sos "$p" "$r" "$part"
      else
        run_lib sos "$p" "$r" "$part"
        run_lib gshmem "$p" "$r" "$part"
      fi
    done
    run_floor "$p" "$r"
    [ "$(sos_prov "$p")" = "$p" ] || run_floor "$(sos_prov "$p")" "$r"
  done
done

python3 "$here/sos-table.py" "$out" "$providers" "$md" "$csv"
say "wrote $md and $csv"
