#!/usr/bin/env bash
# sepal-cli score --sample 0 gives scikit-learn's trustworthiness (sklearn.manifold.trustworthiness,
# the figure's usual reference) of every cell of a real picture: 3,000 cells of the demo's 11
# markers after asinh(x / 5), embedded by sepal-cli embed, for k = 5, 10 and 15. The default
# backend (the GPU's ranks where there is one) and the CPU's give the same figures.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=lib/python_with.sh
. "$(dirname "$0")/lib/python_with.sh"
py=$(python_with sklearn.manifold numpy)
if [ -z "$py" ]; then
    py=$(python_with numpy)
    [ -n "$py" ] || { echo "SKIP: neither numpy nor scikit-learn is installed (scripts/setup.sh)"; exit 77; }
fi

"$cli" demo --events 3000 --seed 4 --out "$tmp/d.csv" >/dev/null
# The transformed cells as float32 values written exactly, so that both sides read the same.
"$py" - "$tmp/d.csv" "$tmp/x.csv" <<'PY'
import csv, sys
import numpy as np
cols = ["Y89Di", "Pr141Di", "Nd142Di", "Nd143Di", "Nd144Di", "Nd145Di", "Nd146Di", "Sm147Di",
        "Nd148Di", "Sm149Di", "Nd150Di"]
with open(sys.argv[1]) as f:
    rows = list(csv.DictReader(f))
x = np.arcsinh(np.array([[float(r[c]) for c in cols] for r in rows]) / 5.0).astype(np.float32)
with open(sys.argv[2], "w") as f:
    f.write(",".join(cols) + "\n")
    for row in x:
        f.write(",".join(repr(float(v)) for v in row) + "\n")
PY
"$cli" embed "$tmp/x.csv" --transform none --landmarks kmeans:64 --out "$tmp/y.csv" -q ||
    fail "embed exited with $?"
for k in 5 10 15; do
    for backend in auto cpu; do
        "$cli" score "$tmp/x.csv" --transform none --embedding "$tmp/y.csv" --sample 0 --k "$k" \
            --backend "$backend" --json >"$tmp/score$k-$backend.json" ||
            fail "score --k $k --backend $backend exited with $?"
    done
    cmp -s "$tmp/score$k-auto.json" "$tmp/score$k-cpu.json" ||
        fail "k = $k: the default backend scored $(cat "$tmp/score$k-auto.json"), the CPU $(cat "$tmp/score$k-cpu.json")"
done
"$py" -c "import sklearn.manifold" 2>/dev/null || {
    echo "SKIP: scikit-learn is not installed (scripts/setup.sh installs python3-sklearn); the backends agreed"
    exit 77
}
"$py" - "$tmp" <<'PY'
import csv, json, sys
import numpy as np
from sklearn.manifold import trustworthiness
tmp = sys.argv[1]
with open(f"{tmp}/x.csv") as f:
    x = np.array([[float(v) for v in r] for r in list(csv.reader(f))[1:]])
with open(f"{tmp}/y.csv") as f:
    rows = list(csv.DictReader(f))
y = np.array([[float(r["EmbedSOM1"]), float(r["EmbedSOM2"])] for r in rows])
assert x.shape == (3000, 11) and y.shape == (3000, 2), (x.shape, y.shape)
for k in (5, 10, 15):
    ours = json.load(open(f"{tmp}/score{k}-auto.json"))
    theirs = trustworthiness(x, y, n_neighbors=k)
    print(f"k = {k}: sepal-cli {ours['trustworthiness']!r}, scikit-learn {theirs!r} "
          f"({ours['points']} cells scored)")
    assert ours["points"] == 3000, ours
    assert abs(ours["trustworthiness"] - theirs) <= 1e-12, (k, ours, theirs)
    assert 0.5 < theirs < 1.0, theirs
PY
echo "ok: score --sample 0 equals scikit-learn's trustworthiness for k = 5, 10, 15"
