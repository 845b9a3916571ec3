#!/usr/bin/env bash
# On a machine with GPUs (several for most steps): builds the CUDA parts with MPI, runs the GPU
# tests with every GPU visible, then times the k-NN graph and the cohort on one GPU and on two
# (the cohort also with each GPU given half the cores, scripts/rank-cores.sh), and checks that
# every run gives the same graph and the same output bytes. Logs and JSON lines go under $OUT.
#   MG_KNN_N (2000000): points of the k-NN graph (d = 32, k = 15)
#   MG_FILES (8), MG_EVENTS (1000000): the cohort, generated in MG_WORK (/dev/shm)
#   MG_STEPS ("tests knn cohort"): which parts run; "knn-cli" runs `sepal-cli knn` on a demo file
#   of MG_KNN_CLI_EVENTS (10000000) cells with one GPU, two GPUs and two MPI ranks; "cohort-ab"
#   alternates the cohort on one GPU and on two in one process (MG_AB_ROUNDS times); "disk"
#   alternates, on the disk under MG_DISK_DIR (/var/tmp), dd writing as many bytes as apply does
#   in four and in eight streams, each file flushed (the disk's limit), with apply for each
#   --workers of MG_DISK_WORKERS ("0": the default lanes); "halves-ab" alternates one MPI rank on
#   the host's first share (scripts/rank-cores.sh) with two ranks on a share each, for each
#   backend of MG_AB_BACKENDS ("cpu cuda"; a GPU a rank), MG_AB_ROUNDS times: the 2-rank
#   efficiency. One GPU is enough for "disk".
#   SEPAL_GPU_BUILD (build-gpu), SEPAL_DEPS_DIR (deps): as scripts/gpu-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/out}
mkdir -p "$out"
build=${SEPAL_GPU_BUILD:-build-gpu}
deps=${SEPAL_DEPS_DIR:-$PWD/deps}
steps=" ${MG_STEPS:-tests knn cohort} "
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee "$out/gpus.txt"
gpus=$(nvidia-smi -L | wc -l)
nvidia-smi topo -m >"$out/topology.txt" 2>&1
lscpu >>"$out/topology.txt" 2>&1
echo "NUMA nodes' cores: $(cat /sys/devices/system/node/node*/cpulist 2>/dev/null | tr '\n' ' ')"

start=$(date +%s)
args=(-G Ninja -DSEPAL_GUI=OFF -DSEPAL_CUDA=ON -DSEPAL_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release)
[ -d "$deps/include" ] && args+=(-DSEPAL_DEPS_DIR="$deps")
cmake -S . -B "$build" "${args[@]}" >"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
grep -E "Sepal: (MPI|no MPI)" "$out/cmake.log"
targets=(sepal-cli)
[[ $steps == *" tests "* ]] && targets+=(sepal_gpu_tests)
[[ $steps == *" knn "* ]] && targets+=(sepal-bench)
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" \
    >"$out/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$out/build.log" | head -40; exit 1; }
echo "built in $(($(date +%s) - start)) s"
cli=$build/src/sepal-cli
bench=$build/bench/sepal-bench

# make_cohort: MG_FILES demo files of MG_EVENTS cells in a new $work (under MG_WORK), their
# paths in $inputs, and a model with 15 populations trained on the first in $work/m.json.
make_cohort() {
    work=$(mktemp -d -p "${MG_WORK:-/dev/shm}")
    trap 'rm -rf "$work"' EXIT
    files=${MG_FILES:-8}
    events=${MG_EVENTS:-1000000}
    inputs=()
    for s in $(seq 1 "$files"); do
        "$cli" demo --events "$events" --seed "$s" --out "$work/s$s.fcs" >/dev/null &
        inputs+=("$work/s$s.fcs")
    done
    wait
    "$cli" embed "$work/s1.fcs" --metaclusters 15 --model "$work/m.json" --out "$work/y.fcs" --quiet
}

