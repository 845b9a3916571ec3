#!/usr/bin/env bash
# Runs a command on this MPI rank's share of the machine's cores (under mpirun): local rank r of
# n gets cores r C / n .. (r + 1) C / n - 1 of the C cores. So that two ranks on one host each
# have what a rank on a host of its own would: a GPU and half the cores, not all cores shared.
#   mpirun -np 2 --bind-to none scripts/rank-cores.sh sepal-cli apply ...
set -euo pipefail
rank=${OMPI_COMM_WORLD_LOCAL_RANK:-0}
ranks=${OMPI_COMM_WORLD_LOCAL_SIZE:-1}
cores=$(nproc --all)
exec taskset -c "$((rank * cores / ranks))-$(((rank + 1) * cores / ranks - 1))" "$@"
