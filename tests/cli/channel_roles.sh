#!/usr/bin/env bash
# Channel roles end to end: sepal-cli info names every channel's role, and embed leaves out DNA,
# viability, barcode, bead and Gaussian channels, on the demo and on a CyTOF-style file whose
# channels read "(Sm154)Di" and whose CD14 is on two channels.
set -euo pipefail
cli=${SEPAL_CLI:?SEPAL_CLI must point to sepal-cli}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" demo --out "$work/demo.fcs" --events 3000 --seed 4 >/dev/null
"$cli" info --json "$work/demo.fcs" >"$work/info.json"
"$cli" info "$work/demo.fcs" >"$work/info.txt"
python3 - "$work/info.json" <<'PY'
import json, sys
params = json.load(open(sys.argv[1]))["datasets"][0]["parameters"]
role = {p["name"]: p["role"] for p in params}
want = {"Time": "time", "Event_length": "event_length", "Ir191Di": "dna", "Ir193Di": "dna",
        "Pt195Di": "viability", "Ce140Di": "beads", "Center": "gaussian", "Offset": "gaussian",
        "Width": "gaussian", "Residual": "gaussian", "Population": "code", "Nd142Di": "marker"}
for b in ("Pd104Di", "Pd105Di", "Pd106Di", "Pd108Di", "Pd110Di"):
    want[b] = "barcode"
for name, r in want.items():
    assert role.get(name) == r, f"{name}: role {role.get(name)}, expected {r}"
markers = [p["name"] for p in params if p["role"] == "marker"]
assert len(markers) == 22, markers
assert next(p for p in params if p["name"] == "Ir191Di")["role_reason"] == "DNA intercalator"
PY
grep -q "Ir191Di .*DNA1 .*left out: DNA intercalator" "$work/info.txt" ||
    fail "the human table does not say why Ir191Di is left out: $(grep Ir191 "$work/info.txt")"
grep -q "Nd142Di .*CD4 .*marker$" "$work/info.txt" || fail "CD4 is not shown as a marker"

# embed keeps exactly the 22 markers: the model file lists the columns it was trained on.
"$cli" embed "$work/demo.fcs" --landmarks som:6x6 --seed 1 --out "$work/y.csv" \
    --model "$work/m.json" --quiet || fail "embed of the demo"
python3 - "$work/m.json" "$work/info.json" <<'PY'
import json, sys
columns = json.load(open(sys.argv[1]))["columns"]
params = json.load(open(sys.argv[2]))["datasets"][0]["parameters"]
markers = [p["name"] for p in params if p["role"] == "marker"]
assert columns == markers, f"embedded {columns}, markers {markers}"
assert len(columns) == 22 and "Ir191Di" not in columns and "Pd104Di" not in columns, columns
PY

# A CyTOF-style file: "(Sm154)Di" names, unlabelled palladium whose marker repeats the isotope,
# DNA markers "191"/"193", cisplatin, and CD14 on Cd112Di and Cd114Di.
python3 - "$work/panel.fcs" <<'PY'
import random, struct, sys
channels = [("Time", ""), ("Event_length", ""), ("(Y89)Di", "CD45"), ("(Pd105)Di", "Pd105Di"),
            ("(Pd110)Di", "110Pd"), ("(Cd112)Di", "CD14"), ("(Cd114)Di", "CD14"),
            ("(Nd142)Di", "CD19"), ("(Sm154)Di", "CD3"), ("(Ir191)Di", "191"), ("(Ir193)Di", "193"),
            ("(Pt195)Di", "Cisplatin"), ("Center", ""), ("Residual", "")]
events = 600
rng = random.Random(3)
data = b"".join(struct.pack("<f", rng.expovariate(0.05)) for _ in range(events * len(channels)))
def text(begin, end):
    kw = {"$BYTEORD": "1,2,3,4", "$DATATYPE": "F", "$MODE": "L", "$NEXTDATA": "0",
          "$PAR": str(len(channels)), "$TOT": str(events), "$BEGINANALYSIS": "0",
          "$ENDANALYSIS": "0", "$BEGINSTEXT": "0", "$ENDSTEXT": "0", "$CYT": "Helios",
          "$BEGINDATA": str(begin), "$ENDDATA": str(end)}
    for i, (name, marker) in enumerate(channels, 1):
        kw[f"$P{i}N"] = name
        if marker:
            kw[f"$P{i}S"] = marker
        kw[f"$P{i}B"], kw[f"$P{i}E"], kw[f"$P{i}R"] = "32", "0,0", "16384"
    return ("/" + "".join(f"{k}/{v}/" for k, v in kw.items())).encode()
begin = 58 + len(text(0, 0))
while True:  # the offsets are part of TEXT: grow until they describe themselves
    t = text(begin, begin + len(data) - 1)
    if 58 + len(t) == begin:
        break
    begin = 58 + len(t)
