#!/usr/bin/env bash
# A study from end to end: a generated cohort (3 patients x 2 conditions, 10^5 cells a sample,
# planted effects) through embed, apply and stats (and apply --design, the same in one run). Every planted change is found at FDR 0.05
# and nothing else: a called population is one whose cells are mostly of a planted population
# (the generator's truth travels in each output's Population column), and each planted one is
# the most of a called one. With R's limma and edgeR present, ds.csv and da.csv also agree with
# them on this cohort (logFC within 1e-4, p-values within 1e-4 relative, the same calls).
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib/skip_without_stats.sh
. "$(dirname "$0")/lib/skip_without_stats.sh"
skip_without_stats "$cli"
python=/usr/bin/python3
[ -x "$python" ] || python=python3

cd "$tmp"
"$cli" demo --cohort cohort --patients 3 --conditions unstim,stim --events 100000 >/dev/null
"$cli" embed cohort/*.fcs --balanced --metaclusters 20 --model model.json --out embedded.csv -q
# apply compares the conditions in the same run; stats on its tables must say the same.
"$cli" apply --model model.json cohort/*.fcs --out-dir applied -q --metadata cohort/samples.csv \
    --design "condition + patient" --contrast condition:stim-unstim --block patient
for f in populations.csv medians.csv sample_medians.csv; do
    [ -s "applied/$f" ] || fail "apply wrote no $f"
done
"$cli" stats --counts applied/populations.csv --medians applied/sample_medians.csv \
    --metadata cohort/samples.csv --design "condition + patient" \
    --contrast condition:stim-unstim --block patient --out-dir stats 2>note.txt ||
    fail "stats failed: $(cat note.txt)"
grep -q "2 differ in abundance at FDR 0.05" note.txt || fail "the summary: $(cat note.txt)"
for f in da.csv ds.csv design.csv; do
    cmp -s "applied/$f" "stats/$f" || fail "apply --design and stats wrote different $f"
done
for png in abundance.png state.png; do
    [ "$(head -c 4 "stats/$png" | tail -c 3)" = PNG ] || fail "stats wrote no picture $png"
done
# medians.csv pools the samples: refused with the file to give instead.
if "$cli" stats --counts applied/populations.csv --medians applied/medians.csv \
    --metadata cohort/samples.csv --design condition --contrast condition:stim-unstim \
    --out-dir refused 2>err.txt; then
    fail "stats took the pooled medians.csv"
fi
grep -q "sample_medians.csv" err.txt || fail "the refusal of medians.csv: $(cat err.txt)"
# A contrast that names the reference level alone (stim sorts before unstim): both ways out.
if "$cli" stats --counts applied/populations.csv --metadata cohort/samples.csv \
    --design condition --contrast condition:stim --out-dir refused 2>err.txt; then
    fail "stats compared stim with itself"
fi
grep -q "write condition:stim-unstim, or choose another reference with --reference condition:unstim" \
    err.txt || fail "the refusal of condition:stim: $(cat err.txt)"
# A refused run makes no folder.
[ ! -e refused ] || fail "a refused stats run left the folder refused/"
# Metadata whose samples are all one condition: nothing to compare, said so (it suggested
# condition:stim-stim).
sed 's/,unstim/,stim/' cohort/samples.csv >one_level.csv
if "$cli" stats --counts applied/populations.csv --metadata one_level.csv --design condition \
    --contrast condition:stim-unstim --out-dir refused 2>err.txt; then
    fail "stats compared a condition of one level"
fi
grep -q "every sample has condition stim, so there is nothing to compare" err.txt ||
    fail "the refusal of one level: $(cat err.txt)"
# A run without medians into the folder of one with them: the older ds.csv and state.png go.
cp -r stats again
"$cli" stats --counts applied/populations.csv --metadata cohort/samples.csv --design condition \
    --contrast condition:stim-unstim --method GLMM --out-dir again 2>/dev/null
[ ! -e again/ds.csv ] && [ ! -e again/state.png ] && [ -s again/da.csv ] ||
    fail "the GLMM run left another run's state tables: $(ls again)"

"$python" - "$tmp" <<'PY' || fail "the calls are not the planted effects"
import csv, collections, glob, os, sys
tmp = sys.argv[1]
# Which demo population each found population mostly holds, over all samples.
mix = collections.defaultdict(collections.Counter)
for path in glob.glob(os.path.join(tmp, "applied", "P*.csv")):
    with open(path) as f:
        rows = csv.reader(f)
        header = next(rows)
        found, truth = header.index("population"), header.index("Population")
        for row in rows:
            mix[row[found]][row[truth]] += 1
majority = {}
for found, counts in mix.items():
    truth, n = counts.most_common(1)[0]
    majority[found] = truth if n > 0.5 * sum(counts.values()) else None
planted = list(csv.DictReader(open(os.path.join(tmp, "cohort", "planted.csv"))))
planted_da = {p["population"] for p in planted if not p["marker"]}
planted_ds = {(p["population"], p["marker"]) for p in planted if p["marker"]}
def called(name):
    return [r for r in csv.DictReader(open(os.path.join(tmp, "stats", name)))
            if r["p_adj"] != "NA" and float(r["p_adj"]) < 0.05]
ok = True
da = called("da.csv")
for r in da:
    if majority.get(r["population"]) not in planted_da:
        print("DA called", r["population"], "holding mostly", majority.get(r["population"]))
        ok = False
for p in planted_da - {majority.get(r["population"]) for r in da}:
    print("DA missed the planted", p); ok = False
ds = called("ds.csv")
for r in ds:
    if (majority.get(r["population"]), r["marker"]) not in planted_ds:
        print("DS called", r["population"], r["marker"]); ok = False
for p in planted_ds - {(majority.get(r["population"]), r["marker"]) for r in ds}:
    print("DS missed the planted", p); ok = False
print("called in abundance:", ", ".join(f'{r["population"]} (logFC {float(r["logFC"]):.2f})' for r in da))
print("called in state:", ", ".join(f'{r["population"]} {r["marker"]} (logFC {float(r["logFC"]):.2f})' for r in ds))
sys.exit(0 if ok else 1)
PY

if ! command -v Rscript >/dev/null ||
    ! Rscript -e 'suppressMessages({library(limma); library(edgeR)})' >/dev/null 2>&1; then
    echo "cohort: the planted effects and only they are found (R's limma or edgeR is missing: the agreement on this cohort is not tested)"
    exit 0
fi
# R's side: the same tables in tests/stats/*.R's layout.
mkdir r
"$python" - "$tmp" <<'PY'
import csv, os, sys
tmp = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(tmp, "applied", "sample_medians.csv"))))
samples = list(dict.fromkeys(r["sample"] for r in rows))
pops = list(dict.fromkeys(r["population"] for r in rows))
at = {(r["population"], r["sample"]): r for r in rows}
state = ["pSTAT5", "pERK", "pS6", "Ki67", "CD69", "IFNg", "TNFa", "GranzymeB", "Perforin"]
counts = list(csv.DictReader(open(os.path.join(tmp, "applied", "populations.csv"))))
cells = {(r["population"], r["sample"]): r["cells"] for r in counts}
count_pops = list(dict.fromkeys(r["population"] for r in counts))
out = lambda name: csv.writer(open(os.path.join(tmp, "r", name), "w", newline=""))
w = out("cells.csv"); w.writerow(["population"] + samples)
for p in pops: w.writerow([p] + [at[(p, s)]["cells"] for s in samples])
w = out("counts.csv"); w.writerow(["population"] + samples)
for p in count_pops: w.writerow([p] + [cells[(p, s)] for s in samples])
w = out("medians.csv"); w.writerow(["population", "marker"] + samples)
for p in pops:
    for m in state: w.writerow([p, m] + [at[(p, s)][m] for s in samples])
design = list(csv.reader(open(os.path.join(tmp, "stats", "design.csv"))))
w = out("design.csv"); w.writerow(design[0][1:])
for row in design[1:]: w.writerow(row[1:])
w = out("contrast.csv"); w.writerow([1 if c == "conditionunstim" else 0 for c in design[0][1:]])
meta = {r["file"][:-4]: r["patient"] for r in csv.DictReader(open(os.path.join(tmp, "cohort", "samples.csv")))}
w = out("block.csv"); w.writerow([meta[s] for s in samples])
PY
Rscript "$here/../stats/limma_ds.R" r >/dev/null 2>r/limma.log || fail "limma: $(cat r/limma.log)"
Rscript "$here/../stats/edger_da.R" r >/dev/null
Rscript - "$tmp" <<'RS' || fail "sepal-cli stats and R disagree on the cohort"
dir <- commandArgs(trailingOnly = TRUE)[1]
# stim sorts first, so R's coefficient is unstim's: its sign is flipped.
compare <- function(ours, theirs, key, what) {
  theirs <- theirs[match(key(ours), key(theirs)), ]
  t <- !is.na(ours$p_val)
  if (any(is.na(theirs$p_val) != !t)) stop(what, ": different tests were made")
  dlogfc <- max(abs(ours$logFC[t] + theirs$logFC[t]))
  dp <- max(abs(ours$p_val[t] - theirs$p_val[t]) / pmax(theirs$p_val[t], 1e-300))
  cat(sprintf("%s: worst logFC %.2g, p %.2g relative\n", what, dlogfc, dp))
  if (dlogfc > 1e-4 || dp > 1e-4) stop(what, " differs from R")
  if (!identical(sort(key(ours)[t & ours$p_adj < 0.05]), sort(key(theirs)[t & theirs$p_adj < 0.05])))
    stop(what, ": the calls differ")
}
ds <- read.csv(file.path(dir, "stats", "ds.csv"), stringsAsFactors = FALSE)
compare(ds, read.csv(file.path(dir, "r", "ds_r.csv"), stringsAsFactors = FALSE),
        function(x) paste(x$population, x$marker), "differential state (limma)")
da <- read.csv(file.path(dir, "stats", "da.csv"), stringsAsFactors = FALSE, check.names = FALSE)
compare(da, read.csv(file.path(dir, "r", "da_r.csv"), stringsAsFactors = FALSE, check.names = FALSE),
        function(x) x$population, "differential abundance (edgeR)")
RS
echo "cohort: the planted effects and only they are found; limma and edgeR agree on it"
