#!/usr/bin/env bash
# Include direction: a library includes only from the libraries below it
# (core <- cuda <- backend <- render <- app <- ui <- gui; core <- cli), so core builds and tests
# without a window or a GPU, and the app without Dear ImGui. System headers too: each layer
# names the outside libraries it must not include (Dear ImGui, OpenGL, GLFW, CUDA, MPI, CLI11),
# and the CUDA runtime reaches render only through its interop file. Prints file:line of each
# include that breaks a rule and exits 1 when there is one.
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

# Files allowed system headers their layer is not: the CUDA-OpenGL interop is render's only CUDA.
allowed="render/cuda_interop.cpp"
bad=0
# check LAYER PATTERN WHAT [ALLOWED]: reports each include of the layer's sources that matches
# PATTERN, except in the files ALLOWED names.
check() {
    local layer=$1 pattern=$2 what=$3 allowed=${4:-} hit file
    [ -d "$src/$layer" ] || return 0
    while IFS= read -r hit; do
        file=${hit%%:*}
        case " $allowed " in *" ${file#"$src"/} "*) continue ;; esac
        echo "$hit  <- $layer must not include $what"
        bad=1
    done < <(find "$src/$layer" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' \
        -o -name '*.cuh' -o -name '*.hpp' \) -print0 | sort -z |
        xargs -0 -r grep -nHE "$pattern" || true)
}

include='^[[:space:]]*#[[:space:]]*include[[:space:]]*'
for rule in "${rules[@]}"; do
    read -r layer forbidden <<<"$rule"
    check "$layer" "$include[\"<](\.\./)*(${forbidden// /|})/" "from: $forbidden"
done
# Layer, then the system headers (path prefixes inside <>) it must not include.
gl="imgui imgui_ epoxy/ GLFW/ GL/ EGL/"
cuda="cuda cub/ thrust/ cublas curand"
system_rules=(
    "core $gl $cuda mpi.h CLI/"
    "cuda $gl mpi.h CLI/"
    "backend $gl $cuda mpi.h CLI/"
    "render imgui imgui_ GLFW/ $cuda mpi.h CLI/"
    "app $gl $cuda mpi.h CLI/"
    "ui $cuda mpi.h CLI/"
    "gui $cuda mpi.h CLI/"
    "cli $gl $cuda"
)
for rule in "${system_rules[@]}"; do
    read -r layer forbidden <<<"$rule"
    alternatives=$(printf '%s' "$forbidden" | sed 's/[.]/[.]/g; s/ /|/g')
    check "$layer" "$include<(${alternatives})" "the system headers: $forbidden" "$allowed"
done
if [ "$bad" != 0 ]; then
    echo "include direction: includes against the layers found (move the code to the layer that"
    echo "may include it, or pass it in from above)"
    exit 1
fi
echo "include direction: clean"
