#!/usr/bin/env bash
# scaling.sh - runs bench/scaling-probe.c at growing PE counts and writes one CSV row per run (init time, memory,
# descriptors, threads per PE): the measurements docs/scaling.md's model is checked against (bench/scaling-model.py).
set -euo pipefail

usage() {
    cat <<EOF
usage: bench/scaling.sh [--build DIR] [--np "2 4 8 16 32 64"] [--reps 3] [--transport ofi|shm]
                        [--provider tcp] [--launcher oshrun|mpirun] [--csv FILE]
--launcher mpirun starts the PEs with Open MPI's mpirun --oversubscribe (the PMIx bootstrap); oshrun is gshmem's.
CSV columns: launcher,transport,rep,npes,init_max_s,rss_kib,pss_kib,node_pss_mib,fds_init,fds_all,threads,touch_s,wall_s
(rss/pss: mean per PE after every PE has talked to every other; fds: the most any PE holds after init and after
that; node_pss_mib: the PEs' PSS summed, i.e. the node's memory for the job; wall_s: the whole job).
EOF
}

here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
nps="2 4 8 16 32 64"
reps=3
transport=ofi
provider=tcp
launcher=oshrun
csv=""
while [ $# -gt 0 ]; do
    case $1 in
    --build) build=$2; shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --transport) transport=$2; shift 2 ;;
    --provider) provider=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
[ -x "$build/tools/oshrun" ] && [ -e "$build/libgshmem.so" ] ||
    { echo "scaling.sh: no oshrun/libgshmem.so under $build: build first" >&2; exit 1; }
[ "$launcher" = oshrun ] || command -v mpirun >/dev/null ||
    { echo "scaling.sh: --launcher mpirun needs Open MPI's mpirun (Debian: openmpi-bin)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -I"$here/include" -o "$tmp/probe" "$here/bench/scaling-probe.c" -L"$build" -lgshmem -Wl,-rpath,"$build"
[ -n "$csv" ] || csv=/dev/stdout
header=launcher,transport,rep,npes,init_max_s,rss_kib,pss_kib,node_pss_mib,fds_init,fds_all,threads,touch_s,wall_s
[ -s "$csv" ] && [ "$csv" != /dev/stdout ] || echo "$header" >>"$csv"

run() { # np
    local np=$1
    export SHMEM_TRANSPORT=$transport SHMEM_OFI_PROVIDER=$provider
    if [ "$launcher" = oshrun ]; then
        "$build/tools/oshrun" -np "$np" "$tmp/probe"
    else
        [ "$(id -u)" != 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        mpirun --oversubscribe --bind-to none -np "$np" -x SHMEM_TRANSPORT -x SHMEM_OFI_PROVIDER "$tmp/probe"
    fi
}

for np in $nps; do
    for r in $(seq 1 "$reps"); do
        t0=$(date +%s.%N)
        row=$(run "$np" 2>"$tmp/err") || { echo "scaling.sh: $np PEs failed:" >&2; tail -5 "$tmp/err" >&2; exit 1; }
        t1=$(date +%s.%N)
        wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
        echo "$launcher,$transport,$r,$row,$wall" >>"$csv"
    done
done
