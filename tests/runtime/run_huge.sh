#!/usr/bin/env bash
# run_huge.sh - PGSIZE=2M partitions on huge pages: reserves enough 2 MiB pages for NP PEs (root only; the pool is
# put back afterwards), runs rt_partition_place over them, and also checks that a pool too small is refused with a
# message naming the variable.  Usage: run_huge.sh OSHRUN PROG NP.  Exit 77 where the pool cannot be changed.
set -u
OSHRUN=$1 PROG=$2 NP=$3
pool=/sys/kernel/mm/hugepages/hugepages-2048kB
[ -w "$pool/nr_hugepages" ] || { echo "skip: cannot reserve 2 MiB huge pages here (not root, or no pool)"; exit 77; }
old=$(cat "$pool/nr_hugepages")
trap 'echo "$old" > "$pool/nr_hugepages"' EXIT
var="SHMEM_SYMMETRIC_PARTITION1=SIZE=6M:PGSIZE=2M"
rc=0
# too few: free pages minus what the job would need (3 per PE)
echo "$old" > "$pool/nr_hugepages"
free=$(cat "$pool/free_hugepages")
if [ "$free" -lt $((3 * NP)) ]; then
  out=$(env "$var" timeout 60 "$OSHRUN" -np "$NP" "$PROG" 2048 2>&1)
  st=$?
  if [ $st -eq 0 ] || ! grep -q "SHMEM_SYMMETRIC_PARTITION1=SIZE=6M:PGSIZE=2M: cannot map .* huge pages" <<<"$out"; then
    echo "FAIL: a short pool ($free free pages) was not refused by name (status $st):"; echo "$out"; rc=1
  fi
fi
need=$((old + 3 * NP + 2))
echo "$need" > "$pool/nr_hugepages"
if [ "$(cat "$pool/free_hugepages")" -lt $((3 * NP)) ]; then
  echo "skip: the kernel gave only $(cat "$pool/free_hugepages") free 2 MiB pages"; exit 77
fi
env "$var" timeout 60 "$OSHRUN" -np "$NP" "$PROG" 2048 || { echo "FAIL: PGSIZE=2M run"; rc=1; }
env "$var:POLICY=BIND=0" timeout 60 "$OSHRUN" -np "$NP" "$PROG" 2048 bind 1 || { echo "FAIL: PGSIZE=2M BIND=0"; rc=1; }
exit $rc
