#!/bin/bash
# run_netns.sh: run a program with Open MPI's mpirun across two Linux network namespaces joined by a veth pair,
# so that the PEs on the two sides can only reach each other over real (non-loopback) addresses.
#
#   run_netns.sh [options] -- prog [args...]
#
#   -np N               PEs in all (default 2); ceil(N/2) in namespace 0, floor(N/2) in namespace 1
#   --env VAR=VAL       set VAR for every PE (mpirun -x); --env VAR forwards VAR's current value; repeatable
#   --map-by P          mpirun --map-by P (default slot: ranks 0..ceil(N/2)-1 in namespace 0; node alternates)
#   --timeout S         kill the whole run after S seconds (default 120; exit status 124)
#   --netem "ARGS"      tc qdisc ... netem ARGS on both veth ends, e.g. --netem "delay 1ms" (skips if tc cannot)
#   --min-bytes N       fail (exit 1) unless at least N bytes crossed the veth (both directions together)
#   --shared-shm        do not give each side its own /dev/shm and hostname (by default they get them, so that
#                       a transport that wrongly thinks the two sides are on one node fails instead of silently
#                       using shared memory)
#   --subnet A.B.C      addresses A.B.C.1 (namespace 0) and A.B.C.2 (namespace 1) (default 10.250.0)
#   --iface NAME        name of the veth end inside each namespace (default gshveth; both ends get it)
#   --mpirun PATH       mpirun to use (default: $MPIRUN or mpirun from PATH); must be Open MPI 3.x/4.x (ORTE)
#   --mpirun-arg ARG    extra argument for mpirun; repeatable
#   -v                  print the mpirun command line and every agent invocation
#
# Exit status: the program's (mpirun's) status, 128+N when a PE was killed by signal N (137: SIGKILL); 124 on timeout
# (only then: a run shorter than --timeout keeps its own 124 or 137); 77 (with a one-line reason on stderr) when the
# test cannot run here: not root, network namespaces or veth not permitted (unprivileged container), no mpirun.
#
# Every PE gets GSH_NETNS_NS0/NS1 (namespace names), GSH_NETNS_ADDR0/ADDR1 (the two veth addresses),
# GSH_NETNS_SUBNET (A.B.C.0/24), GSH_NETNS_IFACE (the veth's name on both sides), GSH_NETNS_MAP_BY (the
# --map-by policy) and GSH_NETNS_PRIVATE (1 unless --shared-shm).  Namespace names carry this script's pid, so
# parallel runs don't collide; the namespaces (and every process still in them) are removed on exit, also on
# timeout, SIGINT, SIGTERM or SIGHUP (not on SIGKILL: keep ctest's TIMEOUT above --timeout).
#
# How: mpirun runs inside namespace 0 with a hostfile naming the two veth addresses; A.B.C.1 is local there, so
# namespace 0's PEs are mpirun's own children; for A.B.C.2 mpirun starts orted through agent.sh (plm_rsh_agent),
# which enters namespace 1.  oob_tcp_if_include/btl_tcp_if_include keep Open MPI's own traffic on the veth.
set -u

me=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
agent=$here/agent.sh

skip() {
    echo "$me: SKIP: $*" >&2
    exit 77
}
usage() {
    echo "$me: $*" >&2
    echo "usage: $me [-np N] [--env VAR=VAL ...] [--map-by P] [--timeout S] [--netem ARGS] [--min-bytes N]" \
        "[--shared-shm] [--subnet A.B.C] [--iface NAME] [--mpirun PATH] [--mpirun-arg ARG ...] [-v] -- prog [args...]" >&2
    exit 2
}
now() { echo "${EPOCHREALTIME:-$(date +%s.%N)}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

np=2
envs=()
map_by=slot
tmo=120
netem=
min_bytes=0
private_shm=1
subnet=10.250.0
iface=gshveth
mpirun=${MPIRUN:-mpirun}
extra=()
verbose=0
while [ $# -gt 0 ]; do
    case "$1" in
        -np|-n|--np) [ $# -ge 2 ] || usage "$1 needs a value"; np=$2; shift 2 ;;
        --env|-x) [ $# -ge 2 ] || usage "$1 needs a value"; envs+=("$2"); shift 2 ;;
        --map-by) [ $# -ge 2 ] || usage "$1 needs a value"; map_by=$2; shift 2 ;;
        --timeout) [ $# -ge 2 ] || usage "$1 needs a value"; tmo=$2; shift 2 ;;
        --netem) [ $# -ge 2 ] || usage "$1 needs a value"; netem=$2; shift 2 ;;
        --min-bytes) [ $# -ge 2 ] || usage "$1 needs a value"; min_bytes=$2; shift 2 ;;
        --shared-shm) private_shm=0; shift ;;
        --subnet) [ $# -ge 2 ] || usage "$1 needs a value"; subnet=$2; shift 2 ;;
        --iface) [ $# -ge 2 ] || usage "$1 needs a value"; iface=$2; shift 2 ;;
        --mpirun) [ $# -ge 2 ] || usage "$1 needs a value"; mpirun=$2; shift 2 ;;
        --mpirun-arg) [ $# -ge 2 ] || usage "$1 needs a value"; extra+=("$2"); shift 2 ;;
        -v|--verbose) verbose=1; shift ;;
        -h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        --) shift; break ;;
        *) usage "unknown option '$1' (the program goes after --)" ;;
    esac
