#!/usr/bin/env bash
# Installs what is needed, builds (Release) and opens Sepal on the bundled demo data or on FILE...
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(data/demo.fcs)
if [ -x build/src/sepal ]; then
    exec build/src/sepal "${files[@]}"
fi
echo "run: the desktop application is not built yet; showing the data with sepal-cli instead"
exec build/src/sepal-cli info "${files[@]}"
