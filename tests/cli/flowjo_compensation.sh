#!/usr/bin/env bash
# FlowJo compensates a sample by the spillover matrix inside its <Sample>, not by the workspace's
# list: a workspace Sepal writes carries there the gates' matrix, or for gates on the file's own
# matrix the file's $SPILLOVER as FlowJo's "Acquisition-defined" matrix, with the detectors listed
# and each "Comp-" parameter's detector on the same transform, as FlowJo writes them. Read back,
# the gates hold the same events and keep their compensation, also on FlowJo's CSV export of the
# compensated values ("Comp-PE-A :: CD10"). On a real BD FACSDiva file with an 8-channel
# $SPILLOVER and on ISAC's data1.fcs with a Gating-ML spectrum matrix.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
shared=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}
comp=$shared/fcs/fcsparser/FACS_Diva__facs_diva_test.fcs
isac=$shared/gatingml/data1.fcs
if [ ! -f "$comp" ] || [ ! -f "$isac" ]; then
    echo "skipped: $comp or $isac is absent (real data lives in ../shared/data)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A rectangle and a logicle-drawn polygon under it on the file's own compensation (Gating-ML's
# "FCS"), and the same rectangle uncompensated for a count that must differ.
gates() {  # compensation-ref
    cat <<XML
<?xml version="1.0" encoding="UTF-8"?>
<gating:Gating-ML xmlns:gating="http://www.isac-net.org/std/Gating-ML/v2.0/gating"
 xmlns:transforms="http://www.isac-net.org/std/Gating-ML/v2.0/transformations"
 xmlns:data-type="http://www.isac-net.org/std/Gating-ML/v2.0/datatypes">
<transforms:transformation transforms:id="L"><transforms:logicle transforms:T="262144" transforms:W="0.5" transforms:M="4.5" transforms:A="0"/></transforms:transformation>
<gating:RectangleGate gating:id="Bright">
<gating:dimension gating:compensation-ref="$1" gating:min="300"><data-type:fcs-dimension data-type:name="PerCP-A"/></gating:dimension>
<gating:dimension gating:compensation-ref="$1" gating:min="200"><data-type:fcs-dimension data-type:name="Alexa700-A"/></gating:dimension>
</gating:RectangleGate>
<gating:PolygonGate gating:id="Wedge" gating:parent_id="Bright">
<gating:dimension gating:compensation-ref="$1" gating:transformation-ref="L"><data-type:fcs-dimension data-type:name="PerCP-A"/></gating:dimension>
<gating:dimension gating:compensation-ref="$1" gating:transformation-ref="L"><data-type:fcs-dimension data-type:name="Alexa700-A"/></gating:dimension>
<gating:vertex><gating:coordinate data-type:value="0.3"/><gating:coordinate data-type:value="0.3"/></gating:vertex>
<gating:vertex><gating:coordinate data-type:value="0.9"/><gating:coordinate data-type:value="0.35"/></gating:vertex>
<gating:vertex><gating:coordinate data-type:value="0.6"/><gating:coordinate data-type:value="0.9"/></gating:vertex>
</gating:PolygonGate>
</gating:Gating-ML>
XML
}
gates FCS >"$tmp/fcs.xml"
gates uncompensated >"$tmp/raw.xml"

"$cli" gate "$comp" --gates "$tmp/fcs.xml" --counts "$tmp/fcs.counts.csv" \
    --membership "$tmp/fcs.csv" --out "$tmp/fcs.wsp" --quiet
"$cli" gate "$comp" --gates "$tmp/raw.xml" --counts "$tmp/raw.counts.csv" --quiet
cmp -s "$tmp/fcs.counts.csv" "$tmp/raw.counts.csv" &&
    fail "compensation changes no count: the test cannot tell it was applied"
"$cli" gate "$comp" --gates "$tmp/fcs.wsp" --membership "$tmp/fcs.again.csv" \
    --out "$tmp/fcs.back.xml" --quiet
cmp -s "$tmp/fcs.csv" "$tmp/fcs.again.csv" || fail "the workspace Sepal wrote reads back differently"
grep -q 'compensation-ref="FCS"' "$tmp/fcs.back.xml" ||
    fail "the Acquisition-defined matrix was not read back as the file's own compensation"

python3 - "$tmp/fcs.wsp" "$comp" <<'PY' || exit 1
import struct, sys
import xml.etree.ElementTree as ET
wsp, fcs = sys.argv[1:]
T = "{http://www.isac-net.org/std/Gating-ML/v2.0/transformations}"
D = "{http://www.isac-net.org/std/Gating-ML/v2.0/datatypes}"
# The file's $SPILLOVER, read from its TEXT segment.
raw = open(fcs, "rb").read()
start, end = int(raw[10:18]), int(raw[18:26])
text = raw[start:end + 1].decode("latin-1")
fields = text[1:].split(text[0])
keywords = dict(zip(fields[0::2], fields[1::2]))
spill = next(keywords[k] for k in keywords if k.upper() in ("$SPILLOVER", "SPILL"))
parts = spill.split(",")
n = int(parts[0])
channels, values = parts[1:1 + n], [float(v) for v in parts[1 + n:]]
sample = ET.parse(wsp).getroot().find("SampleList/Sample")
children = [c.tag for c in sample]
m = sample.find(T + "spilloverMatrix")
if m is None:
    sys.exit(f"FAIL: the <Sample> holds no spilloverMatrix: {children}")
