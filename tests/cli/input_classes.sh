#!/usr/bin/env bash
# The classes a battery of hostile inputs found, each with the message a user can act on:
# an FCS file whose $PAR is smaller than the parameters its TEXT describes and its DATA holds;
# a model whose landmarks all coincide; score on data with a missing value; a training sample
# smaller than the landmarks; kmeans:8 without --k; data whose every value is NaN; too few
# events to embed; a singular spillover matrix; a model value that overflows a float.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

expect_error() {  # PATTERN ARGS...: sepal-cli fails, without crashing, saying PATTERN
    local pattern=$1; shift
    local rc=0
    timeout 60 "$cli" "$@" >"$tmp/out.txt" 2>&1 || rc=$?
    [ "$rc" -ne 124 ] || fail "'$*' blocked"
    [ "$rc" -ne 0 ] || fail "'$*' succeeded: $(cat "$tmp/out.txt")"
    [ "$rc" -lt 128 ] || fail "'$*' crashed ($rc): $(cat "$tmp/out.txt")"
    grep -q -- "$pattern" "$tmp/out.txt" || fail "'$*' said: $(cat "$tmp/out.txt")"
}

# FCS files written here: PAR parameters announced, NAMES described, DATA of len(NAMES) a event.
write_fcs() {  # OUT PAR NAMES SPILLOVER
    python3 - "$@" <<'PY'
import struct, sys, random
out, par, names, spill = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4]
events = 400
random.seed(1)
data = b"".join(struct.pack("<%df" % len(names), *[random.gauss(100 * (j + 1), 30) for j in range(len(names))])
                for _ in range(events))
kw = {"$BYTEORD": "1,2,3,4", "$DATATYPE": "F", "$MODE": "L", "$NEXTDATA": "0", "$PAR": str(par), "$TOT": str(events)}
for n, name in enumerate(names, 1):
    kw.update({f"$P{n}N": name, f"$P{n}B": "32", f"$P{n}E": "0,0", f"$P{n}R": "1024"})
if spill:
    kw["$SPILLOVER"] = spill
def text(begin, end):
    items = dict(kw, **{"$BEGINDATA": "%010d" % begin, "$ENDDATA": "%010d" % end})
    return ("/" + "".join(f"{k}/{v}/" for k, v in items.items())).encode()
t = text(0, 0)
begin = 58 + len(t)
t = text(begin, begin + len(data) - 1)
head = b"FCS3.1    " + b"".join(b"%8d" % v for v in (58, 58 + len(t) - 1, begin, begin + len(data) - 1, 0, 0))
open(out, "wb").write(head + t + data)
PY
}

# 1. $PAR 3, six parameters described and stored: refused, not read misaligned.
write_fcs "$tmp/par.fcs" 3 CD3,CD4,CD8,CD19,CD14,CD56 ""
"$cli" info "$tmp/par.fcs" >"$tmp/info.txt" 2>&1 || true
grep -q '\$PAR is 3, but the TEXT describes 6 parameters' "$tmp/info.txt" || fail "info: $(cat "$tmp/info.txt")"
expect_error '\$PAR is 3, but the TEXT describes 6' embed "$tmp/par.fcs" --out "$tmp/y.csv"
write_fcs "$tmp/ok.fcs" 6 CD3,CD4,CD8,CD19,CD14,CD56 ""
"$cli" info "$tmp/ok.fcs" >/dev/null || fail "a consistent file was refused"

# 2. A model whose landmarks coincide.
"$cli" demo --events 3000 --seed 1 --out "$tmp/d.fcs" >/dev/null
"$cli" embed "$tmp/d.fcs" --landmarks kmeans:16 --quiet --out "$tmp/y.csv" --model "$tmp/m.json"
python3 - "$tmp/m.json" "$tmp/same.json" "$tmp/huge.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
same = dict(m, low=[1.5, -2.0] * m["g"])
json.dump(same, open(sys.argv[2], "w"))
huge = dict(m, embedsom=dict(m["embedsom"], smooth=1e300))
json.dump(huge, open(sys.argv[3], "w"))
PY
expect_error 'same.json.*landmarks all sit at one point of the picture' apply --model "$tmp/same.json" "$tmp/d.fcs" --out-dir "$tmp/o1"
# 9. A model value past a float's range: the file and the field are named.
expect_error 'huge.json.*"embedsom"."smooth" is 1e+300, beyond what a float holds' apply --model "$tmp/huge.json" "$tmp/d.fcs" --out-dir "$tmp/o2"

# 3. score with a missing value: the event is left out, the score stays a score.
python3 - "$tmp" <<'PY'
import csv, sys
tmp = sys.argv[1]
rows = list(csv.reader(open(f"{tmp}/y.csv")))
rows[5] = [("NaN" if h.startswith("CD3") else v) for h, v in zip(rows[0], rows[5])]
csv.writer(open(f"{tmp}/nan.csv", "w", newline="")).writerows(rows)
PY
"$cli" score "$tmp/nan.csv" --embedding "$tmp/nan.csv" --json >"$tmp/score.json" 2>"$tmp/score.err" ||
    fail "score with a missing value failed: $(cat "$tmp/score.err")"
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['trustworthiness']; assert 0 <= t <= 1, t" "$tmp/score.json" ||
    fail "score printed $(cat "$tmp/score.json")"
grep -q "1 of 3000 events hold a missing value" "$tmp/score.err" || fail "score did not say: $(cat "$tmp/score.err")"

# 4. A training sample smaller than the landmarks.
expect_error 'training sample (--train-sample 1) is smaller than the 16 landmarks' \
    embed "$tmp/d.fcs" --landmarks kmeans:16 --train-sample 1 --out "$tmp/y1.csv"

# 5. kmeans:8 without --k: embedded, no k the user never set refused.
"$cli" embed "$tmp/d.fcs" --landmarks kmeans:8 --quiet --out "$tmp/y8.csv" 2>"$tmp/k.err" ||
    fail "kmeans:8 without --k: $(cat "$tmp/k.err")"

# 6. Every value NaN.
python3 -c "
import sys
open(sys.argv[1], 'w').write('CD3,CD4\n' + 'NaN,NaN\n' * 20)" "$tmp/allnan.csv"
expect_error 'allnan.csv: every value of its 20 events is missing' embed "$tmp/allnan.csv" --out "$tmp/y2.csv"

# 7. One event, or two: no advice to ask for one or two landmarks (a count takes 4 to 65536).
printf 'CD3,CD4\n1,2\n' >"$tmp/one.csv"
expect_error 'an embedding needs at least 4 events' embed "$tmp/one.csv" --out "$tmp/y3.csv"
! grep -q "ask for 1 landmarks" "$tmp/out.txt" || fail "advice that cannot work: $(cat "$tmp/out.txt")"
printf 'CD3,CD4\n1,2\n3,4\n' >"$tmp/two.csv"
expect_error 'an embedding needs at least 4 events' embed "$tmp/two.csv" --out "$tmp/y4.csv"
! grep -q "ask for 2 landmarks" "$tmp/out.txt" || fail "advice that cannot work: $(cat "$tmp/out.txt")"

# 8. A singular spillover matrix: the file and its keyword are named.
write_fcs "$tmp/spill.fcs" 3 FL1-A,FL2-A,FL3-A "3,FL1-A,FL2-A,FL3-A,1,0.5,0,1,0.5,0,0,0,1"
expect_error 'spill.fcs: its spillover matrix ($SPILLOVER/SPILL keyword): the matrix is singular' \
    embed "$tmp/spill.fcs" --out "$tmp/y4.csv"
echo "input classes: each refused or handled with its message"
