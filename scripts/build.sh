#!/usr/bin/env bash
# Configures and builds Sepal into build/ (Release). Extra arguments go to cmake's configure step.
#   SEPAL_BUILD_DIR=DIR        another build folder
#   SEPAL_BUILD_TARGETS="..."  build only these targets (default: all)
# On a first configure the CUDA code is built for the GPU present ("native"), or, without one,
# compiled once as PTX for sm_90 (a check that it compiles: no GPU here would run it, and
# machine code for three architectures took about 25 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${SEPAL_BUILD_DIR:-build}
args=("$@")
if [ ! -f "$build_dir/CMakeCache.txt" ] && [[ " $* " != *SEPAL_CUDA_ARCHITECTURES* ]]; then
    if nvidia-smi -L >/dev/null 2>&1; then
        args+=(-DSEPAL_CUDA_ARCHITECTURES=native)
    else
        args+=(-DSEPAL_CUDA_ARCHITECTURES=90-virtual)
    fi
fi
if grep -q '^SEPAL_CUDA_ARCHITECTURES:STRING=90-virtual' "$build_dir/CMakeCache.txt" 2>/dev/null &&
    nvidia-smi -L >/dev/null 2>&1; then
    echo "build: $build_dir holds CUDA as PTX only (configured without a GPU); for this GPU's" \
        "machine code add -DSEPAL_CUDA_ARCHITECTURES=native" >&2
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${args[@]}" >/dev/null
read -r -a targets <<<"${SEPAL_BUILD_TARGETS:-all}"
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"
