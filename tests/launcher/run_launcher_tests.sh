#!/usr/bin/env bash
# run_launcher_tests.sh - one ctest case per call: runs oshrun on a client and checks exit status, messages, speed of
# teardown, that no PE outlives the job and that nothing is left in /dev/shm.  Usage: CASE OSHRUN CLIENT [PRELOAD]
set -u
case_name=$1
OSHRUN=$2
CLIENT=$3
QUICK_S=${LAUNCHER_QUICK_S:-8} # "a few seconds", generous for a loaded 2-core machine
NP=${LAUNCHER_NP:-2}           # PEs, for the cases that take any number
# shellcheck source=tests/launcher/pe_gone.sh
. "$(dirname "$0")/pe_gone.sh"

tmp=$(mktemp -d /tmp/launcher-test.XXXXXX)
# only this shell removes it: a background job's shell, killed by a signal after its fork and before it execs oshrun,
# would run an inherited EXIT trap too
main_pid=$BASHPID
trap '[ "$BASHPID" = "$main_pid" ] && rm -rf "$tmp"' EXIT
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

# run ARGS...: runs oshrun with ARGS (and PATH=$RUN_PATH if set), sets rc and elapsed_ms; output in $tmp/out, $tmp/err
run() {
  local t0 t1
  t0=$(date +%s%N)
  timeout -s KILL 40 env ${RUN_PATH:+PATH="$RUN_PATH"} "$OSHRUN" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  t1=$(date +%s%N)
  elapsed_ms=$(((t1 - t0) / 1000000))
}

expect_rc() {
  if [ "$rc" != "$1" ]; then
    fail "exit status $rc, expected $1"
    show
  fi
}
expect_quick() {
  if [ "$elapsed_ms" -gt $((QUICK_S * 1000)) ]; then fail "took ${elapsed_ms} ms, expected under ${QUICK_S} s"; fi
}
expect_err() {
  if ! grep -qE -- "$1" "$tmp/err"; then
    fail "stderr does not match /$1/"
    show
  fi
}
expect_out() {
  if ! grep -qE -- "$1" "$tmp/out"; then
    fail "stdout does not match /$1/"
    show
  fi
}
# the PEs' pids and the job id come from the clients' "PE r of n pid P job J" lines
expect_pes_gone() {
  local pids p i
  pids=$(sed -n 's/.* pid \([0-9]*\) .*/\1/p' "$tmp/out")
  for p in $pids; do
    for i in $(seq 1 30); do
      kill -0 "$p" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$p" 2>/dev/null; then
      fail "PE process $p still exists after the job ended"
      kill -9 "$p" 2>/dev/null
    fi
  done
}
expect_no_shm() {
  local job pid
  for job in $(sed -n 's/.* job \([^ ]*\) .*/\1/p' "$tmp/out" | sort -u); do
    if ls /dev/shm/ 2>/dev/null | grep "^gshmem-$job-" >/dev/null; then
      fail "left in /dev/shm: $(ls /dev/shm | grep "^gshmem-$job-" | tr '\n' ' ')"
      rm -f /dev/shm/gshmem-"$job"-*
    fi
  done
  # libfabric's shm provider: "<pid>:<n>:<n>" per endpoint
  for pid in $(sed -n 's/.* pid \([0-9]*\) .*/\1/p' "$tmp/out" | sort -u); do
    if ls /dev/shm/ 2>/dev/null | grep "^$pid:" >/dev/null; then
      fail "left in /dev/shm by libfabric: $(ls /dev/shm | grep "^$pid:" | tr '\n' ' ')"
      rm -f /dev/shm/"$pid":*
    fi
  done
}
expect_stderr_lines() {
  local n
  n=$(wc -l <"$tmp/err")
  if [ "$n" != "$1" ]; then
    fail "stderr has $n lines, expected $1"
    show
  fi
}
# start oshrun in the background; waits until every PE printed its start line
start_bg() {
  local n=$1 i
  shift
  : >"$tmp/out" # the previous job's start lines must not count: the new one may not have opened the file yet
  "$OSHRUN" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null &
  bgpid=$!
  for i in $(seq 1 100); do
    [ "$(grep -c '^PE .* pid ' "$tmp/out")" -ge "$n" ] && return 0
    sleep 0.1
  done
  fail "the PEs did not start"
  show
  return 1
}
wait_bg() {
  local t0 t1
  t0=$(date +%s%N)
  wait "$bgpid"
  rc=$?
  t1=$(date +%s%N)
  elapsed_ms=$(((t1 - t0) / 1000000))
}

