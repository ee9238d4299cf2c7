#!/usr/bin/env bash
# run_pmix_tests.sh - one ctest case per call: runs a program under mpirun (the PMIx bootstrap) and checks exit status,
# that PMIx was the bootstrap (not N singletons), messages, teardown and /dev/shm.  Skips (77) without mpirun or PMIx.
# Usage: CASE NP HAVE_PMIX MPIRUN PROG [ARGS...]   (CASE oshrun_hostfile: PROG is oshrun, ARGS the program)
set -u
case_name=$1
np=$2
have_pmix=$3
MPIRUN=$4
PROG=$5
shift 5
QUICK_S=${LAUNCHER_QUICK_S:-10}
# shellcheck source=tests/launcher/pe_gone.sh
. "$(dirname "$0")/pe_gone.sh"

skip() {
  echo "SKIP [$case_name]: $*"
  exit 77
}
tmp=$(mktemp -d /tmp/pmix-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
  echo "FAIL [$case_name]: $*" >&2
  fails=$((fails + 1))
}
show() {
  echo "--- stdout:" >&2
  cat "$tmp/out" >&2
  echo "--- stderr:" >&2
  cat "$tmp/err" >&2
}

# the cases that need no launcher come first
if [ "$case_name" = no_server ]; then
  # PMIx variables without a PMIx server behind them: a clear message, not a hang and not a singleton
  PMIX_NAMESPACE=gshmem-test PMIX_RANK=0 timeout -s KILL 30 "$PROG" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  [ "$rc" = 1 ] || fail "exit status $rc, expected 1"
  if [ "$have_pmix" = 1 ]; then
    grep -q "PMIx_Init failed" "$tmp/err" || fail "stderr does not name PMIx_Init"
  else
    grep -q "built without PMIx" "$tmp/err" || fail "stderr does not say gshmem was built without PMIx"
  fi
  [ $fails = 0 ] || show
  [ $fails = 0 ] && echo "PASS [$case_name]"
  exit $((fails > 0))
fi

if [ "$case_name" = foreign_pmi ]; then
  # PMI-1's variables as Hydra's mpiexec (which Sandia OpenSHMEM's oshrun runs) gives them to each of 2 processes:
  # process 0 says in one line that gshmem does not speak that launcher, both stop, neither runs as PE 0 of 1
  for r in 0 1; do
    PMI_RANK=$r PMI_SIZE=2 PMI_FD=9 timeout -s KILL 30 "$PROG" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    [ "$rc" = 1 ] || fail "process $r: exit status $rc, expected 1"
    [ -s "$tmp/out" ] && fail "process $r ran"
    want=0
    [ $r = 0 ] && want=1
    expect_count "^gshmem: shmem_init: process 0 of 2 was started by a PMI-1/PMI-2 launcher \(PMI_RANK and PMI_SIZE are set: Hydra's mpiexec, as Sandia OpenSHMEM's oshrun runs it, or srun --mpi=pmi2\), which gshmem does not speak, so each process would be PE 0 of 1; start it with gshmem's oshrun" err $want
    [ "$(wc -l <"$tmp/err")" = $want ] || { fail "process $r: stderr has more than the one line"; show; }
  done
  # PMI_SIZE=1 is a job of one: a singleton, as before; SHMEM_BOOTSTRAP=local runs each process as one
  PMI_RANK=0 PMI_SIZE=1 SHMEM_VERSION=1 timeout -s KILL 30 "$PROG" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  [ $? = 0 ] || { fail "PMI_SIZE=1: not run as a singleton"; show; }
  PMI_RANK=0 PMI_SIZE=2 SHMEM_BOOTSTRAP=local timeout -s KILL 30 "$PROG" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  [ $? = 0 ] || { fail "PMI_SIZE=2 SHMEM_BOOTSTRAP=local: not run as a single PE"; show; }
  [ $fails = 0 ] && echo "PASS [$case_name]"
  exit $((fails > 0))
