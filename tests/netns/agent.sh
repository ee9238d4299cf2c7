#!/bin/sh
# Remote-shell agent for Open MPI's rsh launcher (--mca plm_rsh_agent), used by run_netns.sh.
#
# mpirun calls it like ssh:  agent.sh [ssh-style options] <host> <command words...>
# It maps <host> (an address on the test veth) to a network namespace and runs the command there, the way sshd
# would run it on a remote machine: the words are joined with spaces and handed to sh -c.
#
# Configuration comes from the environment, which mpirun passes through to the agent:
#   GSH_NETNS_MAP          "addr=namespace addr=namespace ..."   (required)
#   GSH_NETNS_PRIVATE_SHM  1: give the remote side its own tmpfs on /dev/shm and its own hostname (UTS namespace)
#   GSH_NETNS_SHM_SIZE     size= option for that tmpfs (default 50%)
#   GSH_NETNS_LOG          file to append each invocation to (debugging)
set -u

if [ -n "${GSH_NETNS_LOG:-}" ]; then
    printf 'agent: %s\n' "$*" >>"$GSH_NETNS_LOG" 2>/dev/null || :
fi

# skip ssh-style options (-x, -o Foo=bar, ...) that a caller may put before the host name
while [ $# -gt 0 ]; do
    case "$1" in
        -o|-l|-p|-i|-F) shift 2 ;;
        -*) shift ;;
        *) break ;;
    esac
done
if [ $# -lt 2 ]; then
    echo "agent.sh: usage: agent.sh <host> <command...>" >&2
    exit 255
fi
host=$1
shift

ns=
for pair in ${GSH_NETNS_MAP:-}; do
    if [ "${pair%%=*}" = "$host" ]; then
        ns=${pair#*=}
        break
    fi
done
if [ -z "$ns" ]; then
    echo "agent.sh: host '$host' is not in GSH_NETNS_MAP='${GSH_NETNS_MAP:-}'" >&2
    exit 255
fi

if [ "${GSH_NETNS_PRIVATE_SHM:-0}" = 1 ]; then
    # Own mount namespace (private propagation) with a fresh /dev/shm, and own UTS namespace with the
    # namespace's name as hostname, so that nothing can silently go through shared memory between the two sides.
    # shellcheck disable=SC2016
    exec ip netns exec "$ns" unshare --mount --uts --propagation private sh -c '
        mount -t tmpfs -o "size=$2,mode=1777" gsh-netns-shm /dev/shm || exit 255
        echo "$1" >/proc/sys/kernel/hostname || exit 255
        exec sh -c "$3"' agent-sh "$ns" "${GSH_NETNS_SHM_SIZE:-50%}" "$*"
fi
exec ip netns exec "$ns" sh -c "$*"