case "$case_name" in
normal)
  for np in 1 2 4; do
    run -np $np "$CLIENT" ok
    expect_rc 0
    [ "$(grep -c '^PE [0-9]* done' "$tmp/out")" = $np ] || fail "expected $np 'done' lines with -np $np"
    expect_out "^PE 0 of $np pid [0-9]+ job [A-Za-z0-9_.-]+ backend (local|api)"
    expect_pes_gone
    expect_no_shm
  done
  ;;
singleton)
  t0=$(date +%s%N)
  env -u GSHMEM_BOOT_FD -u GSHMEM_RANK -u GSHMEM_SIZE -u GSHMEM_JOBID "$CLIENT" singleton >"$tmp/out" 2>"$tmp/err"
  rc=$?
  expect_rc 0
  expect_out "^PE 0 of 1 pid [0-9]+ job s[0-9]+-[0-9a-f]+ backend singleton"
  ;;
api_singleton)
  # no launcher: PE 0 of 1 through the singleton bootstrap
  env -u GSHMEM_BOOT_FD -u GSHMEM_RANK -u GSHMEM_SIZE -u GSHMEM_JOBID SHMEM_VERSION=1 "$CLIENT" ok >"$tmp/out" 2>"$tmp/err"
  rc=$?
  expect_rc 0
  expect_out "^PE 0 of 1 pid "
  expect_out "bootstrap singleton"
  expect_out "^PE 0 done"
  ;;
api_misuse)
  # the library's own one-line report, then oshrun's one line, then the job is gone
  run -np 3 "$CLIENT" misuse 1
  expect_rc 1
  expect_quick
  expect_err '^gshmem: PE 1: shmem_int_p: .*out of range'
  expect_err '^oshrun: PE 1 ended the job with status 1'
  expect_stderr_lines 2
  expect_pes_gone
  expect_no_shm
  ;;
tag_output)
  run -np 3 --tag-output "$CLIENT" ok
  expect_rc 0
  if grep -vqE '^\[PE [0-2]\] ' "$tmp/out"; then
    fail "untagged stdout lines"
    show
  fi
  for r in 0 1 2; do expect_out "^\[PE $r\] PE $r done$"; done
  run -np 2 --tag-output sh -c 'echo out; echo err >&2; printf "partial"'
  expect_rc 0
  expect_out '^\[PE 1\] out$'
  expect_err '^\[PE 0\] err$'
  [ "$(grep -c '^\[PE [01]\] partial$' "$tmp/out")" = 2 ] || {
    fail "partial last lines were not flushed"
    show
  }
  ;;
exec_missing)
  run -np 2 /nonexistent/gshmem-no-such-program
  expect_rc 127
  expect_err "^oshrun: cannot run '/nonexistent/gshmem-no-such-program': No such file or directory$"
  run -np 2 gshmem-no-such-program-in-path
  expect_rc 127
  expect_err "cannot run 'gshmem-no-such-program-in-path'"
  ;;
exec_not_executable)
  echo 'echo hi' >"$tmp/notexec"
  chmod 644 "$tmp/notexec"
  run -np 2 "$tmp/notexec"
  expect_rc 126
  expect_err "cannot run '.*notexec': Permission denied"
  ;;
