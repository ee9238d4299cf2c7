#!/bin/sh
# Run under run_netns.sh: every rank checks that it runs in the namespace it should (--map-by slot: ranks
# 0..ceil(N/2)-1 in namespace 0, the others in namespace 1; --map-by node: even ranks in namespace 0), that it
# sees only its own side's veth address, and, unless --shared-shm, that it has the namespace's name as hostname
# and a private /dev/shm.  Needs nothing but mpirun.
set -u
me="check_split.sh[${OMPI_COMM_WORLD_RANK:-?}]"
rank=${OMPI_COMM_WORLD_RANK:?run me under run_netns.sh}
size=${OMPI_COMM_WORLD_SIZE:?run me under run_netns.sh}
: "${GSH_NETNS_NS0:?run me under run_netns.sh}"

ns=$(ip netns identify "$$" 2>/dev/null)
case "${GSH_NETNS_MAP_BY:-slot}" in
    slot) side=$((rank >= (size + 1) / 2)) ;;           # ceil(N/2) slots in namespace 0, filled first
    node) side=$((rank % 2)) ;;                        # round robin over the two "nodes"
    *) side=$([ "$ns" = "$GSH_NETNS_NS1" ] && echo 1 || echo 0) ;;   # unknown policy: accept either side
esac
if [ "$side" = 0 ]; then
    want_ns=$GSH_NETNS_NS0 want_addr=$GSH_NETNS_ADDR0 other_addr=$GSH_NETNS_ADDR1
else
    want_ns=$GSH_NETNS_NS1 want_addr=$GSH_NETNS_ADDR1 other_addr=$GSH_NETNS_ADDR0
fi
addrs=$(ip -4 -o addr show scope global | awk '{ print $4 }' | tr '\n' ' ')
host=$(cat /proc/sys/kernel/hostname)
shm=$(awk '$2 == "/dev/shm" { src = $1 } END { print src }' /proc/mounts)
echo "rank $rank/$size: netns=$ns host=$host addrs=$addrs/dev/shm=$shm"

fail=0
[ "$ns" = "$want_ns" ] || { echo "$me: in namespace '$ns', expected $want_ns" >&2; fail=1; }
case " $addrs" in *" $want_addr/"*) ;; *) echo "$me: $want_addr not among '$addrs'" >&2; fail=1 ;; esac
case " $addrs" in *" $other_addr/"*) echo "$me: the other side's $other_addr is local too" >&2; fail=1 ;; esac
if [ "${GSH_NETNS_PRIVATE:-1}" = 1 ]; then
    [ "$host" = "$want_ns" ] || { echo "$me: hostname '$host', expected $want_ns" >&2; fail=1; }
    [ "$shm" = gsh-netns-shm ] || { echo "$me: /dev/shm is '$shm', not the private tmpfs" >&2; fail=1; }
fi
exit $fail
