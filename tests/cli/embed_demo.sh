#!/usr/bin/env bash
# sepal-cli embed on the demo data given twice (two samples), with a SOM: FCS and CSV outputs,
# a picture coloured by sample, the model applied to both files.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
root=${SEPAL_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
here=$(cd "$(dirname "$0")" && pwd)
demo=$root/data/demo.fcs
if [ ! -f "$demo" ]; then
    echo "skipped: $demo is absent (the demo data set is generated into data/)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cp "$demo" "$tmp/a.fcs"
cp "$demo" "$tmp/b.fcs"

"$cli" embed "$tmp/a.fcs" "$tmp/b.fcs" --landmarks som:8x8 --seed 2 --out "$tmp/y.csv" \
    --png "$tmp/y.png" --color sample --size 300x200 --model "$tmp/m.json" 2>"$tmp/log" ||
    { status=$?; cat "$tmp/log"; fail "embed exited with $status"; }
header=$(head -1 "$tmp/y.csv")
case "$header" in *EmbedSOM1,EmbedSOM2*) ;; *) fail "no coordinates in: $header" ;; esac
case "$header" in *sample*) ;; *) fail "no sample column in: $header" ;; esac
events=$("$cli" info "$demo" --json | grep -o '"events": *[0-9]*' | head -1 | grep -o '[0-9]*$')
rows=$(($(wc -l <"$tmp/y.csv") - 1))
[ "$rows" -eq $((2 * events)) ] || fail "$rows rows for 2 x $events events"
grep -q ",a$\|,a,\|,\"a\"" "$tmp/y.csv" && grep -q ",b$\|,b,\|,\"b\"" "$tmp/y.csv" ||
    fail "sample names a and b not in the table"
if command -v python3 >/dev/null; then
    read -r w h ink < <(python3 "$here/png_ink.py" "$tmp/y.png")
    [ "$w" -eq 300 ] && [ "$h" -eq 200 ] || fail "picture is ${w}x${h}"
    [ "$ink" -gt 1000 ] || fail "picture nearly blank: $ink pixels drawn"
fi

# FCS output re-reads with the two added parameters.
"$cli" embed "$tmp/a.fcs" --landmarks som:6x6 --out "$tmp/y.fcs" --quiet || fail "embed to FCS"
"$cli" info "$tmp/y.fcs" | grep -q "EmbedSOM1" || fail "FCS output lacks EmbedSOM1"
"$cli" embed "$tmp/a.fcs" "$tmp/b.fcs" --landmarks som:6x6 --out "$tmp/y2.fcs" --quiet ||
    fail "embed of two samples to FCS"
"$cli" info "$tmp/y2.fcs" | grep -q "sample" || fail "FCS output of two samples lacks the sample"

# The model applies to every file, one output each, with a sample column.
"$cli" apply --model "$tmp/m.json" "$tmp/a.fcs" "$tmp/b.fcs" --out-dir "$tmp/out" --quiet ||
    fail "apply exited with $?"
[ -f "$tmp/out/a.csv" ] && [ -f "$tmp/out/b.csv" ] || fail "apply wrote: $(ls "$tmp/out")"
"$cli" score "$tmp/a.fcs" --embedding "$tmp/out/a.csv" --sample 1000 >"$tmp/score.txt" ||
    fail "score exited with $?"
t=$(awk '$1 == "trustworthiness" { print $2 }' "$tmp/score.txt")
awk -v t="$t" 'BEGIN { exit !(t > 0.8 && t <= 1.0) }' || fail "trustworthiness $t"
echo "ok: embed (two samples, CSV and FCS), picture, apply and score on the demo data"
