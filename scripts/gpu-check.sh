#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: builds only the CUDA parts (no GUI), runs the GPU tests
# (fixtures, GPU against the host oracle, the k-NN and training sums), compute-sanitizer memcheck
# and racecheck on small cases, and sepal-bench cuda-project for every kernel; writes logs and
# JSON lines under $OUT (default ./out) and prints a summary table last.
#   SEPAL_GPU_BUILD=dir: build directory (default build-gpu)
#   scripts/gpu-check.sh [full|quick|bench]   full: tests, sanitizers, the whole grid (default)
#                                             quick: tests, sanitizers, two configurations
#                                             table: quick without racecheck (which alone ran
#                                             past 8 minutes: a device call holds 10)
#                                             racecheck: only the build and racecheck, in
#                                             groups that report as each ends
#                                             (RACECHECK_GROUPS="projection search ..." picks)
#                                             bench: only the benchmark grid
#                                             profile: ncu source-level stall sampling of the
#                                             fused and tensor kernels at the headline
#                                             profile-train: the same, and ncu's throughputs,
#                                             occupancy and stalls, of the pruned training
#                                             step's tile pass and nearest kernel
#                                             build: only the build (scripts/gpu-ab.sh)
#                                             trust: the rank kernels' tests, memcheck on them,
#                                             and sepal-bench trust of 10^6 cells of 32 and 1024
#                                             columns (TRUST_N overrides the cells)
#   SEPAL_CUDA_FLAGS=flags: extra nvcc flags for the build
# Machines without development packages: put nlohmann/, CLI/, stb/ and pugixml's headers under
# deps/include, libpugixml.so* under deps/lib and the googletest sources under deps/googletest
# (SEPAL_DEPS_DIR overrides); the fixtures under deps/embedsom are found through SEPAL_SHARED_DATA.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-full}
out=${OUT:-$PWD/out}
mkdir -p "$out"
deps=${SEPAL_DEPS_DIR:-$PWD/deps}
jobs=$(nproc)
build=${SEPAL_GPU_BUILD:-build-gpu}
status=0

echo "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
for tool in g++ nvcc cmake ninja compute-sanitizer python3; do
    printf '%s: %s\n' "$tool" "$(command -v $tool || echo missing)"
done
nvcc --version | tail -1

