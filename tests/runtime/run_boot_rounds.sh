#!/usr/bin/env bash
# run_boot_rounds.sh - how many exchanges through the launcher shmem_init makes (issue 41): each is one round trip of
# every PE through oshrun, the start-up cost that grows with the job. A host-only job packs all that each PE tells the
# others (placement, room in /dev/shm, segments, network card) into one blob, one exchange in all; SHMEM_DEBUG's
# "shmem_init: N bootstrap exchanges" says how many.
# Usage: OSHRUN PROG NP LAYOUT EXPECT   (LAYOUT: shm, ofi (each PE its own node, tcp), split (nodes of 2, tcp between))
set -u
oshrun=$1 prog=$2 np=$3 layout=$4 expect=$5
tmp=$(mktemp -d /tmp/boot-rounds.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
case $layout in
shm) set -- SHMEM_TRANSPORT=shm ;;
ofi) set -- SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo ;;
split) set -- SHMEM_TEST_NODE_SIZE=2 SHMEM_OFI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo ;;
*) echo "run_boot_rounds.sh: unknown layout $layout" >&2; exit 2 ;;
esac
env "$@" SHMEM_DEBUG=1 timeout -k 5 100 "$oshrun" -np "$np" "$prog" >"$tmp/out" 2>"$tmp/err"
rc=$?
fails=0
fail() { echo "FAIL [$layout np$np]: $*" >&2; fails=$((fails + 1)); }
[ "$rc" = 0 ] || fail "the job exited $rc"
lines=$(grep -cE '^gshmem\[[0-9]+\] debug: shmem_init: [0-9]+ bootstrap exchanges$' "$tmp/err")
[ "$lines" = "$np" ] || fail "$lines PEs said how many bootstrap exchanges shmem_init made, expected $np"
for k in $(sed -n 's/^gshmem\[[0-9]*\] debug: shmem_init: \([0-9]*\) bootstrap exchanges$/\1/p' "$tmp/err" | sort -u); do
    [ "$k" = "$expect" ] || fail "shmem_init made $k bootstrap exchanges, expected $expect"
done
if [ "$fails" != 0 ]; then
    grep -vE 'debug: ' "$tmp/err" >&2
    grep -E 'bootstrap exchanges' "$tmp/err" >&2
    exit 1
fi
echo "PASS [$layout np$np]: $(sed -n 's/.*shmem_init: \([0-9]*\) bootstrap exchanges$/\1/p' "$tmp/err" | sort -u | tr '\n' ' ')exchanges"
