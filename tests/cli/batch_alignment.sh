#!/usr/bin/env bash
# Batch alignment on CytoNorm's real CyTOF files: the same control sample measured in three
# batches (PTLG021, PTLG028, PTLG034; PTLG034 twice). Learnt from one control a batch, the
# alignment carries PTLG034's second file, which taught it nothing, towards the other batches on
# the markers with a batch effect; channels that are not markers (DNA, barcodes, Time) stay bit
# for bit; the inputs are untouched; a saved alignment applied later writes the same values; and
# a wrong metadata column, an output over an input and --anchors beside --alignment are refused
# with what is wrong.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
shared=${SEPAL_SHARED_DATA:-$(dirname "$0")/../../../shared/data}
dir=$shared/fcs/cytonorm
if [ ! -f "$dir/Gates_PTLG034_Unstim_Control_2.fcs" ]; then
    echo "skipped: $dir is absent (real data lives in ../shared/data)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

files=("$dir"/Gates_PTLG021_Unstim_Control_2.fcs "$dir"/Gates_PTLG028_Unstim_Control_1.fcs
       "$dir"/Gates_PTLG034_Unstim_Control_1.fcs "$dir"/Gates_PTLG034_Unstim_Control_2.fcs)
cat > "$tmp/samples.csv" <<CSV
file,batch,type
Gates_PTLG021_Unstim_Control_2.fcs,PTLG021,control
Gates_PTLG028_Unstim_Control_1.fcs,PTLG028,control
Gates_PTLG034_Unstim_Control_1.fcs,PTLG034,control
Gates_PTLG034_Unstim_Control_2.fcs,PTLG034,held-out
raw_Gates_PTLG034_Unstim_Control_2.csv,PTLG034,held-out
CSV
sums_before=$(md5sum "${files[@]}")

"$cli" align "${files[@]}" --metadata "$tmp/samples.csv" --batch batch --anchors type=control \
    --out-dir "$tmp/aligned" --save-alignment "$tmp/alignment.json" 2> "$tmp/log"
grep -q "aligned 4 files of 3 batches on 37 channels" "$tmp/log" || fail "summary: $(cat "$tmp/log")"
[ "$(md5sum "${files[@]}")" = "$sums_before" ] || fail "an input changed"
for f in "${files[@]}"; do
    name=$(basename "$f" .fcs)
    "$cli" convert "$f" "$tmp/raw_$name.csv"
    "$cli" convert "$tmp/aligned/$name.fcs" "$tmp/aligned_$name.csv"
done
grep -a -q "SEPAL_BATCH.PTLG034" "$tmp/aligned/Gates_PTLG034_Unstim_Control_2.fcs" ||
    fail "the aligned file does not say its batch"

python3 - "$tmp" <<'PY' || fail "the aligned values"
import csv, math, statistics, sys
tmp = sys.argv[1]
names = ["Gates_PTLG021_Unstim_Control_2", "Gates_PTLG028_Unstim_Control_1",
         "Gates_PTLG034_Unstim_Control_1", "Gates_PTLG034_Unstim_Control_2"]
def load(path):
    rows = list(csv.reader(open(path)))
    return rows[0], [list(c) for c in zip(*rows[1:])]
raw = {n: load(f"{tmp}/raw_{n}.csv") for n in names}
aligned = {n: load(f"{tmp}/aligned_{n}.csv") for n in names}
header = raw[names[0]][0]
assert all(aligned[n][0] == header for n in names), "the aligned files' channels differ"
# Markers are the channels with a marker name, less barcodes and DNA (what the preset aligns).
markers = [i for i, c in enumerate(header)
           if "(" in c and not c.startswith(("BC", "DNA"))]
assert len(markers) == 37, len(markers)
for n in names:
    for i, c in enumerate(header):
        if i not in markers:
            assert raw[n][1][i] == aligned[n][1][i], f"{n}: {c} changed"
    for i in markers:
        assert len(aligned[n][1][i]) == len(raw[n][1][i])
def scaled(column):
    return sorted(math.asinh(float(v) / 5) for v in column)
