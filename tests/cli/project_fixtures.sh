#!/usr/bin/env bash
# sepal-cli project: every EmbedSOM reference case through CSV files, within the spec's tolerance
# (every point within 1e-4 x extent, the median within 1e-5 x extent); bad input is refused.
set -euo pipefail
cli=${SEPAL_CLI:?SEPAL_CLI must point to sepal-cli}
data=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}/embedsom
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Bad input: the message names the parameter or the file and line.
printf '1,2\n3,4\n5,6\n7,8\n9,10\n' >"$work/L.csv"
printf '0,0\n1,0\n0,1\n1,1\n2,2\n' >"$work/l.csv"
printf '1,2\n3,x\n' >"$work/bad.csv"
if "$cli" project --data "$work/bad.csv" --landmarks "$work/L.csv" --positions "$work/l.csv" \
    --out "$work/y.csv" 2>"$work/err"; then
    echo "project accepted a non-numeric field"; exit 1
fi
grep -q "bad.csv: line 2, column 2" "$work/err" || { cat "$work/err"; exit 1; }
printf 'a,b\n1,2\n3,4\n' >"$work/x.csv"
if "$cli" project --data "$work/x.csv" --landmarks "$work/L.csv" --positions "$work/l.csv" \
    --k 9 --out "$work/y.csv" 2>"$work/err"; then
    echo "project accepted k > g"; exit 1
fi
grep -q "k = 9" "$work/err" || { cat "$work/err"; exit 1; }
[ ! -e "$work/y.csv" ] || { echo "a failed run left an output file"; exit 1; }
"$cli" project --data "$work/x.csv" --landmarks "$work/L.csv" --positions "$work/l.csv" \
    --backend cpu --out "$work/y.csv" 2>/dev/null
[ "$(wc -l <"$work/y.csv")" = 2 ] || { echo "expected 2 rows (header skipped)"; exit 1; }

if [ ! -d "$data" ]; then
    echo "skipped the fixture part: $data is absent (real data lives in ../shared/data)"
    exit 0
fi
for case_dir in "$data"/*/; do
    name=$(basename "$case_dir")
    python3 - "$case_dir" "$work" <<'PY'
import json, struct, sys
src, out = sys.argv[1], sys.argv[2]
p = json.load(open(src + "/params.json"))
def dump(fname, cols, csv):
    raw = open(src + "/" + fname, "rb").read()
    vals = struct.unpack("<%df" % (len(raw) // 4), raw)
    with open(out + "/" + csv, "w") as f:
        for i in range(0, len(vals), cols):
            f.write(",".join(repr(v) for v in vals[i:i + cols]) + "\n")
dump("X.f32", p["d"], "X.csv")
dump("L.f32", p["d"], "Lf.csv")
dump("l.f32", 2, "lf.csv")
with open(out + "/args", "w") as f:
    f.write("--k %d --smooth %r --adjust %r" % (p["k"], p["smooth"], p["adjust"]))
PY
    for backend in cpu reference; do
        # shellcheck disable=SC2046
        "$cli" project --data "$work/X.csv" --landmarks "$work/Lf.csv" --positions "$work/lf.csv" \
            $(cat "$work/args") --backend $backend --out "$work/Y.csv" 2>"$work/err" ||
            { cat "$work/err"; exit 1; }
        python3 - "$case_dir" "$work/Y.csv" "$name" "$backend" <<'PY'
import math, struct, sys
src, got_path, name, backend = sys.argv[1:5]
raw = open(src + "/Y.f32", "rb").read()
want = struct.unpack("<%df" % (len(raw) // 4), raw)
raw = open(src + "/l.f32", "rb").read()
low = struct.unpack("<%df" % (len(raw) // 4), raw)
extent = max(max(low[a::2]) - min(low[a::2]) for a in range(2))
got = [tuple(float(v) for v in line.split(",")) for line in open(got_path)]
assert len(got) * 2 == len(want), "%s: %d rows, want %d" % (name, len(got), len(want) // 2)
err = sorted(math.hypot(g[0] - want[2 * i], g[1] - want[2 * i + 1]) / extent
             for i, g in enumerate(got))
worst, median = err[-1], err[len(err) // 2]
print("%s %s: max %.3g median %.3g (x extent)" % (backend, name, worst, median))
assert worst <= 1e-4 and median <= 1e-5, "%s %s out of tolerance" % (backend, name)
PY
    done
done
