#!/usr/bin/env bash
# Runs a command on this MPI rank's share of the machine's cores (under mpirun), so that ranks on
# one host each have what a rank on a host of its own would, not all cores shared. The host is cut
# into as many shares as there are local ranks (or RANK_SHARES, to run one share's baseline
# without mpirun). Where it has at least that many NUMA nodes with cores, share r is the cores of
# node r (its memory then comes from that node, where its threads first touch it); otherwise
# share r of n is cores r C / n .. (r + 1) C / n - 1 of the C cores.
#   mpirun -np 2 --bind-to none scripts/rank-cores.sh sepal-cli apply ...
#   RANK_SHARES=2 scripts/rank-cores.sh sepal-cli apply ...   (the first share alone)
set -euo pipefail
rank=${OMPI_COMM_WORLD_LOCAL_RANK:-0}
shares=${RANK_SHARES:-${OMPI_COMM_WORLD_LOCAL_SIZE:-1}}
nodes=()
for node in $(ls /sys/devices/system/node 2>/dev/null | grep -E '^node[0-9]+$' | sort -V); do
    list=/sys/devices/system/node/$node/cpulist
    [ -s "$list" ] && nodes+=("$(cat "$list")")
done
if [ "$shares" -gt 1 ] && [ "${#nodes[@]}" -ge "$shares" ]; then
    exec taskset -c "${nodes[$rank]}" "$@"
fi
cores=$(nproc --all)
exec taskset -c "$((rank * cores / shares))-$(((rank + 1) * cores / shares - 1))" "$@"
