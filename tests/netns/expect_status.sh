#!/bin/bash
# expect_status.sh: runs run_netns.sh and checks its exit status and whether it said "timed out", so that the
# harness's own status reporting is tested.  Usage: expect_status.sh STATUS yes|no run_netns.sh-arguments...
set -u
want=$1 timed_out=$2
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
err=$(mktemp)
trap 'rm -f "$err"' EXIT
bash "$here/run_netns.sh" "$@" 2>"$err"
rc=$?
cat "$err" >&2
[ "$rc" = 77 ] && exit 77
fails=0
if [ "$rc" != "$want" ]; then
    echo "FAIL: run_netns.sh exited $rc, expected $want" >&2
    fails=1
fi
if grep -q 'timed out after' "$err"; then said=yes; else said=no; fi
if [ "$said" != "$timed_out" ]; then
    echo "FAIL: run_netns.sh said 'timed out': $said, expected $timed_out" >&2
    fails=1
fi
[ $fails = 0 ] && echo "PASS: status $rc, timed out: $said"
exit $fails
