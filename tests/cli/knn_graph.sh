#!/usr/bin/env bash
# sepal-cli knn: the exact neighbours of every event, as CSV and as the binary form; on a table
# whose answer is known (points on a line, one duplicated), and with clear errors for a bad
# metric or k.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

printf 'x,y\n0,0\n1,0\n3,0\n3,0\n10,0\n' >"$tmp/line.csv"
"$cli" knn "$tmp/line.csv" --k 2 --transform none --out "$tmp/g.csv" --quiet
expected='neighbour_1,neighbour_2,distance_1,distance_2
1,2,1,3
0,2,1,2
3,1,0,2
2,1,0,2
2,3,7,7'
[ "$(cat "$tmp/g.csv")" = "$expected" ] || fail "the graph is $(cat "$tmp/g.csv")"
"$cli" knn "$tmp/line.csv" --k 2 --transform none --metric manhattan --out "$tmp/g.bin" --quiet
python3 - "$tmp/g.bin" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"SEPALKNN", data[:8]
version, n, k = struct.unpack("<3Q", data[8:32])
assert (version, n, k) == (1, 5, 2), (version, n, k)
idx = struct.unpack("<10I", data[32:72])
dist = struct.unpack("<10f", data[72:112])
assert idx == (1, 2, 0, 2, 3, 1, 2, 1, 2, 3), idx
assert dist == (1, 3, 1, 2, 0, 2, 0, 2, 7, 7), dist
assert len(data) == 112
print("binary graph ok")
PY
if "$cli" knn "$tmp/line.csv" --k 5 --transform none --out "$tmp/x.csv" 2>"$tmp/e1.txt"; then
    fail "k = 5 of 5 points was accepted"
fi
grep -q "1 <= k < 5" "$tmp/e1.txt" || fail "the k error says $(cat "$tmp/e1.txt")"
if "$cli" knn "$tmp/line.csv" --metric chebyshev --out "$tmp/x.csv" 2>"$tmp/e2.txt"; then
    fail "an unknown metric was accepted"
fi
grep -q "euclidean, cosine, pearson or manhattan" "$tmp/e2.txt" || fail "$(cat "$tmp/e2.txt")"
echo "errors: $(cat "$tmp/e1.txt") / $(cat "$tmp/e2.txt")"

# The backends give the same graph and scores (auto: the GPU when there is one); a backend that
# cannot run says why.
"$cli" demo --events 3000 --seed 4 --out "$tmp/d.fcs" >/dev/null
"$cli" knn "$tmp/d.fcs" --k 15 --backend cpu --out "$tmp/cpu.bin" --quiet
"$cli" knn "$tmp/d.fcs" --k 15 --backend auto --out "$tmp/auto.bin" 2>"$tmp/auto.txt"
cmp -s "$tmp/cpu.bin" "$tmp/auto.bin" || fail "auto ($(cat "$tmp/auto.txt")) gave another graph"
"$cli" embed "$tmp/d.fcs" --out "$tmp/y.csv" --quiet
"$cli" score "$tmp/d.fcs" --embedding "$tmp/y.csv" --sample 0 --backend cpu >"$tmp/s-cpu.txt"
"$cli" score "$tmp/d.fcs" --embedding "$tmp/y.csv" --sample 0 --backend auto >"$tmp/s-auto.txt"
cmp -s "$tmp/s-cpu.txt" "$tmp/s-auto.txt" || fail "scores differ: $(cat "$tmp/s-cpu.txt" "$tmp/s-auto.txt")"
if ! "$cli" knn "$tmp/d.fcs" --k 15 --backend cuda --out "$tmp/cuda.bin" 2>"$tmp/cuda.txt"; then
    grep -q "CUDA" "$tmp/cuda.txt" || fail "--backend cuda failed saying $(cat "$tmp/cuda.txt")"
else
    cmp -s "$tmp/cpu.bin" "$tmp/cuda.bin" || fail "the GPU's graph differs from the CPU's"
fi
echo "backends ok: $(grep -h "in [0-9.]* s" "$tmp/auto.txt")"
