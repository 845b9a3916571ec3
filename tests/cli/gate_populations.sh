#!/usr/bin/env bash
# A gate tree chooses what embed and apply embed: a Gating-ML file with Cells (DNA), Live under
# it (cisplatin) and CD3/CD4 quadrants under Live. The tree branches, so embed asks for a
# population and lists them; --population Cells/Live embeds exactly the cells `sepal-cli gate`
# puts in Live. --write-gates writes a FlowJo workspace beside the FCS output in which each of
# Sepal's populations is a named gate under Live: evaluated on that FCS file, every population
# holds the cells the file labels with it. apply --format fcs does the same for its outputs, and
# apply --population Cells keeps more cells than the model's Live. Two files' gate counts are each
# file's, a sample each.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# arcsinh(x/5) as Gating-ML's fasinh: T = 5 sinh(1), M = 1/ln 10, A = 0.
tree=$(dirname "$0")/fixtures/live_cd3_cd4.xml

"$cli" demo --events 6000 --seed 1 --out "$tmp/s1.fcs" >/dev/null
"$cli" demo --events 4000 --seed 2 --out "$tmp/s2.fcs" >/dev/null

# A branching tree needs a population, and the message lists them.
if "$cli" embed "$tmp/s1.fcs" --gates "$tree" --out "$tmp/x.csv" 2>"$tmp/e.txt"; then
    fail "embed chose a population of a branching tree by itself"
fi
grep -q "choose the one to embed with --population" "$tmp/e.txt" && grep -q "Cells/Live/T/CD4T" "$tmp/e.txt" ||
    fail "the message does not list the populations: $(cat "$tmp/e.txt")"
if "$cli" embed "$tmp/s1.fcs" --gates "$tree" --population Cells/Dead --out "$tmp/x.csv" 2>"$tmp/e.txt"; then
    fail "an unknown population was accepted"
fi
grep -q 'no population "Cells/Dead"' "$tmp/e.txt" || fail "the message does not name the population: $(cat "$tmp/e.txt")"

"$cli" gate "$tmp/s1.fcs" --gates "$tree" --membership "$tmp/m1.csv" --counts "$tmp/c1.csv" --quiet
"$cli" embed "$tmp/s1.fcs" --gates "$tree" --population Cells/Live --metaclusters 5 \
    --out "$tmp/y.fcs" --model "$tmp/m.json" --write-gates "$tmp/y.wsp" 2>"$tmp/embed.log"
grep -q "are in Cells/Live" "$tmp/embed.log" || fail "embed did not say which population: $(cat "$tmp/embed.log")"
"$cli" gate "$tmp/y.fcs" --gates "$tmp/y.wsp" --counts "$tmp/yc.csv" --quiet
"$cli" convert "$tmp/y.fcs" "$tmp/y.csv" >/dev/null

"$cli" apply --model "$tmp/m.json" "$tmp/s2.fcs" --format fcs --out-dir "$tmp/out" --write-gates "$tmp/out/s2.wsp" -q
"$cli" gate "$tmp/out/s2.fcs" --gates "$tmp/out/s2.wsp" --counts "$tmp/out/c.csv" --quiet
"$cli" gate "$tmp/s2.fcs" --gates "$tree" --counts "$tmp/c2.csv" --quiet
# Two files are two samples: gate_counts.csv holds each one's rows as it alone would count them.
"$cli" gate "$tmp/s1.fcs" "$tmp/s2.fcs" --gates "$tree" --counts "$tmp/c12.csv" --quiet
cmp -s "$tmp/c12.csv" <(cat "$tmp/c1.csv"; tail -n +2 "$tmp/c2.csv") ||
    fail "the counts of two files are not each file's: $(head -3 "$tmp/c12.csv")"
head -1 "$tmp/c12.csv" | grep -qx "sample,gate,path,events,parent_events,percent_of_parent,percent_of_all" ||
    fail "gate_counts.csv's header: $(head -1 "$tmp/c12.csv")"
# One membership table is one file's events.
if "$cli" gate "$tmp/s1.fcs" "$tmp/s2.fcs" --gates "$tree" --membership "$tmp/m12.csv" 2>"$tmp/e.txt"; then
    fail "--membership took two files"
fi
grep -q "membership writes the events of one data file: give one (2 given)" "$tmp/e.txt" ||
    fail "the message does not say why: $(cat "$tmp/e.txt")"
"$cli" apply --model "$tmp/m.json" "$tmp/s2.fcs" --population Cells --out-dir "$tmp/cells" -q

python3 - "$tmp" <<'PY'
import csv, sys
tmp = sys.argv[1]
def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))
def counts(path):
    return {r["path"]: int(r["events"]) for r in rows(path)}

live1 = counts(f"{tmp}/c1.csv")["Cells/Live"]
embedded = rows(f"{tmp}/y.csv")
assert len(embedded) == live1, f"embed wrote {len(embedded)} cells, Live holds {live1}"
# The workspace beside y.fcs: Live and its populations by name, each as the file labels it.
ws = counts(f"{tmp}/yc.csv")
assert ws["Cells/Live"] == live1, f"the workspace's Live holds {ws['Cells/Live']} of y.fcs, not all {live1}"
labelled = {}
for r in embedded:
    labelled[r["population"]] = labelled.get(r["population"], 0) + 1
# (A workspace holds the quadrants as rectangles beside the populations.)
quadrants = {"CD4T", "CD3noCD4"}
def populations(c):
    return {p.split("/")[-1]: n for p, n in c.items()
            if p.startswith("Cells/Live/") and p.split("/")[-1] not in quadrants and "/T/" not in p}
named = populations(ws)
assert named == labelled, f"the workspace's populations {named} differ from the file's labels {labelled}"
# apply --format fcs: its workspace over its output, against populations.csv.
table = {r["population"]: int(r["cells"]) for r in rows(f"{tmp}/out/populations.csv") if r["sample"] == "s2"}
out = counts(f"{tmp}/out/c.csv")
live2 = counts(f"{tmp}/c2.csv")["Cells/Live"]
assert out["Cells/Live"] == live2, f"apply wrote {out['Cells/Live']} cells, Live of s2 holds {live2}"
applied = populations(out)
assert {k: v for k, v in applied.items() if v} == {k: v for k, v in table.items() if v}, \
    f"the workspace's populations {applied} differ from populations.csv {table}"
# --population Cells instead of the model's Live: more cells.
cells2 = counts(f"{tmp}/c2.csv")["Cells"]
written = len(rows(f"{tmp}/cells/s2.csv"))
assert written == cells2 > live2, f"apply --population Cells wrote {written}, Cells holds {cells2}, Live {live2}"
print(f"Live: {live1} cells embedded; {len(named)} populations as named gates; apply --population Cells: {written}")
PY

# Populations named inside the CD4 T gate are called on every cell's cuts, as the app calls them:
# CD4 is on every cell of the gate, and they are still the naive, memory and regulatory CD4 T
# cells the generator made (cuts learnt in the gate alone named them "CD45RA+ HLA-DR- CD28dim").
"$cli" embed "$tmp/s1.fcs" --gates "$tree" --population Cells/Live/T/CD4T --metaclusters 3 \
    --out "$tmp/cd4.csv" --model "$tmp/cd4.json" --quiet
python3 - "$tmp/cd4.json" <<'PY'
import json, sys
names = sorted(p["name"] for p in json.load(open(sys.argv[1]))["populations"])
assert names == ["Memory CD4 T", "Naive CD4 T", "Treg"], f"the CD4 T gate's populations: {names}"
PY
