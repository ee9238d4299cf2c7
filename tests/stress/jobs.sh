#!/usr/bin/env bash
# jobs.sh - the stress suite's back-to-back jobs: COUNT short jobs of NP PEs one after another; each must succeed, and
# afterwards no PE process and no shared-memory segment of gshmem may be left.
#   jobs.sh OSHRUN PROGRAM COUNT NP
set -u
oshrun=$1 prog=$2 count=$3 np=$4
shm_before=$(ls /dev/shm 2>/dev/null | grep -c '^gshmem' || true)
start=$(date +%s%N)
for ((i = 1; i <= count; i++)); do
  out=$("$oshrun" -np "$np" "$prog" --max 3 2>&1) || { echo "jobs.sh: job $i of $count failed:"; echo "$out"; exit 1; }
done
end=$(date +%s%N)
name=$(basename "$prog" | cut -c1-15) # (the process name pgrep -x matches)
left=$(pgrep -x "$name" | wc -l)
shm_after=$(ls /dev/shm 2>/dev/null | grep -c '^gshmem' || true)
ms=$(((end - start) / 1000000))
echo "jobs.sh: $count jobs of $np PEs in $((ms / 1000)).$((ms % 1000 / 100)) s ($((ms / count)) ms each)"
[ "$left" = 0 ] || { echo "jobs.sh: $left processes of $prog are still running"; pgrep -ax "$name"; exit 1; }
[ "$shm_after" -le "$shm_before" ] ||
  { echo "jobs.sh: $((shm_after - shm_before)) gshmem segments left in /dev/shm:"; ls -l /dev/shm | grep gshmem; exit 1; }
echo "jobs.sh: no process and no /dev/shm segment left"