done
[ $# -ge 1 ] || usage "no program given"
case "$np" in ''|*[!0-9]*|0) usage "-np needs a positive integer, not '$np'" ;; esac
case "$tmo" in ''|*[!0-9]*|0) usage "--timeout needs a positive integer of seconds, not '$tmo'" ;; esac
case "$min_bytes" in ''|*[!0-9]*) usage "--min-bytes needs an integer, not '$min_bytes'" ;; esac
[[ $iface =~ ^[A-Za-z0-9_.-]{1,15}$ ]] || usage "--iface needs an interface name of at most 15 characters, not '$iface'"
[[ $subnet =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || usage "--subnet needs three octets like 10.250.0, not '$subnet'"
for e in ${envs[@]+"${envs[@]}"}; do
    [[ ${e%%=*} =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || usage "--env needs VAR=VAL or VAR, not '$e'"
done

# --- can we run here at all? -------------------------------------------------------------------------------
[ "$(id -u)" = 0 ] || skip "not root (creating network namespaces and veth pairs needs root)"
for t in ip unshare timeout mount awk; do
    command -v "$t" >/dev/null 2>&1 || skip "'$t' not found"
done
mpirun_path=$(command -v "$mpirun" 2>/dev/null) || skip "mpirun not found ('$mpirun'; set MPIRUN or --mpirun)"
mpirun_ver=$("$mpirun_path" --version 2>&1 | head -n 1)
case "$mpirun_ver" in
    *"Open MPI"*" 3."*|*"Open MPI"*" 4."*) ;;
    *) skip "$mpirun_path is not Open MPI 3.x/4.x (ORTE rsh launcher needed), it says: ${mpirun_ver:-nothing}" ;;
esac
[ -r "$agent" ] || skip "agent script $agent missing"

# --- namespaces ----------------------------------------------------------------------------------------------
ns0='' ns1='' tmpd='' runner=''
# shellcheck disable=SC2317  # (called from traps)
cleanup() {
    local ns pids
    trap - EXIT INT TERM HUP
    if [ -n "$runner" ]; then
        kill -TERM "$runner" 2>/dev/null
    fi
    for ns in $ns0 $ns1; do
        # whatever is still inside our uniquely named namespaces was started by this run (orted, PEs, ...)
        pids=$(ip netns pids "$ns" 2>/dev/null)
        if [ -n "$pids" ]; then
            # shellcheck disable=SC2086
            kill -KILL $pids 2>/dev/null
        fi
    done
    if [ -n "$runner" ]; then
        wait "$runner" 2>/dev/null
    fi
    for ns in $ns1 $ns0; do
        ip netns del "$ns" 2>/dev/null   # deleting a namespace destroys its veth end, and so the pair
    done
    [ -n "$tmpd" ] && rm -rf "$tmpd"
}
# shellcheck disable=SC2317
on_signal() {
    echo "$me: caught SIG$1, tearing down" >&2
    cleanup
    exit $((128 + $2))
}
trap cleanup EXIT
trap 'on_signal INT 2' INT
trap 'on_signal TERM 15' TERM
trap 'on_signal HUP 1' HUP

t_start=$(now)
sfx=
for try in "" a b c d e f; do
    cand=$$$try
    if err=$(ip netns add "gsh-ns0-$cand" 2>&1); then
        sfx=$cand
        ns0=gsh-ns0-$sfx
        break
    fi
    case "$err" in
        *"File exists"*) continue ;;   # a stale namespace from an earlier run with our pid
        *) skip "cannot create a network namespace (ip netns add: ${err//$'\n'/ })" ;;
    esac
