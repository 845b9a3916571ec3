#!/usr/bin/env bash
# sepal-cli demo: writes the generated dataset as FCS (population codes + names) and as CSV.
set -euo pipefail
cli=${SEPAL_CLI:?SEPAL_CLI must point to sepal-cli}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$cli" demo --out "$work/demo.fcs" --events 3000 --seed 5 >/dev/null
"$cli" info --json "$work/demo.fcs" >"$work/info.json"
python3 - "$work/info.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["datasets"][0]
assert d["events"] == 3000, d["events"]
names = [p["name"] for p in d["parameters"]]
assert names[0] == "Time" and names[-1] == "Population", names
assert any(p["marker"] == "CD4" for p in d["parameters"]), "no CD4 marker"
# A real panel's other channels: barcode, beads, DNA, viability, Gaussian parameters.
assert len(names) == 38, (len(names), names)
for name in ("Pd104Di", "Pd110Di", "Ce140Di", "Ir191Di", "Ir193Di", "Pt195Di", "Center", "Residual"):
    assert name in names, name
PY
grep -q "SEPAL_POPULATIONS" "$work/demo.fcs" || { echo "no population names keyword"; exit 1; }

"$cli" demo --out "$work/demo.csv" --events 500 --seed 5 >/dev/null
head -1 "$work/demo.csv" | grep -q "^Time,Event_length,Y89Di,.*,Population$" ||
    { echo "unexpected CSV header:"; head -1 "$work/demo.csv"; exit 1; }
[ "$(wc -l <"$work/demo.csv")" -eq 501 ] || { echo "expected 500 rows"; exit 1; }
grep -q "Naive CD4 T" "$work/demo.csv" || { echo "population names missing from CSV"; exit 1; }

if "$cli" demo --out "$work/demo.txt" 2>"$work/err"; then
    echo "demo accepted an unknown output type"; exit 1
fi
grep -q "FILE.fcs" "$work/err" || { cat "$work/err"; exit 1; }
