#!/usr/bin/env bash
# Populations from a steered model to counts per sample: embed three demo files with
# --metaclusters 15 and a model, apply the model to the same files; the per-cell tables carry a
# population column that agrees with embed's, populations.csv adds up per sample, and the
# populations agree with the generator's true ones (adjusted Rand index >= 0.8).
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for s in 1 2 3; do "$cli" demo --events 20000 --seed $s --out "$tmp/s$s.fcs" >/dev/null; done
"$cli" embed "$tmp/s1.fcs" "$tmp/s2.fcs" "$tmp/s3.fcs" --metaclusters 15 --model "$tmp/m.json" \
    --out "$tmp/y.csv" --quiet
"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" "$tmp/s3.fcs" --out-dir "$tmp/out" \
    --heatmap "$tmp/heat.png" --quiet
[ "$(head -c 8 "$tmp/heat.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] || fail "no heatmap PNG"
# For print: the same heatmap on white.
"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" --out-dir "$tmp/light" --heatmap "$tmp/light.png" \
    --heatmap-light --quiet
[ "$(python3 "$(dirname "$0")/png_ink.py" --background "$tmp/light.png")" = "255 255 255" ] ||
    fail "--heatmap-light: the background is not white"
[ "$(python3 "$(dirname "$0")/png_ink.py" --background "$tmp/heat.png")" != "255 255 255" ] ||
    fail "the default heatmap is on white"
for f in s1.csv s2.csv s3.csv populations.csv medians.csv; do
    [ -s "$tmp/out/$f" ] || fail "apply did not write $f"
done
python3 - "$tmp" <<'PY'
import csv, math, sys
from collections import Counter
tmp = sys.argv[1]

def column(rows, header, name):
    return [r[header.index(name)] for r in rows]

def read(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]

def ari(a, b):
    pairs = lambda x: x * (x - 1) / 2
    n = len(a)
    index = sum(pairs(v) for v in Counter(zip(a, b)).values())
    ra = sum(pairs(v) for v in Counter(a).values())
    rb = sum(pairs(v) for v in Counter(b).values())
    expected = ra * rb / pairs(n)
    return (index - expected) / (0.5 * (ra + rb) - expected)

header, rows = read(f"{tmp}/y.csv")
assert "population" in header, f"embed wrote no population column: {header[-5:]}"
found = column(rows, header, "population")
truth = column(rows, header, "Population")
names = sorted(set(found))
assert len(names) == 15, f"expected 15 populations, got {len(names)}: {names}"
score = ari(found, truth)
print(f"adjusted Rand index against the generator's populations: {score:.3f}")
assert score >= 0.8, f"ARI {score:.3f} < 0.8"

counts_header, counts = read(f"{tmp}/out/populations.csv")
assert counts_header == ["sample", "population", "cells", "fraction"], counts_header
embed_offset = 0
for s in ("s1", "s2", "s3"):
    h, r = read(f"{tmp}/out/{s}.csv")
    applied = column(r, h, "population")
    assert set(column(r, h, "sample")) == {s}, f"{s}: wrong sample column"
    # The model labels the same cells as embed did.
    same = sum(x == y for x, y in zip(applied, found[embed_offset:embed_offset + len(applied)]))
    assert same == len(applied), f"{s}: {len(applied) - same} cells labelled differently by apply"
    embed_offset += len(applied)
    mine = [c for c in counts if c[0] == s]
    total = sum(int(c[2]) for c in mine)
    assert total == len(applied), f"{s}: populations.csv counts {total} cells, the file has {len(applied)}"
    assert abs(sum(float(c[3]) for c in mine) - 1) < 1e-6, f"{s}: fractions do not add up to 1"
    by_name = Counter(applied)
    for c in mine:
        assert by_name.get(c[1], 0) == int(c[2]), f"{s} {c[1]}: {c[2]} counted, {by_name.get(c[1], 0)} in the table"

