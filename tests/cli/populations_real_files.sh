#!/usr/bin/env bash
# embed --metaclusters on real files: populations a cytometry user can work with. k-means puts
# some landmarks on a few outlying cells; each landmark weighs its cells, so such a landmark joins
# a population instead of making its own, and no population swallows most of the cells. The
# populations.csv of apply with the model has the same counts as embed's population column.
set -euo pipefail
cli=${SEPAL_CLI:?SEPAL_CLI must point to sepal-cli}
data=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}/fcs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

files=("$data/flowio/fcs_files__100715.fcs" "$data/flowcal/test__Data004.fcs")
for file in "${files[@]}"; do
    if [ ! -f "$file" ]; then
        echo "skipped: $file is absent (real data lives in ../shared/data)"
        exit 77
    fi
done

for file in "${files[@]}"; do
    name=$(basename "$file" .fcs)
    "$cli" embed "$file" --metaclusters 10 --model "$work/$name.json" --out "$work/$name.csv" \
        --quiet
    "$cli" apply --model "$work/$name.json" "$file" --out-dir "$work/$name" --quiet
    python3 - "$work/$name.csv" "$work/$name/populations.csv" "$name" <<'PY'
import csv, sys
from collections import Counter
cells = Counter(row["population"] for row in csv.DictReader(open(sys.argv[1])))
n = sum(cells.values())
assert len(cells) == 10, f"{sys.argv[3]}: {len(cells)} populations, asked for 10"
assert max(cells.values()) < 0.5 * n, f"{sys.argv[3]}: one population holds {max(cells.values())} of {n}: {cells}"
small = [p for p, c in cells.items() if c < 0.005 * n]
assert not small, f"{sys.argv[3]}: populations of fewer than 0.5% of the cells: {small} ({cells})"
applied = {row["population"]: int(row["cells"]) for row in csv.DictReader(open(sys.argv[2]))}
assert applied == dict(cells), f"{sys.argv[3]}: apply counted {applied}, embed {dict(cells)}"
print(f"{sys.argv[3]}: 10 populations of {min(cells.values())} to {max(cells.values())} cells of {n}")
PY
done