usage)
  run --bogus-option -np 2 true
  expect_rc 2
  expect_err "^oshrun: unknown option '--bogus-option'$"
  run -np 2
  expect_rc 2
  expect_err "no program given"
  run -np 0 true
  expect_rc 2
  expect_err "invalid number of PEs '0'"
  run -np
  expect_rc 2
  expect_err "needs a value"
  run --help
  expect_rc 0
  expect_out "^Usage: oshrun"
  # another machine: the job goes to mpirun; here there is none to go to
  mkdir "$tmp/nompirun"
  RUN_PATH="$tmp/nompirun" run -H some-other-host.example -np 2 true
  expect_rc 127
  expect_err "^oshrun: -H with another machine hands the job to mpirun, but mpirun was not found in PATH"
  # a hostfile that cannot serve is named before mpirun is looked for (issue 40)
  RUN_PATH="$tmp/nompirun" run --hostfile "$tmp/nompirun/hosts" -np 2 true
  expect_rc 2
  expect_err "^oshrun: --hostfile $tmp/nompirun/hosts: cannot read it: No such file or directory"
  RUN_PATH="$tmp/nompirun" run --machinefile="$tmp" -np 2 true
  expect_rc 2
  expect_err "^oshrun: --machinefile $tmp: a directory"
  printf '# no machine\n\n' >"$tmp/nompirun/hosts"
  RUN_PATH="$tmp/nompirun" run --hostfile "$tmp/nompirun/hosts" -np 2 true
  expect_rc 2
  expect_err "^oshrun: --hostfile $tmp/nompirun/hosts: the file names no machine"
  echo "some-other-host.example slots=2" >"$tmp/nompirun/hosts"
  RUN_PATH="$tmp/nompirun" run --hostfile "$tmp/nompirun/hosts" -np 2 true
  expect_rc 127
  expect_err "^oshrun: --hostfile hands the job to mpirun, but mpirun was not found"
  run --oversubscribe --bind-to core --map-by slot --allow-run-as-root -H localhost --mca btl self -np 2 true
  expect_rc 0
  expect_stderr_lines 0
  run --verbose --oversubscribe -np=2 true
  expect_rc 2 # -np=2 is not a form mpirun accepts either
  run --verbose --oversubscribe --np=2 true
  expect_rc 0
  expect_err "ignoring --oversubscribe"
  run -n 2 -- sh -c 'echo $GSHMEM_RANK'
  expect_rc 0
  [ "$(sort "$tmp/out" | tr '\n' ' ')" = "0 1 " ] || fail "-n 2 -- prog: got '$(cat "$tmp/out")'"
  # binding: two PEs on two CPUs get one each (as Open MPI binds), --bind-to none leaves them all, one PE is free
  if [ "$(nproc)" -ge 2 ]; then
    run -np 2 sh -c 'taskset -pc $$ | sed "s/.*: //"'
    expect_rc 0
    [ "$(sort -u "$tmp/out" | wc -l)" = 2 ] && ! grep -q '[,-]' "$tmp/out" ||
      fail "-np 2: PEs not bound to one CPU each: $(tr '\n' ' ' <"$tmp/out")"
    run -np 2 --bind-to none sh -c 'taskset -pc $$ | sed "s/.*: //"'
    expect_rc 0
    [ "$(sort -u "$tmp/out" | wc -l)" = 1 ] && grep -q '[,-]' "$tmp/out" ||
      fail "--bind-to none: PEs bound: $(tr '\n' ' ' <"$tmp/out")"
  fi
  ;;
version)
  run --version
  expect_rc 0
  expect_out "^oshrun \(gshmem\) [0-9]+\.[0-9]+"
  ;;
foreign_oshmem)
  # a program built with Open MPI's oshcc (OSHMEM) would run as N copies of PE 0 of 1 and crash in shmem_finalize:
  # oshrun refuses it in one line, starting nothing
  mpirun=$(command -v mpirun) || { echo "SKIP: no Open MPI (Debian: openmpi-bin libopenmpi-dev)"; exit 77; }
  ompi_oshcc=$(dirname "$mpirun")/oshcc
  "$ompi_oshcc" --showme 2>/dev/null | grep -q oshmem || { echo "SKIP: no Open MPI oshcc beside $mpirun"; exit 77; }
  printf '#include <shmem.h>\n#include <stdio.h>\nint main(void) { shmem_init(); printf("PE %%d of %%d\\n", shmem_my_pe(), shmem_n_pes()); shmem_finalize(); return 0; }\n' >"$tmp/osh.c"
  "$ompi_oshcc" "$tmp/osh.c" -o "$tmp/osh" || { fail "Open MPI's oshcc could not build a program"; exit 1; }
  run -np 2 "$tmp/osh"
  expect_rc 126
  expect_quick
  expect_err "^oshrun: $tmp/osh is linked against Open MPI's OSHMEM \(liboshmem\.so[.0-9]*\), not gshmem, so its PEs would not find gshmem's launcher; start it with Open MPI's oshrun or mpirun, or rebuild it with gshmem's oshcc\$"
  expect_stderr_lines 1
  [ -s "$tmp/out" ] && { fail "a PE ran"; show; }
  ;;
