#!/usr/bin/env bash
# Bad input is reported in the user's terms: duplicate column names, impossible sizes in a
# model file, a FIFO or a directory given as a file, an unknown layout.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
demo=${SEPAL_SOURCE_DIR:-$(dirname "$0")/../..}/data/demo.fcs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs sepal-cli (at most 20 s: a FIFO must not block), expects failure and a message matching
# the pattern, and no word of a pipeline the user never wrote.
expect_error() {
    local pattern=$1; shift
    local rc=0
    timeout 20 "$cli" "$@" >"$tmp/out.txt" 2>&1 || rc=$?
    [ "$rc" -ne 124 ] || fail "'$*' blocked"
    [ "$rc" -ne 0 ] || fail "'$*' succeeded"
    [ "$rc" -lt 128 ] || fail "'$*' crashed ($rc): $(cat "$tmp/out.txt")"
    grep -q -- "$pattern" "$tmp/out.txt" || fail "'$*' said: $(cat "$tmp/out.txt")"
}

# Two channels with one $PnN in an FCS file (CSV headers are renamed by the reader).
if command -v python3 >/dev/null; then
    python3 - "$tmp/dup.fcs" <<'PY'
import struct, sys
names, events = ["CD3", "CD4", "CD3"], 50
data = b"".join(struct.pack("<3f", i, i * 2 % 7, i % 5) for i in range(events))
kw = {"$BYTEORD": "1,2,3,4", "$DATATYPE": "F", "$MODE": "L", "$NEXTDATA": "0",
      "$PAR": str(len(names)), "$TOT": str(events)}
for n, name in enumerate(names, 1):
    kw.update({f"$P{n}N": name, f"$P{n}B": "32", f"$P{n}E": "0,0", f"$P{n}R": "1024"})
def text(begin, end):
    items = dict(kw, **{"$BEGINDATA": "%010d" % begin, "$ENDDATA": "%010d" % end})
    return ("/" + "".join(f"{k}/{v}/" for k, v in items.items())).encode()
t = text(0, 0)
begin = 58 + len(t)
t = text(begin, begin + len(data) - 1)
head = b"FCS3.1    " + b"".join(b"%8d" % v for v in (58, 58 + len(t) - 1, begin,
                                                       begin + len(data) - 1, 0, 0))
open(sys.argv[1], "wb").write(head + t + data)
PY
    expect_error "dup.fcs: the column name 'CD3' is used by columns 1 and 3" \
        embed "$tmp/dup.fcs" --landmarks kmeans:16 --out "$tmp/y.csv"
    ! grep -q "pipeline" "$tmp/out.txt" || fail "blames a pipeline: $(cat "$tmp/out.txt")"
    "$cli" embed "$tmp/dup.fcs" --columns CD4 --landmarks kmeans:16 --quiet --out "$tmp/y.csv" ||
        fail "the other column could not be embedded"
fi

# Unknown layout: the layouts are listed, no trainer is mentioned.
expect_error "--layout nope: use graph, tsne, umap or grid" \
    embed "$demo" --layout nope --out "$tmp/y.csv"
! grep -qi "trainer" "$tmp/out.txt" || fail "--layout nope: $(cat "$tmp/out.txt")"

# A model whose sizes do not fit the integers they are read into.
"$cli" embed "$demo" --landmarks kmeans:16 --train-sample 2000 --quiet --out "$tmp/y.csv" \
    --model "$tmp/m.json"
model_with() {  # model_with FIELD VALUE OUT: the saved model with one number replaced
    python3 - "$tmp/m.json" "$1" "$2" "$3" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
field, value = sys.argv[2], int(sys.argv[3])
if field == "k":
    doc["embedsom"]["k"] = value
else:
    doc[field] = value
json.dump(doc, open(sys.argv[4], "w"))
PY
}
if command -v python3 >/dev/null; then
    model_with k 4294967297 "$tmp/k.json"
    expect_error '"k" (EmbedSOM neighbours) is 4294967297, more than 2147483647' \
        apply --model "$tmp/k.json" "$demo" --out-dir "$tmp/a"
    model_with k 2147483648 "$tmp/k31.json"
    expect_error '"k" (EmbedSOM neighbours) is 2147483648, more than 2147483647' \
        apply --model "$tmp/k31.json" "$demo" --out-dir "$tmp/a"
    model_with g 9223372036854775808 "$tmp/g.json"
    expect_error '"g" (the number of landmarks) is 9223372036854775808, more than' \
        apply --model "$tmp/g.json" "$demo" --out-dir "$tmp/a"
    ! grep -q "expected 0" "$tmp/out.txt" || fail "g = 2^63: $(cat "$tmp/out.txt")"
