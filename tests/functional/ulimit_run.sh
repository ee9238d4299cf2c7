#!/bin/sh
# ulimit_run.sh N CMD [ARGS...] - runs CMD with a soft limit of N open files (`ulimit -n`), for the tests of what a
# job says when it runs out of file descriptors.
ulimit -Sn "$1" || exit 2
shift
exec "$@"
