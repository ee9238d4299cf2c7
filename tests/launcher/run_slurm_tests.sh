#!/usr/bin/env bash
# run_slurm_tests.sh HAVE_PMIX NP[,NP...] PROG [PROG...]
#
# Starts a private one-node Slurm cluster (its own munge key and socket, slurmctld and slurmd on ports of their own,
# state in a temporary directory), runs every PROG under `srun --mpi=pmix -n NP` for each NP, and tears the cluster
# down. Exits 0 when every run passed, 1 when one failed, 77 (skip, reason on stderr) without root, without Slurm's
# daemons or srun, without Slurm's pmix plugin, or when gshmem was built without PMIx.
set -u
# shellcheck source=tests/launcher/pe_gone.sh
. "$(dirname "$0")/pe_gone.sh"
have_pmix=$1
nps=$2
shift 2

skip() {
    echo "SKIP: $*" >&2
    exit 77
}
[ "$have_pmix" = 1 ] || skip "gshmem built without PMIx"
[ "$(id -u)" = 0 ] || skip "starting a private Slurm cluster needs root"
for b in srun slurmctld slurmd munged mungekey; do
    command -v "$b" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin
    command -v "$b" >/dev/null 2>&1 || skip "$b not found (Debian: apt-get install slurm-wlm munge)"
done

D=$(mktemp -d /tmp/gshmem-slurm.XXXXXX)
chmod 755 "$D"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    sleep 0.5
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$D"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*" >&2
    for f in "$D"/*.log; do
        [ -f "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }
    done
    exit 1
}

# munge: a key and a socket of our own, so a system munged (or none) does not matter
mkdir -p "$D/munge"
chmod 711 "$D/munge"
mungekey --create --keyfile="$D/munge/key" >/dev/null 2>&1 || fail "mungekey could not create a key"
chmod 600 "$D/munge/key"
munged --force --foreground --socket="$D/munge/sock" --key-file="$D/munge/key" --pid-file="$D/munge/pid" \
    --log-file="$D/munged.log" --seed-file="$D/munge/seed" >>"$D/munged.log" 2>&1 &
pids+=($!)

host=$(hostname -s)
cpus=$(nproc)
port=$((20000 + $$ % 20000))
cat >"$D/slurm.conf" <<EOF
ClusterName=gshmemtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$D/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus Sockets=1 CoresPerSocket=$cpus ThreadsPerCore=1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
mkdir -p "$D/state" "$D/spool"
export SLURM_CONF=$D/slurm.conf
# (srun reads its plugins' list from the configuration: asked before there is one, it fails and this always skipped)
srun --mpi=list 2>&1 | grep -q pmix || skip "srun has no pmix plugin (srun --mpi=list)"

for i in $(seq 50); do [ -S "$D/munge/sock" ] && break; sleep 0.1; done
[ -S "$D/munge/sock" ] || fail "munged did not start"
slurmctld -D -f "$SLURM_CONF" >"$D/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >"$D/slurmd.out.log" 2>&1 &
pids+=($!)
for i in $(seq 100); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 0.2
done
sinfo -h -o %t 2>/dev/null | grep -q idle || fail "the Slurm node did not come up (sinfo: $(sinfo 2>&1 | tr '\n' ' '))"

bad=0
for np in ${nps//,/ }; do
    for prog in "$@"; do
        out=$(timeout 120 srun --mpi=pmix -n "$np" --overcommit --time=2 "$prog" 2>&1)
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL: srun --mpi=pmix -n $np $(basename "$prog"): exit $rc" >&2
            echo "$out" | tail -15 >&2
            bad=1
        else
            echo "ok: srun --mpi=pmix -n $np $(basename "$prog")"
        fi
    done
done
# A PE that ends without shmem_finalize: torn down within seconds, with the status and the line the library
# prints (_exit: Slurm's PMIx plugin cancels the step itself, as ORTE's mpirun does).
client=
for prog in "$@"; do [ "$(basename "$prog")" = launcher_shmem_client ] && client=$prog; done
if [ -n "$client" ]; then
    for np in ${nps//,/ }; do
        for c in "exit0-barrier|1|PE 0: shmem_barrier_all: PE 1 ended \\(exit status 0\\)" \
                 "exit1-wait|1|PE 1: ended with exit status 1 without calling shmem_finalize" \
                 "_exit0-coll|1|" \
                 "return-after-barrier|0|PE 1 exited without calling shmem_finalize; finalized it"; do
            IFS='|' read -r mode want re <<<"$c"
            t0=$(date +%s)
            out=$(timeout 60 srun --mpi=pmix -n "$np" --overcommit --time=2 "$client" "$mode" 1 2>&1)
            rc=$?
            took=$(($(date +%s) - t0))
            if { [ "$want" = 0 ] && [ $rc -ne 0 ]; } || { [ "$want" != 0 ] && [ $rc -eq 0 ]; } ||
                [ $took -gt 15 ] || { [ -n "$re" ] && ! grep -qE "$re" <<<"$out"; }; then
                echo "FAIL: srun -n $np launcher_shmem_client $mode: exit $rc after $took s (want $want, /$re/)" >&2
                echo "$out" | tail -15 >&2
                bad=1
            else
                echo "ok: srun -n $np launcher_shmem_client $mode: exit $rc after $took s"
            fi
        done
    done
fi
# The step's slurmstepd (the PEs' parent and PMIx server) killed with SIGKILL while PE 0 computes, PE 1 waits in
# wait_until and PE 2 in a barrier: each PE ends within seconds, saying so in one line (its stderr is a file of its
# own: slurmstepd relayed it, and is gone)
if [ -n "$client" ]; then
    rm -f "$D"/pe.*
    # shellcheck disable=SC2016
    GSH_T=$D srun --mpi=pmix -n 3 --overcommit --time=2 sh -c 'exec "$0" "$@" 2>"$GSH_T/pe.$SLURM_PROCID"' \
        "$client" orphan 1 >"$D/orphan.out" 2>&1 &
    sp=$!
    for i in $(seq 150); do [ "$(grep -c '^PE .* pid ' "$D/orphan.out")" -ge 3 ] && break; sleep 0.1; done
    sleep 0.5 # into their waits
    stepd=$(ps -eo pid=,args= | sed -n 's/^ *\([0-9]*\) slurmstepd: \[[0-9]*\.0\]$/\1/p')
    stepjob=$(ps -o args= -p "${stepd:-0}" 2>/dev/null | sed -n 's/^slurmstepd: \[\([0-9]*\)\.0\]$/\1/p')
    pes=$(sed -n 's/^PE [0-9]* of [0-9]* pid \([0-9]*\) .*/\1/p' "$D/orphan.out")
    if [ -z "$stepd" ] || [ "$(echo $pes | wc -w)" != 3 ]; then
        echo "FAIL: slurmstepd killed: no step daemon ('$stepd') or not 3 PEs: $(cat "$D/orphan.out")" >&2
        bad=1
    else
        # shellcheck disable=SC2086
        kill -9 $stepd
        # shellcheck disable=SC2086
        left=$(pes_left_after "$(date +%s%N)" 10 $pes)
        said=$(cat "$D"/pe.* 2>/dev/null | grep -cE "^gshmem: PE [0-2]: its launcher slurmstepd \(pid $stepd\) is gone")
        if [ -n "$left" ] || [ "$said" != 3 ]; then
            echo "FAIL: slurmstepd killed: PEs still running after 10 s:${left:- none}; $said of 3 said so:" >&2
            cat "$D"/pe.* >&2
            bad=1
        else
            echo "ok: slurmstepd killed: every PE ended, saying so"
        fi
        # shellcheck disable=SC2086
        kill -9 $left 2>/dev/null
        # what the killed slurmstepd's PMIx plugin leaves: the next cluster's step of the same job id would fail on it
        [ -n "$stepjob" ] && rm -rf "/tmp/spmix_appdir_$(id -u)_$stepjob.0"
    fi
    kill -9 $sp 2>/dev/null
    wait $sp 2>/dev/null
