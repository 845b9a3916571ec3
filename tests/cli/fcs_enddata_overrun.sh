#!/usr/bin/env bash
# An FCS file whose $ENDDATA (and HEADER end) point one byte past the end of the file while the
# data fills the file exactly: info and convert agree, both read it whole with a warning.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 - "$tmp/overrun.fcs" <<'PY'
import struct, sys
values = [1.5, -2.0, 100.0, 7.25, 0.5, 3.0]  # 3 events x 2 float32 parameters
data = b"".join(struct.pack("<f", v) for v in values)
def text(begin, end):
    kw = [("$BEGINDATA", "%010d" % begin), ("$ENDDATA", "%010d" % end), ("$BYTEORD", "1,2,3,4"),
          ("$DATATYPE", "F"), ("$MODE", "L"), ("$NEXTDATA", "0"), ("$PAR", "2"), ("$TOT", "3"),
          ("$P1N", "FSC-A"), ("$P1B", "32"), ("$P1R", "262144"),
          ("$P2N", "CD3"), ("$P2B", "32"), ("$P2R", "262144")]
    return ("/" + "".join(k + "/" + v + "/" for k, v in kw)).encode()
size = len(text(0, 0))
begin = 58 + size
end = begin + len(data)  # one past the last byte (the off-by-one)
header = b"FCS3.1    " + b"".join(b"%8d" % v for v in (58, 58 + size - 1, begin, end, 0, 0))
open(sys.argv[1], "wb").write(header + text(begin, end) + data)
PY

"$cli" info --json "$tmp/overrun.fcs" >"$tmp/info.json" || fail "info refused the file"
"$cli" convert "$tmp/overrun.fcs" "$tmp/out.csv" 2>"$tmp/convert.err" || fail "convert refused: $(cat "$tmp/convert.err")"
grep -q "one byte past the end of the file" "$tmp/convert.err" || fail "convert gave no warning"
python3 - "$tmp/info.json" "$tmp/out.csv" <<'PY'
import csv, json, sys
ds = json.load(open(sys.argv[1]))["datasets"][0]
assert ds["events"] == 3, ds
assert any("one byte past the end" in w for w in ds["warnings"]), ds["warnings"]
assert not any("cannot be read" in w for w in ds["warnings"]), ds["warnings"]
rows = list(csv.reader(open(sys.argv[2])))
assert rows[0] == ["FSC-A", "CD3"], rows[0]
assert [[float(x) for x in r] for r in rows[1:]] == [[1.5, -2.0], [100.0, 7.25], [0.5, 3.0]], rows
PY
echo "ok"
