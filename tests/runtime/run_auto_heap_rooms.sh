#!/usr/bin/env bash
# run_auto_heap_rooms.sh - SHMEM_SYMMETRIC_SIZE=auto with nodes of different room in /dev/shm (issue 41): each PE of a
# host-only job sizes its heap from its own node before the one exchange, then every PE uses the least. Two PEs, each
# its own node (SHMEM_TRANSPORT=ofi, tcp), each in a mount namespace with a /dev/shm of its own: 2560 MiB for PE 0
# (auto: 640 MiB), 1 GiB for PE 1 (auto: 512 MiB). Usage: run_auto_heap_rooms.sh OSHRUN PROG. Exit 77 where no mount
# namespace or tmpfs can be made.
set -u
if [ -n "${AUTO_ROOMS_PE:-}" ]; then # one PE: its own /dev/shm, then the program
  case ${GSHMEM_RANK:-} in
  0) size=2560M ;;
  *) size=1G ;;
  esac
  # shellcheck disable=SC2016 # $0 and $@ are the inner shell's: the program and its arguments
  exec unshare -m --propagation private sh -c 'mount -t tmpfs -o size='"$size"' tmpfs /dev/shm && exec "$0" "$@"' "$@"
fi
OSHRUN=$1 PROG=$2
if [ -z "${AUTO_ROOMS_INSIDE:-}" ]; then
  for how in "-m" "-r -m"; do # root; else an unprivileged user namespace
    # shellcheck disable=SC2086
    if unshare $how --propagation private sh -c 'mount -t tmpfs -o size=1G tmpfs /dev/shm &&
        unshare -m --propagation private mount -t tmpfs -o size=1G tmpfs /dev/shm' 2>/dev/null; then
      AUTO_ROOMS_INSIDE=1 exec unshare $how --propagation private bash "$0" "$@"
    fi
  done
  echo "skip: cannot mount a private tmpfs on /dev/shm here (unshare -m and unshare -r -m refused)"
  exit 77
fi
mount -t tmpfs -o size=64M tmpfs /dev/shm || exit 1 # oshrun's own (it cleans up there)
rc=0
out=$(AUTO_ROOMS_PE=1 SHMEM_TRANSPORT=ofi SHMEM_OFI_PROVIDER=tcp SHMEM_OFI_DOMAIN=lo SHMEM_DEBUG=1 \
  SHMEM_WARN_HEAP_EXHAUSTED=0 timeout 100 "$OSHRUN" -np 2 bash "$0" "$PROG" 576 64 2>&1)
st=$?
count() { grep -cE -- "$1" <<<"$out"; }
fail() {
  echo "FAIL: $1"
  rc=1
}
[ "$st" = 0 ] || fail "the job exited $st"
[ "$(count '^gshmem\[0\] debug: the symmetric heap: SHMEM_SYMMETRIC_SIZE=auto \(640 MiB here\)$')" = 1 ] ||
  fail "PE 0's node did not size its heap at 640 MiB (its /dev/shm is 2560 MiB, 2 PEs)"
[ "$(count '^gshmem\[1\] debug: the symmetric heap: SHMEM_SYMMETRIC_SIZE=auto \(512 MiB here\)$')" = 1 ] ||
  fail "PE 1's node did not size its heap at 512 MiB (its /dev/shm is 1 GiB)"
[ "$(count '^gshmem\[0\] debug: the symmetric heap: 512 MiB, the least any PE.s node allows \(this PE.s: 640 MiB\)$')" = 1 ] ||
  fail "PE 0 did not take the least heap, 512 MiB"
[ "$(count '^gshmem\[[01]\] debug: segments: heap 536870912 B ')" = 2 ] || fail "not every PE's heap is 512 MiB"
[ "$(count '^gshmem\[[01]\] debug: shmem_init: 1 bootstrap exchanges$')" = 2 ] || fail "not one exchange on every PE"
[ "$(count '^PE [01]: shmem_malloc\(576 MiB\) = NULL$')" = 2 ] || fail "576 MiB (more than the least heap) not NULL on both"
[ "$(count '^PE [01]: shmem_malloc\(64 MiB\) = ok, its last word from PE [01]: right$')" = 2 ] ||
  fail "64 MiB then: not written right across the network on both PEs"
if [ "$rc" != 0 ] || [ -n "${AUTO_ROOMS_SHOW:-}" ]; then
  echo "$out" | grep -vE 'debug: (libfabric|ofi)' | head -60
else
  echo "PASS: heaps of 640 and 512 MiB by each node's room; the job uses 512 MiB on both"
fi
exit "$rc"