done
[ -n "$sfx" ] || skip "cannot find a free network namespace name gsh-ns0-$$*"
ns1=gsh-ns1-$sfx
if ! err=$(ip netns add "$ns1" 2>&1); then
    ns1=
    skip "cannot create a second network namespace (ip netns add: ${err//$'\n'/ })"
fi
v0=gsh${sfx}a
v1=gsh${sfx}b
addr0=$subnet.1
addr1=$subnet.2
if ! err=$(ip link add "$v0" netns "$ns0" type veth peer name "$v1" netns "$ns1" 2>&1); then
    # older iproute2: create in the root namespace, then move
    if ! err=$(ip link add "$v0" type veth peer name "$v1" 2>&1 && ip link set "$v0" netns "$ns0" &&
               ip link set "$v1" netns "$ns1" 2>&1); then
        ip link del "$v0" 2>/dev/null
        skip "cannot create a veth pair (${err//$'\n'/ })"
    fi
fi
# Both ends get the same name inside their namespaces (created under unique names, then renamed), so one
# SHMEM_OFI_DOMAIN / FI_TCP_IFACE value names the veth on both sides.
setup_err=$({
    set -e
    ip -n "$ns0" link set dev "$v0" name "$iface"
    ip -n "$ns1" link set dev "$v1" name "$iface"
    v0=$iface v1=$iface
    ip -n "$ns0" addr add "$addr0/24" dev "$v0"
    ip -n "$ns1" addr add "$addr1/24" dev "$v1"
    for i in 0 1; do
        ns=ns$i v=v$i
        ip -n "${!ns}" link set lo up
        ip -n "${!ns}" link set "${!v}" up
    done
} 2>&1) || skip "cannot configure the veth pair: ${setup_err//$'\n'/ }"
v0=$iface
v1=$iface
if [ -n "$netem" ]; then
    command -v tc >/dev/null 2>&1 || skip "--netem given but 'tc' not found"
    # shellcheck disable=SC2086
    err=$(ip netns exec "$ns0" tc qdisc add dev "$v0" root netem $netem 2>&1 &&
          ip netns exec "$ns1" tc qdisc add dev "$v1" root netem $netem 2>&1) ||
        skip "cannot add netem qdisc '$netem': ${err//$'\n'/ }"
fi
# wait until the link is up on both ends (veth carrier comes up asynchronously)
for _ in $(seq 1 50); do
    if [ "$(ip netns exec "$ns0" cat "/sys/class/net/$v0/operstate" 2>/dev/null)" = up ] &&
       [ "$(ip netns exec "$ns1" cat "/sys/class/net/$v1/operstate" 2>/dev/null)" = up ]; then
        break
    fi
    sleep 0.1
done

tmpd=$(mktemp -d "${TMPDIR:-/tmp}/gsh-netns.XXXXXX") || skip "cannot create a temporary directory"
# mpirun splits plm_rsh_agent at spaces and needs it executable: use a copy in the temporary directory
{ cp "$agent" "$tmpd/agent.sh" && chmod 755 "$tmpd/agent.sh"; } || skip "cannot copy $agent to $tmpd"
agent=$tmpd/agent.sh
case "$agent" in *[[:space:]]*) skip "temporary directory '$tmpd' contains a space (mpirun cannot use it); set TMPDIR" ;; esac
n0=$(((np + 1) / 2))
n1=$((np / 2))
{
    echo "$addr0 slots=$n0 max_slots=$n0"
    [ "$n1" -gt 0 ] && echo "$addr1 slots=$n1 max_slots=$n1"
} >"$tmpd/hostfile"

veth_bytes() { ip netns exec "$ns0" cat "/sys/class/net/$v0/statistics/$1" 2>/dev/null || echo 0; }
tx0=$(veth_bytes tx_bytes)
rx0=$(veth_bytes rx_bytes)
t_setup=$(now)

