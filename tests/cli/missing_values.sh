#!/usr/bin/env bash
# Missing values: one NA cell, an infinity (1e400), NaN in FCS data and a column without any
# value do not stop sepal-cli embed: such events are left out of training and placed by the
# projection, a note counts them, and an empty column is left out with a note naming it.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 5000 events in three clusters; row 1 has NA, row 2 an overflowing 1e400, row 3 "nan".
awk 'BEGIN {
    srand(3); print "CD3,CD4,CD8,Empty";
    for (i = 0; i < 5000; ++i) {
        c = i % 3; a = rand() + (c == 0) * 4; b = rand() + (c == 1) * 4; d = rand() + (c == 2) * 4;
        if (i == 1) a = "NA"; if (i == 2) b = "1e400"; if (i == 3) d = "nan";
        print a "," b "," d ",NA";
    }
}' >"$tmp/gaps.csv"
cut -d, -f1-3 "$tmp/gaps.csv" >"$tmp/three.csv"

# Every coordinate of an output table is a finite number.
finite_xy() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) { if ($i == "EmbedSOM1") x = i; if ($i == "EmbedSOM2") y = i }; next }
        { if ($x + 0 != $x || $y + 0 != $y || $x ~ /nan|inf/ || $y ~ /nan|inf/) bad++; n++ }
        END { exit !(x && y && n == 5000 && bad == 0) }' "$1"
}

for spec in "kmeans:64 " "kmeans:64 graph" "kmeans:64 grid" "som:8x8 " "som:8x8 tsne" \
            "plsom:8x8 " "plsom:8x8 umap"; do
    read -r landmarks layout <<<"$spec"
    for input in gaps three; do
        args=(embed "$tmp/$input.csv" --landmarks "$landmarks" --train-sample 3000
              --out "$tmp/out.csv")
        [ -n "${layout:-}" ] && args+=(--layout "$layout")
        "$cli" "${args[@]}" 2>"$tmp/err.txt" ||
            fail "$input $landmarks ${layout:-}: $(cat "$tmp/err.txt")"
        grep -q "note: 3 events have NA, NaN or infinity in an embedded column: they were left out of training" \
            "$tmp/err.txt" || fail "$input $landmarks ${layout:-}: no count: $(cat "$tmp/err.txt")"
        finite_xy "$tmp/out.csv" || fail "$input $landmarks ${layout:-}: non-finite coordinates"
        if [ "$input" = gaps ]; then
            grep -q "note: channel Empty has no finite value in 5000 events.*left out" "$tmp/err.txt" ||
                fail "the empty column was not named: $(cat "$tmp/err.txt")"
            head -1 "$tmp/out.csv" | grep -q "Empty" || fail "the output lost the empty column"
        fi
    done
done

# The same gaps in FCS (float data: NaN and infinity are stored as they are).
"$cli" convert "$tmp/gaps.csv" "$tmp/gaps.fcs" 2>"$tmp/err.txt" || fail "convert: $(cat "$tmp/err.txt")"
"$cli" embed "$tmp/gaps.fcs" --landmarks kmeans:64 --out "$tmp/fcs.csv" 2>"$tmp/err.txt" ||
    fail "FCS with gaps: $(cat "$tmp/err.txt")"
grep -q "note: 3 events have NA, NaN or infinity" "$tmp/err.txt" ||
    fail "FCS: no count: $(cat "$tmp/err.txt")"
finite_xy "$tmp/fcs.csv" || fail "FCS: non-finite coordinates"

# Only an empty column asked for by name: a message that names the problem and the way out.
if "$cli" embed "$tmp/gaps.csv" --columns Empty,CD3 --landmarks kmeans:16 --out "$tmp/x.csv" \
    2>"$tmp/err.txt"; then
    fail "an embedding of an empty column succeeded"
fi
grep -q "only 0 of the 5000 events have a finite value in every column" "$tmp/err.txt" ||
    fail "empty column chosen: $(cat "$tmp/err.txt")"
grep -q "column 1 has no finite value: leave it out" "$tmp/err.txt" ||
    fail "empty column chosen, not named: $(cat "$tmp/err.txt")"
echo "missing_values: ok"
