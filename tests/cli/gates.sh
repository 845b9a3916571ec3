#!/usr/bin/env bash
# Gates restrict which cells are trained on, projected, written and counted: a "live" gate
# (DNA1 vs cisplatin, both arcsinh(x/5)) given to embed --gates is kept in the model, and apply
# writes and counts only the cells inside it; every written cell is inside, every cell inside
# is written. Broken gates files and a gate on a channel a file lacks get errors that name them.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for s in 1 2; do
    "$cli" demo --events 10000 --seed $s --out "$tmp/s$s.fcs" >/dev/null
    "$cli" convert "$tmp/s$s.fcs" "$tmp/s$s.csv" >/dev/null
done
cat >"$tmp/gates.json" <<'JSON'
{"format": "sepal-gates", "gates": [{"name": "live",
 "axes": {"columns": [{"name": "Ir191Di", "transform": {"kind": "arcsinh", "cofactor": 5}},
                      {"name": "Pt195Di", "transform": {"kind": "arcsinh", "cofactor": 5}}]},
 "polygon": [4, -1, 9, -1, 9, 3, 4, 3]}]}
JSON
"$cli" embed "$tmp/s1.fcs" "$tmp/s2.fcs" --gates "$tmp/gates.json" --metaclusters 8 \
    --model "$tmp/m.json" --out "$tmp/y.csv" 2>"$tmp/embed.log"
grep -q "are in live" "$tmp/embed.log" || fail "embed said nothing of the gate"
"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" --out-dir "$tmp/out" --quiet
python3 - "$tmp" <<'PY'
import csv, json, math, sys
tmp = sys.argv[1]

def rows(path):
    with open(path) as f:
        r = list(csv.reader(f))
    return r[0], r[1:]

def column(header, channel):
    # Headers read "DNA1 (Ir191Di)" where the file names a marker.
    return next(i for i, h in enumerate(header) if h == channel or h.endswith(f"({channel})"))

def live(header, row):
    dna = math.asinh(float(row[column(header, "Ir191Di")]) / 5)
    cis = math.asinh(float(row[column(header, "Pt195Di")]) / 5)
    return 4 < dna < 9 and -1 < cis < 3

model = json.load(open(f"{tmp}/m.json"))
assert [g["name"] for g in model.get("gates", {}).get("gates", [])] == ["live"], "the model lost the gate"
assert model["gates"]["population"] == "live", "the model does not embed the gate's cells"
header, embedded = rows(f"{tmp}/y.csv")
counts_header, counts = rows(f"{tmp}/out/populations.csv")
total_inside = 0
for s in ("s1", "s2"):
    h, raw = rows(f"{tmp}/{s}.csv")
    inside = sum(live(h, r) for r in raw)
    assert 0.85 * len(raw) < inside < len(raw), f"{s}: {inside} of {len(raw)} live: the demo has ~5% dead"
    total_inside += inside
    oh, out = rows(f"{tmp}/out/{s}.csv")
    assert len(out) == inside, f"{s}: apply wrote {len(out)} cells, {inside} are in the gate"
    assert all(live(oh, r) for r in out), f"{s}: apply wrote a cell outside the gate"
    counted = sum(int(c[2]) for c in counts if c[0] == s)
    assert counted == inside, f"{s}: populations.csv counts {counted}, {inside} are in the gate"
assert len(embedded) == total_inside, f"embed wrote {len(embedded)} cells, {total_inside} are in the gate"
assert all(live(header, r) for r in embedded), "embed wrote a cell outside the gate"
print(f"{total_inside} cells in the gate, written and counted by embed and apply")
PY

# Errors that name what is wrong.
"$cli" demo --events 200 --seed 3 --out "$tmp/s3.fcs" >/dev/null
"$cli" convert "$tmp/s3.fcs" "$tmp/nodna.csv" --columns CD3,CD4 >/dev/null
if "$cli" apply --model "$tmp/m.json" "$tmp/nodna.csv" --out-dir "$tmp/bad" 2>"$tmp/e1.txt"; then
    fail "a file without the gate's channel was applied"
fi
grep -q 'gate "live"' "$tmp/e1.txt" || fail "the error does not name the gate: $(cat "$tmp/e1.txt")"
echo '{"gates": [{"name": "g", "axes": {"columns": []}, "polygon": [1, 2]}]}' >"$tmp/broken.json"
if "$cli" embed "$tmp/s1.fcs" --gates "$tmp/broken.json" --out "$tmp/z.csv" 2>"$tmp/e2.txt"; then
    fail "a broken gates file was used"
fi
grep -q 'broken.json' "$tmp/e2.txt" || fail "the error does not name the file: $(cat "$tmp/e2.txt")"
echo "bad gates: $(grep error "$tmp/e1.txt"); $(grep error "$tmp/e2.txt")"
