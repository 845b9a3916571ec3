#!/usr/bin/env bash
# sepal-cli embed --supervise COLUMN: the layout uses a label column (and says which columns
# there are when the name is wrong); a layout that cannot be supervised is refused; score
# --labels prints how well the picture keeps the labels apart.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" demo --events 6000 --seed 2 --out "$tmp/d.csv" >/dev/null
cols=Y89Di,Pr141Di,Nd142Di,Nd143Di,Nd144Di,Nd145Di,Nd146Di,Sm147Di,Nd148Di,Sm149Di,Nd150Di
common=(--columns "$cols" --transform asinh:5 --landmarks kmeans:128 -q)
"$cli" embed "$tmp/d.csv" "${common[@]}" --out "$tmp/plain.csv"
"$cli" embed "$tmp/d.csv" "${common[@]}" --supervise Population --supervision-strength 4 \
    --out "$tmp/supervised.csv"
cmp -s "$tmp/plain.csv" "$tmp/supervised.csv" && fail "supervision changed nothing"
for y in plain supervised; do
    "$cli" score "$tmp/d.csv" --columns "$cols" --transform asinh:5 --embedding "$tmp/$y.csv" \
        --labels Population --json >"$tmp/$y.json"
done
python3 - "$tmp/plain.json" "$tmp/supervised.json" <<'PY'
import json, sys
plain, sup = (json.load(open(p)) for p in sys.argv[1:])
for s in (plain, sup):
    assert 0.0 <= s["label_agreement"] <= 1.0 and -1.0 <= s["label_silhouette"] <= 1.0, s
# The demo's populations are apart already; supervision keeps the neighbourhoods.
assert sup["trustworthiness"] > plain["trustworthiness"] - 0.02, (plain, sup)
print(f"unsupervised: trust {plain['trustworthiness']:.4f} silhouette {plain['label_silhouette']:.3f}; "
      f"supervised: trust {sup['trustworthiness']:.4f} silhouette {sup['label_silhouette']:.3f}")
PY
if "$cli" embed "$tmp/d.csv" "${common[@]}" --supervise Stage --out "$tmp/x.csv" 2>"$tmp/e1"; then
    fail "an unknown label column was accepted"
fi
grep -q "no such label column (the inputs have Population)" "$tmp/e1" || fail "$(cat "$tmp/e1")"
if "$cli" embed "$tmp/d.csv" --columns "$cols" --landmarks som:6x6 --supervise Population -q \
    --out "$tmp/x.csv" 2>"$tmp/e2"; then
    fail "a SOM grid was supervised"
fi
grep -q "supervised layout needs --layout tsne or umap" "$tmp/e2" || fail "$(cat "$tmp/e2")"
[ ! -e "$tmp/x.csv" ] || fail "a refused run wrote its output"
echo "supervised layouts: label column used, errors named"