fi

[ "$have_pmix" = 1 ] || skip "gshmem was built without PMIx (GSHMEM_WITH_PMIX, libpmix-dev)"
command -v "$MPIRUN" >/dev/null 2>&1 || skip "no mpirun (Debian: openmpi-bin)"
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export SHMEM_DEBUG=1 # the PMIx bootstrap's line names the job id; PE 0 prints the bootstrap's name with SHMEM_VERSION

# run CMD...: sets rc and elapsed_ms; output in $tmp/out and $tmp/err.  TERM first so mpirun can reap its PEs.
run() {
  local t0 t1
  t0=$(date +%s%N)
  timeout -k 10 90 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  t1=$(date +%s%N)
  elapsed_ms=$(((t1 - t0) / 1000000))
}
mpi() { run "$MPIRUN" --oversubscribe ${MPIRUN_EXTRA:-} -np "$np" "$@"; }
expect_rc() {
  if [ "$rc" != "$1" ]; then
    fail "exit status $rc, expected $1"
    show
  fi
}
expect_err() {
  if ! grep -qE -- "$1" "$tmp/err"; then
    fail "stderr does not match /$1/"
    show
  fi
}
expect_count() { # PATTERN FILE N
  local n
  n=$(grep -cE -- "$1" "$tmp/$2")
  if [ "$n" != "$3" ]; then
    fail "$n lines of $2 match /$1/, expected $3"
    show
  fi
}
expect_quick() {
  if [ "$elapsed_ms" -gt $((QUICK_S * 1000)) ]; then fail "took ${elapsed_ms} ms, expected under ${QUICK_S} s"; fi
}
# every PE this bootstrap announced used one job id, and none of its segments is left in /dev/shm
expect_one_job_clean() {
  local jobs j
  jobs=$(sed -n 's/.*PMIx bootstrap, namespace .* (job \([^)]*\)).*/\1/p' "$tmp/err" | sort -u)
  if [ "$(printf '%s\n' "$jobs" | grep -c .)" != 1 ]; then
    fail "expected one job id from the PEs, got '$jobs'"
    show
    return
  fi
  printf '%s\n' "$jobs" | grep -qE '^[A-Za-z0-9._-]{1,40}$' || fail "job id '$jobs' is not 1-40 of [A-Za-z0-9._-]"
  for j in /dev/shm/gshmem-"$jobs"-* /dev/shm/sem.gshmem-"$jobs"-*; do
    [ -e "$j" ] && fail "left behind: $j"
  done
}
expect_pes_gone() {
  local p
  sleep 0.5
  for p in $(sed -n 's/^PE [0-9]* of [0-9]* pid \([0-9]*\) .*/\1/p' "$tmp/out"); do
    # mpirun's PEs are reparented when it exits: a zombie waiting for init to reap it is gone
    if kill -0 "$p" 2>/dev/null && ! grep -qE '^[0-9]+ \(.*\) Z' "/proc/$p/stat" 2>/dev/null; then
      fail "PE process $p still exists after the job ended"
      kill -9 "$p" 2>/dev/null
    fi
  done
}

case $case_name in
ompi_oshrun) # Open MPI's own oshrun (mpirun by another name, beside it) starts gshmem's PEs through PMIx
  ompi_oshrun=$(dirname "$(command -v "$MPIRUN")")/oshrun
  "$ompi_oshrun" --version 2>&1 | grep -qiE "open-?mpi|openrte|prrte" || skip "no Open MPI oshrun beside $MPIRUN"
  SHMEM_VERSION=1 run "$ompi_oshrun" --oversubscribe -np "$np" "$PROG" "$@"
  expect_rc 0
  expect_count "^gshmem .*, $np PEs, bootstrap pmix$" out 1
  expect_one_job_clean
  ;;
