#!/usr/bin/env bash
# Installs what Sepal's build and tests need from Debian's packages. Idempotent; quiet when all is there.
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config git
    clang clang-format libclang-rt-14-dev      # fuzzing (libFuzzer) and the format check
    libomp-dev                                 # not needed by g++ (libgomp), kept for clang builds
    nlohmann-json3-dev libcli11-dev libpugixml-dev libstb-dev libgtest-dev libbenchmark-dev
    libhdf5-dev                                # AnnData (.h5ad) exports
    libopenmpi-dev openmpi-bin                 # sepal-cli apply under mpirun
    libglfw3-dev libimgui-dev libepoxy-dev libglm-dev
    xvfb xauth libgl1-mesa-dri mesa-utils fonts-dejavu-core python3   # GUI tests and its font
    time                                       # peak memory of a streamed apply (tests/cli)
    python3-sklearn python3-numpy              # scikit-learn's trustworthiness, score's reference (tests/cli)
    python3-anndata                            # reads the .h5ad exports back (tests/cli)
    libeigen3-dev libboost-dev                 # the statistics (sepal-cli stats)
    r-base-core r-bioc-edger r-bioc-limma r-cran-lme4   # R's results the statistics are tested against
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