def quantile(x, p):
    h = p * (len(x) - 1); lo = int(h); hi = min(lo + 1, len(x) - 1)
    return x[lo] + (h - lo) * (x[hi] - x[lo])
def emd(a, b):  # earth mover's distance of two sorted samples
    return sum(abs(quantile(a, (k + .5) / 1000) - quantile(b, (k + .5) / 1000))
               for k in range(1000)) / 1000
held = names[3]
def gap(tables, i):  # the held-out file against the other two batches
    return (emd(scaled(tables[held][1][i]), scaled(tables[names[0]][1][i])) +
            emd(scaled(tables[held][1][i]), scaled(tables[names[1]][1][i]))) / 2
before = {header[i]: gap(raw, i) for i in markers}
after = {header[i]: gap(aligned, i) for i in markers}
mean_before, mean_after = statistics.mean(before.values()), statistics.mean(after.values())
print(f"held-out file's mean gap to the other batches: {mean_before:.3f} -> {mean_after:.3f}")
assert mean_after < 0.8 * mean_before, (mean_before, mean_after)
# The markers with the largest batch effect come at least halfway to the other batches.
for m in ["CD19 (Nd142Di)", "CD45RA (Nd143Di)", "CD16 (Ho165Di)", "CD25 (Tm169Di)"]:
    assert before[m] > 0.4 and after[m] < 0.5 * before[m], (m, before[m], after[m])
PY

# The anchors' gaps, as the CLI reports them, fall on every marker.
awk -F, 'NR > 1 && !($3 < $2 / 3) { bad = bad " " $1 } END { if (bad) { print bad; exit 1 } }' \
    "$tmp/aligned/batch_gaps.csv" || fail "a gap that did not fall"
[ "$(wc -l < "$tmp/aligned/batch_gaps.csv")" -eq 38 ] || fail "batch_gaps.csv rows"

# The saved alignment, applied to the held-out file alone, writes the same values.
"$cli" align "${files[3]}" --metadata "$tmp/samples.csv" --alignment "$tmp/alignment.json" \
    --out-dir "$tmp/later" -q
"$cli" convert "$tmp/later/Gates_PTLG034_Unstim_Control_2.fcs" "$tmp/later.csv"
cmp -s "$tmp/later.csv" "$tmp/aligned_Gates_PTLG034_Unstim_Control_2.csv" ||
    fail "the saved alignment aligned otherwise"

# A refused command: it fails, saying `expected-text`.
refused() {  # expected-text command...
    local want=$1; shift
    if "$@" > "$tmp/out" 2>&1; then fail "accepted: $*"; fi
    grep -q -- "$want" "$tmp/out" || fail "'$want' not in: $(cat "$tmp/out")"
}

# Learnt on the CD45+ cells of a Gating-ML gate: another alignment, said so; every cell written.
cat > "$tmp/cd45.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<gating:Gating-ML xmlns:gating="http://www.isac-net.org/std/Gating-ML/v2.0/gating"
 xmlns:data-type="http://www.isac-net.org/std/Gating-ML/v2.0/datatypes">
<gating:RectangleGate gating:id="Leukocytes">
<gating:dimension gating:min="5"><data-type:fcs-dimension data-type:name="In115Di"/></gating:dimension>
</gating:RectangleGate>
</gating:Gating-ML>
XML
"$cli" align "${files[@]}" --metadata "$tmp/samples.csv" --anchors type=control \
    --gates "$tmp/cd45.xml" --out-dir "$tmp/gated" --save-alignment "$tmp/gated.json" 2> "$tmp/log"
grep -q "learnt on the cells in Leukocytes" "$tmp/log" || fail "gated summary: $(cat "$tmp/log")"
cmp -s "$tmp/gated.json" "$tmp/alignment.json" && fail "the gates changed nothing"
"$cli" convert "$tmp/gated/Gates_PTLG021_Unstim_Control_2.fcs" "$tmp/gated.csv"
[ "$(wc -l < "$tmp/gated.csv")" = "$(wc -l < "$tmp/raw_Gates_PTLG021_Unstim_Control_2.csv")" ] ||
    fail "the gated alignment did not write every cell"