foreign_sma)
  # the same for Sandia OpenSHMEM's libsma (a stand-in with its soname: SOS is not installed here), found through PATH
  printf 'void shmem_init(void) {}\n' >"$tmp/sma.c"
  printf 'void shmem_init(void);\nint main(void) { shmem_init(); return 0; }\n' >"$tmp/prog.c"
  mkdir -p "$tmp/bin"
  cc -shared -fPIC -Wl,-soname,libsma.so.1 "$tmp/sma.c" -o "$tmp/libsma.so.1" &&
    cc "$tmp/prog.c" "$tmp/libsma.so.1" -Wl,-rpath,"$tmp" -o "$tmp/bin/sosprog" || { fail "cc failed"; exit 1; }
  RUN_PATH="$tmp/bin:$PATH" run -np 2 sosprog
  expect_rc 126
  expect_err "^oshrun: sosprog is linked against Sandia OpenSHMEM \(libsma\.so\.1\), not gshmem"
  expect_stderr_lines 1
  # a program that needs libgshmem as well is gshmem's (built with the sanitizers the library was built with: their
  # runtime must come first)
  libdir="$(dirname "$CLIENT")/../.."
  san=()
  readelf -d "$libdir/libgshmem.so" 2>/dev/null | grep -q 'libasan' && san+=(-fsanitize=address)
  readelf -d "$libdir/libgshmem.so" 2>/dev/null | grep -q 'libubsan' && san+=(-fsanitize=undefined)
  readelf -d "$libdir/libgshmem.so" 2>/dev/null | grep -q 'libtsan' && san+=(-fsanitize=thread)
  cc "${san[@]}" "$tmp/prog.c" "$tmp/libsma.so.1" -Wl,-rpath,"$tmp" -o "$tmp/bin/both" -Wl,--no-as-needed \
    -L"$libdir" -lgshmem 2>/dev/null &&
    readelf -d "$tmp/bin/both" 2>/dev/null | grep -q 'libgshmem' && {
    LD_LIBRARY_PATH="$libdir" RUN_PATH="$tmp/bin:$PATH" run -np 2 both
    expect_rc 0
  }
  ;;
noshmem_ok)
  run -np 3 hostname
  expect_rc 0
  [ "$(wc -l <"$tmp/out")" = 3 ] || fail "expected 3 lines from hostname"
  expect_stderr_lines 0
  ;;
noshmem_fail)
  # PE 1 fails at once; the others would sleep 30 s
  run -np 3 sh -c 'echo "PE $GSHMEM_RANK of $GSHMEM_SIZE pid $$ job x "; [ "$GSHMEM_RANK" = 1 ] && exit 3; exec sleep 30'
  expect_rc 3
  expect_quick
  expect_err '^oshrun: PE 1 \(pid [0-9]+\) exited with status 3; terminating the job$'
  expect_stderr_lines 1
  expect_pes_gone
  ;;
last_words)
  # PE 1 exits 3 at once; the others print a line a moment later on their own way out (as a program that finds the
  # wrong number of PEs does). oshrun used to kill them at once: the line was lost. A file says when PE 1 is done.
  for i in 1 2 3 4 5; do
    for tag in "" --tag-output; do
      run -np 3 $tag sh -c 'if [ "$GSHMEM_RANK" = 1 ]; then : >"$0"; exit 3; fi
        while [ ! -e "$0" ]; do sleep 0.01; done; sleep 0.1; echo "PE $GSHMEM_RANK: last words" >&2; exit 1' "$tmp/lw$i$tag"
      expect_rc 3
      expect_quick
      expect_err '^oshrun: PE 1 \(pid [0-9]+\) exited with status 3; terminating the job$'
      for r in 0 2; do expect_err "^(\[PE $r\] )?PE $r: last words\$"; done
    done
  done
  ;;