med_header, med = read(f"{tmp}/out/medians.csv")
assert med_header[:2] == ["population", "cells"] and "CD3" in med_header, med_header[:5]
assert sorted(m[0] for m in med) == names, "medians.csv names other populations"
assert sum(int(m[1]) for m in med) == embed_offset, "medians.csv counts other cells"
print("ok")
PY

# Two files in flight at once (--workers 2, as with two GPUs): the same bytes as one at a time.
"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" "$tmp/s3.fcs" \
    --out-dir "$tmp/lanes" --heatmap "$tmp/lanes-heat.png" --workers 2 --quiet
for f in s1.csv s2.csv s3.csv populations.csv medians.csv; do
    cmp -s "$tmp/out/$f" "$tmp/lanes/$f" || fail "--workers 2 wrote another $f"
done
cmp -s "$tmp/heat.png" "$tmp/lanes-heat.png" || fail "--workers 2 drew another heatmap"
echo "workers ok"

# The medians' columns take the first file's marker names, whichever lane counts first: a large
# first file beside a small one whose CD57 is written cd57 (the same marker to the panel check;
# its lane is done first).
"$cli" demo --events 60000 --seed 4 --out "$tmp/big.fcs" >/dev/null
"$cli" demo --events 2000 --seed 5 --out "$tmp/small.fcs" >/dev/null
python3 - "$tmp/small.fcs" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
assert data.count(b"CD57") == 1, "the demo names CD57 once"
open(sys.argv[1], "wb").write(data.replace(b"CD57", b"cd57"))
PY
for run in 1 2 3; do
    "$cli" apply --model "$tmp/m.json" "$tmp/big.fcs" "$tmp/small.fcs" --out-dir "$tmp/named" \
        --workers 2 --force --quiet
    head -1 "$tmp/named/medians.csv" | grep -q ",CD57," ||
        fail "medians.csv took its marker names from the second file: $(head -1 "$tmp/named/medians.csv")"
done
echo "marker names ok"

# Resuming: outputs newer than their input and the model stay; the counts still cover every file.
cp "$tmp/out/populations.csv" "$tmp/counts-first.csv"
before1=$(date -r "$tmp/out/s1.csv" +%s.%N)
sleep 1.1
touch "$tmp/s2.fcs"
"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" "$tmp/s3.fcs" --out-dir "$tmp/out" \
    2>"$tmp/resume.txt"
grep -q "s1.csv is up to date" "$tmp/resume.txt" || fail "s1 was not kept: $(cat "$tmp/resume.txt")"
grep -q "s2.csv is up to date" "$tmp/resume.txt" && fail "s2 changed but was kept"
[ "$(date -r "$tmp/out/s1.csv" +%s.%N)" = "$before1" ] ||
    fail "s1.csv was written again"
cmp -s "$tmp/out/populations.csv" "$tmp/counts-first.csv" || fail "resuming changed the counts"
"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" --out-dir "$tmp/out" --force 2>"$tmp/force.txt"
grep -q "up to date" "$tmp/force.txt" && fail "--force kept an output"
# An output made by another model is written again though the model file is older than it (a
# model copied from elsewhere), and so is one written with other --values: each kept one had
# contradicted populations.csv.
"$cli" embed "$tmp/s1.fcs" --metaclusters 4 --model "$tmp/other.json" --out "$tmp/other.csv" \
    --quiet
touch -d "2000-01-01" "$tmp/other.json"
"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" --out-dir "$tmp/restamp" --quiet
"$cli" apply --model "$tmp/other.json" "$tmp/s1.fcs" --out-dir "$tmp/restamp" 2>"$tmp/other.txt"
grep -q "up to date" "$tmp/other.txt" && fail "an output of another model was kept: $(cat "$tmp/other.txt")"
"$cli" apply --model "$tmp/other.json" "$tmp/s1.fcs" --out-dir "$tmp/restamp" 2>"$tmp/again.txt"
grep -q "s1.csv is up to date" "$tmp/again.txt" || fail "the same model's output was not kept"
"$cli" apply --model "$tmp/other.json" "$tmp/s1.fcs" --out-dir "$tmp/restamp" \
    --values transformed 2>"$tmp/values.txt"
