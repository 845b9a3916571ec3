#!/usr/bin/env bash
# sepal-cli convert: FCS to FCS 3.1 (a data set, selected columns, raw values) and clear refusals.
set -euo pipefail
cli=${SEPAL_CLI:?SEPAL_CLI must point to sepal-cli}
data=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}/fcs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

file=$data/flowio/fcs_files__coulter.lmd
if [ ! -f "$file" ]; then
    echo "skipped: $file is absent (real data lives in ../shared/data)"
    exit 0
fi

# The second data set, two columns in a new order, raw values: events and names survive.
"$cli" convert "$file" "$work/out.fcs" --dataset 1 --columns "FL1,FS" --raw
"$cli" info --json "$work/out.fcs" >"$work/out.json"
"$cli" info --json "$file" >"$work/in.json"
python3 - "$work/in.json" "$work/out.json" <<'PY'
import json, sys
src = json.load(open(sys.argv[1]))["datasets"][1]
out = json.load(open(sys.argv[2]))["datasets"]
assert len(out) == 1 and out[0]["version"] == "FCS3.1", out
assert out[0]["events"] == src["events"], (out[0]["events"], src["events"])
assert [p["name"] for p in out[0]["parameters"]] == ["FL1", "FS"], out[0]["parameters"]
ranges = {p["name"]: p["range"] for p in src["parameters"]}
assert all(p["bits"] == 32 and p["range"] == ranges[p["name"]] for p in out[0]["parameters"])
assert out[0]["warnings"] == [], out[0]["warnings"]
PY
# A converted file converts again to the same bytes (nothing drifts).
"$cli" convert "$work/out.fcs" "$work/again.fcs"
cmp -s "$work/out.fcs" "$work/again.fcs" || { echo "converting twice changed the file"; exit 1; }

# FCS -> CSV, raw and selected: a header of channel names, one row per event, stored values.
"$cli" convert "$file" "$work/raw.csv" --raw --columns "FS Lin,SS Lin"
python3 - "$work/raw.csv" "$data/manifest.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
want = next(f for f in json.load(open(sys.argv[2]))["files"]
            if f["file"] == "flowio/fcs_files__coulter.lmd")["datasets"][0]
assert rows[0] == ["FS Lin", "SS Lin"], rows[0]
assert len(rows) - 1 == want["TOT"], len(rows)
for got, first in zip(rows[1:], want["first_events"]):
    assert [float(v) for v in got] == [float(v) for v in first[:2]], (got, first[:2])
PY

# The demo file: population codes come back as names in CSV; a transform is applied.
demo=${SEPAL_SOURCE_DIR:-$(dirname "$0")/../..}/data/demo.fcs
if [ -f "$demo" ]; then
    "$cli" convert "$demo" "$work/t.csv" \
        --transform '{"columns":[{"name":"CD3","transform":{"kind":"arcsinh","cofactor":5}}]}'
    "$cli" convert "$demo" "$work/plain.csv" --columns CD3
    python3 - "$work/t.csv" "$work/plain.csv" <<'PY'
import csv, math, sys
t = list(csv.reader(open(sys.argv[1])))
p = list(csv.reader(open(sys.argv[2])))
assert t[0] == p[0] and len(t[0]) == 2 and len(t) == len(p), (t[0], p[0])
assert any(not c.replace(".", "").replace("-", "").isdigit() for c in (r[1] for r in t[1:50]))
for a, b in zip(t[1:1000], p[1:1000]):
    assert abs(float(a[0]) - math.asinh(float(b[0]) / 5)) < 1e-5, (a, b)
    assert a[1] == b[1]
PY
    # CSV back to FCS keeps the events and the labels as a population code.
    "$cli" convert "$work/plain.csv" "$work/back.fcs"
    "$cli" convert "$work/back.fcs" "$work/back.csv"
    cmp -s "$work/plain.csv" "$work/back.csv" || { echo "CSV -> FCS -> CSV changed the data"; exit 1; }
    # The CSV is headed "marker (channel)", which reads back as both: the FCS keeps CD3 as $PnS.
    head -1 "$work/plain.csv" | grep -q '^CD3 (Pr141Di),' ||
        { echo "the CSV's header lost the marker: $(head -1 "$work/plain.csv")"; exit 1; }
    "$cli" info --json "$work/back.fcs" | python3 -c '
import json, sys
p = json.load(sys.stdin)["datasets"][0]["parameters"][0]
assert (p["name"], p["marker"]) == ("Pr141Di", "CD3"), p'
fi

# Every real file of the corpus to CSV and read back: each parameter is the same channel with the
# same marker ("xx (488/552nm PECy5.5 (710/40) LogH)", "Time (102.40 sec.) (Time)" lost them).
python3 - "$cli" "$data" "$work" <<'PY'
import json, subprocess, sys
cli, data, work = sys.argv[1:]
def info(path):
    out = subprocess.run([cli, "info", "--json", path], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[0])
files = 0
for f in json.load(open(f"{data}/manifest.json"))["files"]:
    if f.get("datasets") is None or f.get("must_fail") is not None:
        continue
    path, csv = f"{data}/{f['file']}", f"{work}/corpus.csv"
    if subprocess.run([cli, "convert", path, csv], capture_output=True).returncode != 0:
        continue
    back = {c["name"]: c["marker"] for c in info(csv)["columns"]}
    for p in info(path)["datasets"][0]["parameters"]:
        marker = p["marker"] if p["marker"] != p["name"] else ""
        assert p["name"] in back, f"{f['file']}: {p['name']} is not a channel of its CSV"
        assert back[p["name"]] in (marker, p["marker"]), \
            f"{f['file']}: {p['name']}'s marker {p['marker']!r} reads back as {back[p['name']]!r}"
    files += 1
assert files >= 30, f"only {files} files converted"
PY

# Refusals name the problem; nothing is left behind.
if "$cli" convert "$file" "$work/x.fcs" --columns nosuch 2>"$work/err"; then
    echo "accepted an unknown column"; exit 1
fi
grep -q "nosuch" "$work/err" || { cat "$work/err"; exit 1; }
if "$cli" convert "$file" "$work/x.xyz" 2>"$work/err"; then echo "accepted .xyz"; exit 1; fi
if "$cli" convert "$file" "$work/x.fcs" --dataset 5 2>"$work/err"; then
    echo "accepted --dataset 5"; exit 1
fi
grep -q "data set 5" "$work/err" || { cat "$work/err"; exit 1; }
[ ! -e "$work/x.fcs" ] || { echo "a failed convert left a file"; exit 1; }
ls "$work" | grep -q tmp- && { echo "a temporary file was left behind"; exit 1; }
echo "convert: ok"
