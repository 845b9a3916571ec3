#!/usr/bin/env bash
# On a GPU machine without X11 or the GUI's development packages: unpacks the Debian packages of
# .gpudeps (scripts/prepare-gpu-deps.sh) into a private prefix, builds sepal (CUDA and GUI)
# against them, starts Xvfb and measures the desktop application's frame rate (--bench-frames)
# with the CUDA and the CPU backends on NVIDIA's GLX; JSON lines in $OUT/gui_bench.jsonl (OUT
# defaults to ./out), five files in all with the logs (six with SEPAL_GUI_SHOT), a summary
# last. Run from the repository root.
#   SEPAL_GPUDEPS=dir              the carried packages (default .gpudeps)
#   SEPAL_GPUDEPS_PREFIX=dir       where they are unpacked (default /tmp/gpudeps)
#   SEPAL_GPU_BUILD=dir            build directory (default /tmp/build-gui)
#   SEPAL_GUI_BENCH_POINTS=list    cells for the CUDA runs (default "1000000 10000000"; empty:
#                                  none); the points are splatted by CUDA
#   SEPAL_GUI_BENCH_GL_POINTS=list cells for CUDA runs whose points OpenGL draws
#                                  (SEPAL_CUDA_SPLATS=0; default 10000000; empty: none)
#   SEPAL_GUI_BENCH_CPU_POINTS=    cells for the CPU runs (default 1000000; empty: none)
#   SEPAL_GUI_BENCH_TRAIN_POINTS=list cells for CUDA runs that train the landmarks every frame
#                                  instead of dragging one (--bench-train; default none)
#   SEPAL_GUI_BENCH_TRAINERS=list  the trainers of those runs, one run each: som, batch-som,
#                                  kmeans (default som; the last two over every cell on the GPU)
#   SEPAL_GUI_BENCH_DIMS=D         channels of the generated cells (default 32)
#   SEPAL_GUI_BENCH_LANDMARKS=list landmarks, one set of runs each (default 256)
#   SEPAL_GUI_BENCH_FRAMES=N       frames a run (default 300)
#   SEPAL_GUI_BENCH_TIMEOUT=s      the most one run may take (default 240)
#   SEPAL_GUI_BENCH_DEADLINE=s     no run starts past this many seconds after the start (470)
#   SEPAL_GUI_BENCH_WRAP="cmd ..." runs each frame-rate run's sepal under this command (a
#                                  profiler: ncu ... -o FILE)
#   SEPAL_GUI_SHOT=1               also a screenshot of the demo data on the CUDA backend
#                                  ($OUT/gpu_screenshot.png); SEPAL_GUI_SHOT=N: of N generated
#                                  cells instead (the first landmark count)
#   SEPAL_GPUDEPS_LIBXML2=auto|system|stub   what Mesa's LLVM gets for libxml2.so.2 (auto: the
#                                  system's if there is one, else a stand-in built here)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
start_s=$SECONDS
repo=$PWD
out=${OUT:-$repo/out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
deps=${SEPAL_GPUDEPS:-$repo/.gpudeps}
P=${SEPAL_GPUDEPS_PREFIX:-/tmp/gpudeps}
build=${SEPAL_GPU_BUILD:-/tmp/build-gui}
read -r -a cuda_points <<<"${SEPAL_GUI_BENCH_POINTS-1000000 10000000}"
read -r -a cpu_points <<<"${SEPAL_GUI_BENCH_CPU_POINTS-1000000}"
read -r -a gl_points <<<"${SEPAL_GUI_BENCH_GL_POINTS-10000000}"
read -r -a train_points <<<"${SEPAL_GUI_BENCH_TRAIN_POINTS:-}"
read -r -a trainers <<<"${SEPAL_GUI_BENCH_TRAINERS:-som}"
read -r -a landmark_counts <<<"${SEPAL_GUI_BENCH_LANDMARKS:-256}"
dims=${SEPAL_GUI_BENCH_DIMS:-32}
frames=${SEPAL_GUI_BENCH_FRAMES:-300}
run_limit=${SEPAL_GUI_BENCH_TIMEOUT:-240}
deadline=${SEPAL_GUI_BENCH_DEADLINE:-470}
libxml2_mode=${SEPAL_GPUDEPS_LIBXML2:-auto}
read -r -a wrap <<<"${SEPAL_GUI_BENCH_WRAP:-}"
L=$P/usr/lib/x86_64-linux-gnu
# The libraries' folders in the prefix (bookworm's libexpat1 still installs into /lib).
LP=$L:$P/lib/x86_64-linux-gnu
jsonl=$out/gui_bench.jsonl
build_log=$out/gui_build.log  # configure and build
runs_log=$out/gui_runs.log    # every run's output, one after another
: >"$jsonl"
: >"$runs_log"
tmp=$(mktemp -d)

fail() {
    echo "gpu-gui-bench: $*" >&2
    exit 1
}
elapsed() { echo $((SECONDS - start_s)); }
# check_libs FILE VAR=VALUE...: fails naming the shared libraries FILE cannot find so.
check_libs() {
    local file=$1 missing
    shift
    missing=$(env "$@" ldd "$file" 2>&1 | grep "not found" | awk '{print $1}' | tr '\n' ' ')
    [ -z "$missing" ] || fail "$(basename "$file") cannot find ${missing}(neither in $P nor on this machine: add their packages to scripts/prepare-gpu-deps.sh)"
}

xvfb_pid=
xkbcomp_wrapper=
cleanup() {
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
    [ -n "$xkbcomp_wrapper" ] && rm -f "$xkbcomp_wrapper"
    rm -rf "$tmp"
}
trap cleanup EXIT

echo "== machine"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
else
    echo "nvidia-smi: missing (no NVIDIA driver here: OpenGL and the projection run on the CPU)"
fi
echo "cores: $(nproc), $(ldd --version 2>/dev/null | head -1)"
for tool in g++ cmake ninja nvcc python3 dpkg readelf; do
    printf '%s: %s\n' "$tool" "$(command -v $tool || echo missing)"
done
for tool in g++ cmake ninja python3; do
    command -v $tool >/dev/null || fail "$tool is missing on this machine"
done

echo "== unpack $deps into $P"
[ -d "$deps" ] || fail "no $deps: run scripts/prepare-gpu-deps.sh on a Debian machine and carry .gpudeps"
debs=("$deps"/*.deb)
[ -e "${debs[0]}" ] || fail "no .deb files in $deps: run scripts/prepare-gpu-deps.sh"
[ -d "$deps/mesa" ] && debs+=("$deps"/mesa/*.deb)
stamp="$P/.sepal-gpudeps"
want=$(ls -l "${debs[@]}" | md5sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    if [ -e "$P" ] && [ ! -e "$stamp" ] && [ -n "$(ls -A "$P")" ]; then
        fail "$P is not empty and was not made by this script: set SEPAL_GPUDEPS_PREFIX"
    fi
    rm -rf "$P"
    mkdir -p "$P"
    for f in "${debs[@]}"; do
        if command -v dpkg >/dev/null; then
            dpkg -x "$f" "$P" || fail "dpkg -x $f failed"
        else
            # No dpkg: a .deb is an ar archive holding data.tar.*.
            member=$(ar t "$f" | grep '^data\.tar') || fail "cannot read $f (no dpkg, no ar)"
            ar p "$f" "$member" | tar -x -C "$P" -f - ||
                fail "cannot unpack $f"
        fi
    done
    echo "$want" >"$stamp"
fi
echo "${#debs[@]} packages, $(du -sh "$P" | cut -f1) unpacked, $(elapsed) s so far"
[ -x "$P/usr/bin/Xvfb" ] || fail "no Xvfb in $P: .gpudeps lacks xvfb (scripts/prepare-gpu-deps.sh)"
[ -x "$P/usr/bin/pkgconf" ] || fail "no pkgconf in $P: .gpudeps lacks pkgconf"

# pkg-config through the prefix: the .pc files say /usr, which the sysroot turns into $P/usr.
# epoxy.pc names x11 in Requires.private, which pkgconf insists on though no X11 header is
# compiled: a stand-in x11.pc without flags takes the place of the X development packages.
mkdir -p "$P/bin"
cat >"$P/bin/pkg-config" <<EOF
#!/bin/sh
# pkgconf from $P, looking only at the .pc files there (scripts/gpu-gui-bench.sh)
export LD_LIBRARY_PATH=$LP\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export PKG_CONFIG_LIBDIR=$L/pkgconfig:$P/usr/share/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$P
exec $P/usr/bin/pkgconf "\$@"
EOF
chmod +x "$P/bin/pkg-config"
if [ ! -e "$L/pkgconfig/x11.pc" ]; then
    printf 'Name: X11\nDescription: stand-in (scripts/gpu-gui-bench.sh); no X11 header is needed\nVersion: 1.8.4\n' \
        >"$L/pkgconfig/x11.pc"
fi
for m in glfw3 epoxy; do
    "$P/bin/pkg-config" --exists $m || fail "pkg-config cannot find $m in $P"
done

echo "== configure (Release, CUDA sm_90, GUI) in $build"
[ "$(cat "$build/.sepal-gpudeps-prefix" 2>/dev/null)" = "$P" ] ||
    rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
mkdir -p "$build"
echo "$P" >"$build/.sepal-gpudeps-prefix"
args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DSEPAL_CUDA=ON -DSEPAL_GUI=ON
      -DSEPAL_CUDA_ARCHITECTURES=90 -DSEPAL_TESTS=OFF -DSEPAL_BENCH=OFF
      -DCMAKE_PREFIX_PATH="$P/usr" -DPKG_CONFIG_EXECUTABLE="$P/bin/pkg-config"
      -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$LP")
if ! cmake -S . -B "$build" "${args[@]}" >"$build_log" 2>&1; then
    tail -30 "$build_log"
    fail "cmake failed (whole log: $build_log)"
fi
# Where CMake found each dependency: all of them must lie in the prefix.
outside=0
for var in SEPAL_IMGUI_LIB SEPAL_IMGUI_INCLUDE SEPAL_IMGUI_BACKEND_DIR SEPAL_STB_LIB \
    SEPAL_STB_INCLUDE_DIR nlohmann_json_DIR pkgcfg_lib_SEPAL_GLFW_glfw pkgcfg_lib_SEPAL_EPOXY_epoxy; do
    value=$(grep -E "^$var:" "$build/CMakeCache.txt" | cut -d= -f2-)
    printf '  %-30s %s\n' "$var" "${value:-(not set)}"
    [[ "$value" == "$P"/* ]] || outside=1
done
glfw_flags=$(grep -o -- "-isystem ${P}[^ ]*" "$build/build.ninja" "$build"/src/CMakeFiles/*.dir/flags.make \
    2>/dev/null | sort -u | head -3)
printf '  %-30s %s\n' "include flags (prefix)" "$(echo "$glfw_flags" | tr '\n' ' ')"
[ $outside = 0 ] || fail "CMake found a dependency outside $P (see above; $build_log)"

echo "== build sepal"
t=$SECONDS
if ! cmake --build "$build" -j "$(nproc)" --target sepal >>"$build_log" 2>&1; then
    grep -E "error|FAILED|undefined" -A3 "$build_log" | head -40
    fail "the build failed (whole log: $build_log)"
fi
echo "built in $((SECONDS - t)) s, $(elapsed) s so far"
sepal=$build/src/sepal

# Run-time environment: the prefix's libraries, NVIDIA's GLX and EGL vendor libraries.
nvdir=
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64; do
    if [ -e "$d/libGLX_nvidia.so.0" ]; then
        nvdir=$d
        break
    fi
done
[ -n "$nvdir" ] || nvdir=$(ldconfig -p 2>/dev/null | awk '/libGLX_nvidia.so.0 / {print $NF; exit}' |
    xargs -r dirname)
run_env=(LD_LIBRARY_PATH="$LP${nvdir:+:$nvdir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
         LIBGL_DRIVERS_PATH="$L/dri")
if [ -n "$nvdir" ]; then
    echo "NVIDIA GLX: $nvdir/libGLX_nvidia.so.0"
    run_env+=(__GLX_VENDOR_LIBRARY_NAME=nvidia)
else
    echo "NVIDIA GLX: not found: OpenGL falls back to Mesa (llvmpipe, on the CPU)"
fi
if [ ! -e /usr/share/glvnd/egl_vendor.d/10_nvidia.json ] &&
    [ -e /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ]; then
    run_env+=(__EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json)
fi
check_libs "$sepal" "${run_env[@]}"
echo "sepal's libraries from the prefix: $(env "${run_env[@]}" ldd "$sepal" | grep -c "=> $P")," \
    "from elsewhere: $(env "${run_env[@]}" ldd "$sepal" | grep "=> /" | grep -v "=> $P" |
    awk '{print $1}' | tr '\n' ' ')"

echo "== Xvfb"
xenv=(LD_LIBRARY_PATH="$LP" LIBGL_DRIVERS_PATH="$L/dri")
if [ ! -e "$L/dri/swrast_dri.so" ]; then
    echo "no Mesa DRI driver in $P (.gpudeps/mesa missing): Xvfb will have no GLX extension"
elif llvm=$(ls "$L"/libLLVM-*.so.1 2>/dev/null | head -1) && [ -n "$llvm" ] &&
    [ ! -e "$L/libxml2.so.2" ]; then
    # Mesa's LLVM links libxml2 (for Windows manifests, never used here), whose Debian package
    # needs 30 MB of ICU: without one on this machine, a stand-in defines what LLVM imports.
    if [ "$libxml2_mode" = system ] ||
        { [ "$libxml2_mode" = auto ] && ldconfig -p 2>/dev/null | grep -q "libxml2.so.2 "; }; then
        echo "libxml2 for Mesa's LLVM: this machine's"
    else
        stub=$P/stub
        mkdir -p "$stub"
        readelf --dyn-syms -W "$llvm" |
            awk '$7 == "UND" && $8 ~ /@LIBXML2_/ {split($8, a, "@"); print $4, a[1], a[2]}' >"$stub/syms"
        [ -s "$stub/syms" ] || fail "cannot read libLLVM's libxml2 symbols (readelf missing?)"
        awk '{ if ($1 == "OBJECT") print "void *" $2 "[4];"; else print "void " $2 "(void) { abort(); }" }
             BEGIN { print "#include <stdlib.h>" }' "$stub/syms" >"$stub/libxml2.c"
        awk '{v[$3] = v[$3] " " $2 ";"} END {for (k in v) print k " {" v[k] " };"}' "$stub/syms" \
            >"$stub/libxml2.map"
        cc=$(command -v gcc || command -v cc || command -v g++)
        "$cc" -x c -shared -fPIC -o "$stub/libxml2.so.2" -Wl,-soname,libxml2.so.2 \
            -Wl,--version-script="$stub/libxml2.map" "$stub/libxml2.c" ||
            fail "cannot build the libxml2 stand-in for Mesa's LLVM"
        xenv=(LD_LIBRARY_PATH="$LP:$stub" LIBGL_DRIVERS_PATH="$L/dri")
        run_env[0]="${run_env[0]}:$stub"
        echo "libxml2 for Mesa's LLVM: a stand-in ($(wc -l <"$stub/syms") functions that abort)"
    fi
fi
check_libs "$P/usr/bin/Xvfb" "${xenv[@]}"
check_libs "$P/usr/bin/xkbcomp" "${xenv[@]}"
[ ! -e "$L/dri/swrast_dri.so" ] || check_libs "$L/dri/swrast_dri.so" "${xenv[@]}"
# Xvfb runs /usr/bin/xkbcomp (a path built into it) with -xkbdir's keymaps.
if [ ! -x /usr/bin/xkbcomp ]; then
    [ -w /usr/bin ] || fail "Xvfb needs /usr/bin/xkbcomp: run as root, or install x11-xkb-utils"
    xkbcomp_wrapper=/usr/bin/xkbcomp
    printf '#!/bin/sh\n# xkbcomp from %s for Xvfb (scripts/gpu-gui-bench.sh); removed after the run\nLD_LIBRARY_PATH=%s exec %s "$@"\n' \
        "$P" "$LP" "$P/usr/bin/xkbcomp" >"$xkbcomp_wrapper"
    chmod +x "$xkbcomp_wrapper"
    echo "/usr/bin/xkbcomp: a wrapper for $P/usr/bin/xkbcomp (removed at exit)"
fi
display=
for n in $(seq 90 150); do
    if [ ! -e "/tmp/.X$n-lock" ] && [ ! -e "/tmp/.X11-unix/X$n" ]; then
        display=$n
        break
    fi
done
[ -n "$display" ] || fail "no free X display between :90 and :150"
env "${xenv[@]}" "$P/usr/bin/Xvfb" ":$display" -screen 0 1600x1000x24 -nolisten tcp \
    -xkbdir "$P/usr/share/X11/xkb" +extension GLX >"$out/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 1 100); do
    [ -e "/tmp/.X11-unix/X$display" ] && break
    kill -0 $xvfb_pid 2>/dev/null || break
    sleep 0.1
done
if ! kill -0 $xvfb_pid 2>/dev/null || [ ! -e "/tmp/.X11-unix/X$display" ]; then
    tail -20 "$out/xvfb.log"
    fail "Xvfb did not start (log: $out/xvfb.log)"
fi
grep -E "GLX|xkb|XKB" "$out/xvfb.log" | head -5
echo "Xvfb on :$display (pid $xvfb_pid)"
run_env+=(DISPLAY=":$display")
glxinfo=$P/usr/bin/glxinfo.x86_64-linux-gnu
if [ -x "$glxinfo" ]; then
    timeout 30 env "${run_env[@]}" "$glxinfo" -B >"$out/glxinfo.txt" 2>&1
    grep -E "direct rendering|OpenGL (vendor|renderer|core profile version)|Error|error" \
        "$out/glxinfo.txt" | head -6
fi

echo "== frame-rate runs ($frames frames each)"
context=()
mode=()  # --bench-train for the training runs
# run LABEL BACKEND POINTS LANDMARKS [VAR=VALUE...]: one --bench-frames run on POINTS generated
# cells of $dims channels (VAR=VALUE: its environment); its JSON line (or error) into $jsonl.
run() {
    local label=$1 backend=$2 points=$3 g=$4 left limit log rc line
    shift 4
    left=$((deadline - $(elapsed)))
    if [ $left -lt 30 ]; then
        echo "$label: skipped, $(elapsed) s gone (SEPAL_GUI_BENCH_DEADLINE=$deadline)"
        printf '{"run":"%s","error":"skipped: out of time"}\n' "$label" >>"$jsonl"
        return 1
    fi
    limit=$((left < run_limit ? left : run_limit))
    log=$tmp/$label.log
    local t=$SECONDS
    timeout "$limit" env "${run_env[@]}" "$@" "${wrap[@]}" "$sepal" --synthetic "${points}x$dims" \
        --landmarks "$g" --bench-frames "$frames" --hidden --backend "$backend" --no-autosave \
        "${context[@]}" "${mode[@]}" >"$log" 2>&1
    rc=$?
    { echo "== $label: $* sepal --synthetic ${points}x$dims --landmarks $g --backend $backend ${context[*]} ${mode[*]} (exit $rc)"; cat "$log"; } >>"$runs_log"
    line=$(grep '"bench":"gui_frames"' "$log" | tail -1)
    if [ $rc -eq 0 ] && [ -n "$line" ]; then
        python3 -c 'import json,sys; j=json.loads(sys.argv[1]); j["run"]=sys.argv[2]; j["wall_s"]=float(sys.argv[3]); print(json.dumps(j))' \
            "$line" "$label" "$((SECONDS - t))" >>"$jsonl"
        echo "$label: done in $((SECONDS - t)) s"
        return 0
    fi
    [ $rc -eq 124 ] && echo "$label: timed out after $limit s" || echo "$label: failed (exit $rc)"
    grep -v '^{' "$log" | tail -5 | sed 's/^/  /'
    python3 -c 'import json,sys; print(json.dumps({"run":sys.argv[1],"error":sys.argv[2],"log_tail":sys.argv[3]}))' \
        "$label" "exit $rc" "$(tail -3 "$log")" >>"$jsonl"
    return 1
}
first=1
for g in "${landmark_counts[@]}"; do
    for n in "${cuda_points[@]}"; do
        label=cuda_${n}_g$g
        if ! run "$label" cuda "$n" "$g" && [ $first = 1 ] &&
            grep -qE "cannot create an OpenGL|cannot open a window|glfw:" "$tmp/$label.log"; then
            echo "the GLX window failed: once more through EGL (--egl)"
            context=(--egl)
            run "${label}_egl" cuda "$n" "$g" || context=()
        fi
        first=0
    done
    for n in "${gl_points[@]}"; do
        run "cuda_opengl_${n}_g$g" cuda "$n" "$g" SEPAL_CUDA_SPLATS=0
    done
    for n in "${cpu_points[@]}"; do
        run "cpu_${n}_g$g" cpu "$n" "$g"
    done
    for trainer in "${trainers[@]}"; do
        mode=(--bench-train "$trainer")
        for n in "${train_points[@]}"; do
            run "cuda_train_${trainer}_${n}_g$g" cuda "$n" "$g"
        done
    done
    mode=()
done
if [ -n "${SEPAL_GUI_SHOT:-}" ]; then
    # The window as a GPU user sees it (the Stats window names the CUDA kernel), to look at.
    shot=$out/gpu_screenshot.png
    what=("$repo/data/demo.fcs")
    [ "$SEPAL_GUI_SHOT" != 1 ] && what=(--synthetic "${SEPAL_GUI_SHOT}x$dims" --landmarks "${landmark_counts[0]}")
    if timeout 240 env "${run_env[@]}" "$sepal" "${what[@]}" --screenshot "$shot" \
        --backend cuda --no-autosave "${context[@]}" >"$tmp/shot.log" 2>&1; then
        echo "screenshot: $shot"
    else
        echo "screenshot failed:"
        tail -3 "$tmp/shot.log" | sed 's/^/  /'
    fi
fi

echo "== summary ($(elapsed) s in all; $jsonl)"
python3 - "$jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'run':28} {'mode':5} {'backend':7} {'points':>9} {'g':>5} {'fps':>7} {'mean':>7} {'median':>7} "
      f"{'p95':>7} {'whole':>5} {'settle':>6} {'painter':7} {'interop':7} {'kernel':28} renderer")
for j in rows:
    if "error" in j:
        last = (j.get("log_tail") or "").strip().splitlines()[-1:] or [""]
        print(f"{j['run']:28} error: {j['error']}: {last[0][:110]}")
        continue
    print(f"{j['run']:28} {j.get('mode', 'drag'):5} {j['backend']:7} {j['points']:>9} {j['landmarks']:>5} {j['fps']:7.1f} "
          f"{j['mean_ms']:7.2f} {j['median_ms']:7.2f} {j['p95_ms']:7.2f} "
          f"{j.get('whole_picture_frames', -1):>5} {j['settle_s']:6.2f} "
          f"{j.get('point_painter', '?'):7} {str(j.get('cuda_gl_interop', '?')):7} "
          f"{j.get('cuda_kernel') or '-':28} {j.get('gl_renderer', '?')} ({j.get('gl_context', '?')})")
# Training runs: the frames with a training step, apart from those that ended a run (the bench
# starts another; that frame projects every cell with the resting model at once).
for j in rows:
    if j.get("mode") == "train" and j.get("training_frames", 0) > 0:
        print(f"{j['run']:28} training frames {j['training_frames']} ({j['runs_ended']} runs ended): "
              f"{j['training_fps']:.1f} frames/s, mean {j['training_mean_ms']:.2f} ms, median "
              f"{j['training_median_ms']:.2f}, p95 {j['training_p95_ms']:.2f}")
        if j.get("training_long_frames", 0) > 0:
            print(f"{'':28} {j['training_long_frames']} frames over three times the median, the "
                  f"longest {j['training_max_ms']:.1f} ms; a restarted run's first frame "
                  f"{j['training_first_of_run_median_ms']:.1f} ms (median)")
        if "training_train_median_ms" in j:
            print(f"{'':28} medians: training {j['training_train_median_ms']:.2f} ms of the work's "
                  f"{j['training_work_median_ms']:.2f}, upload (projection) "
                  f"{j['training_upload_median_ms']:.2f}, drawing {j['training_draw_median_ms']:.2f}"
                  f" (the swap {j.get('training_swap_median_ms', -1):.2f})")
        if j.get("training_ahead_frames", 0) > 0:
            print(f"{'':28} steps run during the swap in {j['training_ahead_frames']} frames, "
                  f"waited for after it {j['training_ahead_wait_median_ms']:.2f} ms (median)")
        if j.get("train_device_steps", 0) > 0:
            print(f"{'':28} a step on the device {j['train_step_device_ms']:.2f} ms (exact scan "
                  f"{j['train_exact_scan_device_ms']:.2f}), cells scanned exactly "
                  f"{100 * j['train_exact_scan_share']:.1f} %, kept by the bounds "
                  f"{100 * j['train_kept_share']:.1f} %, lone {100 * j['train_lone_share']:.1f} %")
PY
grep -q '"fps"' "$jsonl"
