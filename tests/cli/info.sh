#!/usr/bin/env bash
# sepal-cli info: JSON for a real FCS file; a non-zero exit and a message for a damaged one.
set -euo pipefail
cli=${SEPAL_CLI:?SEPAL_CLI must point to sepal-cli}
data=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}/fcs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A damaged file (the first bytes of an FCS HEADER only) must fail with a message naming it.
printf 'FCS3.1    00000058' >"$work/cut.fcs"
if "$cli" info "$work/cut.fcs" >"$work/out" 2>"$work/err"; then
    echo "info accepted a truncated file"; exit 1
fi
grep -q "cut.fcs" "$work/err" || { echo "message does not name the file:"; cat "$work/err"; exit 1; }
grep -q "HEADER" "$work/err" || { echo "message does not name the segment:"; cat "$work/err"; exit 1; }

# A table is described as embed reads it (its events, and which columns the default embeds),
# where info said its bytes were a truncated FCS HEADER; an empty one says so.
printf 'CD3,CD4,Time\n1,2,0.1\n3,4,0.2\n5,6,0.3\n' >"$work/cells.csv"
"$cli" info "$work/cells.csv" >"$work/out"
grep -q "cells.csv: a table, not FCS (read as embed reads it): 3 events, 3 columns" "$work/out" ||
    { echo "info on a CSV table:"; cat "$work/out"; exit 1; }
"$cli" info --json "$work/cells.csv" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["format"] == "table" and j["events"] == 3, j
assert [c["name"] for c in j["columns"]] == ["CD3", "CD4", "Time"], j' ||
    { echo "info --json on a CSV table is wrong"; exit 1; }
: >"$work/empty.csv"
if "$cli" info "$work/empty.csv" 2>"$work/err"; then echo "info accepted an empty file"; exit 1; fi
grep -q "empty.csv: holds no events (the file is empty)" "$work/err" ||
    { echo "info on an empty file:"; cat "$work/err"; exit 1; }

file=$data/flowio/fcs_files__coulter.lmd
if [ ! -f "$file" ]; then
    echo "skipped the real-file part: $file is absent (real data lives in ../shared/data)"
    exit 0
fi
"$cli" info --json "$file" >"$work/info.json"
python3 - "$work/info.json" "$data/manifest.json" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
want = next(f for f in json.load(open(sys.argv[2]))["files"] if f["file"] == "flowio/fcs_files__coulter.lmd")
assert got["file"].endswith("fcs_files__coulter.lmd"), got["file"]
assert len(got["datasets"]) == len(want["datasets"]), "data set count"
for g, w in zip(got["datasets"], want["datasets"]):
    assert g["version"] == w["version"], (g["version"], w["version"])
    assert g["events"] == w["TOT"], (g["events"], w["TOT"])
    assert [p["name"] for p in g["parameters"]] == [n.strip() for n in w["PnN"]]
    assert [p["range"] for p in g["parameters"]] == [float(r) for r in w["PnR"]]
    assert isinstance(g["spillover"], bool) and isinstance(g["warnings"], list)
print("info --json agrees with the manifest for", got["file"])
PY
# The human table names every parameter too.
"$cli" info "$file" | grep -q "FL1 Log" || { echo "human output lacks a marker"; exit 1; }
# Several files at once: one failing file makes the exit status non-zero, the others still print.
if "$cli" info --json "$file" "$work/cut.fcs" >"$work/two.json" 2>/dev/null; then
    echo "info returned 0 although one file failed"; exit 1
fi
[ "$(wc -l <"$work/two.json")" -eq 1 ] || { echo "expected one JSON line"; exit 1; }
# A marker with a character of several bytes ("Alexa Fluor™ 405-A") keeps the table's columns
# in line: the range column starts at one place on every row.
attune=$data/flowio/fcs_files__G11.fcs
if [ -f "$attune" ]; then
    "$cli" info "$attune" | python3 -c '
import sys
lines = [l.rstrip("\n") for l in sys.stdin]
header = next(l for l in lines if l.lstrip().startswith("#"))
at = header.index("range")
rows = [l for l in lines if l[:4].strip().isdigit()]
assert len(rows) == 12 and any("™" in l for l in rows), rows
bad = [l for l in rows if l[at - 1] != " " or not l[at].isdigit()]
assert not bad, ("the range column is not under its heading", bad)' ||
        { echo "info's table is out of line on a UTF-8 marker"; exit 1; }
else
    echo "skipped the UTF-8 table check: $attune is absent (real data lives in ../shared/data)"
fi
echo "info: ok"