fi
# Launchers gshmem does not speak: srun with no MPI plugin, and with PMI-2 (the PMI Hydra gives SOS's programs): one
# line from the first process names the launcher, and the step fails, instead of running 2 copies of PE 0 of 1
for mpi in none pmi2; do
    if ! srun --mpi=list 2>&1 | grep -qw "$mpi"; then
        echo "skipped: srun --mpi=$mpi (no such plugin)"
        continue
    fi
    want="gshmem: shmem_init: process 0 of 2 was started by srun without PMIx"
    [ $mpi = pmi2 ] && want="gshmem: shmem_init: process 0 of 2 was started by a PMI-1/PMI-2 launcher"
    out=$(timeout 60 srun --mpi=$mpi -n 2 --overcommit --time=2 "$1" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || [ "$(grep -cF "$want" <<<"$out")" != 1 ] || grep -q "1 PEs" <<<"$out"; then
        echo "FAIL: srun --mpi=$mpi -n 2 $(basename "$1"): exit $rc, want one line '$want...' and a failed step:" >&2
        echo "$out" | tail -10 >&2
        bad=1
    else
        echo "ok: srun --mpi=$mpi -n 2 $(basename "$1") refused in one line"
    fi
done
# the PMIx bootstrap must have been used, and both PEs found on this node (shared memory, not the network)
out=$(timeout 60 srun --mpi=pmix -n 2 --overcommit env SHMEM_DEBUG=1 "$1" 2>&1)
if echo "$out" | grep -q "PMIx bootstrap.*2 PEs on this node"; then
    echo "ok: PMIx bootstrap under srun, 2 PEs on this node"
else
    echo "FAIL: SHMEM_DEBUG shows no PMIx bootstrap with 2 local PEs under srun:" >&2
    echo "$out" | tail -10 >&2
    bad=1
fi
exit $bad
