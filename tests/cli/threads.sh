#!/usr/bin/env bash
# Waiting threads: sepal-cli runs itself again with sleeping threads, unless the user
# chose a policy; results do not depend on the thread count; sepal-bench busy cleans up.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
bench=${SEPAL_BENCH:-}
demo=${SEPAL_SOURCE_DIR:-$(dirname "$0")/../..}/data/demo.fcs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# libgomp prints its settings when loaded: the second (last) process does not spin.
env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose "$cli" --version >"$tmp/env.txt" 2>&1
grep -q "^0\.\|^[0-9]" "$tmp/env.txt" || fail "no version printed: $(cat "$tmp/env.txt")"
[ "$(grep "GOMP_SPINCOUNT = " "$tmp/env.txt" | tail -1)" = "  GOMP_SPINCOUNT = '0'" ] ||
    fail "the running process spins: $(grep GOMP_SPINCOUNT "$tmp/env.txt")"
[ "$(grep "OMP_WAIT_POLICY = " "$tmp/env.txt" | tail -1)" = "  OMP_WAIT_POLICY = 'PASSIVE'" ] ||
    fail "wait policy: $(grep OMP_WAIT_POLICY "$tmp/env.txt")"

# A policy the user set is kept, and the program is not run again.
env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=active OMP_DISPLAY_ENV=true "$cli" --version >"$tmp/env.txt" 2>&1
[ "$(grep -c "OMP_WAIT_POLICY = " "$tmp/env.txt")" -eq 1 ] || fail "ran again despite the user's policy"
grep -q "OMP_WAIT_POLICY = 'ACTIVE'" "$tmp/env.txt" || fail "the user's policy was replaced"

# The arguments reach the second process unchanged, and 1 or 2 threads give the same bytes.
for t in 1 2; do
    "$cli" embed "$demo" --landmarks kmeans:64 --train-sample 4000 --threads "$t" --quiet \
        --out "$tmp/y$t.csv" || fail "embed with $t threads exited with $?"
done
cmp -s "$tmp/y1.csv" "$tmp/y2.csv" || fail "1 and 2 threads differ"

# sepal-bench busy: one JSON line with both timings, and no busy process left behind.
if [ -n "$bench" ] && [ -x "$bench" ] && command -v python3 >/dev/null; then
    "$bench" busy --data "$demo" --stages sweep --repeats 1 --competitors 2 --limit 47 \
        >"$tmp/busy.json" || fail "sepal-bench busy exited with $?"
    python3 - "$tmp/busy.json" <<'PY' || fail "busy output: $(cat "$tmp/busy.json")"
import json, sys
j = json.loads(open(sys.argv[1]).read())
assert j["bench"] == "busy" and j["stage"] == "sweep" and j["competitors"] == 2, j
assert j["wall_1_s"] > 0 and j["wall_many_s"] > 0 and j["identical"] is True, j
assert abs(j["ratio_many_to_1"] - j["wall_many_s"] / j["wall_1_s"]) < 1e-9, j
PY
    ! pgrep -f "busy --data .* --limit 47" >/dev/null || fail "busy processes were left running"
fi
echo "threads: ok"
