#!/usr/bin/env bash
# The cohort command across processes: `mpirun -np 2 sepal-cli apply` on a small generated
# cohort writes the same bytes as one process (per-file tables, populations.csv, medians.csv, sample_medians.csv,
# the heatmap, and with gates gate_counts.csv), and a file missing on one rank ends the job with an error that names it, not a
# hang.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
if ! command -v mpirun >/dev/null; then
    echo "SKIP: mpirun not found (scripts/setup.sh installs Debian's openmpi-bin)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# OpenMPI refuses root unless told; CI runs as root. Shared memory and loopback only.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp
mpi=(timeout 300 mpirun -np 2 --oversubscribe)

# Five samples, so that the ranks get different numbers of files (3 and 2).
inputs=()
for s in 1 2 3 4 5; do
    "$cli" demo --events 8000 --seed $s --out "$tmp/s$s.fcs" >/dev/null
    inputs+=("$tmp/s$s.fcs")
done
"$cli" embed "${inputs[@]}" --metaclusters 10 --model "$tmp/m.json" --out "$tmp/y.csv" --quiet

for format in csv fcs; do
    "$cli" apply --model "$tmp/m.json" "${inputs[@]}" --out-dir "$tmp/one-$format" \
        --format $format --heatmap "$tmp/one-$format.png" --quiet
    "${mpi[@]}" "$cli" apply --model "$tmp/m.json" "${inputs[@]}" --out-dir "$tmp/two-$format" \
        --format $format --heatmap "$tmp/two-$format.png" 2>"$tmp/two-$format.log" ||
        fail "mpirun apply ($format) failed: $(cat "$tmp/two-$format.log")"
    grep -q "rank 1: \[2/5\]" "$tmp/two-$format.log" || fail "rank 1 did not do file 2"
    grep -q "(2 ranks)" "$tmp/two-$format.log" || fail "the run did not have 2 ranks"
    [ "$(ls "$tmp/one-$format" | wc -l)" = 8 ] || fail "one process wrote $(ls "$tmp/one-$format")"
    for f in "$tmp/one-$format"/*; do
        cmp "$f" "$tmp/two-$format/$(basename "$f")" ||
            fail "$(basename "$f") ($format) differs between 1 and 2 ranks"
    done
    cmp "$tmp/one-$format.png" "$tmp/two-$format.png" || fail "the heatmaps differ"
done
echo "1 and 2 ranks wrote the same bytes (csv and fcs, 5 files)"

# Through the model's live gate each rank counts its own files' gates: gate_counts.csv is the
# same with 1 and 2 ranks, and the bytes sepal-cli gate writes for the five files.
tree=$(dirname "$0")/fixtures/live_cd3_cd4.xml
"$cli" apply --model "$tmp/m.json" "${inputs[@]}" --gates "$tree" --population Cells/Live \
    --out-dir "$tmp/one-gated" --quiet
"${mpi[@]}" "$cli" apply --model "$tmp/m.json" "${inputs[@]}" --gates "$tree" \
    --population Cells/Live --out-dir "$tmp/two-gated" --quiet 2>"$tmp/two-gated.log" ||
    fail "mpirun apply with gates failed: $(cat "$tmp/two-gated.log")"
"$cli" gate "${inputs[@]}" --gates "$tree" --counts "$tmp/gate.csv" --quiet
cmp "$tmp/one-gated/gate_counts.csv" "$tmp/two-gated/gate_counts.csv" ||
    fail "gate_counts.csv differs between 1 and 2 ranks"
cmp "$tmp/one-gated/gate_counts.csv" "$tmp/gate.csv" ||
    fail "apply's gate_counts.csv differs from sepal-cli gate's: $(head -4 "$tmp/one-gated/gate_counts.csv")"
[ "$(grep -c '^s[1-5],' "$tmp/gate.csv")" -ge 5 ] || fail "gate_counts.csv lacks samples: $(cat "$tmp/gate.csv")"
echo "gate counts: 1 and 2 ranks and sepal-cli gate alike"

# A file missing on rank 1: every rank stops, rank 0 reports it, nobody waits forever.
if "${mpi[@]}" "$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/missing.fcs" \
    --out-dir "$tmp/bad" --quiet 2>"$tmp/bad.log"; then
    fail "a missing file did not fail the run"
fi
grep -q "rank 1: .*missing.fcs" "$tmp/bad.log" || fail "the error does not name the file: $(cat "$tmp/bad.log")"
echo "a missing file on rank 1 fails the run with its name"
