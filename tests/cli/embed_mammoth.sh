#!/usr/bin/env bash
# sepal-cli embed, apply and score end to end on the 3D mammoth (10,000 points, kept quick).
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
data=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}/shapes/mammoth_3d.json
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -f "$data" ]; then
    echo "skipped: $data is absent (real test data lives in ../shared/data beside the checkout)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" embed "$data" --landmarks kmeans:128 --train-sample 4000 --seed 3 \
    --out "$tmp/y.csv" --png "$tmp/y.png" --color z --size 320x240 --model "$tmp/m.json" \
    2>"$tmp/embed.log" || { status=$?; cat "$tmp/embed.log"; fail "embed exited with $status"; }
grep -q "landmarks; seconds" "$tmp/embed.log" || fail "embed printed no timing summary"

# The table: the input's columns plus the two coordinates, one row per point.
[ "$(head -1 "$tmp/y.csv")" = "x,y,z,EmbedSOM1,EmbedSOM2" ] || fail "columns: $(head -1 "$tmp/y.csv")"
[ "$(($(wc -l <"$tmp/y.csv") - 1))" -eq 10000 ] || fail "rows: $(wc -l <"$tmp/y.csv")"
awk -F, 'NR > 1 && ($4 != $4 + 0 || $5 != $5 + 0) { bad = 1 } END { exit bad }' "$tmp/y.csv" ||
    fail "non-numeric coordinates"

# The picture: right size and not blank.
if command -v python3 >/dev/null; then
    read -r w h ink < <(python3 "$here/png_ink.py" "$tmp/y.png")
    [ "$w" -eq 320 ] && [ "$h" -eq 240 ] || fail "picture is ${w}x${h}"
    [ "$ink" -gt 3000 ] || fail "picture nearly blank: $ink pixels drawn"
fi

# The model reproduces the coordinates through apply.
"$cli" apply --model "$tmp/m.json" "$data" --out-dir "$tmp/applied" --quiet ||
    fail "apply exited with $?"
[ -f "$tmp/applied/mammoth_3d.csv" ] || fail "apply wrote: $(ls "$tmp/applied")"
paste -d, <(cut -d, -f4,5 "$tmp/y.csv") <(cut -d, -f4,5 "$tmp/applied/mammoth_3d.csv") |
    awk -F, 'NR > 1 { d = ($1 - $3) ^ 2 + ($2 - $4) ^ 2; if (d > 1e-6) bad++ }
             END { if (bad) { print bad " points moved"; exit 1 } }' || fail "apply differs from embed"
head -1 "$tmp/applied/mammoth_3d.csv" | grep -q "sample" || fail "apply wrote no sample column"

# Score: sane numbers on a small subsample.
"$cli" score "$data" --embedding "$tmp/y.csv" --k 10 --sample 2000 >"$tmp/score.txt" ||
    fail "score exited with $?"
t=$(awk '$1 == "trustworthiness" { print $2 }' "$tmp/score.txt")
awk -v t="$t" 'BEGIN { exit !(t > 0.95 && t <= 1.0) }' || fail "trustworthiness $t"

# Mistakes get a message and exit status 1, not a crash.
set +e
"$cli" embed "$data" --landmarks kmeans:3 --out "$tmp/bad.csv" 2>"$tmp/err.txt"
[ $? -eq 1 ] && grep -q "landmarks" "$tmp/err.txt" || fail "bad --landmarks: $(cat "$tmp/err.txt")"
"$cli" embed "$data" --out "$tmp/bad.txt" --quiet 2>"$tmp/err.txt"
[ $? -eq 1 ] && grep -q ".csv, .fcs or .h5ad" "$tmp/err.txt" || fail "bad --out: $(cat "$tmp/err.txt")"
set -e
echo "ok: embed, picture, model, apply and score on the mammoth"
