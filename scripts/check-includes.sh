#!/usr/bin/env bash
# Include direction: a library includes only from the libraries below it
# (core <- cuda <- backend <- render <- app <- ui <- gui; core <- cli), so core builds and tests
# without a window or a GPU, and the app without Dear ImGui. Prints file:line of each include
# that points upwards and exits 1 when there is one.
#   scripts/check-includes.sh [SOURCE_ROOT]   (default: the src/ of this checkout)
set -euo pipefail
if [ $# -gt 0 ]; then
    src=$1
else
    cd "$(dirname "$0")/.."
    src=src
fi

# Layer, then the layers it must not include.
rules=(
    "core render app ui gui cuda backend cli"
    "cuda render app ui gui backend cli"
    "backend render app ui gui cli"
    "render app ui gui cli"
    "app ui gui cli"
    "ui gui cli"
)

bad=0
for rule in "${rules[@]}"; do
    read -r layer forbidden <<<"$rule"
    [ -d "$src/$layer" ] || continue
    pattern="^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](\.\./)*(${forbidden// /|})/"
    while IFS= read -r hit; do
        echo "$hit  <- $layer must not include from: $forbidden"
        bad=1
    done < <(find "$src/$layer" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' \
        -o -name '*.cuh' -o -name '*.hpp' \) -print0 | sort -z |
        xargs -0 -r grep -nHE "$pattern" || true)
done
if [ "$bad" != 0 ]; then
    echo "include direction: upward includes found (move the code down, or pass it in from above)"
    exit 1
fi
echo "include direction: clean"