fi

# A FIFO or a directory where a file is expected: refused at once, in every reader.
mkfifo "$tmp/pipe.fcs" "$tmp/pipe.csv" "$tmp/pipe.json"
expect_error "pipe.fcs: is a FIFO (named pipe)" info "$tmp/pipe.fcs"
expect_error "pipe.csv: is a FIFO (named pipe)" embed "$tmp/pipe.csv" --out "$tmp/y.csv"
expect_error "pipe.csv: is a FIFO (named pipe)" convert "$tmp/pipe.csv" "$tmp/c.fcs"
expect_error "pipe.json: is a FIFO (named pipe)" apply --model "$tmp/pipe.json" "$demo" \
    --out-dir "$tmp/a"
expect_error "pipe.fcs: is a FIFO (named pipe)" apply --model "$tmp/m.json" "$tmp/pipe.fcs" \
    --out-dir "$tmp/a"
expect_error "pipe.json: is a FIFO (named pipe)" embed "$demo" --transform "$tmp/pipe.json" \
    --out "$tmp/y.csv"
expect_error "pipe.csv: is a FIFO (named pipe)" embed "$demo" --spillover "$tmp/pipe.csv" \
    --out "$tmp/y.csv"
expect_error "pipe.csv: is a FIFO (named pipe)" score "$demo" --embedding "$tmp/pipe.csv"
expect_error "pipe.csv: is a FIFO (named pipe)" project --data "$tmp/pipe.csv" \
    --landmarks "$tmp/pipe.csv" --positions "$tmp/pipe.csv" --out "$tmp/p.csv"
mkdir "$tmp/folder.fcs"
expect_error "folder.fcs: is a directory" info "$tmp/folder.fcs"
expect_error "folder.fcs: is a directory" embed "$tmp/folder.fcs" --out "$tmp/y.csv"

# k out of range before the automatic landmark count is known: no count the run would not train.
expect_error "k = -3 is out of range: k (neighbours) must be at least 4 and at most the number" \
    embed "$demo" --k -3 --out "$tmp/y.csv"
! grep -q "g = 512" "$tmp/out.txt" || fail "--k -3 names 512 landmarks: $(cat "$tmp/out.txt")"
# A picture too large to draw, a negative cofactor.
expect_error "each from 16 to 16384" embed "$demo" --png "$tmp/y.png" --size 100000x100000 \
    --out "$tmp/y.csv"
expect_error "asinh:-5: the cofactor must be positive" embed "$demo" --transform asinh:-5 \
    --out "$tmp/y.csv"
# apply names the input that lacks the model's columns.
printf 'a,b\n1,2\n3,4\n' >"$tmp/other.csv"
expect_error "other.csv: the data lacks columns the model was trained on" \
    apply --model "$tmp/m.json" "$tmp/other.csv" --out-dir "$tmp/a2"
# A negative seed is refused in its own words (it was read as 2^64 - 1, then refused by the
# trainer with that number).
expect_error "seed is a whole number from 0, not -1" embed "$demo" --seed -1 --out "$tmp/s.csv"
# What only the cells can check is checked before training: a --color no column has, and more
# metaclusters than the automatic landmark count; no output is left behind.
expect_error "color CDX: no such channel" embed "$demo" --out "$tmp/c.csv" --model "$tmp/c.json" \
    --png "$tmp/c.png" --color CDX
[ ! -e "$tmp/c.csv" ] && [ ! -e "$tmp/c.json" ] || fail "a run ending in an error wrote outputs"
expect_error "metaclusters 1000: more groups than the 512 landmarks" \
    embed "$demo" --out "$tmp/m2.csv" --metaclusters 1000
[ ! -e "$tmp/m2.csv" ] || fail "a run refused for --metaclusters wrote its table"
echo "misleading_messages: ok"
