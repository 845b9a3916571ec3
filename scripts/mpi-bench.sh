#!/usr/bin/env bash
# The cohort command across MPI ranks on one machine: builds sepal-cli (CUDA and MPI when found),
# generates a cohort of demo FCS files, trains a model with populations on the first, then times
# `sepal-cli apply` with 1 and 2 ranks (CPU: 1 x T threads, 2 x T threads and 2 x T/2 threads;
# CUDA: 1 and 2 ranks on the one GPU), checks that every output is the same bytes, and prints a
# JSON line per run under $OUT (default ./out) with cells per second.
#   MPI_FILES (8), MPI_EVENTS (1000000), MPI_THREADS (threads per rank; default half the cores),
#   MPI_WORK (folder for the cohort and outputs, e.g. /dev/shm to leave the disk out; default a
#   temporary folder), MPI_RUNS (which runs, default: cpu-1 cpu-2 cpu-all cuda-1 cuda-2; also cpu-1m:
#   cpu-1 started by mpirun -np 1; cuda-w2 and
#   cpu-w2: one process, --workers 2; cuda-w4: --workers 4; cuda-2w2: 2 ranks of 2 lanes),
#   APPLY_ARGS (more options for apply, e.g. --block-events 250000), SEPAL_GPU_BUILD (build-gpu),
#   SEPAL_DEPS_DIR (deps)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/out}
mkdir -p "$out"
build=${SEPAL_GPU_BUILD:-build-gpu}
deps=${SEPAL_DEPS_DIR:-$PWD/deps}
files=${MPI_FILES:-8}
events=${MPI_EVENTS:-1000000}
threads=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

args=(-G Ninja -DSEPAL_GUI=OFF -DSEPAL_TESTS=OFF -DSEPAL_CUDA=${SEPAL_CUDA:-AUTO} -DSEPAL_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release)
[ -d "$deps/include" ] && args+=(-DSEPAL_DEPS_DIR="$deps")
cmake -S . -B "$build" "${args[@]}" >"$out/mpi-cmake.log" 2>&1 || { tail -30 "$out/mpi-cmake.log"; exit 1; }
grep -E "Sepal: (MPI|no MPI)" "$out/mpi-cmake.log"
cmake --build "$build" -j "$threads" --target sepal-cli >"$out/mpi-build.log" 2>&1 ||
    { grep -E "error" -A3 "$out/mpi-build.log" | head -30; exit 1; }
cli=$build/src/sepal-cli

work=$(mktemp -d -p "${MPI_WORK:-${TMPDIR:-/tmp}}")
trap 'rm -rf "$work"' EXIT
df -h "$work" | tail -1
inputs=()
for s in $(seq 1 "$files"); do
    "$cli" demo --events "$events" --seed "$s" --out "$work/s$s.fcs" >/dev/null
    inputs+=("$work/s$s.fcs")
done
"$cli" embed "$work/s1.fcs" --metaclusters 15 --model "$work/m.json" --out "$work/y.fcs" --quiet
cells=$((files * events))

# run NAME RANKS THREADS BACKEND [WORKERS [LAUNCHER]]: one timed apply into $work/NAME, a JSON
# line. LAUNCHER mpirun: one rank started by mpirun too (its start and MPI's set-up counted).
run() {
    local name=$1 ranks=$2 per=$3 backend=$4 workers=${5:-0} launcher=${6:-} start end
    rm -rf "$work/$name"
    start=$(date +%s.%N)
    if [ "$ranks" = 1 ] && [ "$launcher" != mpirun ]; then
        "$cli" apply --model "$work/m.json" "${inputs[@]}" --out-dir "$work/$name" --format fcs \
            --threads "$per" --backend "$backend" --workers "$workers" --quiet ${APPLY_ARGS:-}
    else
        mpirun -np "$ranks" --oversubscribe --bind-to none "$cli" apply --model "$work/m.json" \
            "${inputs[@]}" --out-dir "$work/$name" --format fcs --threads "$per" \
            --backend "$backend" --quiet ${APPLY_ARGS:-}
    fi || { echo "{\"run\":\"$name\",\"error\":\"apply failed\"}"; return; }
    end=$(date +%s.%N)
    python3 -c "import json; s=$end-$start; print(json.dumps({'bench':'mpi-apply','run':'$name','ranks':$ranks,'threads_per_rank':$per,'backend':'$backend','workers':$workers,'files':$files,'cells':$cells,'seconds':round(s,3),'cells_per_s':$cells/s}))"
}
half=${MPI_THREADS:-$((threads / 2))}
runs=" ${MPI_RUNS:-cpu-1 cpu-2 cpu-all cuda-1 cuda-2} "
{
    [[ $runs == *" cpu-1 "* ]] && run cpu-1x$half 1 "$half" cpu
    [[ $runs == *" cpu-1m "* ]] && run cpu-m1x$half 1 "$half" cpu 0 mpirun
    [[ $runs == *" cpu-2 "* ]] && run cpu-2x$half 2 "$half" cpu
    [[ $runs == *" cpu-all "* ]] && run cpu-1x$threads 1 "$threads" cpu
    [[ $runs == *" cuda-1 "* ]] && run cuda-1 1 "$threads" cuda
    [[ $runs == *" cuda-2 "* ]] && run cuda-2 2 "$half" cuda
    [[ $runs == *" cuda-w2 "* ]] && run cuda-w2 1 "$threads" cuda 2
    [[ $runs == *" cuda-w4 "* ]] && run cuda-w4 1 "$threads" cuda 4
    [[ $runs == *" cuda-2w2 "* ]] && run cuda-2w2 2 "$half" cuda 2
    [[ $runs == *" cpu-w2 "* ]] && run cpu-w2 1 "$threads" cpu 2
    true
} | tee "$out/mpi-bench.jsonl"
# Ranks and threads never change the bytes (the CUDA kernels agree with the CPU within the
# tolerance, not bit for bit, so they are compared with each other).
for pair in "cpu-1x$half cpu-2x$half" "cpu-1x$half cpu-m1x$half" "cpu-1x$half cpu-1x$threads" "cuda-1 cuda-2" "cuda-1 cuda-w2" "cuda-1 cuda-w4" "cuda-1 cuda-2w2" \
    "cpu-1x$threads cpu-w2"; do
    set -- $pair
    same=yes
    [ -d "$work/$1" ] && [ -d "$work/$2" ] || continue
    for f in "$work/$1"/*; do cmp -s "$f" "$work/$2/$(basename "$f")" || same=no; done
    echo "outputs of $2 equal to $1: $same"
done