prog) # any program: succeeds, every PE in one PMIx job of np PEs
  SHMEM_VERSION=1 mpi "$PROG" "$@"
  expect_rc 0
  expect_count "^gshmem .*, $np PEs, bootstrap pmix$" out 1
  expect_count "PMIx bootstrap, namespace .*, $np PEs on this node" err "$np"
  expect_one_job_clean
  ;;
hybrid) # an MPI + OpenSHMEM program: ranks and PEs are the same processes (MPI first, then OpenSHMEM first)
  mpi "$PROG"
  expect_rc 0
  expect_count "^hybrid ok $np$" out 1
  expect_one_job_clean
  mpi "$PROG" shmem-first
  expect_rc 0
  expect_count "^hybrid ok $np$" out 1
  ;;
boot) # the bootstrap alone: allgathers of 0 B to 1 MiB, in place, 200 barriers; locality
  mpi "$PROG" ok
  expect_rc 0
  expect_count "^PE [0-9]+ of $np pid [0-9]+ job [A-Za-z0-9._-]+ backend pmix nlocal $np$" out "$np"
  expect_count "^PE [0-9]+ done$" out "$np"
  [ "$(sed -n 's/.* job \([^ ]*\) .*/\1/p' "$tmp/out" | sort -u | wc -l)" = 1 ] || fail "PEs disagree on the job id"
  ;;
rounds) # shmem_init's exchanges through PMIx (each one Put, one Fence collecting the data, and the Gets): one for a
  # host-only job, on shared memory and over libfabric, as under oshrun (issue 41); PROG checks its neighbour's writes
  mpi "$PROG" "$@"
  expect_rc 0
  expect_count "^gshmem\[[0-9]+\] debug: shmem_init: 1 bootstrap exchanges$" err "$np"
  if [ "${GSHMEM_TEST_NO_OFI:-}" != 1 ]; then # (a build without libfabric)
    SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo mpi -x SHMEM_TRANSPORT -x SHMEM_OFI_PROVIDER \
      -x SHMEM_OFI_DOMAIN "$PROG" "$@"
    expect_rc 0
    expect_count "^gshmem\[[0-9]+\] debug: shmem_init: 1 bootstrap exchanges$" err "$np"
  fi
  ;;
env_once) # under mpirun too: a bad value is said once for the job, by PE 0; a misspelled variable once, by PE 0
  SHMEM_SYMMETRIC_SIZE=12q mpi -x SHMEM_SYMMETRIC_SIZE "$PROG" "$@"
  [ "$rc" != 0 ] || fail "the job with SHMEM_SYMMETRIC_SIZE=12q exited 0"
  expect_count "SHMEM_SYMMETRIC_SIZE='12q'" err 1
  expect_count "^gshmem: PE 0: shmem_init: SHMEM_SYMMETRIC_SIZE='12q' is not valid" err 1
  expect_count "^gshmem: PE [0-9]+: " err 1
  SHMEM_SYMETRIC_SIZE=10M mpi -x SHMEM_SYMETRIC_SIZE "$PROG" "$@"
  expect_rc 0
  expect_count "^gshmem: PE 0: shmem_init: SHMEM_SYMETRIC_SIZE: .*did you mean SHMEM_SYMMETRIC_SIZE\?" err 1
  expect_count "SHMEM_WARN_UNKNOWN_ENV=0" err 1
  ;;
force_local) # SHMEM_BOOTSTRAP=local under mpirun: every process is its own singleton, as asked
  SHMEM_BOOTSTRAP=local SHMEM_VERSION=1 mpi "$PROG" "$@"
  expect_rc 0
  expect_count "^gshmem .*, 1 PE, bootstrap singleton$" out "$np"
  ;;
global_exit) # shmem_global_exit(7) on PE 1: the job ends at once with 7, a line says who ended it
  mpi "$PROG" abort 1 7
  expect_rc 7
  expect_quick
  expect_err "^gshmem: PE 1 ended the job with status 7"
  expect_pes_gone
  expect_one_job_clean
  ;;
