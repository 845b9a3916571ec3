#!/usr/bin/env bash
# A study measured in two batches: the generated cohort (4 patients, each in one batch, and a
# reference donor's sample in each batch) with every marker's sensitivity off by batch. Embedded
# as measured, some populations are mostly one batch's cells (the same naive CD4 T cells, one
# batch brighter, named as two subsets); aligned by the reference samples (sepal-cli align
# --anchors type=reference) none is, the patients' batch gap falls, and the conditions'
# planted effects are still found, and only they. apply --metadata warns of the populations of
# one batch, from a column called batch or the one --batch names.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib/skip_without_stats.sh
. "$(dirname "$0")/lib/skip_without_stats.sh"
skip_without_stats "$cli"
cd "$tmp"
"$cli" demo --cohort cohort --patients 4 --batches 2 --events 30000 >/dev/null
grep -q "^Ref_b2.fcs,unstim,Ref,b2,reference$" cohort/samples.csv ||
    fail "samples.csv: $(cat cohort/samples.csv)"
"$cli" align cohort/*.fcs --metadata cohort/samples.csv --anchors type=reference \
    --out-dir aligned --save-alignment alignment.json -q
# The patients' files taught nothing: their gap between batches, with the saved alignment.
"$cli" align cohort/P*.fcs --metadata cohort/samples.csv --alignment alignment.json \
    --out-dir patients -q
for set in cohort aligned; do
    "$cli" embed "$set"/P*.fcs --balanced --metaclusters 20 --model "m_$set.json" \
        --out "e_$set.csv" -q
    "$cli" apply --model "m_$set.json" "$set"/P*.fcs --out-dir "a_$set" \
        --metadata cohort/samples.csv --design "condition + patient" \
        --contrast condition:stim-unstim --block patient 2> "apply_$set.log"
done
# As measured, apply warns of the populations that lie in one batch; aligned, of none.
grep -q "lie in one batch of cohort/samples.csv's batch column" apply_cohort.log ||
    fail "no warning of populations in one batch: $(cat apply_cohort.log)"
# The metadata alone (no comparison) is enough for the check.
"$cli" apply --model m_cohort.json cohort/P*.fcs --out-dir a_alone --metadata cohort/samples.csv \
    2> apply_alone.log
grep -q "lie in one batch of cohort/samples.csv's batch column" apply_alone.log ||
    fail "apply --metadata alone did not check the batches: $(cat apply_alone.log)"
# A batch column of another name is checked when --batch names it; one the metadata lacks is
# refused before any file is projected.
sed 's/,batch,/,run,/' cohort/samples.csv > runs.csv
"$cli" apply --model m_cohort.json cohort/P*.fcs --out-dir a_runs --metadata runs.csv \
    --batch run 2> apply_runs.log
grep -q "lie in one batch of runs.csv's run column" apply_runs.log ||
    fail "apply --batch run did not check the batches: $(cat apply_runs.log)"
if "$cli" apply --model m_cohort.json cohort/P*.fcs --out-dir a_plate --metadata runs.csv \
    --batch plate -q 2> plate.log; then
    fail "apply --batch plate (no such column) succeeded"
fi
grep -q 'no column "plate" (its columns: condition, patient, run, type)' plate.log ||
    fail "apply --batch plate: $(cat plate.log)"
[ ! -e a_plate/populations.csv ] || fail "apply --batch plate projected the files first"
if grep -q "lie in one batch" apply_aligned.log; then
    fail "aligned, still a warning: $(grep "one batch" apply_aligned.log)"
fi
# Every aligned file applied, the references left out of the comparison by --samples: the
# same tests and pictures as the patients' files alone.
"$cli" apply --model m_aligned.json aligned/*.fcs --out-dir a_all -q \
    --metadata cohort/samples.csv --design "condition + patient" \
    --contrast condition:stim-unstim --block patient --samples 'type!=reference' 2>/dev/null
grep -q "^Ref_b2," a_all/populations.csv || fail "the references were not counted"
for f in da.csv ds.csv design.csv abundance.png state.png; do
    cmp -s a_all/$f a_aligned/$f || fail "--samples type!=reference: another $f than the patients' alone"
done
python3 - "$tmp" <<'PY' || fail "the aligned study"
import collections, csv, glob, os, statistics, sys
tmp = sys.argv[1]
batch = {r["file"][:-4]: r["batch"] for r in csv.DictReader(open(f"{tmp}/cohort/samples.csv"))}
gaps = list(csv.DictReader(open(f"{tmp}/patients/batch_gaps.csv")))
before = statistics.median(float(g["gap_before"]) for g in gaps)
after = statistics.median(float(g["gap_after"]) for g in gaps)
print(f"the patients' median batch gap: {before:.3f} -> {after:.3f}")
assert after < before / 3, (before, after)
def study(applied):
    truth, batches = collections.defaultdict(collections.Counter), collections.defaultdict(collections.Counter)
    for path in glob.glob(f"{applied}/P*.csv"):
        sample = os.path.basename(path)[:-4]
        rows = csv.reader(open(path))
        header = next(rows)
        found, planted = header.index("population"), header.index("Population")
        for row in rows:
            truth[row[found]][row[planted]] += 1
            batches[row[found]][batch[sample]] += 1
    one_batch = [p for p, c in batches.items() if c.most_common(1)[0][1] > 0.8 * sum(c.values())]
    majority = {p: c.most_common(1)[0][0] for p, c in truth.items()}
    def called(name):
        return [r for r in csv.DictReader(open(f"{applied}/{name}"))
                if r["p_adj"] != "NA" and float(r["p_adj"]) < 0.05]
    da = sorted(majority[r["population"]] for r in called("da.csv"))
    ds = sorted((majority[r["population"]], r["marker"]) for r in called("ds.csv"))
    return one_batch, da, ds
one_batch, _, _ = study(f"{tmp}/a_cohort")
print("as measured, populations mostly of one batch:", one_batch)
assert one_batch, "the planted batch effect split no population"
one_batch, da, ds = study(f"{tmp}/a_aligned")
print("aligned:", one_batch, da, ds)
assert not one_batch, one_batch
assert da == ["Memory CD8 T", "Naive B"], da
assert ds == [("CD56dim NK", "IFNg"), ("Treg", "pSTAT5")], ds
PY
echo "ok: a study of two batches, aligned by its reference samples"