if [[ $steps == *" tests "* ]]; then
    start=$(date +%s)
    SEPAL_SHARED_DATA=$deps $build/tests/sepal_gpu_tests --gtest_brief=1 >"$out/gpu_tests.log" 2>&1
    rc=$?
    grep -E "FAILED|Failure|PASSED|SKIPPED" "$out/gpu_tests.log" | head -20
    echo "gpu tests with $gpus GPUs visible: rc=$rc in $(($(date +%s) - start)) s"
fi

if [[ $steps == *" knn "* ]]; then
    n=${MG_KNN_N:-2000000}
    for list in 0 "$(seq -s, 0 $((gpus - 1)))"; do
        $bench knn-graph --backend cuda --n "$n" --d 32 --k 15 --repeats 0 --check 50 \
            --gpus "$list" | tee -a "$out/knn.jsonl"
    done
    python3 - "$out/knn.jsonl" <<'PY'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
one = runs[0]
for r in runs[1:]:
    print(f"knn {r['n']} x {r['d']}: {one['gpus']} GPU {one['median_s']:.2f} s, {r['gpus']} GPUs "
          f"{r['median_s']:.2f} s, efficiency {one['median_s'] / (r['gpus'] * r['median_s']):.2f}, "
          f"same graph: {r['graph_hash'] == one['graph_hash']}, rows differing from the CPU: "
          f"{one['rows_differing']} and {r['rows_differing']}")
PY
fi

if [[ $steps == *" cohort "* ]]; then
    make_cohort
    cells=$((files * events))
    # timed NAME CMD...: one timed apply into $work/NAME, a JSON line.
    timed() {
        local name=$1 t0 t1
        shift
        t0=$(date +%s.%N)
        "$@" --model "$work/m.json" "${inputs[@]}" --out-dir "$work/$name" --format fcs --quiet \
            --timings 2>"$out/timings-$name.txt" ||
            { echo "{\"run\":\"$name\",\"error\":\"apply failed\"}"; return; }
        t1=$(date +%s.%N)
        python3 -c "import json; s=$t1-$t0; print(json.dumps({'bench':'multi-gpu-apply','run':'$name','files':$files,'cells':$cells,'seconds':round(s,3),'cells_per_s':$cells/s}))"
    }
    half=$(($(nproc --all) / 2))
    {
        CUDA_VISIBLE_DEVICES=0 timed gpu1 "$cli" apply --backend cuda
        timed gpu2 "$cli" apply --backend cuda
        timed mpi2 mpirun -np 2 --bind-to none "$cli" apply --backend cuda --threads $half
        # Each GPU with its share of the host, as on machines of their own: one GPU on half the
        # cores, then two ranks of a GPU and half the cores each.
        CUDA_VISIBLE_DEVICES=0 timed gpu1-half env RANK_SHARES=2 scripts/rank-cores.sh \
            "$cli" apply --backend cuda --threads $half
        CUDA_VISIBLE_DEVICES=0,1 timed mpi2-halves mpirun -np 2 --bind-to none \
            scripts/rank-cores.sh "$cli" apply --backend cuda --threads $half
        # The same one-GPU run started by mpirun, so that both sides pay its start.
        CUDA_VISIBLE_DEVICES=0 timed gpu1-half-mpi1 mpirun -np 1 --bind-to none \
            -x RANK_SHARES=2 scripts/rank-cores.sh "$cli" apply --backend cuda --threads $half
        # The CPU alone: half the cores in one process (plain and under mpirun), then two ranks
        # of half the cores each.
        timed cpu-half env RANK_SHARES=2 scripts/rank-cores.sh \
            "$cli" apply --backend cpu --threads $half
        timed cpu-half-mpi1 mpirun -np 1 --bind-to none -x RANK_SHARES=2 scripts/rank-cores.sh \
            "$cli" apply --backend cpu --threads $half
        timed cpu-mpi2-halves mpirun -np 2 --bind-to none scripts/rank-cores.sh \
            "$cli" apply --backend cpu --threads $half
    } | tee "$out/cohort.jsonl"
    for np in 1 2; do
        t0=$(date +%s.%N)
        mpirun -np $np --bind-to none true
        echo "mpirun -np $np true: $(python3 -c "print(round($(date +%s.%N) - $t0, 3))") s"
    done
    python3 - "$out/cohort.jsonl" <<'PY'