header = b"FCS3.1    " + b"".join(b"%8d" % v for v in (58, 57 + len(t), begin, begin + len(data) - 1, 0, 0))
open(sys.argv[1], "wb").write(header + t + data)
PY
"$cli" info --json "$work/panel.fcs" >"$work/panel.json" || fail "info of the CyTOF-style file"
python3 - "$work/panel.json" <<'PY'
import json, sys
params = json.load(open(sys.argv[1]))["datasets"][0]["parameters"]
role = {p["name"]: p["role"] for p in params}
want = {"(Pd105)Di": "barcode", "(Pd110)Di": "barcode", "(Ir191)Di": "dna", "(Ir193)Di": "dna",
        "(Pt195)Di": "viability", "Center": "gaussian", "Residual": "gaussian",
        "(Sm154)Di": "marker", "(Cd112)Di": "marker"}
for name, r in want.items():
    assert role[name] == r, f"{name}: role {role[name]}, expected {r}"
PY
# A marker on two channels is refused with both named; its label picks one.
if "$cli" embed "$work/panel.fcs" --landmarks som:4x4 --out "$work/p.csv" --png "$work/p.png" \
    --color CD14 --quiet 2>"$work/err"; then
    fail "--color CD14 was accepted although CD14 is on two channels"
fi
grep -q "CD14 is on two channels.*Cd112Di, Cd114Di; name one" "$work/err" || fail "$(cat "$work/err")"
"$cli" embed "$work/panel.fcs" --landmarks som:4x4 --out "$work/p.csv" --png "$work/p.png" \
    --color "CD14 (Cd114Di)" --model "$work/pm.json" --quiet || fail "--color 'CD14 (Cd114Di)'"
python3 - "$work/pm.json" <<'PY'
import json, sys
columns = json.load(open(sys.argv[1]))["columns"]
want = ["(Y89)Di", "(Cd112)Di", "(Cd114)Di", "(Nd142)Di", "(Sm154)Di"]
assert columns == want, columns
PY
# --columns takes names, markers and labels; an unknown word lists the markers too.
"$cli" embed "$work/panel.fcs" --landmarks som:4x4 --out "$work/p.csv" --quiet \
    --columns "CD3 (Sm154Di),CD19,CD14 (Cd112Di)" --model "$work/pc.json" || fail "--columns by label"
grep -q '"columns":\["(Sm154)Di","(Nd142)Di","(Cd112)Di"\]' <(tr -d ' \n' <"$work/pc.json") ||
    fail "--columns chose $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["columns"])' "$work/pc.json")"
if "$cli" embed "$work/panel.fcs" --landmarks som:4x4 --out "$work/p.csv" --columns CD999 \
    --quiet 2>"$work/err"; then
    fail "--columns CD999 was accepted"
fi
grep -q "CD3 (Sm154Di)" "$work/err" || fail "the unknown-column message lists no markers: $(cat "$work/err")"

# Sepal's CSV export ("CD4 (Nd142Di)" headers) read back is the same cytometry file: embed keeps
# the same 22 markers (not time, barcodes, DNA or the export's own EmbedSOM1/2), and the FCS's
# model applied to the CSV puts every cell where embed put it.
"$cli" embed "$work/y.csv" --landmarks som:6x6 --seed 1 --out "$work/y2.csv" \
    --model "$work/m2.json" --quiet || fail "embed of Sepal's own CSV export"
python3 - "$work/m.json" "$work/m2.json" <<'PY'
import json, sys
fcs, csv = (json.load(open(p))["columns"] for p in sys.argv[1:])
assert csv == fcs, f"the CSV export embedded {csv}, the FCS {fcs}"
PY
"$cli" apply "$work/y.csv" --model "$work/m.json" --out-dir "$work/applied" --quiet ||
    fail "the FCS's model does not apply to its CSV export"
python3 - "$work/y.csv" "$work/applied/y.csv" <<'PY'
import csv, sys
embedded, applied = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
assert len(embedded) == len(applied) == 3000, (len(embedded), len(applied))
for axis in ("EmbedSOM1", "EmbedSOM2"):
    worst = max(abs(float(a[axis]) - float(b[axis])) for a, b in zip(embedded, applied))
    assert worst == 0, f"{axis}: the CSV export lands up to {worst} away from the FCS's cells"
PY
"$cli" info "$work/y.csv" >"$work/csv-info.txt"
grep -q "Nd142Di .*CD4 .*marker$" "$work/csv-info.txt" ||
    fail "info does not read CD4 (Nd142Di) as a marker: $(grep Nd142 "$work/csv-info.txt")"
grep -q "EmbedSOM1 .*left out: embedding output" "$work/csv-info.txt" ||
    fail "info embeds the export's own coordinates: $(grep EmbedSOM1 "$work/csv-info.txt")"
echo "channel roles: ok"
