#!/usr/bin/env bash
# sepal-cli embed and apply exports: CSV headers ("CD3 (Pr141Di)", EmbedSOM1, EmbedSOM2,
# population names, sample), raw or transformed values, and one FCS per population.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
root=${SEPAL_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
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
embed=(embed --landmarks som:6x6 --train-sample 5000 --seed 4 --quiet)

# CSV: every channel, headed marker first, then the coordinates, population names and sample.
"$cli" "${embed[@]}" "$tmp/a.fcs" "$tmp/b.fcs" --out "$tmp/raw.csv" || fail "embed to CSV"
header=$(head -1 "$tmp/raw.csv")
case "$header" in Time,Event_length,"CD45 (Y89Di)",*,"CD3 (Pr141Di)",*) ;;
    *) fail "channel headers: $header" ;; esac
case "$header" in *,EmbedSOM1,EmbedSOM2,Population,sample) ;;
    *) fail "added columns: $header" ;; esac
case "$header" in *"(("*|*embed_x*) fail "doubled brackets or old names: $header" ;; esac
rows=$(($(wc -l <"$tmp/raw.csv") - 1))
[ "$rows" -eq 200000 ] || fail "$rows rows for two samples of 100000 events"
# Population names, not codes, in the CSV.
names=$(awk -F, 'NR > 1 { print $(NF - 1) }' "$tmp/raw.csv" | sort -u | wc -l)
[ "$names" -ge 10 ] || fail "only $names population names"
awk -F, 'NR > 1 && $(NF - 1) ~ /^[0-9]+$/ { bad = 1 } END { exit bad }' "$tmp/raw.csv" ||
    fail "population codes instead of names"

# Transformed values, only the embedded channels: arcsinh values are small, raw ones are not.
"$cli" "${embed[@]}" "$tmp/a.fcs" --out "$tmp/tf.csv" --values transformed --channels used ||
    fail "embed --values transformed"
tfheader=$(head -1 "$tmp/tf.csv")
case "$tfheader" in "CD45 (Y89Di)",*,EmbedSOM1,EmbedSOM2,Population) ;;
    *) fail "transformed headers: $tfheader" ;; esac
awk -F, 'NR > 1 && ($1 > 20 || $1 < -20) { bad = 1 } END { exit bad }' "$tmp/tf.csv" ||
    fail "CD45 values are not transformed"
awk -F, 'NR > 1 && $3 > 20 { big = 1 } END { exit !big }' "$tmp/raw.csv" ||
    fail "raw CD45 values look transformed"

# One FCS per population, each valid and read back with the same channels.
"$cli" "${embed[@]}" "$tmp/a.fcs" --out "$tmp/split.fcs" --per-population ||
    fail "embed --per-population"
[ ! -f "$tmp/split.fcs" ] || fail "the whole table was written too"
ls "$tmp"/split_*.fcs >/dev/null 2>&1 || fail "no per-population files: $(ls "$tmp")"
files=$(ls "$tmp"/split_*.fcs | wc -l)
[ "$files" -ge 10 ] || fail "only $files per-population files"
total=0
for f in "$tmp"/split_*.fcs; do
    json=$("$cli" info "$f" --json) || fail "info cannot read $f"
    case "$json" in *'"EmbedSOM1"'*'"EmbedSOM2"'*'"Population"'*) ;;
        *) fail "$f lacks the added parameters" ;; esac
    n=$(echo "$json" | grep -o '"events": *[0-9]*' | head -1 | grep -o '[0-9]*$')
    total=$((total + n))
done
[ "$total" -eq 100000 ] || fail "per-population files hold $total events, not 100000"
grep -qa "SEPAL_POPULATIONS" "$(ls "$tmp"/split_*.fcs | head -1)" || fail "no population names"

# apply takes the same options; score still reads tables with the old column names.
"$cli" "${embed[@]}" "$tmp/a.fcs" --out "$tmp/m.csv" --model "$tmp/m.json" || fail "embed --model"
"$cli" apply --model "$tmp/m.json" "$tmp/b.fcs" --out-dir "$tmp/out" --format fcs \
    --per-population --quiet || fail "apply --per-population"
ls "$tmp"/out/b_*.fcs >/dev/null 2>&1 || fail "apply wrote: $(ls "$tmp/out")"
"$cli" apply --model "$tmp/m.json" "$tmp/b.fcs" --out-dir "$tmp/csv" --values transformed --quiet ||
    fail "apply --values transformed"
head -1 "$tmp/csv/b.csv" | grep -q "EmbedSOM1,EmbedSOM2" || fail "apply CSV: $(head -1 "$tmp/csv/b.csv")"
sed '1s/EmbedSOM1,EmbedSOM2/embed_x,embed_y/' "$tmp/m.csv" >"$tmp/old.csv"
"$cli" score "$tmp/a.fcs" --embedding "$tmp/old.csv" --sample 500 >/dev/null ||
    fail "score cannot read embed_x, embed_y"

set +e
"$cli" "${embed[@]}" "$tmp/a.fcs" --out "$tmp/bad.csv" --values log 2>"$tmp/err.txt"
[ $? -ne 0 ] && grep -q "values" "$tmp/err.txt" || fail "bad --values: $(cat "$tmp/err.txt")"
set -e
echo "ok: CSV headers and values, one FCS per population, apply and score"
