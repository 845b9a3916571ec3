#!/usr/bin/env bash
# Downloads (never installs) into .gpudeps/ the Debian packages scripts/gpu-gui-bench.sh needs.
# What a GPU machine without X11 or development packages lacks: the GUI's build dependencies,
# pkgconf, GLVND, the X client libraries, Xvfb with its keymaps and xkbcomp, and glxinfo; under
# .gpudeps/mesa/ Mesa's DRI drivers, without which Xvfb has no GLX extension at all (the
# application's own context still runs on NVIDIA's GLX, through __GLX_VENDOR_LIBRARY_NAME).
#   scripts/prepare-gpu-deps.sh [--no-mesa] [--with-libxml2]      SEPAL_GPUDEPS=dir: elsewhere
# Mesa's LLVM needs libxml2.so.2, whose Debian package needs ICU (10 MB more, too much for the
# device's 64 MiB with the repository); without --with-libxml2, gpu-gui-bench.sh uses the GPU
# machine's libxml2 or builds a stand-in for the few functions LLVM imports and Mesa never calls.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${SEPAL_GPUDEPS:-$PWD/.gpudeps}
mesa=1
libxml2=0
for arg in "$@"; do
    case "$arg" in
        --no-mesa) mesa=0 ;;
        --with-libxml2) libxml2=1 ;;
        *) echo "usage: $0 [--no-mesa] [--with-libxml2]" >&2; exit 2 ;;
    esac
done
if [ "$(dpkg --print-architecture)" != amd64 ]; then
    echo "prepare-gpu-deps: run this on an x86-64 (amd64) Debian machine" >&2
    exit 1
fi

# What the GPU machine needs: the build (headers, pkg-config files, pkgconf itself), GLVND's
# front libraries, the X client libraries GLFW opens at run time, Xvfb, and glxinfo.
roots=(
    libglfw3-dev libimgui-dev libepoxy-dev libglm-dev nlohmann-json3-dev libcli11-dev libstb-dev
    libpugixml-dev pkgconf libglfw3 libepoxy0 libstb0 libpugixml1v5
    libglvnd0 libgl1 libglx0 libegl1 libopengl0 libgles2 libglx-mesa0
    libx11-6 libx11-xcb1 libxrandr2 libxinerama1 libxcursor1 libxi6 libxxf86vm1 libxext6
    libxrender1 libxfixes3 libxcb1 libxau6 libxdmcp6 libbsd0
    xvfb x11-xkb-utils xkb-data mesa-utils-bin
)
# Already there (the C/C++ runtime and the base system's libraries, same sonames on Ubuntu), or
# never wanted: Mesa's EGL, GBM and Wayland server (EGL goes to NVIDIA's vendor library), the X
# development headers that only pkg-config's Requires.private name (gpu-gui-bench.sh does not
# follow those), xserver-common and x11-common (changelogs, nothing Xvfb needs), and the
# toolkit libraries of x11-xkb-utils' other programs (xkbcomp needs only libX11 and libxkbfile).
assumed=(
    libc6 libc-bin libgcc-s1 libstdc++6 gcc-12-base libgomp1 zlib1g libzstd1 liblzma5 libbz2-1.0
    libselinux1 libpcre2-8-0 libcrypt1 libgcrypt20 libgpg-error0 liblz4-1 libsystemd0 libudev1
    libcap2 libcap-ng0 libaudit1 libaudit-common libtinfo6 libuuid1 debconf dpkg perl-base tar
    coreutils dash bash ncurses-base sysvinit-utils lsb-base
    libegl-mesa0 libgbm1 libwayland-server0
    libx11-dev x11proto-dev libxcb1-dev libxau-dev libxdmcp-dev xtrans-dev xorg-sgml-doctools
    libpthread-stubs0-dev xserver-common x11-common
    libxaw7 libxt6 libxmu6 libxpm4 libsm6 libice6
)
[ $libxml2 = 1 ] || assumed+=(libxml2 libicu72)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cache/archives/partial"
apt_opts=(-o Dir::State::status="$work/status" -o Dir::Cache="$work/cache"
          -o APT::Install-Recommends=0 -o APT::Install-Suggests=0 -o Debug::NoLocking=1)

