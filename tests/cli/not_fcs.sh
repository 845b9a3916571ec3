#!/usr/bin/env bash
# Files that are not what their name says: random bytes and a single byte named .fcs, an empty
# CSV and a CSV header without rows. Every command refuses them with one clear message and a
# non-zero exit, before any training.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Random bytes as they come (likely with a zero byte) and without zero bytes (they look like
# text); neither may start with "FCS".
head -c 100 /dev/urandom | sed '1s/^FCS/XCS/' >"$tmp/random.fcs"
head -c 400 /dev/urandom | tr -d '\000' | head -c 100 | sed '1s/^FCS/XCS/' >"$tmp/text.fcs"
printf 'x' >"$tmp/one.fcs"
: >"$tmp/empty.csv"
printf 'a,b,c\n' >"$tmp/header.csv"

# A model to apply: a small real embedding of 200 generated rows.
{
    echo "a,b,c"
    for i in $(seq 1 200); do echo "$((i % 7)),$((i % 11)),$((i % 13))"; done
} >"$tmp/ok.csv"
"$cli" embed "$tmp/ok.csv" --landmarks kmeans:16 --train-sample 0 --out "$tmp/y.csv" \
    --model "$tmp/m.json" --quiet || fail "embed of a good file exited with $?"

# run NAME EXPECTED COMMAND...: the command fails with exit code 1 and prints EXPECTED.
run() {
    local name=$1 expected=$2
    shift 2
    local status=0
    "$cli" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq 1 ] || fail "$name: exit $status, expected 1; stderr: $(cat "$tmp/err")"
    grep -qF -- "$expected" "$tmp/err" || fail "$name: no '$expected' in: $(cat "$tmp/err")"
    ! grep -q "cannot train" "$tmp/err" || fail "$name: reached training: $(cat "$tmp/err")"
    [ "$(grep -c "error" "$tmp/err")" -eq 1 ] || fail "$name: not one message: $(cat "$tmp/err")"
}

for f in random text one; do
    file="$tmp/$f.fcs"
    message="$file: not an FCS file (it does not start with 'FCS')"
    run "info $f.fcs" "not an FCS file" info "$file"
    run "convert $f.fcs" "$message" convert "$file" "$tmp/out.csv"
    run "embed $f.fcs" "$message" embed "$file" --out "$tmp/e.csv"
    run "apply $f.fcs" "$message" apply --model "$tmp/m.json" "$file" --out-dir "$tmp/applied"
done
[ ! -e "$tmp/out.csv" ] && [ ! -e "$tmp/e.csv" ] || fail "a refused input left an output file"

for f in empty header; do
    file="$tmp/$f.csv"
    run "info $f.csv" "$file" info "$file"
    run "convert $f.csv" "$file: holds no events" convert "$file" "$tmp/out.fcs"
    run "embed $f.csv" "$file: holds no events" embed "$file" --out "$tmp/e.csv"
    run "apply $f.csv" "$file: holds no events" apply --model "$tmp/m.json" "$file" \
        --out-dir "$tmp/applied"
done

# Events, but fewer than landmarks: then, and only then, the advice is fewer landmarks.
status=0
"$cli" embed "$tmp/ok.csv" --landmarks kmeans:512 --out "$tmp/e.csv" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] || fail "512 landmarks on 200 events: exit $status"
grep -qF "cannot train 512 landmarks on 200 events: ask for 200 landmarks or fewer" "$tmp/err" ||
    fail "fewer events than landmarks: $(cat "$tmp/err")"
echo "not_fcs: ok"