import json, sys
runs = {r["run"]: r for r in map(json.loads, open(sys.argv[1])) if "seconds" in r}
for one, two, what in (("gpu1", "gpu2", "the whole host shared"),
                       ("gpu1", "mpi2", "the whole host shared"),
                       ("gpu1-half", "mpi2-halves", "a GPU and half the cores each"),
                       ("gpu1-half-mpi1", "mpi2-halves", "the same, both started by mpirun"),
                       ("cpu-half", "cpu-mpi2-halves", "CPU only, half the cores each"),
                       ("cpu-half-mpi1", "cpu-mpi2-halves", "the same, both started by mpirun")):
    if one in runs and two in runs:
        e = runs[one]["seconds"] / (2 * runs[two]["seconds"])
        print(f"cohort {two} against {one} ({what}): efficiency {e:.2f}")
PY
    for f in "$out"/timings-*.txt; do echo "$(basename "$f" .txt): $(cat "$f")"; done
    # The GPU runs against one GPU's outputs, the CPU runs against one CPU process's.
    for pair in gpu1:gpu2 gpu1:mpi2 gpu1:gpu1-half gpu1:mpi2-halves gpu1:gpu1-half-mpi1 \
        cpu-half:cpu-half-mpi1 cpu-half:cpu-mpi2-halves; do
        base=${pair%%:*} run=${pair#*:} same=yes
        for f in "$work/$base"/*; do cmp -s "$f" "$work/$run/$(basename "$f")" || same=no; done
        echo "outputs of $run equal to $base: $same ($(ls "$work/$base" | wc -l) files)"
    done
    rm -rf "$work"
fi

if [[ $steps == *" cohort-ab "* ]]; then
    # One GPU and two GPUs in one process, alternated MG_AB_ROUNDS (3) times on the same files,
    # each run's outputs removed before the next: wall, user and system seconds of each.
    make_cohort
    for round in $(seq 1 "${MG_AB_ROUNDS:-3}"); do
        for visible in 0 0,1; do
            rm -rf "$work/run"
            CUDA_VISIBLE_DEVICES=$visible /usr/bin/time -f "%e %U %S" -o "$work/time.txt" \
                "$cli" apply --backend cuda --model "$work/m.json" "${inputs[@]}" \
                --out-dir "$work/run" --format fcs --quiet --timings 2>"$work/timings.txt"
            read -r wall user sys <"$work/time.txt"
            echo "round $round, GPUs $visible: wall $wall s, user $user s, system $sys s;" \
                "$(grep timings "$work/timings.txt")"
        done
    done | tee "$out/cohort_ab.txt"
    rm -rf "$work"
fi

if [[ $steps == *" knn-cli "* ]]; then
    work=$(mktemp -d -p "${MG_WORK:-/dev/shm}")
    trap 'rm -rf "$work"' EXIT
    events=${MG_KNN_CLI_EVENTS:-10000000}
    "$cli" demo --events "$events" --out "$work/cells.fcs" >/dev/null
    # graph NAME THREADS CMD...: one timed `sepal-cli knn` (THREADS CPU threads a process, 0: all)
    # into $work/NAME.bin, a JSON line.
    graph() {
        local name=$1 threads=$2 t0 t1
        shift 2
        t0=$(date +%s.%N)
        "$@" knn "$work/cells.fcs" --k 15 --backend cuda --threads "$threads" \
            --out "$work/$name.bin" 2>"$out/knn-cli-$name.txt" ||
            { echo "{\"run\":\"$name\",\"error\":\"knn failed\"}"; return; }
        t1=$(date +%s.%N)
        python3 -c "import json; print(json.dumps({'bench':'multi-gpu-knn-cli','run':'$name','events':$events,'k':15,'seconds':round($t1-$t0,3)}))"
    }
    {
        CUDA_VISIBLE_DEVICES=0 graph gpu1 0 "$cli"
        graph gpu2 0 "$cli"
        graph mpi2 $(($(nproc) / 2)) mpirun -np 2 --bind-to none "$cli"
    } | tee "$out/knn_cli.jsonl"
    grep -H "neighbours of every event" "$out"/knn-cli-*.txt
    for run in gpu2 mpi2; do
        if cmp -s "$work/gpu1.bin" "$work/$run.bin"; then same=yes; else same=no; fi
        echo "graph of $run equal to gpu1: $same ($(stat -c %s "$work/gpu1.bin" 2>/dev/null) bytes)"
    done
    rm -rf "$work"
fi

if [[ $steps == *" disk "* ]]; then
    MG_WORK=${MG_DISK_DIR:-/var/tmp} make_cohort
    df -h "$work" | tail -1
    "$cli" apply --backend cuda --model "$work/m.json" "$work/s1.fcs" --out-dir "$work/probe" \
        --format fcs --quiet
    bytes=$(stat -c %s "$work/probe/s1.fcs")
    rm -rf "$work/probe"
    mib=$(((bytes + 1048575) / 1048576))
    cells=$((files * events))
    for round in $(seq 1 "${MG_AB_ROUNDS:-3}"); do
        for writers in 4 8; do
            rm -rf "$work/dd" && mkdir "$work/dd" && sync
            t0=$(date +%s.%N)
            for w in $(seq 1 $writers); do
                (for f in $(seq "$w" "$writers" "$files"); do
                    dd if=/dev/zero of="$work/dd/f$f" bs=1M count=$mib conv=fsync status=none
                done) &
            done
            wait
            t1=$(date +%s.%N)
            echo "round $round: dd, $writers writers, $files files of $mib MiB: $(python3 -c "s=$t1-$t0; print(f'{s:.2f} s, {$cells/s:.3g} cells/s at apply\'s bytes')")"
        done
        rm -rf "$work/dd" && sync
        for workers in ${MG_DISK_WORKERS:-0}; do
            rm -rf "$work/run" && sync
            t0=$(date +%s.%N)
            "$cli" apply --backend cuda --model "$work/m.json" "${inputs[@]}" --out-dir "$work/run" \
                --format fcs --quiet --timings --workers "$workers" 2>"$work/timings.txt"
            t1=$(date +%s.%N)
            echo "round $round: apply, $files files, --workers $workers: $(python3 -c "s=$t1-$t0; print(f'{s:.2f} s, {$cells/s:.3g} cells/s')"); $(grep timings "$work/timings.txt")"
        done
        rm -rf "$work/run" && sync
    done | tee "$out/disk.txt"
    rm -rf "$work"
fi

if [[ $steps == *" halves-ab "* ]]; then
    make_cohort
    half=$(($(nproc --all) / 2))
    # run NAME NP BACKEND: wall seconds of one apply of the cohort under mpirun -np NP, each rank on
    # its share of the host (two shares either way), a GPU a rank.
    run() {
        rm -rf "$work/$1"
        local t0 t1
        t0=$(date +%s.%N)
        CUDA_VISIBLE_DEVICES=0,1 mpirun -np "$2" --bind-to none -x RANK_SHARES=2 \
            scripts/rank-cores.sh "$cli" apply --backend "$3" --threads $half \
            --model "$work/m.json" "${inputs[@]}" --out-dir "$work/$1" --format fcs --quiet \
            --timings 2>"$work/timings-$1.txt"
        t1=$(date +%s.%N)
        python3 -c "print(round($t1 - $t0, 3))"
    }
    for backend in ${MG_AB_BACKENDS:-cpu cuda}; do
        for round in $(seq 1 "${MG_AB_ROUNDS:-3}"); do
            one=$(run one 1 $backend)
            two=$(run two 2 $backend)
            same=yes
            for f in "$work/one"/*; do cmp -s "$f" "$work/two/$(basename "$f")" || same=no; done
            echo "$backend round $round: 1 rank $one s, 2 ranks $two s, efficiency" \
                "$(python3 -c "print(round($one / (2 * $two), 3))"), same outputs: $same"
            grep -h timings "$work/timings-one.txt" | sed 's/^/  1 rank: /'
            grep -h timings "$work/timings-two.txt" | sed 's/^/  2 ranks: /'
        done
    done | tee "$out/halves_ab.txt"
    rm -rf "$work"
fi
