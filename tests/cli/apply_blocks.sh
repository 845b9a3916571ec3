#!/usr/bin/env bash
# apply streams FCS inputs a block of events at a time: the outputs (CSV and FCS, with gates and
# populations) are the same bytes whatever the block size, and memory stays bounded by the block,
# not by the file (peak resident memory of a 3x larger file grows by far less than the file).
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" demo --events 12000 --seed 1 --out "$tmp/s1.fcs" >/dev/null
"$cli" demo --events 9000 --seed 2 --out "$tmp/s2.fcs" >/dev/null
cat >"$tmp/gates.json" <<'JSON'
{"gates": [{"name": "live",
 "axes": {"columns": [{"name": "Ir191Di", "transform": {"kind": "arcsinh", "cofactor": 5}},
                      {"name": "Pt195Di", "transform": {"kind": "arcsinh", "cofactor": 5}}]},
 "polygon": [4, -1, 9, -1, 9, 3, 4, 3]}]}
JSON
"$cli" embed "$tmp/s1.fcs" "$tmp/s2.fcs" --gates "$tmp/gates.json" --metaclusters 8 \
    --model "$tmp/m.json" --out "$tmp/y.csv" --quiet
for format in csv fcs; do
    "$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" --out-dir "$tmp/whole-$format" \
        --format $format --block-events 100000000 --quiet
    for block in 1000 4999; do
        "$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" \
            --out-dir "$tmp/b$block-$format" --format $format --block-events $block --quiet
        for f in "$tmp/whole-$format"/*; do
            cmp "$f" "$tmp/b$block-$format/$(basename "$f")" ||
                fail "$(basename "$f") ($format) differs with blocks of $block events"
        done
    done
done
echo "blocks of 1000 and 4999 events wrote the same bytes as the whole files (csv, fcs)"

if [ ! -x /usr/bin/time ]; then
    echo "SKIP: /usr/bin/time not found (scripts/setup.sh installs Debian's time); memory not measured"
    exit 0
fi
# Peak memory: a model without populations (nothing is counted), files of 150k and 450k events
# (past the first blocks, when the reading and writing threads have their buffers).
"$cli" embed "$tmp/s1.fcs" --model "$tmp/plain.json" --out "$tmp/z.csv" --quiet
"$cli" demo --events 150000 --seed 3 --out "$tmp/small.fcs" >/dev/null
"$cli" demo --events 450000 --seed 4 --out "$tmp/large.fcs" >/dev/null
peak() {  # peak resident KB of apply on $1 with blocks of $2 events
    /usr/bin/time -f "%M" -o "$tmp/peak" "$cli" apply --model "$tmp/plain.json" "$1" \
        --out-dir "$tmp/mem" --format fcs --block-events "$2" --force --quiet
    cat "$tmp/peak"
}
small=$(peak "$tmp/small.fcs" 20000)
large=$(peak "$tmp/large.fcs" 20000)
whole=$(peak "$tmp/large.fcs" 100000000)
size=$(( $(stat -c %s "$tmp/large.fcs") / 1024 ))
more=$(( ($(stat -c %s "$tmp/large.fcs") - $(stat -c %s "$tmp/small.fcs")) / 1024 ))
echo "peak KB: 150k events in blocks $small, 450k in blocks $large, 450k whole $whole (file $size KB)"
[ $((large - small)) -lt $((more / 4)) ] ||
    fail "memory grew by $((large - small)) KB for a file $more KB larger: not bounded by the block"
[ "$whole" -gt $((large + size / 2)) ] ||
    fail "reading the file whole took $whole KB, blocks $large KB: the blocks saved nothing"
