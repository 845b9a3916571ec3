#!/usr/bin/env bash
# --threads beyond what the OpenMP runtime can create is refused with a clear message in every
# command that takes it, before any file is read (the runtime crashed or printed its own error).
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
demo=${SEPAL_SOURCE_DIR:-$(dirname "$0")/../..}/data/demo.fcs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" embed "$demo" --landmarks kmeans:16 --train-sample 2000 --quiet --out "$tmp/y.csv" \
    --model "$tmp/m.json" || fail "embed without --threads exited with $?"

# Each command with --threads, with too many, negative and absurd counts.
commands=(
    "embed $demo --out $tmp/a.csv"
    "apply --model $tmp/m.json $demo --out-dir $tmp/applied"
    "score $demo --embedding $tmp/y.csv"
)
for c in "${commands[@]}"; do
    for t in 100000 50000 -1 2147483647; do
        rc=0
        # shellcheck disable=SC2086
        "$cli" $c --threads "$t" >"$tmp/out.txt" 2>&1 || rc=$?
        [ "$rc" -ne 0 ] || fail "'$c --threads $t' succeeded"
        [ "$rc" -lt 128 ] || fail "'$c --threads $t' crashed (exit $rc): $(cat "$tmp/out.txt")"
        grep -q -- "--threads $t: give 0 (one per core) up to [0-9]" "$tmp/out.txt" ||
            fail "'$c --threads $t' said: $(cat "$tmp/out.txt")"
        ! grep -qi "thread creation failed\|libgomp" "$tmp/out.txt" ||
            fail "the runtime's own message leaked: $(cat "$tmp/out.txt")"
    done
done

# sepal-bench busy compares a thread count with 1: the same limit, before any busy process starts.
bench=${SEPAL_BENCH:-}
if [ -n "$bench" ] && [ -x "$bench" ]; then
    rc=0
    "$bench" busy --data "$demo" --threads 100000 --competitors 0 >"$tmp/out.txt" 2>&1 || rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || fail "sepal-bench busy --threads 100000: exit $rc"
    grep -q -- "--threads 100000: give 0 (one per core) up to" "$tmp/out.txt" ||
        fail "sepal-bench busy said: $(cat "$tmp/out.txt")"
fi

# A count within the limit still works.
"$cli" embed "$demo" --landmarks kmeans:16 --train-sample 2000 --threads 4 --quiet \
    --out "$tmp/b.csv" || fail "--threads 4 was refused"
echo "threads_limit: ok"
