#!/usr/bin/env bash
# run_shm_room.sh - symmetric memory on a small /dev/shm (a private 1 GiB tmpfs in a mount namespace of its own): the
# automatic heap fits, an explicit one that cannot fit stops shmem_init once with a message naming it, and no PE dies
# of SIGBUS (issue 40). Usage: run_shm_room.sh OSHRUN PROG. Exit 77 where no mount namespace or tmpfs can be made.
set -u
OSHRUN=$1 PROG=$2
if [ -z "${SHM_ROOM_INSIDE:-}" ]; then
  for how in "-m" "-r -m"; do # root; else an unprivileged user namespace
    # shellcheck disable=SC2086
    if unshare $how --propagation private sh -c 'mount -t tmpfs -o size=1G tmpfs /dev/shm' 2>/dev/null; then
      SHM_ROOM_INSIDE=1 exec unshare $how --propagation private bash "$0" "$@"
    fi
  done
  echo "skip: cannot mount a private tmpfs on /dev/shm here (unshare -m and unshare -r -m refused)"
  exit 77
fi
mount -t tmpfs -o size=1G tmpfs /dev/shm || exit 1
rc=0
fail() {
  echo "FAIL: $1"
  echo "$out"
  rc=1
}
# run NP ENV... -- ARGS...: out gets the output, st the exit status
run() {
  local np=$1
  shift
  local envs=()
  while [ "$1" != "--" ]; do
    envs+=("$1")
    shift
  done
  shift
  out=$(env "${envs[@]}" timeout 60 "$OSHRUN" -np "$np" "$PROG" "$@" 2>&1)
  st=$?
}
count() { grep -cE -- "$1" <<<"$out"; }

# 4 PEs asking 400 MiB each of 1 GiB: the automatic heap is at most a quarter of it, so shmem_malloc says NULL
run 4 SHMEM_WARN_HEAP_EXHAUSTED=1 -- 400
[ "$st" = 0 ] || fail "auto heap, 4 x 400 MiB: exit status $st (SIGBUS is 135 from the shell, or a PE killed)"
[ "$(count '^PE [0-9]+: shmem_malloc.* = NULL$')" = 4 ] || fail "auto heap, 4 x 400 MiB: not NULL on every PE"
[ "$(count 'then shmem_malloc\(1 MiB\) = ok')" = 4 ] || fail "auto heap: 1 MiB after the refusal"
# ... and what it does give can be used: 4 x 128 MiB written
run 4 SHMEM_WARN_HEAP_EXHAUSTED=1 -- 128
[ "$st" = 0 ] && [ "$(count '^PE [0-9]+: shmem_malloc.* = ok$')" = 4 ] || fail "auto heap, 4 x 128 MiB: status $st"
# an explicit heap the node cannot back: shmem_init stops, once, naming the variable, the size, the PEs and the room
run 4 SHMEM_SYMMETRIC_SIZE=512M -- 400
[ "$st" != 0 ] && [ "$st" -lt 128 ] || fail "SHMEM_SYMMETRIC_SIZE=512M at 4 PEs: exit status $st, expected an error"
re="^gshmem: PE 0: shmem_init: SHMEM_SYMMETRIC_SIZE=512M: each of the 4 PEs of this node needs 512 MiB of shared \
memory, but /dev/shm has 10[0-9][0-9] MiB free, 2[0-9][0-9] MiB per PE; .*SIGBUS.* Set SHMEM_SYMMETRIC_SIZE to at most \
2[0-9][0-9]M"
[ "$(count "$re")" = 1 ] || fail "SHMEM_SYMMETRIC_SIZE=512M at 4 PEs: not one line naming it and the room"
[ "$(count 'SHMEM_SYMMETRIC_SIZE=512M')" = 1 ] || fail "SHMEM_SYMMETRIC_SIZE=512M at 4 PEs: said more than once"
[ "$(count '^PE [0-9]+: shmem_malloc.* = ok$')" = 0 ] || fail "SHMEM_SYMMETRIC_SIZE=512M at 4 PEs: shmem_init returned"
# room taken after shmem_init (PE 0 fills /dev/shm to 300 MiB left): 4 x 100 MiB cannot all be backed, so every
# shmem_malloc returns NULL (one line says why) instead of a PE dying when it writes; 4 x 60 MiB fit
run 4 SHMEM_SYMMETRIC_SIZE=200M -- 100 300
[ "$st" = 0 ] || fail "after /dev/shm filled, 4 x 100 MiB: exit status $st (SIGBUS is 135 from the shell)"
[ "$(count '^PE [0-9]+: shmem_malloc.* = NULL$')" = 4 ] || fail "after /dev/shm filled, 4 x 100 MiB: not NULL on every PE"
[ "$(count '^gshmem: PE [0-9]+: shmem_malloc\(104857600 bytes\) returns NULL on every PE: /dev/shm cannot back it')" = 1 ] ||
  fail "after /dev/shm filled, 4 x 100 MiB: not one line saying why"
[ "$(count 'then shmem_malloc\(1 MiB\) = ok')" = 4 ] || fail "after /dev/shm filled: 1 MiB after the refusal"
run 4 SHMEM_SYMMETRIC_SIZE=200M -- 60 300
[ "$st" = 0 ] && [ "$(count '^PE [0-9]+: shmem_malloc.* = ok$')" = 4 ] || fail "after /dev/shm filled, 4 x 60 MiB"
# the biggest value there is: refused by name with the limit, not as an "Invalid argument" of ftruncate
run 2 SHMEM_SYMMETRIC_SIZE=9223372036854775807 -- 1
[ "$(count '^gshmem: PE 0: shmem_init: SHMEM_SYMMETRIC_SIZE=9223372036854775807: each of the 2 PEs of this node needs .* but /dev/shm has [0-9]+ MiB free')" = 1 ] ||
  fail "SHMEM_SYMMETRIC_SIZE=9223372036854775807: not refused by name with the room"
run 2 SHMEM_SYMMETRIC_PARTITION1=SIZE=9223372036854775807 -- 1
[ "$(count '^gshmem: PE 0: shmem_init: SHMEM_SYMMETRIC_PARTITION1=SIZE=9223372036854775807: each of the 2 PEs .* but /dev/shm has [0-9]+ MiB free.* Make the partitions smaller')" = 1 ] ||
  fail "SHMEM_SYMMETRIC_PARTITION1=SIZE=9223372036854775807: not refused by name with the room"
ls /dev/shm | grep -q gshmem && { out=$(ls -l /dev/shm); fail "left in /dev/shm"; }
exit $rc
