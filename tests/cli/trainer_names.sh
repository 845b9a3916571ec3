#!/usr/bin/env bash
# sepal-cli embed names its trainers from the registry: --help lists them, an unknown --layout
# or --landmarks kind is refused (before any file is read) with the accepted names, and every
# data-space trainer trains landmarks.
set -euo pipefail
cli=${SEPAL_CLI:?SEPAL_CLI must point to sepal-cli}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Refused with a message that names the option, the value and what to use instead.
refused() {  # expected-message embed-arguments...
    local want=$1
    shift
    if "$cli" embed "$work/absent.csv" --out "$work/out.csv" -q "$@" 2>"$work/err"; then
        echo "embed $* succeeded"; exit 1
    fi
    grep -qF -- "$want" "$work/err" || { echo "embed $*: expected '$want', got:"; cat "$work/err"; exit 1; }
}
refused "--layout nope: use graph, tsne, umap or grid" --layout nope
refused "--layout som: use graph, tsne, umap or grid" --layout som
refused "--landmarks nope:5: use som:ROWSxCOLS, batchsom:ROWSxCOLS, plsom:ROWSxCOLS, kmeans:COUNT|auto or online-kmeans:COUNT|auto" \
    --landmarks nope:5
refused "--landmarks tsne:64: use som:ROWSxCOLS" --landmarks tsne:64

"$cli" embed --help >"$work/help"
grep -qF "graph, tsne, umap or grid" "$work/help" || { echo "--help lacks the layouts"; exit 1; }
grep -qF "plsom:ROWSxCOLS, kmeans:COUNT|auto or online-kmeans:COUNT|auto" "$work/help" ||
    { echo "--help lacks the kinds"; exit 1; }
# The defaults that differ by landmark trainer come from their registry entries.
grep -qF "the grid for som, batchsom and plsom, tsne for kmeans and online-kmeans" "$work/help" ||
    { echo "--help lacks the default layouts"; exit 1; }

# Every data-space trainer of --landmarks trains, with a layout trainer after it.
"$cli" demo --out "$work/demo.csv" --events 1500 --seed 2 >/dev/null
for landmarks in som:4x4 batchsom:4x4 plsom:4x4 kmeans:16 online-kmeans:16; do
    "$cli" embed "$work/demo.csv" --landmarks "$landmarks" --layout umap --out "$work/e.csv" -q
    python3 - "$work/e.csv" "$landmarks" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 1500, len(rows)
xy = [(float(r["EmbedSOM1"]), float(r["EmbedSOM2"])) for r in rows]
assert all(math.isfinite(x) and math.isfinite(y) for x, y in xy), sys.argv[2]
assert len(set(xy)) > 100, (sys.argv[2], "too few distinct positions")
PY
done
echo "trainer names: ok"
