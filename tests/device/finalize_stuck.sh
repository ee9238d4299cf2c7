#!/usr/bin/env bash
# finalize_stuck.sh OSHRUN PROG MODE EXPECT - a job whose kernel (or other GPU work) never ends before shmem_finalize:
# it must end by itself with a non-zero status, one stderr line matching EXPECT (ERE), no crash, and nothing of the job
# left in /dev/shm. PROG prints "PE <n> job <id>" first; the PEs' own numbers are checked against two PEs.
set -u
OSHRUN=$1 PROG=$2 MODE=$3 EXPECT=$4
tmp=$(mktemp -d /tmp/finalize-stuck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
timeout -s KILL 40 "$OSHRUN" -np 2 "$PROG" "$MODE" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
t1=$(date +%s)
echo "---- stdout ----"; cat "$tmp/out"; echo "---- stderr (exit $rc, $((t1 - t0)) s) ----"; cat "$tmp/err"; echo "----"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ "$rc" != 0 ] || fail "the job exited 0"
[ "$rc" != 137 ] || fail "the job did not end by itself within 40 s"
grep -qE -- "$EXPECT" "$tmp/err" || fail "no line of stderr matches /$EXPECT/"
! grep -qE "Segmentation|SIGSEGV|SIGBUS|signal 11|signal 7|core dumped" "$tmp/out" "$tmp/err" || fail "a PE crashed"
! grep -q "^FAIL" "$tmp/out" || fail "a PE went on past shmem_finalize"
for job in $(sed -n 's/^PE [0-9]* job \([A-Za-z0-9_.-]*\)$/\1/p' "$tmp/out" | sort -u); do
  for i in $(seq 1 20); do # (the launcher removes them as the job ends: give it a moment)
    ls /dev/shm | grep -q "^gshmem-$job-" || break
    sleep 0.1
  done
  if ls /dev/shm | grep -q "^gshmem-$job-"; then
    fail "left in /dev/shm: $(ls /dev/shm | grep "^gshmem-$job-" | tr '\n' ' ')"
    rm -f /dev/shm/gshmem-"$job"-*
  fi
done
grep -q "^PE [0-9]* job " "$tmp/out" || fail "no PE said its job id"
exit $((fails > 0))
