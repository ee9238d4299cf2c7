#!/bin/sh
# Run under run_netns.sh -np 2: rank 1 (namespace 1) is the fi_pingpong server, rank 0 (namespace 0) the client,
# which connects to the server's veth address.  Shows that libfabric's provider works between the namespaces.
#   run_netns.sh -np 2 -- fi_pingpong_rank.sh [provider [endpoint type]]      (default: tcp rdm)
set -u
prov=${1:-tcp}
ep=${2:-rdm}
pp=${FI_PINGPONG:-fi_pingpong}
rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-}}
command -v "$pp" >/dev/null 2>&1 || { echo "fi_pingpong_rank.sh: $pp not found" >&2; exit 77; }
if [ -z "$rank" ] || [ -z "${GSH_NETNS_ADDR1:-}" ]; then echo "fi_pingpong_rank.sh: run me under run_netns.sh" >&2; exit 2; fi

# -c: check the data; sizes up to 1 MiB
args="-p $prov -e $ep -I 20 -c"
case "$rank" in
    1)
        # shellcheck disable=SC2086
        exec timeout 60 "$pp" $args
        ;;
    0)
        # the server may not be listening yet: retry the connection for a while
        i=0
        while :; do
            # shellcheck disable=SC2086
            timeout 60 "$pp" $args "$GSH_NETNS_ADDR1" && exit 0
            rc=$?
            i=$((i + 1))
            [ $i -lt 20 ] || exit "$rc"
            echo "fi_pingpong_rank.sh: client attempt $i failed ($rc), retrying" >&2
            sleep 0.5
        done
        ;;
    *) exit 0 ;;
esac