api_last_words)
  # the same through the library: PE 1 returns 3 from main (the exit hook ends the job); the others print with
  # printf (buffered, flushed at exit) and return 1 a moment later
  for i in 1 2 3 4 5; do
    run -np 3 "$CLIENT" last-words 1 3 "$tmp/lw$i"
    expect_rc 3
    expect_quick
    expect_err '^oshrun: PE 1: ended with exit status 3 without calling shmem_finalize; terminating the job$'
    for r in 0 2; do expect_out "^PE $r: last words\$"; done
    expect_pes_gone
    expect_no_shm
  done
  ;;
global_exit)
  run -np 4 "$CLIENT" abort 2 7
  expect_rc 7
  expect_quick
  expect_err '^oshrun: PE 2 ended the job with status 7'
  expect_stderr_lines 1
  expect_pes_gone
  expect_no_shm
  ;;
ofishm_global_exit | ofishm_segv)
  # through libfabric's shm provider, whose regions only the endpoint's close removes: oshrun removes them
  export SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER=shm
  if [ "$case_name" = ofishm_segv ]; then
    run -np 3 "$CLIENT" segv 1
    expect_rc 139
  else
    run -np 3 "$CLIENT" abort 2 7
    expect_rc 7
  fi
  expect_quick
  expect_stderr_lines 1
  expect_pes_gone
  expect_no_shm
  [ "$(grep -c ' pid ' "$tmp/out")" = 3 ] || fail "expected 3 start lines"
  ;;
abort_message)
  run -np 3 "$CLIENT" abortmsg 1 9
  expect_rc 9
  expect_quick
  expect_err '^oshrun: PE 1: boot_client: this PE found a fatal problem$'
  expect_stderr_lines 1
  expect_pes_gone
  ;;
segv)
  run -np 4 "$CLIENT" segv 1
  expect_rc 139
  expect_quick
  expect_err '^oshrun: PE 1 \(pid [0-9]+\) was killed by signal 11 \(Segmentation fault\); terminating the job$'
  expect_stderr_lines 1
  expect_pes_gone
  expect_no_shm
  ;;
exit0_no_finalize)
  run -np 4 "$CLIENT" exit0 2
  expect_rc 1
  expect_quick
  expect_err '^oshrun: PE 2 \(pid [0-9]+\) exited with status 0 without calling shmem_finalize; terminating the job$'
  expect_pes_gone
  expect_no_shm
  ;;
early_exit0_barrier)
  # exit(0) without shmem_finalize while the others wait in a barrier: they must not pass it (the implicit finalize
  # used to be a barrier_all) and the job must not hang
  run -np "$NP" "$CLIENT" exit0-barrier 1
  expect_rc 1
  expect_quick
  # PE 0 names the leaver; under a slow build (ASan), or a loaded machine, another PE's fallback may fire first and
  # name PE 0's wait (and, at 3 PEs or more, how many others wait too)
  expect_err 'PE 0: shmem_barrier_all: PE 1 ended \(exit status 0\) without calling shmem_finalize, so this wait|PE 0 waits in shmem_barrier_all( \([0-9]+ other PEs? waits? too\))?, which can never end now that PE 1 ended \(exit status 0\)'
  expect_pes_gone
  expect_no_shm
  ;;
early_exit0_wait)
  run -np "$NP" "$CLIENT" exit0-wait 1
  expect_rc 1
  expect_quick
  expect_err 'PE 0: shmem_long_wait_until: PE 1 ended \(exit status 0\) without calling shmem_finalize|PE 0 waits in shmem_long_wait_until( \([0-9]+ other PEs? waits? too\))?, which can never end now that PE 1 ended \(exit status 0\)'
  expect_pes_gone
  expect_no_shm
  ;;
