#!/usr/bin/env bash
# sepal-cli knn across processes: `mpirun -np 2` and `-np 3` (each rank finds the neighbours of
# its share of the events, rank 0 writes) give the same graph bytes as one process, CSV and
# binary; a missing file ends every rank with an error that names it.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
if ! command -v mpirun >/dev/null; then
    echo "SKIP: mpirun not found (scripts/setup.sh installs Debian's openmpi-bin)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp

"$cli" demo --events 3001 --seed 4 --out "$tmp/d.fcs" >/dev/null
for metric in euclidean cosine; do
    "$cli" knn "$tmp/d.fcs" --k 12 --metric $metric --out "$tmp/one-$metric.bin" --quiet
    for ranks in 2 3; do
        timeout 300 mpirun -np $ranks --oversubscribe "$cli" knn "$tmp/d.fcs" --k 12 \
            --metric $metric --out "$tmp/$ranks-$metric.bin" 2>"$tmp/$ranks.log" ||
            fail "mpirun -np $ranks knn failed: $(cat "$tmp/$ranks.log")"
        grep -q "($ranks ranks" "$tmp/$ranks.log" || fail "not $ranks ranks: $(cat "$tmp/$ranks.log")"
        cmp "$tmp/one-$metric.bin" "$tmp/$ranks-$metric.bin" ||
            fail "$ranks ranks gave another $metric graph than one process"
    done
done
# The CSV of a tiny table: three ranks, one of them with a single row.
printf 'x,y\n0,0\n1,0\n3,0\n3,0\n10,0\n' >"$tmp/line.csv"
"$cli" knn "$tmp/line.csv" --k 2 --transform none --out "$tmp/line1.csv" --quiet
timeout 300 mpirun -np 3 --oversubscribe "$cli" knn "$tmp/line.csv" --k 2 --transform none \
    --out "$tmp/line3.csv" --quiet
cmp "$tmp/line1.csv" "$tmp/line3.csv" || fail "3 ranks: $(cat "$tmp/line3.csv")"
echo "1, 2 and 3 ranks wrote the same graphs (euclidean and cosine, binary and CSV)"

if timeout 300 mpirun -np 2 --oversubscribe "$cli" knn "$tmp/missing.fcs" --k 5 \
    --out "$tmp/bad.bin" 2>"$tmp/bad.log"; then
    fail "a missing file did not fail the run"
fi
grep -q "rank 1: .*missing.fcs" "$tmp/bad.log" || fail "the error does not name the file: $(cat "$tmp/bad.log")"
[ ! -e "$tmp/bad.bin" ] || fail "a failed run left $tmp/bad.bin"
echo "a missing file fails every rank with its name"
