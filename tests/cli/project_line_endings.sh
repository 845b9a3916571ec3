#!/usr/bin/env bash
# sepal-cli project reads its matrices alike whether lines end in LF, CRLF or a bare CR (old Mac
# files once read as one line of every value).
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 40 points and 8 landmarks in 3 dimensions, with a header row on the points.
awk 'BEGIN { print "a,b,c"; for (i = 0; i < 40; ++i) printf "%d,%.2f,%.2f\n", i % 7, i * 0.3, (i * 13) % 11 }' >"$tmp/x.csv"
awk 'BEGIN { for (j = 0; j < 8; ++j) printf "%d,%.1f,%d\n", j % 7, j * 1.5, (j * 5) % 11 }' >"$tmp/l.csv"
awk 'BEGIN { for (j = 0; j < 8; ++j) printf "%d,%d\n", j % 3, j / 3 }' >"$tmp/p.csv"
for f in x l p; do
    tr '\n' '\r' <"$tmp/$f.csv" >"$tmp/${f}_cr.csv"
    sed 's/$/\r/' <"$tmp/$f.csv" >"$tmp/${f}_crlf.csv"
done
"$cli" project --data "$tmp/x.csv" --landmarks "$tmp/l.csv" --positions "$tmp/p.csv" \
    --out "$tmp/lf.out" --backend cpu
for e in cr crlf; do
    "$cli" project --data "$tmp/x_$e.csv" --landmarks "$tmp/l_$e.csv" --positions "$tmp/p_$e.csv" \
        --out "$tmp/$e.out" --backend cpu
    cmp -s "$tmp/lf.out" "$tmp/$e.out" || fail "$e line ends gave other coordinates"
done
[ "$(wc -l <"$tmp/lf.out")" -eq 40 ] || fail "expected 40 rows, got $(wc -l <"$tmp/lf.out")"
echo "ok"
