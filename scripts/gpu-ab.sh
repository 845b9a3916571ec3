#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: an A/B comparison of a CUDA change in one run. Builds the
# tree twice (B with extra nvcc flags, for a change kept behind an #ifdef while it is tried),
# then times both builds on the same shapes and prints them side by side. H100 machines differ
# by a few percent, so a comparison across runs cannot show a change of that size.
#   AB_FLAGS="-DSEPAL_TRY_X" scripts/gpu-ab.sh ["-d 32 -g 256 -k 16" ...]
#   SEPAL_GPU_BUILD=dir: build directory of A (default build-gpu; B uses dir-b)
#   AB_KERNELS: the kernels to time (default "fused tensor")
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
[ ${#shapes[@]} -gt 0 ] || shapes=("-d 32 -g 256 -k 16" "-d 64 -g 1024 -k 32")

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

# Interleaved, so that a drift of the machine during the run touches both sides alike.
: >"$out/ab.jsonl"
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
