#!/usr/bin/env bash
# linkdown.sh - a PE command for tests/netns/run_netns.sh: the job's last PE (in namespace 1 with --map-by node)
# takes its veth down AT seconds after it starts and up again DOWN seconds later; every PE runs the program.
#   linkdown.sh AT DOWN program [args...]
set -u
at=$1 down=$2
shift 2
rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}} size=${OMPI_COMM_WORLD_SIZE:-1}
if [ "$rank" = "$((size - 1))" ]; then
  iface=${GSH_NETNS_IFACE:?run me under tests/netns/run_netns.sh}
  (sleep "$at"; ip link set dev "$iface" down && echo "linkdown.sh: $iface down for $down s" >&2
   sleep "$down"; ip link set dev "$iface" up && echo "linkdown.sh: $iface up again" >&2) &
fi
exec "$@"
