#!/bin/sh
# kill_rank.sh: rank 1 (in namespace 1, under orted) is killed by SIGKILL; the others would sleep 30 s, until mpirun
# ends the job.
[ "${OMPI_COMM_WORLD_RANK:-}" = 1 ] && kill -KILL $$
exec sleep 30
