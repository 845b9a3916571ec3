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

# A file given twice would count its cells twice: apply, embed and gate refuse it.
for cmd in "apply --model $tmp/model.json --out-dir $tmp/twice --quiet" "${embed[*]} --out $tmp/twice.csv"; do
    # shellcheck disable=SC2086
    if "$cli" $cmd "$tmp/in.fcs" "$tmp/./in.fcs" 2>"$tmp/err.txt"; then fail "accepted a file twice: $cmd"; fi
    grep -q "given twice (inputs 1 and 2)" "$tmp/err.txt" || fail "no reason for a file twice: $(cat "$tmp/err.txt")"
done
# Two files of one name in different folders are two samples, named as the outputs are.
mkdir -p "$tmp/a" "$tmp/b"
cp "$tmp/in.csv" "$tmp/a/s.csv"
"$cli" demo --events 2000 --seed 9 --out "$tmp/b/s.csv" >/dev/null
"$cli" "${embed[@]}" "$tmp/a/s.csv" --out "$tmp/e2.csv" --model "$tmp/m2.json" --metaclusters 3
"$cli" apply --model "$tmp/m2.json" "$tmp/a/s.csv" "$tmp/b/s.csv" --out-dir "$tmp/same" --quiet
python3 - "$tmp/same" <<'PY'
import csv, sys
d = sys.argv[1]
counted = {}
for row in csv.DictReader(open(f"{d}/populations.csv")):
    counted[row["sample"]] = counted.get(row["sample"], 0) + int(row["cells"])
for sample, events in (("s", 3000), ("s_2", 2000)):
    rows = list(csv.DictReader(open(f"{d}/{sample}.csv")))
    assert {r["sample"] for r in rows} == {sample}, f"{sample}.csv names its sample {set(r['sample'] for r in rows)}"
    assert counted.get(sample) == len(rows) == events, f"{sample}: populations.csv {counted.get(sample)}, file {len(rows)}"
PY

# Other names still work.
"$cli" convert "$tmp/in.fcs" "$tmp/copy.fcs"
"$cli" apply --model "$tmp/model.json" "$tmp/in.csv" --out-dir "$tmp/out" --quiet
[ -f "$tmp/out/in.csv" ] || fail "apply to another folder wrote nothing"
echo "ok"
