#!/usr/bin/env bash
# A study in two batches whose batch effect differs by cell type (sepal-cli demo --batch-effect
# population: each population's own factor per marker and batch). One map per marker (align's
# default) leaves populations that lie in one batch's cells; clusters of the anchors' cells,
# each with maps of its own (align --clusters, CytoNorm's way), remove the effect in each cell
# type: the reference donor's populations meet across the batches, no population is one batch's,
# the planted effects are still found, and a saved clustered alignment writes the same values.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib/skip_without_stats.sh
. "$(dirname "$0")/lib/skip_without_stats.sh"
skip_without_stats "$cli"
# shellcheck source=lib/python_with.sh
. "$(dirname "$0")/lib/python_with.sh"
py=$(python_with numpy)
[ -n "$py" ] || { echo "SKIP: numpy is not installed (scripts/setup.sh installs python3-numpy)"; exit 77; }
cd "$tmp"
"$cli" demo --cohort cohort --batches 2 --batch-effect population --events 30000 >/dev/null
"$cli" align cohort/*.fcs --metadata cohort/samples.csv --anchors type=reference \
    --out-dir markers -q
"$cli" align cohort/*.fcs --metadata cohort/samples.csv --anchors type=reference \
    --out-dir clusters --clusters 20 --save-alignment clusters.json 2> log
grep -q "in 20 clusters" log || fail "the summary: $(cat log)"
for set in cohort markers clusters; do
    for ref in Ref_b1 Ref_b2; do "$cli" convert "$set/$ref.fcs" "${set}_$ref.csv"; done
    "$cli" embed "$set"/P*.fcs --balanced --metaclusters 20 --model "m_$set.json" \
        --out "e_$set.csv" -q
    "$cli" apply --model "m_$set.json" "$set"/P*.fcs --out-dir "a_$set" -q \
        --metadata cohort/samples.csv --design "condition + patient" \
        --contrast condition:stim-unstim --block patient 2>/dev/null
done
# The saved alignment, applied to one patient's files, writes the same bytes.
"$cli" align cohort/P2_*.fcs --metadata cohort/samples.csv --alignment clusters.json \
    --out-dir again -q
for f in P2_stim.fcs P2_unstim.fcs; do
    cmp -s "again/$f" "clusters/$f" || fail "the saved clustered alignment wrote another $f"
done
"$py" - "$tmp" <<'PY' || fail "the clustered alignment"
import csv, glob, os, sys
import numpy as np
tmp = sys.argv[1]
def header(path):
    with open(path) as f:
        return next(csv.reader(f))
def labels(path, name):
    """A text column (the demo's names hold no comma): a csv reader over every row took most of
    this test's time."""
    i = header(path).index(name)
    with open(path) as f:
        next(f)
        return np.array([line.rstrip("\n").split(",")[i].strip('"') for line in f])
def values(path, wanted):
    """The numeric columns chosen by wanted(name), by numpy's reader."""
    chosen = [i for i, c in enumerate(header(path)) if wanted(c)]
    return np.loadtxt(path, delimiter=",", skiprows=1, usecols=chosen, ndmin=2)
def emd(a, b):  # earth mover's distance of two samples, at 200 levels
    levels = (np.arange(200) + 0.5) / 200
    qa = np.sort(a)[np.minimum((levels * len(a)).astype(int), len(a) - 1)]
    qb = np.sort(b)[np.minimum((levels * len(b)).astype(int), len(b) - 1)]
    return float(np.abs(qa - qb).mean())
def population_gap(kind):
    """The reference donor's two samples, cell type by cell type (the generator's truth):
    the mean gap over populations and markers."""
    marker = lambda c: "(" in c and not c.startswith(("Beads", "DNA", "Cisplatin", "Pd"))
    paths = [f"{tmp}/{kind}_Ref_b{b}.csv" for b in (1, 2)]
    tables = [(labels(p, "Population"), np.arcsinh(values(p, marker) / 5)) for p in paths]
    gaps = []
    for population in sorted(set(tables[0][0])):
        cells = [x[labels == population] for labels, x in tables]
        if min(len(c) for c in cells) < 200:
            continue
        gaps += [emd(cells[0][:, m], cells[1][:, m]) for m in range(cells[0].shape[1])]
    return float(np.mean(gaps))
gap = {s: population_gap(s) for s in ("cohort", "markers", "clusters")}
print("the reference donor's gap between batches, cell type by cell type:",
      ", ".join(f"{s} {g:.3f}" for s, g in gap.items()))
assert gap["markers"] < 0.8 * gap["cohort"], gap
assert gap["clusters"] < 0.5 * gap["markers"], gap
batch = {r["file"][:-4]: r["batch"] for r in csv.DictReader(open(f"{tmp}/cohort/samples.csv"))}
def one_batch(applied):
    cells = {}  # population -> batch -> cells
    for path in glob.glob(f"{applied}/P*.csv"):
        sample_batch = batch[os.path.basename(path)[:-4]]
        for name, n in zip(*np.unique(labels(path, "population"), return_counts=True)):
            per = cells.setdefault(name, {})
            per[sample_batch] = per.get(sample_batch, 0) + int(n)
    return [p for p, c in cells.items() if max(c.values()) > 0.8 * sum(c.values())]
split = {s: one_batch(f"{tmp}/a_{s}") for s in ("cohort", "markers", "clusters")}
print("populations mostly of one batch:", split)
assert split["markers"], "one map per marker removed a batch effect that differs by cell type"
assert not split["clusters"], split["clusters"]
called = [r["population"] for r in csv.DictReader(open(f"{tmp}/a_clusters/da.csv"))
          if r["p_adj"] != "NA" and float(r["p_adj"]) < 0.05]
assert {"Memory CD8 T", "Naive B"} <= set(called), called
PY
echo "ok: a batch effect that differs by cell type, removed cluster by cluster"
