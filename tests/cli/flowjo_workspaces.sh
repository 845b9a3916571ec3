#!/usr/bin/env bash
# FlowJo 10 workspaces (../shared/data/flowjo) on their FCS files (../shared/data/fcs/flowkit):
# each population's count from `sepal-cli gate` equals the count FlowJo saved in the workspace
# (rectangles, polygons, an ellipse, quadrants; linear, arcsinh and biex transforms), the tree
# keeps FlowJo's names, and a workspace Sepal writes reads back to the same membership.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
shared=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}
if [ ! -d "$shared/flowjo" ] || [ ! -d "$shared/fcs/flowkit" ]; then
    echo "skipped: $shared/flowjo or $shared/fcs/flowkit is absent (real data lives in ../shared/data)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

check() {  # workspace data
    local ws=$shared/flowjo/$1.wsp data=$shared/fcs/flowkit/$2
    "$cli" gate "$data" --gates "$ws" --counts "$tmp/$1.counts.csv" --membership "$tmp/$1.csv" \
        --out "$tmp/$1.wsp" --quiet
    python3 - "$ws" "$tmp/$1.counts.csv" "$(basename "$data")" <<'PY' || exit 1
import csv, re, sys
import xml.etree.ElementTree as ET
ws, counts, data = sys.argv[1:]
# FlowJo's counts of the sample's populations (the SampleNode, not the group's copies).
tree = ET.parse(ws)
expected = {}
for sample in tree.iter("Sample"):
    node = sample.find("SampleNode")
    if node is None or node.get("name") != data:
        continue
    for pop in node.iter("Population"):
        expected[pop.get("name")] = int(pop.get("count"))
# Where the sample's copy has no count (-1), FlowJo's group counted the same gate.
for group in tree.iter("GroupNode"):
    for pop in group.iter("Population"):
        if expected.get(pop.get("name")) == -1:
            expected[pop.get("name")] = int(pop.get("count"))
ours = {r["path"].split("/")[-1]: int(r["events"]) for r in csv.DictReader(open(counts))}
known = {k: v for k, v in expected.items() if v >= 0}
if not expected:
    sys.exit(f"FAIL: {ws}: no populations of {data} found by the test")
if set(expected) != set(ours):
    sys.exit(f"FAIL: {ws}: populations {sorted(ours)}, FlowJo has {sorted(expected)}")
for name, count in known.items():
    if ours[name] != count:
        sys.exit(f"FAIL: {ws}: {name} holds {ours[name]} events, FlowJo counted {count}")
print(f"{ws.split('/')[-1]}: {len(known)} populations as FlowJo counts them")
PY
    "$cli" gate "$data" --gates "$tmp/$1.wsp" --membership "$tmp/$1.again.csv" --quiet
    cmp -s "$tmp/$1.csv" "$tmp/$1.again.csv" || fail "$1: the workspace Sepal wrote reads back differently"
    grep -q "<DataSet uri=\"file:/" "$tmp/$1.wsp" || fail "$1: the written workspace lists no sample"
    # The sample's event count ($TOT), as FlowJo shows it before reading the file; and each
    # parameter's transform as the workspace had it (a rectangle's was written linear).
    local events
    events=$("$cli" info --json "$data" | python3 -c "import json,sys; print(json.load(sys.stdin)['datasets'][0]['events'])")
    grep -q "<SampleNode name=\"$(basename "$data")\" count=\"$events\"" "$tmp/$1.wsp" ||
        fail "$1: the written SampleNode does not count the file's $events events: $(grep -o '<SampleNode[^>]*' "$tmp/$1.wsp")"
    python3 - "$ws" "$tmp/$1.wsp" <<'PY' || exit 1
import sys
import xml.etree.ElementTree as ET
def transforms(path):
    out = {}
    for t in ET.parse(path).iter():
        if t.tag.endswith("Transformations"):
            for f in t:
                kind = f.tag.split("}")[-1]
                for p in f.iter():
                    for k, v in p.attrib.items():
                        if k.endswith("}name"):
                            out[v] = kind
    return out
before, after = transforms(sys.argv[1]), transforms(sys.argv[2])
for name, kind in after.items():
    if name in before and before[name] != kind:
        sys.exit(f"FAIL: {sys.argv[2]}: {name} written {kind}, the workspace had {before[name]}")
PY
}

check simple_poly_and_rect data_set_simple_line_100.fcs
check single_ellipse_51_events data_set_simple_line_100.fcs
check test_data_diamond_asinh_rect test_data_diamond_01.fcs
check test_data_diamond_biex_rect test_data_diamond_01.fcs
check simple_diamond_example_quad_gate test_data_diamond_01.fcs
# A workspace's sample is chosen by the data's file name; another file gets the first sample's.
"$cli" gate "$shared/fcs/flowkit/test_data_2d_01.fcs" --gates "$shared/flowjo/simple_poly_and_rect.wsp" \
    --quiet --counts "$tmp/other.csv" 2>"$tmp/err" || fail "a workspace on another file: $(cat "$tmp/err")"
# Not a workspace, not Gating-ML: a clear error naming the file.
printf '<?xml version="1.0"?><Workspace><SampleList><Sample><DataSet sampleID="1"/><SampleNode><Subpopulations><Population name="x"><Gate/></Population></Subpopulations></SampleNode></Sample></SampleList></Workspace>' >"$tmp/bad.wsp"
if "$cli" gate "$shared/fcs/flowkit/test_data_2d_01.fcs" --gates "$tmp/bad.wsp" 2>"$tmp/err"; then
    fail "a population without a gate was accepted"
fi
grep -q "bad.wsp" "$tmp/err" && grep -q 'population "x" has no gate' "$tmp/err" ||
    fail "the message does not name the file and the population: $(cat "$tmp/err")"
# A data file the workspace has no sample of takes its first gates, and the user hears whose.
cp "$shared/fcs/flowkit/test_data_diamond_01.fcs" "$tmp/renamed.fcs"
"$cli" gate "$tmp/renamed.fcs" --gates "$shared/flowjo/test_data_diamond_asinh_rect.wsp" \
    --quiet 2>"$tmp/err" >/dev/null
grep -q "has no sample of renamed.fcs (it has test_data_diamond_01.fcs): its first gates" \
    "$tmp/err" || fail "no note of the borrowed gates: $(cat "$tmp/err")"
"$cli" gate "$shared/fcs/flowkit/test_data_diamond_01.fcs" --quiet \
    --gates "$shared/flowjo/test_data_diamond_asinh_rect.wsp" 2>"$tmp/err" >/dev/null
! grep -q "has no sample" "$tmp/err" || fail "a note for the workspace's own file: $(cat "$tmp/err")"
# Several inputs take the first one's sample gates: a later input without a sample says so.
"$cli" embed "$shared/fcs/flowkit/test_data_diamond_01.fcs" "$tmp/renamed.fcs" --quiet \
    --gates "$shared/flowjo/test_data_diamond_asinh_rect.wsp" --population upper_right \
    --out "$tmp/two.csv" 2>"$tmp/err"
grep -q "the gates of every input are those of test_data_diamond_01.fcs; it has no sample of renamed.fcs" \
    "$tmp/err" || fail "no note for the second input: $(cat "$tmp/err")"
echo "FlowJo workspaces: counts as FlowJo's, written workspaces read back the same"
