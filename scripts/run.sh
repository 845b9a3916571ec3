#!/usr/bin/env bash
# Installs what is needed, builds (Release) and opens Sepal on the bundled demo data or on FILE...
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# What it runs, not the tests and benchmarks: the desktop application when this build has it.
build=${SEPAL_BUILD_DIR:-build}
SEPAL_BUILD_TARGETS=sepal-cli scripts/build.sh
if ninja -C "$build" -t query sepal >/dev/null 2>&1; then
    cmake --build "$build" -j "$(nproc)" --target sepal
fi
# With no FILE, sepal opens data/demo.fcs itself (or generated cells when the demo is missing).
if [ -x "$build/src/sepal" ]; then
    exec "$build/src/sepal" "$@"
fi
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(data/demo.fcs)
echo "run: the desktop application is not built (SEPAL_GUI=OFF); showing the data with sepal-cli"
exec "$build/src/sepal-cli" info "${files[@]}"
