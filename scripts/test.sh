#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test this machine can run, ending with the summary.
#   SEPAL_QUICK=1   skip the sanitizer build and the fuzz run (for quick local iterations)
#   SEPAL_FUZZ_SECONDS=N   seconds per fuzz target (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=$(nproc)
scripts/setup.sh

echo "== format check (clang-format)"
mapfile -t sources < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' 2>/dev/null || true)
if [ ${#sources[@]} -gt 0 ]; then
    clang-format --dry-run -Werror "${sources[@]}"
fi
echo "format: ${#sources[@]} files clean"
scripts/check-includes.sh

if [ "${SEPAL_QUICK:-0}" != 1 ]; then
    echo "== unit and conformance tests with AddressSanitizer and UndefinedBehaviorSanitizer"
    # -O1 and line tables only: half the compile time of -O2 -g, and the stack traces the
    # sanitizers print still name every file and line.
    cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DSEPAL_GUI=OFF \
        -DSEPAL_CUDA=OFF -DSEPAL_BENCH=OFF -DSEPAL_SANITIZE=address,undefined >/dev/null
    # Only what the unit and conformance tests need: the command-line programs run under the
    # Release build below.
    cmake --build build-asan -j "$jobs" --target sepal_unit_tests sepal_conformance_tests
    (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest -L 'unit|conformance' -j "$jobs" --output-on-failure --timeout 600)

    echo "== fuzzing the file readers (libFuzzer)"
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" \
        -DSEPAL_GUI=OFF -DSEPAL_CUDA=OFF -DSEPAL_BENCH=OFF -DSEPAL_FUZZ=ON \
        -DSEPAL_SANITIZE=address,undefined >/dev/null
    mapfile -t fuzzers < <(cd tests/fuzz && ls fuzz_*.cpp 2>/dev/null | sed 's/\.cpp$//')
    if [ ${#fuzzers[@]} -gt 0 ]; then
        cmake --build build-fuzz -j "$jobs" --target "${fuzzers[@]}"
        for f in "${fuzzers[@]}"; do
            corpus=$(mktemp -d)
            tests/fuzz/seed_corpus.sh "$f" "$corpus"
            echo "fuzz: $f for ${SEPAL_FUZZ_SECONDS:-30} s from $(ls "$corpus" | wc -l) seeds"
            build-fuzz/tests/"$f" -max_total_time="${SEPAL_FUZZ_SECONDS:-30}" -max_len=1048576 \
                -rss_limit_mb=4096 -print_final_stats=0 "$corpus" 2>"build-fuzz/$f.log" ||
                { tail -50 "build-fuzz/$f.log"; exit 1; }
            rm -rf "$corpus"
        done
    fi
fi

echo "== build (Release) and every test"
# Without a GPU the CUDA code is compiled to check it, for one architecture: the GPU tests skip,
# and three architectures took three times as long to compile.
if nvidia-smi -L >/dev/null 2>&1; then
    scripts/build.sh
else
    scripts/build.sh -DSEPAL_CUDA_ARCHITECTURES=90
fi
cd build
if command -v xvfb-run >/dev/null; then
    xvfb-run -a -s "-screen 0 1600x1000x24" ctest -j "$jobs" --output-on-failure --timeout 900
else
    ctest -j "$jobs" --output-on-failure --timeout 900
fi
