#!/bin/bash
# lost_peer.sh: a link that goes down for good while PEs wait on local memory (issue 40, item 3). lost_peer runs
# under run_netns.sh, one PE per namespace; PE 1 takes the veth down and both wait in shmem_signal_wait_until. PE 0's
# wait must end within LIMIT seconds with a message naming PE 1 and its address (SHMEM_OFI_STALL_TIMEOUT=5 here),
# and PE 1's likewise, naming PE 0.
# Then this script brings the link back up: mpirun's own connection to namespace 1 crosses the same veth, and it
# needs it to end the job there; the job must then end with a failure status, not time out.
#
#   lost_peer.sh RUN_NETNS MPIRUN PROG [LIMIT]      exit: 0 pass, 1 fail, 77 skip (run_netns.sh cannot run here)
set -u
run_netns=$1 mpirun=$2 prog=$3 limit=${4:-25}
ip_prog=$(command -v ip) || { echo "lost_peer.sh: SKIP: no ip program" >&2; exit 77; }
out=$(mktemp "${TMPDIR:-/tmp}/lost_peer.XXXXXX")
trap 'rm -f "$out"' EXIT
now_ms() { echo $(($(date +%s%N) / 1000000)); }

bash "$run_netns" -np 2 --timeout $((limit + 60)) --mpirun "$mpirun" --env SHMEM_BOOTSTRAP=pmix \
    --env SHMEM_OFI_PROVIDER=tcp --env SHMEM_OFI_STALL_TIMEOUT=5 -- "$prog" "$ip_prog" >"$out" 2>&1 &
runner=$!
fails=0
fail() {
    echo "lost_peer.sh: FAIL: $*" >&2
    fails=$((fails + 1))
}
lost='gshmem: PE 0: shmem_signal_wait_until: lost the connection to PE 1 \([^)]*10\.250\.0\.2[^)]*\): it has not answered'
t_wait='' t_lost='' t_start=$(now_ms)
while kill -0 "$runner" 2>/dev/null; do
    if [ -z "$t_wait" ] && [ $(($(now_ms) - t_start)) -gt $(((limit + 30) * 1000)) ]; then
        break # (said below: PE 0 never said it waits)
    fi
    [ -z "$t_wait" ] && grep -q '^PE 0 waits$' "$out" && t_wait=$(now_ms)
    if [ -n "$t_wait" ] && grep -qE "$lost" "$out"; then
        t_lost=$(now_ms)
        break
    fi
    if [ -n "$t_wait" ] && [ $(($(now_ms) - t_wait)) -gt $((limit * 1000)) ]; then
        fail "PE 0 still waits ${limit} s after the link went down"
        break
    fi
    sleep 0.1
done
# PE 1 went into its wait a moment after PE 0 (it took the link down first) and needs its own 5 s without an answer:
# its message cannot reach us before the link is back (its output crosses it), and a link back too soon lets its
# probe through, so it would learn of PE 0 only from PE 0's exit. Give it 3 s more than PE 0 took.
[ -n "$t_lost" ] && sleep 3
# the link back up (namespace 1 of this run_netns.sh: its name carries the script's pid)
ns1=$(ip netns list 2>/dev/null | grep -o "^gsh-ns1-$runner[a-f]\?\b" | head -n 1)
[ -n "$ns1" ] && ip -n "$ns1" link set gshveth up 2>/dev/null
t_up=$(now_ms)
[ -z "$t_lost" ] && kill -TERM "$runner" 2>/dev/null # (it tears the namespaces down, and whatever runs in them)
wait "$runner"
rc=$?
t_end=$(now_ms)
if [ "$rc" = 77 ]; then
    cat "$out" >&2
    exit 77
fi
if [ -z "$t_wait" ]; then
    fail "PE 0 never said it waits"
elif [ -n "$t_lost" ]; then
    echo "lost_peer.sh: PE 0 named PE 1 lost $((t_lost - t_wait)) ms after it began to wait;" \
        "the job ended $((t_end - t_up)) ms after the link came back (rc $rc)" >&2
elif [ "$fails" = 0 ]; then
    fail "the job ended (rc $rc) without PE 0's message naming PE 1"
fi
case "$rc" in
    0) fail "the job ended with status 0" ;;
    124) fail "the job did not end (run_netns.sh timed out)" ;;
esac
grep -q 'from nowhere' "$out" && fail "a wait ended as if the signal had come"
# PE 1 found out on its own, across the same link (its lines reach mpirun once the link is back)
[ -n "$t_lost" ] && ! grep -qE 'gshmem: PE 1: shmem_signal_wait_until: lost the connection to PE 0 ' "$out" &&
    fail "PE 1 did not say it lost PE 0"
if [ "$fails" != 0 ]; then
    echo "--- output:" >&2
    cat "$out" >&2
    exit 1
fi
exit 0