abort_message) # the bootstrap's abort with a message: printed once, job status is the code
  mpi "$PROG" abortmsg 2 9
  expect_rc 9
  expect_quick
  expect_count "^gshmem: PE 2: boot_client: this PE found a fatal problem$" err 1
  expect_pes_gone
  ;;
segv) # a PE crashes after shmem_init: mpirun ends the job non-zero
  mpi "$PROG" segv 1
  [ "$rc" != 0 ] || fail "exit status 0 after a PE crashed"
  expect_quick
  expect_pes_gone
  expect_one_job_clean
  ;;
ofishm_global_exit | ofishm_segv | ofishm_sigkill)
  # through libfabric's shm provider, whose /dev/shm regions ("<pid>:<n>:<n>", 16 MiB) only the endpoint's close
  # removes; mpirun cleans nothing up, so each PE removes its own on the way out (exit path or signal), and those of
  # a peer on its machine that is already gone (sigkill: PE 1 is SIGKILLed, mpirun then stops the rest with SIGTERM)
  export SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER=shm
  if [ "$case_name" = ofishm_segv ]; then
    mpi "$PROG" segv 1
    [ "$rc" != 0 ] || fail "exit status 0 after a PE crashed"
  elif [ "$case_name" = ofishm_sigkill ]; then
    mpi "$PROG" shmleak 1
    [ "$rc" != 0 ] || fail "exit status 0 after a PE was killed"
  else
    mpi "$PROG" abort 2 7
    expect_rc 7
  fi
  expect_quick
  expect_pes_gone
  expect_one_job_clean
  pids=$(sed -n 's/^PE [0-9]* of [0-9]* pid \([0-9]*\) .*/\1/p' "$tmp/out")
  [ "$(printf '%s\n' "$pids" | grep -c .)" = "$np" ] || fail "expected $np start lines"
  for p in $pids; do
    if ls /dev/shm/ 2>/dev/null | grep "^$p:" >/dev/null; then
      fail "left in /dev/shm by libfabric: $(ls /dev/shm | grep "^$p:" | tr '\n' ' ')"
      rm -f /dev/shm/"$p":*
    fi
  done
  ;;
early_exit0_barrier | early_exit0_wait | early_exit1_wait | early__exit0_coll | early__exit0_coll_nosync | \
  early_return_after_barrier)
  # a PE that ends without shmem_finalize, as under oshrun: torn down in seconds, never a hang
  [ "${EARLY_TRANSPORT:-}" = ofi ] && export SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo
  case $case_name in
  early__exit0_coll) mode=_exit0-coll ;;
  early__exit0_coll_nosync) mode=_exit0-coll MPIRUN_EXTRA="--mca orte_allowed_exit_without_sync 1" ;;
  *) mode=${case_name#early_} mode=${mode//_/-} ;;
  esac
  mpi "$PROG" "$mode" 1
  expect_quick
  case $case_name in
  early_exit0_barrier)
    expect_rc 1
    expect_err "PE 0: shmem_barrier_all: PE 1 ended \(exit status 0\) without calling shmem_finalize|PE 0 waits in shmem_barrier_all, which can never end now that PE 1 ended \(exit status 0\)"
    ;;
  early_exit0_wait)
    expect_rc 1
    expect_err "PE 0: shmem_long_wait_until: PE 1 ended \(exit status 0\) without calling shmem_finalize|PE 0 waits in shmem_long_wait_until, which can never end now that PE 1 ended \(exit status 0\)"
    ;;
  early_exit1_wait)
    expect_rc 1
    expect_err "PE 1: ended with exit status 1 without calling shmem_finalize"
    ;;
  early__exit0_coll) # mpirun (ORTE) ends a job whose process exits without finalizing its PMIx client
    [ "$rc" != 0 ] || fail "exit status 0 after PE 1 left in _exit(0) during a collective"
    ;;
  early__exit0_coll_nosync) # ... unless told not to: then the library finds PE 1's process gone
    expect_rc 1
    expect_err "PE 0: shmem_long_sum_reduce: PE 1 is gone: its process ended without shmem_finalize"
    ;;
  early_return_after_barrier)
    expect_rc 0
    expect_count "^PE [0-9]+ done$" out $((np - 1))
    expect_count "^gshmem: PE 1 exited without calling shmem_finalize; finalized it$" err 1
    ;;
  esac
  expect_pes_gone
  expect_one_job_clean
  ;;
