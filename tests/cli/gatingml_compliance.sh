#!/usr/bin/env bash
# ISAC's Gating-ML 2.0 compliance cases (../shared/data/gatingml): every gate file runs through
# `sepal-cli gate`, and every column of its membership (a gate, or each quadrant by its id) must
# equal the truth file Results_<id>.txt event for event. Each case is then written again as
# Gating-ML, as Sepal's JSON and (where FlowJo can hold it) as a FlowJo workspace, read back, and
# must give the same membership; what a workspace cannot hold (a ratio of two channels) is
# refused with a message that says so.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
root=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}/gatingml
if [ ! -f "$root/data1.fcs" ]; then
    echo "skipped: $root/data1.fcs is absent (real data lives in ../shared/data)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Sepal's CSV export of data1.fcs (whose FSC-H and SSC-H have $PnG 3.67 and 8) holds the values
# the gates see: gated again, it holds the ISAC truth's 252 events of Rectangle1, as the FCS does.
"$cli" embed "$root/data1.fcs" --out "$tmp/data1.csv" --quiet 2>/dev/null
for input in "$root/data1.fcs" "$tmp/data1.csv"; do
    "$cli" gate "$input" --gates "$root/gml/gml_rect1_gate.xml" --counts "$tmp/rect.csv" --quiet
    grep -q "^.*,Rectangle1,Rectangle1,252," "$tmp/rect.csv" ||
        fail "$input: Rectangle1 holds $(grep Rectangle1 "$tmp/rect.csv"), the truth 252"
done

cases=0
for xml in "$root"/gml/*.xml; do
    name=$(basename "$xml" .xml)
    "$cli" gate "$root/data1.fcs" --gates "$xml" --membership "$tmp/$name.csv" \
        --counts "$tmp/$name.counts.csv" --out "$tmp/$name.again.xml" --quiet 2>"$tmp/err" ||
        fail "$name: $(cat "$tmp/err")"
    "$cli" gate "$root/data1.fcs" --gates "$tmp/$name.again.xml" --membership "$tmp/$name.xml.csv" \
        --out "$tmp/$name.json" --quiet
    cmp -s "$tmp/$name.csv" "$tmp/$name.xml.csv" || fail "$name: Gating-ML written and read back differs"
    "$cli" gate "$root/data1.fcs" --gates "$tmp/$name.json" --membership "$tmp/$name.json.csv" --quiet
    cmp -s "$tmp/$name.csv" "$tmp/$name.json.csv" || fail "$name: Sepal's JSON written and read back differs"
    if "$cli" gate "$root/data1.fcs" --gates "$xml" --out "$tmp/$name.wsp" --quiet 2>"$tmp/wsp.err"; then
        "$cli" gate "$root/data1.fcs" --gates "$tmp/$name.wsp" --membership "$tmp/$name.wsp.csv" --quiet
        python3 - "$tmp/$name.csv" "$tmp/$name.wsp.csv" "$name" <<'PY' || exit 1
import csv, sys
# A workspace names populations by FlowJo's names; compare the columns in order.
a = list(csv.reader(open(sys.argv[1])))
b = list(csv.reader(open(sys.argv[2])))
if [r for r in a[1:]] != [r for r in b[1:]]:
    sys.exit(f"FAIL: {sys.argv[3]}: a FlowJo workspace written and read back differs")
PY
    else
        grep -q "ratio of two channels" "$tmp/wsp.err" ||
            fail "$name: the workspace export failed without saying why: $(cat "$tmp/wsp.err")"
    fi
    cases=$((cases + 1))
done
[ "$cases" -ge 17 ] || fail "only $cases compliance cases found in $root/gml"

python3 - "$tmp" "$root" <<'PY'
import csv, glob, os, sys
tmp, root = sys.argv[1], sys.argv[2]
checked = 0
for path in sorted(glob.glob(os.path.join(tmp, "gml_*_gate.csv"))):
    rows = list(csv.reader(open(path)))
    for j, gate in enumerate(rows[0]):
        truth_path = os.path.join(root, "truth", f"Results_{gate}.txt")
        if not os.path.exists(truth_path):
            sys.exit(f"FAIL: {os.path.basename(path)}: no truth file for the column {gate}")
        truth = [line.strip() for line in open(truth_path) if line.strip()]
        ours = [r[j] for r in rows[1:]]
        if len(truth) != len(ours):
            sys.exit(f"FAIL: {gate}: {len(ours)} events, the truth has {len(truth)}")
        wrong = [i for i, (t, o) in enumerate(zip(truth, ours)) if t != o]
        if wrong:
            sys.exit(f"FAIL: {gate}: {len(wrong)} events differ from the truth, first at event {wrong[0]}")
        checked += 1
if checked < 22:
    sys.exit(f"FAIL: only {checked} gates checked against their truths")
# Counts agree with the membership: percent of parent for a child gate.
rows = list(csv.DictReader(open(os.path.join(tmp, "gml_parent_rect1_rect_par1_gate.counts.csv"))))
child = next(r for r in rows if r["gate"] == "ScalePar1")
parent = next(r for r in rows if r["gate"] == "ScaleRect1")
if child["path"] != "ScaleRect1/ScalePar1" or int(child["parent_events"]) != int(parent["events"]):
    sys.exit(f"FAIL: the child gate's counts do not name its parent: {child}")
print(f"{checked} gates of the compliance suite exact, every case read back the same")
PY