stopped_peer)
  # PE 1 stopped (SIGSTOP) for 7 s while PE 0 waits for its signal, over libfabric with SHMEM_OFI_STALL_TIMEOUT=3:
  # held on this machine, not lost, so PE 0 goes on waiting and the job ends normally
  run -np 2 "$CLIENT" stopped-peer 1 7
  expect_rc 0
  [ "$(grep -c '^PE [0-9]* done$' "$tmp/out")" = 2 ] || { fail "not every PE finished"; show; }
  if [ "$elapsed_ms" -lt 7000 ]; then fail "took ${elapsed_ms} ms: PE 1 cannot have been stopped for 7 s"; fi
  if grep -q 'lost the connection' "$tmp/err"; then fail "a stopped PE was taken for a lost one"; show; fi
  expect_pes_gone
  expect_no_shm
  ;;
early_exit1_wait)
  # exit(1) while a peer waits on a variable it was to write: the status reaches oshrun at once
  run -np "$NP" "$CLIENT" exit1-wait 1
  expect_rc 1
  expect_quick
  expect_err 'PE 1: ended with exit status 1 without calling shmem_finalize; terminating the job'
  expect_pes_gone
  expect_no_shm
  ;;
early__exit0_coll)
  run -np "$NP" "$CLIENT" _exit0-coll 1
  expect_rc 1
  expect_quick
  # over libfabric a peer's connection may break before oshrun has reaped PE 1: that PE's line comes first then
  expect_err 'PE 1 \(pid [0-9]+\) exited with status 0 without calling shmem_finalize; terminating the job|a network operation failed .* \(a peer may have exited'
  expect_pes_gone
  expect_no_shm
  ;;
early_return_after_barrier)
  run -np "$NP" "$CLIENT" return-after-barrier 1
  expect_rc 0
  expect_quick
  [ "$(grep -c '^PE [0-9]* done$' "$tmp/out")" = $((NP - 1)) ] || { fail "not every other PE finished"; show; }
  # finalized at exit, and said so in one line (docs/oshrun.md)
  expect_err '^gshmem: PE 1 exited without calling shmem_finalize; finalized it$'
  expect_stderr_lines 1
  expect_pes_gone
  expect_no_shm
  ;;
exit_nonzero)
  run -np 3 "$CLIENT" exit5 0
  expect_rc 5
  expect_quick
  expect_err '^oshrun: PE 0 \(pid [0-9]+\) exited with status 5 without calling shmem_finalize'
  expect_pes_gone
  ;;
noinit_exit)
  run -np 3 "$CLIENT" noinit-exit 1
  expect_rc 1
  expect_quick
  expect_err '^oshrun: PE 1 \(pid [0-9]+\) exited without joining'
  expect_pes_gone
  ;;
finalize_early)
  run -np 3 "$CLIENT" finalize-early 0
  expect_rc 1
  expect_quick
  expect_err '^oshrun: PE 0 \(pid [0-9]+\) called shmem_finalize while PE [12] waits'
  expect_pes_gone
  ;;
shm_cleanup)
  run -np 3 "$CLIENT" shmleak 1
  expect_rc 137
  expect_quick
  expect_err 'PE 1 \(pid [0-9]+\) was killed by signal 9 \(Killed\)'
  expect_pes_gone
  expect_no_shm
  ;;
timeout)
  run --timeout 1 -np 2 "$CLIENT" hang
  expect_rc 124
  expect_quick
  expect_err '^oshrun: the job ran longer than --timeout 1 seconds; terminating the job$'
  expect_stderr_lines 1
  expect_pes_gone
  run --timeout 0.5 -np 2 sh -c 'echo "PE x pid $$ job y "; trap "" TERM; exec sleep 30'
  expect_rc 124
  expect_quick # SIGKILL after the grace period reaches PEs that ignore SIGTERM
  expect_pes_gone
  run --timeout abc true
  expect_rc 2
  ;;