if children.index(T + "spilloverMatrix") > children.index("Transformations"):
    sys.exit(f"FAIL: the matrix comes after the transforms: {children}")
if m.get("name") != "Acquisition-defined" or m.get("prefix") != "Comp-" or m.get("suffix") != "":
    sys.exit(f"FAIL: the sample's matrix is {m.attrib}")
listed = [p.get(D + "name") for p in m.find(D + "parameters")]
if listed != channels:
    sys.exit(f"FAIL: the matrix lists {listed}, the file's $SPILLOVER {channels}")
rows = m.findall(T + "spillover")
got = [float(c.get(T + "value")) for r in rows for c in r.findall(T + "coefficient")]
f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
if [f32(v) for v in got] != [f32(v) for v in values]:
    sys.exit("FAIL: the sample's coefficients are not the file's $SPILLOVER")
names = {t.find(D + "parameter").get(D + "name") for t in sample.find("Transformations")}
for p in ("PerCP-A", "Comp-PerCP-A", "Alexa700-A", "Comp-Alexa700-A"):
    if p not in names:
        sys.exit(f"FAIL: no transform for {p}: {sorted(names)}")
print(f"the sample holds the file's {n}-channel matrix; transforms for {sorted(names)}")
PY

# FlowJo's CSV export of the same file: its spillover channels compensated, named "Comp-PE-A ::
# CD10". The workspace's gates on the file's matrix read those columns as they are: the counts of
# the FCS file.
"$cli" convert "$comp" "$tmp/raw.csv"
python3 - "$tmp/raw.csv" "$tmp/raw.spillover.csv" "$tmp/flowjo.csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
spill = list(csv.reader(open(sys.argv[2])))
channels, n = spill[0][1:], len(spill[0]) - 1
# The compensation matrix: the spillover's inverse, by Gauss-Jordan elimination.
a = [[float(x) for x in r[1:]] + [float(i == j) for j in range(n)] for i, r in enumerate(spill[1:])]
for c in range(n):
    p = max(range(c, n), key=lambda r: abs(a[r][c]))
    a[c], a[p] = a[p], a[c]
    a[c] = [v / a[c][c] for v in a[c]]
    for r in range(n):
        if r != c:
            a[r] = [x - a[r][c] * y for x, y in zip(a[r], a[c])]
inverse = [r[n:] for r in a]
header = rows[0]
detector = lambda h: h.split(" (")[-1].rstrip(")") if " (" in h else h
columns = [next(i for i, h in enumerate(header) if detector(h) == c) for c in channels]
out = [[f"Comp-{detector(h)} :: {h.split(' (')[0]}" if detector(h) in channels and " (" in h
        else f"Comp-{h} :: " if h in channels else h for h in header]]
for r in rows[1:]:
    v = [float(x) for x in r]
    observed = [v[c] for c in columns]
    for k, c in enumerate(columns):
        v[c] = sum(observed[i] * inverse[i][k] for i in range(n))
    out.append([repr(x) for x in v])
csv.writer(open(sys.argv[3], "w", newline="")).writerows(out)
PY
"$cli" gate "$tmp/flowjo.csv" --gates "$tmp/fcs.wsp" --counts "$tmp/flowjo.counts.csv" --quiet
cut -d, -f2- "$tmp/fcs.counts.csv" >"$tmp/a"
cut -d, -f2- "$tmp/flowjo.counts.csv" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" ||
    fail "FlowJo's compensated CSV counts otherwise: $(cat "$tmp/b") against $(cat "$tmp/a")"

# Gates on a Gating-ML spectrum matrix: that matrix in the sample, read back to the same events.
"$cli" gate "$isac" --gates "$shared/gatingml/gml/gml_matrix_rect3_gate.xml" \
    --membership "$tmp/isac.csv" --out "$tmp/isac.wsp" --quiet
"$cli" gate "$isac" --gates "$tmp/isac.wsp" --membership "$tmp/isac.again.csv" --quiet
cmp -s "$tmp/isac.csv" "$tmp/isac.again.csv" || fail "the matrix's workspace reads back differently"
python3 - "$tmp/isac.wsp" <<'PY' || exit 1
import sys
import xml.etree.ElementTree as ET
T = "{http://www.isac-net.org/std/Gating-ML/v2.0/transformations}"
D = "{http://www.isac-net.org/std/Gating-ML/v2.0/datatypes}"
sample = ET.parse(sys.argv[1]).getroot().find("SampleList/Sample")
m = sample.find(T + "spilloverMatrix")
if m is None or m.get("name") != "MySpill":
    sys.exit(f"FAIL: the sample does not hold MySpill: {None if m is None else m.attrib}")
listed = [p.get(D + "name") for p in m.find(D + "parameters")]
if listed != ["FL1-H", "FL2-H", "FL3-H"]:
    sys.exit(f"FAIL: MySpill lists {listed}")
print("the sample holds MySpill on FL1-H, FL2-H, FL3-H")
PY
echo "ok: FlowJo workspaces carry each sample's compensation"