# --- run -----------------------------------------------------------------------------------------------------
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export GSH_NETNS_MAP="$addr0=$ns0 $addr1=$ns1" GSH_NETNS_PRIVATE_SHM=$private_shm
export GSH_NETNS_NS0=$ns0 GSH_NETNS_NS1=$ns1 GSH_NETNS_ADDR0=$addr0 GSH_NETNS_ADDR1=$addr1
export GSH_NETNS_SUBNET=$subnet.0/24 GSH_NETNS_IFACE=$iface GSH_NETNS_MAP_BY=$map_by GSH_NETNS_PRIVATE=$private_shm
if [ "$verbose" = 1 ]; then
    export GSH_NETNS_LOG=$tmpd/agent.log
fi
xargs_=()
for e in ${envs[@]+"${envs[@]}"}; do
    xargs_+=(-x "$e")
done
cmd=("$mpirun_path" -np "$np" --hostfile "$tmpd/hostfile" --map-by "$map_by" --bind-to none
    --mca plm rsh --mca ras '^slurm,gridengine,tm,lsf'
    --mca plm_rsh_agent "$agent" --mca plm_rsh_no_tree_spawn 1
    --mca oob_tcp_if_include "$subnet.0/24" --mca btl_tcp_if_include "$subnet.0/24"
    --mca pml ob1 --mca btl 'tcp,vader,self'
    -x GSH_NETNS_NS0 -x GSH_NETNS_NS1 -x GSH_NETNS_ADDR0 -x GSH_NETNS_ADDR1 -x GSH_NETNS_SUBNET -x GSH_NETNS_IFACE
    -x GSH_NETNS_MAP_BY -x GSH_NETNS_PRIVATE
    ${xargs_[@]+"${xargs_[@]}"} ${extra[@]+"${extra[@]}"} "$@")
if [ "$verbose" = 1 ]; then
    echo "$me: $ns0 ($v0 $addr0, $n0 PEs, runs mpirun) <-> $ns1 ($v1 $addr1, $n1 PEs)" >&2
    echo "$me: ip netns exec $ns0 ... ${cmd[*]}" >&2
fi
# mpirun runs in namespace 0 (with its own /dev/shm and hostname unless --shared-shm); the PEs of namespace 0
# are its children, those of namespace 1 are children of an orted started there through agent.sh.
if [ "$private_shm" = 1 ]; then
    # shellcheck disable=SC2016
    timeout -k 10 "$tmo" ip netns exec "$ns0" unshare --mount --uts --propagation private sh -c '
        mount -t tmpfs -o "size=${GSH_NETNS_SHM_SIZE:-50%},mode=1777" gsh-netns-shm /dev/shm ||
            { echo "run_netns.sh: SKIP: cannot mount a private /dev/shm (try --shared-shm)" >&2; exit 77; }
        echo "$GSH_NETNS_NS0" >/proc/sys/kernel/hostname ||
            { echo "run_netns.sh: SKIP: cannot set the hostname in a UTS namespace (try --shared-shm)" >&2; exit 77; }
        exec "$@"' run-sh "${cmd[@]}" &
else
    timeout -k 10 "$tmo" ip netns exec "$ns0" "${cmd[@]}" &
fi
runner=$!
wait "$runner"
rc=$?
runner=
t_end=$(now)

tx=$(($(veth_bytes tx_bytes) - tx0))
rx=$(($(veth_bytes rx_bytes) - rx0))
if [ "$verbose" = 1 ] && [ -s "$tmpd/agent.log" ]; then
    sed "s/^/$me: /" "$tmpd/agent.log" >&2
fi
echo "$me: np=$np ($n0 in $ns0, $n1 in $ns1) rc=$rc; veth $addr0 -> $addr1 $tx bytes, $addr1 -> $addr0 $rx bytes;" \
    "setup $(elapsed "$t_start" "$t_setup")s, run $(elapsed "$t_setup" "$t_end")s" >&2
# timeout(1) says 124 when it stopped the run with SIGTERM, 137 when it had to use SIGKILL (-k); but 137 is also
# mpirun's status when a PE was killed by SIGKILL, and a program may exit 124 itself: only a run as long as the
# timeout timed out
if { [ "$rc" = 124 ] || [ "$rc" = 137 ]; } && awk -v a="$t_setup" -v b="$t_end" -v t="$tmo" 'BEGIN { exit !(b - a >= t) }'; then
    echo "$me: timed out after ${tmo}s" >&2
    rc=124
elif [ "$rc" = 0 ] && [ $((tx + rx)) -lt "$min_bytes" ]; then
    echo "$me: FAIL: fewer than $min_bytes bytes crossed the veth (tx $tx, rx $rx)" >&2
    rc=1
fi
exit "$rc"