grep -q "up to date" "$tmp/values.txt" && fail "an output of other --values was kept"
echo "resume ok"

# Populations drawn as layout regions (the app's lasso) travel in the model: a stroke over the
# left half that takes only the second population's cells into the first. apply labels by where
# each cell lands; resuming still counts the cells of outputs it keeps.
python3 - "$tmp" <<'PY'
import json, sys, csv
tmp = sys.argv[1]
model = json.load(open(f"{tmp}/m.json"))
pops = model["populations"]
landmarks = [-1] * model["g"]
for p, pop in enumerate(pops):
    for j in pop["landmarks"]:
        landmarks[j] = p
rows = list(csv.reader(open(f"{tmp}/out/s1.csv")))
x = sorted(float(r[rows[0].index("EmbedSOM1")]) for r in rows[1:])
mid = x[len(x) // 2]
stroke = {"label": 0, "from": [1], "polygon": [-1e6, -1e6, mid, -1e6, mid, 1e6, -1e6, 1e6]}
model["regions"] = {"labels": list(range(len(pops))), "landmarks": landmarks, "strokes": [stroke]}
json.dump(model, open(f"{tmp}/drawn.json", "w"))
open(f"{tmp}/mid.txt", "w").write(repr(mid))
PY
"$cli" apply --model "$tmp/drawn.json" "$tmp/s1.fcs" --out-dir "$tmp/drawn" --quiet
python3 - "$tmp" <<'PY'
import csv, json, sys
tmp = sys.argv[1]
names = [p["name"] for p in json.load(open(f"{tmp}/drawn.json"))["populations"]]
mid = float(open(f"{tmp}/mid.txt").read())
before, after = list(csv.reader(open(f"{tmp}/out/s1.csv"))), list(csv.reader(open(f"{tmp}/drawn/s1.csv")))
h = before[0]
pop, x = h.index("population"), h.index("EmbedSOM1")
moved = 0
for b, a in zip(before[1:], after[1:]):
    expect = names[0] if b[pop] == names[1] and float(b[x]) < mid else b[pop]
    assert a[pop] == expect, f"cell at x={b[x]}: {b[pop]} became {a[pop]}, expected {expect}"
    moved += a[pop] != b[pop]
assert moved > 0, "the stroke moved no cell"
print(f"regions ok: {moved} cells drawn into {names[0]}")
PY
cp "$tmp/drawn/populations.csv" "$tmp/drawn-first.csv"
"$cli" apply --model "$tmp/drawn.json" "$tmp/s1.fcs" --out-dir "$tmp/drawn" 2>"$tmp/drawn.txt"
grep -q "s1.csv is up to date" "$tmp/drawn.txt" || fail "the drawn model's output was not kept"
cmp -s "$tmp/drawn/populations.csv" "$tmp/drawn-first.csv" || fail "resuming changed drawn counts"
echo "drawn regions ok"

# An output that cannot be put in place (a folder holds its name) fails the run with an error
# that names it, though its finishing runs beside the next file's work (here the last file's,
# which only the lane's end waits for); the tables over all files are not written.
mkdir -p "$tmp/blocked/s3.fcs"
if "$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" "$tmp/s3.fcs" \
    --out-dir "$tmp/blocked" --format fcs --force 2>"$tmp/blocked.txt"; then
    fail "apply succeeded though s3.fcs could not be written"
fi
grep -q "cannot write '$tmp/blocked/s3.fcs'" "$tmp/blocked.txt" ||
    fail "the error does not name s3.fcs: $(cat "$tmp/blocked.txt")"
[ -s "$tmp/blocked/s1.fcs" ] && [ -s "$tmp/blocked/s2.fcs" ] || fail "s1.fcs or s2.fcs missing"
[ ! -e "$tmp/blocked/populations.csv" ] || fail "populations.csv written after a failed output"
ls "$tmp/blocked" | grep -q "tmp-" && fail "a temporary file was left: $(ls "$tmp/blocked")"
echo "failed output ok"
