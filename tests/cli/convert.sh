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