launcher_gone | ofishm_launcher_gone)
  # mpirun killed with SIGKILL while PE 0 computes, PE 1 waits in shmem_long_wait_until and the others in
  # shmem_barrier_all: every PE ends within seconds (PMIx's lost-connection event, or its parent's end), saying so in
  # one line, and nothing is left in /dev/shm. Each PE's stderr is a file of its own: mpirun relayed it, and is gone.
  [ "$case_name" = ofishm_launcher_gone ] && export SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER=shm
  # shellcheck disable=SC2016
  GSH_T=$tmp "$MPIRUN" --oversubscribe -np "$np" -x GSH_T sh -c 'exec "$0" "$@" 2>"$GSH_T/pe.$OMPI_COMM_WORLD_RANK"' \
    "$PROG" orphan 1 >"$tmp/out" 2>"$tmp/err" </dev/null &
  mpid=$!
  for _ in $(seq 1 150); do
    [ "$(grep -c '^PE .* pid ' "$tmp/out")" -ge "$np" ] && break
    sleep 0.1
  done
  [ "$(grep -c '^PE .* pid ' "$tmp/out")" -ge "$np" ] || { fail "the PEs did not start"; show; }
  sleep 0.5 # into their waits
  t0=$(date +%s%N)
  kill -KILL $mpid
  wait $mpid 2>/dev/null
  pids=$(sed -n 's/^PE [0-9]* of [0-9]* pid \([0-9]*\) .*/\1/p' "$tmp/out")
  # shellcheck disable=SC2086
  for p in $(pes_left_after "$t0" "$QUICK_S" $pids); do
    fail "PE process $p still runs ${QUICK_S} s after mpirun was killed"
    kill -9 "$p" 2>/dev/null
  done
  for p in $pids; do
    if ls /dev/shm/ 2>/dev/null | grep "^$p:" >/dev/null; then
      fail "left in /dev/shm by libfabric: $(ls /dev/shm | grep "^$p:" | tr '\n' ' ')"
      rm -f /dev/shm/"$p":*
    fi
  done
  for r in $(seq 0 $((np - 1))); do
    grep -qE "^gshmem: PE $r: its launcher [^ ]+ \(pid $mpid\) is gone \(.*\); this PE ends too, with exit status 1\$" \
      "$tmp/pe.$r" 2>/dev/null || { fail "PE $r did not say its launcher is gone: $(cat "$tmp/pe.$r" 2>&1)"; }
  done
  cat "$tmp"/pe.* >>"$tmp/err"
  expect_one_job_clean
  ;;
misuse) # a library error on PE 1 (target PE out of range) ends the job with status 1 and names the routine
  mpi "$PROG" misuse 1
  expect_rc 1
  expect_quick
  expect_err "shmem_int_p"
  expect_pes_gone
  ;;
oshrun_hostfile) # oshrun --hostfile hands the job to mpirun; the PEs use PMIx
  echo "localhost slots=$np" >"$tmp/hosts"
  SHMEM_VERSION=1 run "$PROG" -v --hostfile "$tmp/hosts" -np "$np" "$@"
  expect_rc 0
  expect_err "^oshrun: handing the job to mpirun: mpirun -np $np --hostfile "
  expect_count "^gshmem .*, $np PEs, bootstrap pmix$" out 1
  expect_one_job_clean
  ;;
*)
  echo "unknown case $case_name" >&2
  exit 2
  ;;
esac
[ $fails = 0 ] && echo "PASS [$case_name]"
exit $((fails > 0))