echo "== build (Release, sm_90, no GUI)"
args=(-G Ninja -DSEPAL_GUI=OFF -DSEPAL_CUDA=ON -DSEPAL_CUDA_ARCHITECTURES=90
      -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_FLAGS=${SEPAL_CUDA_FLAGS:-}")
[ -d "$deps/include" ] && args+=(-DSEPAL_DEPS_DIR="$deps")
if ! cmake -S . -B "$build" "${args[@]}" >"$out/cmake.log" 2>&1; then
    tail -40 "$out/cmake.log"
    exit 1
fi
start=$(date +%s)
if ! cmake --build "$build" -j "$jobs" --target sepal_gpu_tests sepal-bench >"$out/build.log" 2>&1; then
    grep -E "error|FAILED" -A5 "$out/build.log" | head -60
    exit 1
fi
echo "built in $(( $(date +%s) - start )) s"
grep -E "spill|Local memory" "$out/build.log" | sed 's/.*function .\(_Z[^ ]*\).*, /\1 /' | head -20
[ "$mode" = build ] && exit 0

export SEPAL_SHARED_DATA=${SEPAL_SHARED_DATA:-$deps}
tests=$build/tests/sepal_gpu_tests
# Parameterised names start with their instantiation ("Shapes/CudaVsHost.Every.../n0_..."): the
# leading * is needed.
small_projection='*CudaVsHost*n0_*:*CudaVsHost*n1_*:*CudaVsHost*n129_*:*CudaVsHost*n1000_*'
small_projection+=':*CudaVsHost*n200_*:*CudaVsHost*n50_*'
# The small cases by group: racecheck mode runs them one sanitizer call each, the slowest last
# (CudaProjector's cases of 20,000 cells and the sums' 280,000 kept a single "rest" call past
# 460 s of one device call); memcheck and quick mode's racecheck take them together.
racecheck_group() {
    case $1 in
        projection) echo "$small_projection" ;;
        search) echo '*CudaSearch*n1_*:*CudaSearch*n333_*:*CudaSearch*n100_*:*CudaTensorSearch*:CudaPartsSearch*' ;;
        training) echo '*CudaTrainingStep.*:*CudaNearestStep*:*CudaStepBounds.*d32_g256:CudaStepBounds.A*:CudaStepBounds.W*:CudaStepBounds.B*:CudaStepBounds.U*:CudaStepBounds.T*:CudaNearestPruningPass.*:*CudaNearestPruning.*ties_d32*' ;;
        ranks) echo 'CudaWideRanks.ACrowd*:CudaQuality.PartsOfASmallSet*' ;;
        # The lists' index (shared-memory counts) on its smallest shape; the polish's tiled
        # neighbour search (its kernel with shared memory); the list projection by rank (its
        # ranks in shared memory) on its smallest case.
        cache) echo '*CudaNeighbourCache*d16*:CudaPolish.Neighbours*:*CudaPairRankPositions*_n1500' ;;
        projector) echo 'CudaProjector.*' ;;
        sums) echo '*CudaLandmarkSums*_blocks1:*CudaKeptDistances*d7_*:*CudaKeptDistances*d27_*' ;;
        *) echo "gpu-check.sh: no racecheck group $1" >&2; exit 2 ;;
    esac
}
racecheck_groups="projection search training ranks cache projector sums"
small=$(for g in projection search training projector sums; do racecheck_group "$g"; done | paste -sd:)
if [ "$mode" = trust ]; then
    # Each step's lines as they come: a device call cut short still shows what ran.
    echo "== the rank kernels' tests"
    $tests --gtest_brief=1 --gtest_filter='CudaQuality.*:CudaWideRanks.*:SplitKnnInput.*' 2>&1 |
        grep -E "FAILED|Failure|Expected|Which is|PASSED|SKIPPED"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    echo "== compute-sanitizer memcheck (the wide kernel's small cases)"
    compute-sanitizer --tool memcheck --error-exitcode 9 $tests --gtest_brief=1 \
        --gtest_filter='CudaWideRanks.ACrowd*:CudaWideRanks.ManyLaunches*' 2>&1 |
        grep -E "ERROR SUMMARY|Invalid|FAILED"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    echo "== sepal-bench trust (stages in seconds; wide rows: products listed for exact keys)"
    : >"$out/trust.jsonl"
    for shape in "32 torn" "32 embedsom" "1024 torn" "1024 embedsom"; do
        set -- $shape
        SEPAL_RANK_STATS=1 timeout 300 $build/bench/sepal-bench trust --backend cuda \
            --n "${TRUST_N:-1000000}" --d "$1" --picture "$2" --repeats 0 2>&1 |
            tee -a "$out/trust.jsonl" | python3 -c '
import json, sys
for line in sys.stdin:
    if not line.startswith("{"):
        print(line.rstrip())
        continue
    j = json.loads(line)
    stages = ", ".join(f"{k} {v:.2f}" for k, v in j["stage_s"].items())
    n, d, picture, seconds = j["n"], j["d"], j["picture"], j["median_s"]
    trust, kept = j["trustworthiness"], j["knn_preservation"]
    print(f"{n} x {d} {picture}: {seconds:.2f} s, trust {trust!r}, knn {kept!r} ({stages})")'
    done
    exit $status
