#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: an A/B comparison of a CUDA change in one run. Builds the
# tree twice (B with extra nvcc flags, for a change kept behind an #ifdef while it is tried),
# then times both builds on the same shapes and prints them side by side. H100 machines differ
# by a few percent, so a comparison across runs cannot show a change of that size.
#   AB_FLAGS="-DSEPAL_TRY_X" scripts/gpu-ab.sh ["-d 32 -g 256 -k 16" ...]
#   SEPAL_GPU_BUILD=dir: build directory of A (default build-gpu; B uses dir-b)
#   AB_KERNELS: the kernels to time (default "fused tensor")
#   AB_TESTS: a gtest filter of GPU tests B must pass first (none by default)
#   AB_BENCH=train: time the training step instead (sepal-bench cuda-train; each argument a
#     list of its options, default the app's batch SOM and k-means at 10^8 cells and g 1024),
#     two rounds
# Builds through `scripts/gpu-check.sh build`, so dependencies are as there (deps/ carried to
# machines without packages).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/out}
mkdir -p "$out"
build=${SEPAL_GPU_BUILD:-build-gpu}
flags=${AB_FLAGS:?set AB_FLAGS to the nvcc flags of build B, e.g. -DSEPAL_TRY_X}
kernels=()
for k in ${AB_KERNELS:-fused tensor}; do kernels+=(--kernel "$k"); done
shapes=("$@")
train=0
[ "${AB_BENCH:-project}" = train ] && train=1
if [ ${#shapes[@]} -eq 0 ]; then
    shapes=("-d 32 -g 256 -k 16" "-d 64 -g 1024 -k 32")
    [ $train = 1 ] && shapes=("--n 100000000 -g 1024 --mode batch-som-app --steps 8"
        "--n 100000000 -g 1024 --mode kmeans --steps 12")
fi

for side in a b; do
    dir=$build
    extra=""
    [ $side = b ] && dir=$build-b && extra=$flags
    # gpu-check.sh's build, with B's flags; its logs under $OUT/build-$side.
    if ! OUT=$out/build-$side SEPAL_GPU_BUILD=$dir SEPAL_CUDA_FLAGS=$extra \
        bash scripts/gpu-check.sh build >"$out/build-$side.txt" 2>&1; then
        echo "build $side failed:"
        tail -30 "$out/build-$side.txt"
        exit 1
    fi
done

if [ -n "${AB_TESTS:-}" ]; then
    SEPAL_SHARED_DATA=${SEPAL_SHARED_DATA:-$PWD/deps} "$build-b/tests/sepal_gpu_tests" \
        --gtest_brief=1 --gtest_filter="$AB_TESTS" >"$out/ab-tests.txt" 2>&1
    rc=$?
    grep -E "FAILED|Failure|PASSED" "$out/ab-tests.txt" | head -20
    [ $rc -eq 0 ] || { echo "B's tests failed: no timing"; exit 1; }
fi

# Interleaved, so that a drift of the machine during the run touches both sides alike.
: >"$out/ab.jsonl"
if [ $train = 1 ]; then
    for round in 1 2; do
        for shape in "${shapes[@]}"; do
            for side in a b; do
                dir=$build
                [ $side = b ] && dir=$build-b
                # shellcheck disable=SC2086  # the shape is a list of options
                "$dir/bench/sepal-bench" cuda-train $shape | grep '^{' |
                    sed "s/^{/{\"ab\":\"$side\",/" >>"$out/ab.jsonl"
            done
        done
    done
    python3 - "$out/ab.jsonl" "$flags" <<'PY'
import json, sys
print(f"B = A built with {sys.argv[2]}; ms a step, each run's median and mean")
for line in open(sys.argv[1]):
    j = json.loads(line)
    steps = j.get("step_ms", [])
    mean = sum(steps) / len(steps) if steps else float("nan")
    share = " ".join(f"{v:.2f}" for v in j.get("product_share", []))
    print(f"{j['ab']} {j['mode']:15} n {j['n']:.0e} g {j['g']:5}: median {j['median_ms']:7.2f} "
          f"mean {mean:7.2f}  steps {' '.join(f'{v:.1f}' for v in steps)}  share {share}")
PY
    exit 0
fi
for shape in "${shapes[@]}"; do
    for side in a b; do
        dir=$build
        [ $side = b ] && dir=$build-b
        # shellcheck disable=SC2086  # the shape is a list of options
        "$dir/bench/sepal-bench" cuda-project "${kernels[@]}" $shape --reps 10 |
            sed "s/^{/{\"ab\":\"$side\",/" >>"$out/ab.jsonl"
    done
done

python3 - "$out/ab.jsonl" "$flags" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    if line.startswith("{"):
        j = json.loads(line)
        if "error" in j:
            continue
        rows.setdefault((j["d"], j["g"], j["k"], j["kernel_used"]), {})[j["ab"]] = j
print(f"B = A built with {sys.argv[2]}")
print(f"{'d':>3} {'g':>5} {'k':>3} {'kernel':18} {'A ms':>8} {'B ms':>8} {'B/A':>6} {'A knn':>7} {'B knn':>7}")
for (d, g, k, kernel), r in sorted(rows.items()):
    if "a" in r and "b" in r:
        a, b = r["a"], r["b"]
        print(f"{d:>3} {g:>5} {k:>3} {kernel:18} {a['median_ms']:8.3f} {b['median_ms']:8.3f} "
              f"{b['median_ms'] / a['median_ms']:6.3f} {a['knn_ms']:7.3f} {b['knn_ms']:7.3f}")
PY