signal_forward)
  set -m # job control: our background jobs do not start with SIGINT ignored, as they would in a plain script
  for sig in INT TERM; do
    start_bg 2 -np 2 "$CLIENT" hang || continue
    kill -$sig $bgpid
    wait_bg
    want=$((128 + $(kill -l $sig)))
    expect_rc $want
    expect_quick
    expect_err "was killed by signal $(kill -l $sig) \(.*\) forwarded by oshrun; terminating the job"
    expect_pes_gone
  done
  # a PE that handles the signal and exits cleanly: the job succeeds
  "$OSHRUN" -np 2 sh -c 'trap "echo PE $GSHMEM_RANK got USR1; exit 0" USR1; echo "PE $GSHMEM_RANK pid $$ x"; while :; do sleep 0.1; done' \
    >"$tmp/out" 2>"$tmp/err" </dev/null &
  bgpid=$!
  for i in $(seq 1 100); do [ "$(grep -c 'pid' "$tmp/out")" -ge 2 ] && break; sleep 0.1; done
  kill -USR1 $bgpid
  wait_bg
  expect_rc 0
  [ "$(grep -c 'got USR1' "$tmp/out")" = 2 ] || {
    fail "SIGUSR1 did not reach both PEs"
    show
  }
  # PEs that ignore the forwarded SIGTERM (some libraries install handlers): killed after the grace period
  : >"$tmp/out" # the lines of the case above must not count as this job's PEs being up
  "$OSHRUN" -np 2 sh -c 'trap "" TERM; echo "PE $GSHMEM_RANK pid $$ x"; while :; do sleep 0.1; done' \
    >"$tmp/out" 2>"$tmp/err" </dev/null &
  bgpid=$!
  for i in $(seq 1 100); do [ "$(grep -c 'pid' "$tmp/out")" -ge 2 ] && break; sleep 0.1; done
  kill -TERM $bgpid
  wait_bg
  expect_rc 137
  expect_err "still running 2000 ms after signal 15 .*; killing them"
  ;;
launcher_killed)
  # oshrun itself killed with SIGKILL: the PEs must not live on
  start_bg 3 -np 3 "$CLIENT" hang || exit 1
  kill -KILL $bgpid
  wait $bgpid 2>/dev/null
  expect_pes_gone
  ;;
launcher_gone | ofishm_launcher_gone)
  # oshrun killed with SIGKILL while PE 0 computes, PE 1 waits in shmem_long_wait_until and PE 2 in
  # shmem_barrier_all: each PE says in one line that its launcher is gone and ends within seconds, leaving nothing in
  # /dev/shm (over libfabric's shm provider too, whose regions nobody else removes once oshrun is gone)
  [ "$case_name" = ofishm_launcher_gone ] && export SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER=shm
  start_bg 3 -np 3 "$CLIENT" orphan 1 || exit 1
  sleep 0.5 # into their waits
  t0=$(date +%s%N)
  kill -KILL $bgpid
  wait $bgpid 2>/dev/null
  # reparented, a PE that has ended is a zombie until init reaps it: that counts as gone
  # shellcheck disable=SC2046
  for p in $(pes_left_after "$t0" "$QUICK_S" $(sed -n 's/.* pid \([0-9]*\) .*/\1/p' "$tmp/out")); do
    fail "PE process $p still runs ${QUICK_S} s after oshrun was killed"
    kill -9 "$p" 2>/dev/null
  done
  for r in 0 1 2; do
    expect_err "^gshmem: PE $r: its launcher oshrun \(pid $bgpid\) is gone \(.*\); this PE ends too, with exit status 1\$"
  done
  expect_stderr_lines 3
  expect_no_shm
  if [ "$case_name" = launcher_gone ]; then
    # past shmem_finalize the watch is gone: oshrun's PR_SET_PDEATHSIG is back, and still ends the PEs
    start_bg 2 -np 2 "$CLIENT" finalize-hang || exit 1
    sleep 0.5
    kill -KILL $bgpid
    wait $bgpid 2>/dev/null
    expect_pes_gone
  fi
  ;;
