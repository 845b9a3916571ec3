#!/usr/bin/env bash
# No command writes over a file it reads: the same path, another spelling, a symlink or a hard
# link is refused with a message and the input is left as it was.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" demo --events 3000 --out "$tmp/in.csv" >/dev/null
"$cli" demo --events 3000 --out "$tmp/in.fcs" >/dev/null
ln -s "$tmp/in.csv" "$tmp/link.csv"
ln "$tmp/in.fcs" "$tmp/hard.fcs"
csvsum=$(cksum <"$tmp/in.csv")
fcssum=$(cksum <"$tmp/in.fcs")

# refused CMD...: must exit non-zero and say why.
refused() {
    if "$cli" "$@" >"$tmp/out.txt" 2>&1; then fail "accepted: $*"; fi
    grep -q "choose another output name" "$tmp/out.txt" || fail "no reason for: $* ($(cat "$tmp/out.txt"))"
}
embed=(embed --landmarks som:4x4 --train-sample 1000 --quiet)
refused "${embed[@]}" "$tmp/in.csv" --out "$tmp/in.csv"
refused "${embed[@]}" "$tmp/in.csv" --out "$tmp/./link.csv"
refused "${embed[@]}" "$tmp/in.fcs" --out "$tmp/hard.fcs"
refused "${embed[@]}" "$tmp/in.fcs" --out "$tmp/e.csv" --model "$tmp/in.fcs"
refused "${embed[@]}" "$tmp/in.fcs" --out "$tmp/e.csv" --png "$tmp/hard.fcs"
refused "${embed[@]}" "$tmp/in.fcs" --out "$tmp/same.csv" --model "$tmp/./same.csv"
refused "${embed[@]}" "$tmp/in.fcs" --out "$tmp/same.csv" --png "$tmp/same.csv"
refused convert "$tmp/in.fcs" "$tmp/in.fcs"
refused convert "$tmp/in.csv" "$tmp/link.csv"
refused convert "$tmp/in.fcs" "$tmp/hard.fcs"

# Per population: in_<name>.csv is an input, so nothing is written.
"$cli" convert "$tmp/in.csv" "$tmp/pop.csv"
first=$(awk -F, 'NR == 2 { print $(NF) }' "$tmp/pop.csv" | sed 's/[^A-Za-z0-9._-]\+/_/g')
cp "$tmp/in.csv" "$tmp/in_$first.csv"
refused "${embed[@]}" "$tmp/in_$first.csv" --out "$tmp/in.csv" --per-population

# apply into the input's own folder, same name and format.
"$cli" "${embed[@]}" "$tmp/in.csv" --out "$tmp/e.csv" --model "$tmp/model.json"
refused apply --model "$tmp/model.json" "$tmp/in.csv" --out-dir "$tmp" --quiet
refused apply --model "$tmp/model.json" "$tmp/in.fcs" --out-dir "$tmp" --format fcs --quiet

# project: --out is one of the matrices read.
printf '1,2\n3,4\n5,6\n7,8\n9,10\n' >"$tmp/m.csv"
refused project --data "$tmp/m.csv" --landmarks "$tmp/m.csv" --positions "$tmp/m.csv" --out "$tmp/m.csv"

[ "$(cksum <"$tmp/in.csv")" = "$csvsum" ] || fail "in.csv changed"
[ "$(cksum <"$tmp/in.fcs")" = "$fcssum" ] || fail "in.fcs changed"

# Other names still work.
"$cli" convert "$tmp/in.fcs" "$tmp/copy.fcs"
"$cli" apply --model "$tmp/model.json" "$tmp/in.csv" --out-dir "$tmp/out" --quiet
[ -f "$tmp/out/in.csv" ] || fail "apply to another folder wrote nothing"
echo "ok"