fi
if [ "$mode" != bench ] && [ "$mode" != profile ] && [ "$mode" != profile-train ]; then
    tests_rc=skipped
    if [ "$mode" != racecheck ]; then
        echo "== GPU tests"
        start=$(date +%s)
        $tests --gtest_brief=1 >"$out/gpu_tests.log" 2>&1
        rc=$?
        grep -E "FAILED|Failure|error|Expected|Which is|actual|PASSED|SKIPPED" "$out/gpu_tests.log" | head -60
        echo "gpu tests: rc=$rc in $(( $(date +%s) - start )) s"
        [ $rc -eq 0 ] || status=1
        tests_rc=$rc
    fi

    san_racecheck=skipped
    san_memcheck=skipped
    runs="memcheck racecheck"
    [ "$mode" = table ] && runs=memcheck
    # Racecheck alone, group by group (RACECHECK_GROUPS picks some), each reporting as it ends:
    # a device call cut short still shows the groups before.
    if [ "$mode" = racecheck ]; then
        runs=""
        for group in ${RACECHECK_GROUPS:-$racecheck_groups}; do
            racecheck_group "$group" >/dev/null || exit 2
            runs+=" racecheck:$group"
        done
    fi
    for run in $runs; do
        tool=${run%%:*}
        group=${run#"$tool"}
        group=${group#:}
        echo "== compute-sanitizer $tool (small cases${group:+, $group})"
        start=$(date +%s)
        if [ $tool = memcheck ]; then
            # The small cases, tensor+split's chunk offsets (racecheck: its kernels are those of
            # tensor+parts, already in the set), the ranks, the device's neighbour lists, the
            # splats, the polish's kernels, the pair terms by rank and the pruned nearest pass.
            filter="$small:CudaSplit.SideBySide*:CudaKnnGraph.Ties*:CudaQuality.*"
            filter+=':CudaWideRanks.ACrowd*:CudaWideRanks.ManyLaunches*'
            filter+=':*CudaNeighbourCache*d32*:CudaSplats.*:CudaPolish.*:*CudaPairRank*'
            filter+=':CudaNearestPruningPass.*:*CudaNearestPruning.*ties*:*CudaNearestPruning.*nonfinite*'
        elif [ -n "$group" ]; then
            filter=$(racecheck_group "$group")
        else
            # Every racecheck group at once (quick, full).
            filter=$(for g in $racecheck_groups; do racecheck_group "$g"; done | paste -sd:)
        fi
        log="$out/sanitizer_$tool${group:+_$group}.log"
        compute-sanitizer --tool $tool --error-exitcode 9 $tests --gtest_brief=1 \
            --gtest_filter="$filter" >"$log" 2>&1
        rc=$?
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|Hazard|FAILED|PASSED" "$log" | head -12
        echo "$tool${group:+ ($group)}: rc=$rc in $(( $(date +%s) - start )) s"
        # Every group must pass for the tool to pass.
        previous=$(eval echo "\$san_$tool")
        [ "$previous" = skipped ] || [ "$previous" = 0 ] || rc=$previous
        eval "san_$tool=$rc"
        [ $rc -eq 0 ] || status=1
    done
    if [ "$mode" = racecheck ]; then
        echo "racecheck rc=$san_racecheck"
        exit $status
    fi
fi

if [ "$mode" = profile ]; then
    # Source-level stall sampling, grouped into straight-line blocks by scripts/ncu-blocks.py.
    for kernel in fused tensor; do
        echo "== ncu: $kernel kernel, headline configuration"
        ncu --clock-control none --kernel-name regex:${kernel}Kernel --launch-count 1 --set full \
            --import-source yes --page source --print-source sass \
            $build/bench/sepal-bench cuda-project --kernel $kernel -d 32 -g 256 -k 16 --reps 1 \
            >"$out/ncu_source_$kernel.txt" 2>&1
        python3 scripts/ncu-blocks.py "$out/ncu_source_$kernel.txt" 0.02
        gzip -f "$out/ncu_source_$kernel.txt"
    done
    exit 0
fi
if [ "$mode" = profile-train ]; then
    # The pruned training step's two kernels of the app's batch SOM schedule at 10^7 cells and
    # g 1024: the tile pass's first launch (the third epoch; whether later epochs prune is
    # decided by their measured times, which ncu's replays distort) and the nearest kernel's
    # fifth: where their time goes at the source level (blocks, as above), then the
    # throughputs, occupancy and stall reasons.
    train=(cuda-train --n 10000000 -g 1024 --mode batch-som-app --steps 6)
    for kernel in tileStepsKernel:0 nearestKernel:4; do
        name=${kernel%%:*}
        skip=${kernel#*:}
        echo "== ncu: $name, launch $((skip + 1)) in the app's batch SOM schedule (10^7 x 32, g 1024)"
        ncu --clock-control none --kernel-name "regex:$name" --launch-skip "$skip" --launch-count 1 \
            --set full --import-source yes --page source --print-source sass \
            "$build/bench/sepal-bench" "${train[@]}" >"$out/ncu_source_$name.txt" 2>&1
        python3 scripts/ncu-blocks.py "$out/ncu_source_$name.txt" 0.02
        gzip -f "$out/ncu_source_$name.txt"
        ncu --clock-control none --kernel-name "regex:$name" --launch-skip "$skip" --launch-count 1 \
            --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
            --section WarpStateStats --section SchedulerStats --section LaunchStats \
            "$build/bench/sepal-bench" "${train[@]}" 2>&1 |
            grep -E "Duration|Throughput|Occupancy|Registers|Shared Memory Config|Block Limit|Stall|Issued Warp|Eligible|Active Warps|L1/TEX Hit|L2 Hit|Mem Pipes" |
            sed 's/^ *//'
    done
    exit 0
fi
echo "== benchmark: sepal-bench cuda-project"
bench=$build/bench/sepal-bench
# Every kernel of the registry (src/cuda/kernel_registry.cpp), then auto: its choice, measured
# on this GPU (src/cuda/auto_kernel.h), beside them.
kernels=(--kernel all --kernel auto)
: >"$out/bench.jsonl"
$bench cuda-project "${kernels[@]}" -d 32 -g 256 -k 16 | tee -a "$out/bench.jsonl" >/dev/null
$bench cuda-project "${kernels[@]}" -d 64 -g 1024 -k 32 | tee -a "$out/bench.jsonl" >/dev/null
$bench cuda-project --kernel tensor+table --kernel tensor --kernel fused --data clustered \
    -d 32 -g 256 -k 16 | tee -a "$out/bench.jsonl" >/dev/null
# tensor+split and tensor+parts come close at d 64 g 1024 k 32, and which wins depends on where
# the landmarks lie: auto beside both on clustered and crowded landmarks, as on normal above.
$bench cuda-project --kernel tensor+split --kernel tensor+parts --kernel tensor --kernel auto \
    --data clustered -d 64 -g 1024 -k 32 | tee -a "$out/bench.jsonl" >/dev/null
# Trained landmarks crowd (the residual form of D): auto's choice at both shapes.
$bench cuda-project --kernel auto --data crowded -d 32 -g 256 -k 16 | tee -a "$out/bench.jsonl" >/dev/null
$bench cuda-project --kernel tensor+split --kernel tensor+parts --kernel auto --data crowded \
    -d 64 -g 1024 -k 32 | tee -a "$out/bench.jsonl" >/dev/null
if [ "$mode" != quick ] && [ "$mode" != table ]; then
    $bench cuda-project --grid "${kernels[@]}" --reps 10 | tee "$out/bench_grid.jsonl" >/dev/null
fi

echo "== summary"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
rows = []
for name in ("bench.jsonl", "bench_grid.jsonl"):
    path = os.path.join(out, name)
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                rows.append((name, json.loads(line)))
print(f"{'set':5} {'data':9} {'d':>3} {'g':>5} {'k':>3} {'kernel':18} {'ms':>8} {'min':>8} {'max':>8} "
      f"{'pts/s':>9} {'knn ms':>7} {'e2e pts/s':>9} {'cand':>5}")
for name, j in rows:
    if "error" in j:
        print(f"{name[:5]:5} {j['data']:9} {j['d']:>3} {j['g']:>5} {j['k']:>3} {j['kernel']:18} error: {j['error'][:60]}")
        continue
    kernel = j['kernel_used'] if j['kernel'] != 'auto' else 'auto: ' + j['kernel_used']
    print(f"{name[:5]:5} {j['data']:9} {j['d']:>3} {j['g']:>5} {j['k']:>3} {kernel:18} "
          f"{j['median_ms']:8.3f} {j['min_ms']:8.3f} {j['max_ms']:8.3f} {j['points_per_s']:9.3g} "
          f"{j['knn_ms']:7.3f} {j['end_to_end_points_per_s']:9.3g} {j.get('candidates_per_point', 0):5.1f}")
    if j['kernel'] == 'auto':
        timings = ", ".join(f"{k} {v:.3f}" for k, v in j.get('auto_timings_ms', {}).items())
        print(f"      auto {j['auto_choice']} ({j.get('auto_shape_class', 'no class')}, first "
              f"projection {j['first_projection_ms']:.0f} ms): {timings}")
PY
if [ "$mode" != bench ]; then
    echo "gpu tests rc=$tests_rc, memcheck rc=$san_memcheck, racecheck rc=$san_racecheck"
fi
exit $status