refused 'no gates' "$cli" align "${files[@]}" --metadata "$tmp/samples.csv" --population x \
    --out-dir "$tmp/x"

# A CSV table (exported from the held-out file) aligns to the same values, headed with its
# markers as exports are.
"$cli" align "$tmp/raw_Gates_PTLG034_Unstim_Control_2.csv" --metadata "$tmp/samples.csv" \
    --alignment "$tmp/alignment.json" --out-dir "$tmp/from_csv" -q
head -1 "$tmp/from_csv/raw_Gates_PTLG034_Unstim_Control_2.csv" | grep -q "CD45 (In115Di)" ||
    fail "the aligned CSV lost its markers: $(head -c 200 "$tmp/from_csv/raw_Gates_PTLG034_Unstim_Control_2.csv")"
cmp -s "$tmp/from_csv/raw_Gates_PTLG034_Unstim_Control_2.csv" \
    "$tmp/aligned_Gates_PTLG034_Unstim_Control_2.csv" || fail "the CSV aligned otherwise than the FCS"

# Every file as an anchor where each batch holds one condition: aligned, with a warning that the
# conditions' differences go with the batches'.
cat > "$tmp/conditions.csv" <<CSV
file,batch,condition
Gates_PTLG021_Unstim_Control_2.fcs,PTLG021,healthy
Gates_PTLG028_Unstim_Control_1.fcs,PTLG028,sick
Gates_PTLG034_Unstim_Control_1.fcs,PTLG034,sick
Gates_PTLG034_Unstim_Control_2.fcs,PTLG034,sick
CSV
"$cli" align "${files[@]}" --metadata "$tmp/conditions.csv" --out-dir "$tmp/confounded" \
    2> "$tmp/log"
grep -q "warning: each batch's anchors are of one condition" "$tmp/log" ||
    fail "no warning of the conditions taken for batches: $(cat "$tmp/log")"
"$cli" align "${files[@]}" --metadata "$tmp/samples.csv" --anchors type=control \
    --out-dir "$tmp/again" 2> "$tmp/log"
! grep -q warning "$tmp/log" || fail "a warning for controls: $(cat "$tmp/log")"

# Refusals say what is wrong, and write nothing over an input.
refused 'no column "day"' "$cli" align "${files[@]}" --metadata "$tmp/samples.csv" --batch day \
    --out-dir "$tmp/x"
refused "batch \"PTLG021\" has no anchor" "$cli" align "${files[@]}" \
    --metadata "$tmp/samples.csv" --anchors type=held-out --out-dir "$tmp/x"
refused "applied as it is" "$cli" align "${files[3]}" --metadata "$tmp/samples.csv" \
    --alignment "$tmp/alignment.json" --anchors type=control --out-dir "$tmp/x"
# A file of a batch the saved alignment never saw: refused before anything is written.
sed 's/^Gates_PTLG021_Unstim_Control_2.fcs,PTLG021/Gates_PTLG021_Unstim_Control_2.fcs,PTLG099/' \
    "$tmp/samples.csv" > "$tmp/unknown.csv"
refused 'batch "PTLG099" was not learnt' "$cli" align "${files[3]}" "${files[0]}" \
    --metadata "$tmp/unknown.csv" --alignment "$tmp/alignment.json" --out-dir "$tmp/none"
[ ! -e "$tmp/none" ] || fail "a refused alignment wrote $(ls "$tmp/none")"
cp "${files[0]}" "${files[1]}" "$tmp/"
sum=$(md5sum < "$tmp/Gates_PTLG021_Unstim_Control_2.fcs")
refused "out-dir" "$cli" align "$tmp/Gates_PTLG021_Unstim_Control_2.fcs" \
    "$tmp/Gates_PTLG028_Unstim_Control_1.fcs" --metadata "$tmp/samples.csv" --out-dir "$tmp"
[ "$(md5sum < "$tmp/Gates_PTLG021_Unstim_Control_2.fcs")" = "$sum" ] || fail "an input was overwritten"
echo "ok: batch alignment on CytoNorm's files"