env_validation)
  clean="env -u GSHMEM_BOOT_FD -u GSHMEM_RANK -u GSHMEM_SIZE -u GSHMEM_JOBID"
  $clean GSHMEM_SIZE=4 GSHMEM_RANK=1 "$CLIENT" ok >"$tmp/out" 2>"$tmp/err"
  rc=$?
  expect_rc 1
  expect_err 'GSHMEM_SIZE=4 is set but GSHMEM_BOOT_FD is not'
  $clean GSHMEM_BOOT_FD=0 GSHMEM_SIZE=2 GSHMEM_RANK=5 GSHMEM_JOBID=abc "$CLIENT" ok >"$tmp/out" 2>"$tmp/err"
  rc=$?
  expect_rc 1
  expect_err 'GSHMEM_RANK=5 is out of range for GSHMEM_SIZE=2'
  $clean GSHMEM_BOOT_FD=0 GSHMEM_SIZE=2 GSHMEM_RANK=1 GSHMEM_JOBID=abc "$CLIENT" ok >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  expect_rc 1
  expect_err 'GSHMEM_BOOT_FD=0 is not an open socket'
  $clean GSHMEM_BOOT_FD=0 GSHMEM_SIZE=2 GSHMEM_RANK=1 GSHMEM_JOBID='a/b' "$CLIENT" ok >"$tmp/out" 2>"$tmp/err"
  rc=$?
  expect_rc 1
  expect_err "GSHMEM_JOBID='a/b' is not a job id"
  $clean GSHMEM_RANK=3 "$CLIENT" ok >"$tmp/out" 2>"$tmp/err"
  rc=$?
  expect_rc 1
  expect_err 'GSHMEM_RANK=3 is set but GSHMEM_SIZE and GSHMEM_BOOT_FD are not'
  ;;
export_var)
  run -np 2 -x GSHMEM_TEST_A=hello -x PATH sh -c 'echo "$GSHMEM_TEST_A $GSHMEM_RANK $GSHMEM_SIZE $GSHMEM_JOBID $GSHMEM_BOOT_FD"'
  expect_rc 0
  expect_out '^hello 0 2 [A-Za-z0-9_.-]+ [0-9]+$'
  expect_out '^hello 1 2 [A-Za-z0-9_.-]+ [0-9]+$'
  [ "$(awk '{print $4}' "$tmp/out" | sort -u | wc -l)" = 1 ] || fail "PEs see different job ids"
  run -np 1 -x =bad true
  expect_rc 2
  ;;
rank_mismatch)
  run -np 2 env GSHMEM_RANK=1 "$CLIENT" ok
  expect_rc 1
  expect_quick
  expect_err '^oshrun: PE 0 \(pid [0-9]+\) says it is rank 1 of 2, but oshrun started it as rank 0 of 2'
  expect_pes_gone
  ;;
preload_thread)
  # $4: a library whose constructor starts a thread that blocks no signal. Without the relay (see relay_signal in
  # oshrun.c) that thread took SIGCHLD (oshrun then waited for good on exited PEs, now and then) and SIGTERM (oshrun
  # died without passing it on, every time). ASan's check that its runtime comes first would refuse the preload.
  export LD_PRELOAD=$4 ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
  for i in 1 2 3 4 5 6; do
    run -np 2 "$CLIENT" ok
    expect_rc 0
    expect_quick
    expect_pes_gone
    expect_no_shm
  done
  set -m
  start_bg 2 -np 2 "$CLIENT" hang && {
    kill -TERM $bgpid
    wait_bg
    expect_rc 143
    expect_quick
    expect_err "was killed by signal $(kill -l TERM) \(.*\) forwarded by oshrun; terminating the job"
    expect_pes_gone
  }
  ;;
nested)
  run -np 2 "$CLIENT" nested
  expect_rc 0
  expect_out '^boot fd closed$'
  expect_out '^nested status [1-9]'
  expect_err 'GSHMEM_BOOT_FD=[0-9]+ is not an open socket'
  ;;
*)
  echo "unknown case $case_name" >&2
  exit 2
  ;;
esac

[ $fails = 0 ] && echo "PASS [$case_name]"
[ $fails = 0 ]