# A dpkg status file in which the given packages are installed, newer than any candidate and
# without dependencies of their own, so that apt neither fetches nor upgrades them.
pretend_installed() {
    local p
    : >"$work/status"
    for p in "$@"; do
        printf 'Package: %s\nStatus: install ok installed\nPriority: optional\nArchitecture: amd64\nVersion: 999:0\n\n' \
            "$p" >>"$work/status"
    done
}

# "package version" for each package apt would install for "$@" on a machine that has only the
# pretended ones.
closure() {
    local out
    if ! out=$(apt-get "${apt_opts[@]}" -s install "$@" 2>&1); then
        echo "prepare-gpu-deps: apt cannot resolve $*:" >&2
        echo "$out" | tail -20 >&2
        exit 1
    fi
    echo "$out" | awk '/^Inst / {sub(/^\(/, "", $3); print $2, $3}' | sort
}

# Downloads the named packages into a folder, keeping the files already there of the same
# version and removing those no longer wanted.
fetch() {
    local dir=$1
    shift
    mkdir -p "$dir"
    local uris line file size keep=() missing=()
    # (asked from an empty folder: apt leaves out the files already in the current one)
    uris=$(cd "$work" && apt-get -o APT::Sandbox::User=root download --print-uris "$@")
    while read -r line; do
        [ -n "$line" ] || continue
        file=$(echo "$line" | awk '{print $2}')
        size=$(echo "$line" | awk '{print $3}')
        keep+=("$file")
        if [ ! -f "$dir/$file" ] || [ "$(stat -c %s "$dir/$file")" != "$size" ]; then
            missing+=("${file%%_*}")
        fi
    done <<<"$uris"
    for file in "$dir"/*.deb; do
        [ -e "$file" ] || continue
        [[ " ${keep[*]} " == *" $(basename "$file") "* ]] || rm -f "$file"
    done
    if [ ${#missing[@]} -gt 0 ]; then
        (cd "$dir" && apt-get -q -o APT::Sandbox::User=root download "${missing[@]}" >/dev/null)
    fi
}

pretend_installed "${assumed[@]}" libgl1-mesa-dri
core=$(closure "${roots[@]}")
mapfile -t names < <(echo "$core" | cut -d' ' -f1)
fetch "$dest" "${names[@]}"
{
    echo "# Debian packages for scripts/gpu-gui-bench.sh, from scripts/prepare-gpu-deps.sh $*"
    echo "# assumed on the GPU machine or never wanted: ${assumed[*]}"
    echo "$core" | sed 's/^/core /'
} >"$dest/MANIFEST"

if [ $mesa = 1 ]; then
    # Mesa's DRI drivers for Xvfb's GLX extension: what they add to the core set.
    pretend_installed "${assumed[@]}"
    extra=$(comm -13 <(echo "$core") <(closure "${roots[@]}" libgl1-mesa-dri))
    mapfile -t names < <(echo "$extra" | cut -d' ' -f1)
    fetch "$dest/mesa" "${names[@]}"
    echo "$extra" | sed 's/^/mesa /' >>"$dest/MANIFEST"
else
    rm -rf "$dest/mesa"
fi

size() { du -cb "$@" 2>/dev/null | tail -1 | awk '{printf "%.1f MiB", $1 / 1048576}'; }
echo "prepare-gpu-deps: $(find "$dest" -name '*.deb' | wc -l) packages, $(size "$dest") in $dest"
if [ $mesa = 1 ]; then
    echo "  Mesa's DRI drivers (for Xvfb's GLX) in $dest/mesa: $(size "$dest/mesa")"
fi
