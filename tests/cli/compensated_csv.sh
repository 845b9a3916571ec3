#!/usr/bin/env bash
# A compensated flow file's CSV export takes the file's model: the CSV holds the values as read
# (uncompensated) and its spillover matrix lies beside it (NAME.spillover.csv), so apply puts
# every cell where embed put it; without the matrix apply says what to give, and --spillover
# gives it; FlowJo's export of compensated "Comp-" columns is not compensated again. On a real
# BD FACSDiva file with an 8-channel $SPILLOVER.
set -euo pipefail
cli=${SEPAL_CLI:?SEPAL_CLI must point to sepal-cli}
data=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}/fcs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

file=$data/fcsparser/FACS_Diva__facs_diva_test.fcs
if [ ! -f "$file" ]; then
    echo "skipped: $file is absent (real data lives in ../shared/data)"
    exit 0
fi

"$cli" embed -q "$file" --landmarks som:8x8 --seed 2 --out "$work/e.csv" --model "$work/m.json"
[ -f "$work/e.spillover.csv" ] || fail "the CSV export left no spillover matrix beside it"
"$cli" info "$work/e.csv" | head -1 | grep -q "spillover from $work/e.spillover.csv" ||
    fail "info does not name the matrix beside the table: $("$cli" info "$work/e.csv" | head -1)"

# The model applied to its file's CSV export: the same positions, to the bit.
"$cli" apply -q --model "$work/m.json" "$work/e.csv" --out-dir "$work/a"
cat >"$work/moved.py" <<'PY'
import csv, math, sys
a = list(csv.DictReader(open(sys.argv[1])))
b = list(csv.DictReader(open(sys.argv[2])))
assert len(a) == len(b) == 83411, (len(a), len(b))
print(max(math.hypot(float(x["EmbedSOM1"]) - float(y["EmbedSOM1"]),
                     float(x["EmbedSOM2"]) - float(y["EmbedSOM2"])) for x, y in zip(a, b)))
PY
moved=$(python3 "$work/moved.py" "$work/e.csv" "$work/a/e.csv")
[ "$moved" = "0.0" ] || fail "apply to the CSV export moved cells by up to $moved"
[ -f "$work/a/e.spillover.csv" ] || fail "apply's raw CSV output left no matrix beside it"

# Transformed values are compensated already: no matrix beside them.
"$cli" embed -q "$file" --landmarks som:8x8 --seed 2 --out "$work/t.csv" --values transformed
[ ! -e "$work/t.spillover.csv" ] || fail "a CSV of transformed values has a matrix beside it"

# Without the matrix: an error that says what to give; with --spillover, the same positions;
# another matrix (the identity) compensates otherwise.
mkdir "$work/alone"
cp "$work/e.csv" "$work/alone/e.csv"
cp "$work/e.spillover.csv" "$work/matrix.csv"
if "$cli" apply -q --model "$work/m.json" "$work/alone/e.csv" --out-dir "$work/b" 2>"$work/err"; then
    fail "apply compensated a CSV that has no matrix"
fi
grep -q "has none: give the matrix (--spillover FILE" "$work/err" || fail "$(cat "$work/err")"
"$cli" apply -q --model "$work/m.json" "$work/alone/e.csv" --out-dir "$work/b" \
    --spillover "$work/matrix.csv"
moved=$(python3 "$work/moved.py" "$work/e.csv" "$work/b/e.csv")
[ "$moved" = "0.0" ] || fail "apply --spillover moved cells by up to $moved"
python3 - "$work/matrix.csv" >"$work/identity.csv" <<'PY'
import sys
names = open(sys.argv[1]).readline().strip().split(",")[1:]
print("," + ",".join(names))
for i, n in enumerate(names):
    print(n + "," + ",".join("1" if i == j else "0" for j in range(len(names))))
PY
"$cli" apply -q --model "$work/m.json" "$work/alone/e.csv" --out-dir "$work/c" \
    --spillover "$work/identity.csv"
moved=$(python3 "$work/moved.py" "$work/e.csv" "$work/c/e.csv")
python3 -c "import sys; sys.exit(0 if float('$moved') > 1 else 1)" ||
    fail "the identity matrix placed cells as the file's own ($moved)"

# FlowJo's CSV export holds compensated values headed "Comp-FITC-A :: CD20": the model takes
# them for its FITC-A without compensating again (within the CSV's 9 digits of the FCS's).
python3 - "$work/e.csv" "$work/e.spillover.csv" "$work/flowjo.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
spill = list(csv.reader(open(sys.argv[2])))
names = spill[0][1:]
n = len(names)
a = [[float(x) for x in r[1:]] + [1.0 if i == j else 0.0 for j in range(n)]
     for i, r in enumerate(spill[1:])]
for c in range(n):  # Gauss-Jordan: the matrix's inverse turns observed into compensated values
    p = max(range(c, n), key=lambda r: abs(a[r][c]))
    a[c], a[p] = a[p], a[c]
    a[c] = [x / a[c][c] for x in a[c]]
    for r in range(n):
        if r != c:
            f = a[r][c]
            a[r] = [x - f * y for x, y in zip(a[r], a[c])]
inverse = [r[n:] for r in a]
channel = [h[h.rfind("(") + 1:-1] if h.endswith(")") else h for h in head]
marker = [h[:h.rfind("(") - 1] if h.endswith(")") else "" for h in head]
where = [channel.index(x) for x in names]
keep = [i for i, c in enumerate(channel) if not c.startswith("EmbedSOM")]
out = [f"Comp-{c} :: {m}" if c in names else h for h, c, m in zip(head, channel, marker)]
with open(sys.argv[3], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow([out[i] for i in keep])
    for r in rows[1:]:
        v = [float(x) for x in r[:len(head)]]
        seen = [v[i] for i in where]
        for j, i in enumerate(where):
            v[i] = sum(seen[k] * inverse[k][j] for k in range(n))
        w.writerow(["%.9g" % v[i] for i in keep])
PY
"$cli" apply -q --model "$work/m.json" "$work/flowjo.csv" --out-dir "$work/fj"
moved=$(python3 "$work/moved.py" "$work/e.csv" "$work/fj/flowjo.csv")
python3 -c "import sys; sys.exit(0 if float('$moved') < 0.05 else 1)" ||
    fail "FlowJo's compensated columns placed cells up to $moved from the FCS's places"

# A model made without compensation refuses a matrix; an output that would replace the matrix
# given is refused.
"$cli" embed -q "$work/t.csv" --landmarks som:4x4 --seed 2 --out "$work/n.csv" \
    --model "$work/plain.json"
if "$cli" apply -q --model "$work/plain.json" "$work/t.csv" --out-dir "$work/d" \
    --spillover "$work/matrix.csv" 2>"$work/err"; then
    fail "a model without compensation took --spillover"
fi
grep -q "was made without compensation" "$work/err" || fail "$(cat "$work/err")"
cp "$work/matrix.csv" "$work/alone/e.spillover.csv"
if "$cli" apply -q --model "$work/m.json" "$work/e.csv" --out-dir "$work/alone" --force \
    --spillover "$work/alone/e.spillover.csv" 2>"$work/err"; then
    fail "apply wrote over the matrix it was given"
fi
grep -q "would replace the spillover matrix" "$work/err" || fail "$(cat "$work/err")"
echo "compensated CSV: ok"
