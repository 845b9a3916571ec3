#!/usr/bin/env bash
# Installs what is needed, builds, and runs every test this machine can run, ending with the summary.
#   SEPAL_QUICK=1   skip the sanitizer build and the fuzz run (for quick local iterations)
#   SEPAL_FUZZ_SECONDS=N   seconds per fuzz target (default 20)
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
    # One clang build for the sanitizers and the fuzz targets (libFuzzer needs clang): core is
    # compiled once for both, and clang compiles this code a third faster than g++. -O1 and
    # line tables only: the stack traces the sanitizers print still name every file and line.
    mapfile -t fuzzers < <(cd tests/fuzz && ls fuzz_*.cpp 2>/dev/null | sed 's/\.cpp$//')
    CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" -DSEPAL_GUI=OFF \
        -DSEPAL_CUDA=OFF -DSEPAL_BENCH=OFF -DSEPAL_FUZZ=ON -DSEPAL_SANITIZE=address,undefined \
        >/dev/null
    # Only what the unit and conformance tests and the fuzzers need: the command-line programs
    # run under the Release build below.
    cmake --build build-sanitize -j "$jobs" --target sepal_unit_tests sepal_conformance_tests \
        "${fuzzers[@]}"
    (cd build-sanitize && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest -L 'unit|conformance' -j "$jobs" --output-on-failure --timeout 600)

    echo "== fuzzing the file readers (libFuzzer)"
    # Each target a core of its own for its time, as many at once as there are cores.
    fuzz_one() {
        local f=$1 corpus
        corpus=$(mktemp -d)
        tests/fuzz/seed_corpus.sh "$f" "$corpus"
        echo "fuzz: $f for ${SEPAL_FUZZ_SECONDS:-20} s from $(ls "$corpus" | wc -l) seeds"
        build-sanitize/tests/"$f" -max_total_time="${SEPAL_FUZZ_SECONDS:-20}" -max_len=1048576 \
            -rss_limit_mb=4096 -print_final_stats=0 "$corpus" 2>"build-sanitize/$f.log" ||
            { tail -50 "build-sanitize/$f.log"; rm -rf "$corpus"; return 1; }
        rm -rf "$corpus"
    }
    export -f fuzz_one
    printf '%s\n' "${fuzzers[@]}" |
        xargs -r -P "$jobs" -I{} bash -c 'set -euo pipefail; fuzz_one "$1"' _ {}
fi

echo "== build (Release) and every other test"
# The unit tests ran in the sanitizer build above: their program is left out of this one (with
# SEPAL_QUICK=1 it runs here). The conformance tests run in both: they check the real files and
# the reference's outputs with the build that ships. scripts/build.sh builds the CUDA code for the GPU
# present.
unit_tests=OFF
[ "${SEPAL_QUICK:-0}" = 1 ] && unit_tests=ON
# Without a GPU nothing would run the CUDA code, and compiling it (as PTX) took two and a half
# minutes of the 2-core machine's 20: it is built where a GPU runs its tests (scripts/gpu-check.sh
# on the GPU machine), and here the GPU tests report themselves skipped.
cuda=AUTO
if ! nvidia-smi -L >/dev/null 2>&1; then
    cuda=OFF
    echo "build: no GPU here, so the CUDA backend is not built (scripts/gpu-check.sh builds and tests it on one)"
fi
scripts/build.sh -DSEPAL_TESTS=ON -DSEPAL_UNIT_TESTS=$unit_tests -DSEPAL_CUDA=$cuda
cd build
if command -v xvfb-run >/dev/null; then
    xvfb-run -a -s "-screen 0 1600x1000x24" ctest -j "$jobs" --output-on-failure --timeout 900
else
    ctest -j "$jobs" --output-on-failure --timeout 900
fi
