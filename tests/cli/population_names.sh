#!/usr/bin/env bash
# Populations named as a biologist names them: on the demo with state markers, embed
# --metaclusters 20 puts at least 90% of the cells in a population of their true name (the
# generator's), state markers (granzyme B, perforin...) never name a population, the model keeps
# each population's marker phrase; --cell-types renames by the user's own rules, --marker-classes
# turns a marker into a state one (it then names nothing), and mistakes in either file are named.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" demo --events 30000 --seed 3 --state-markers --out "$tmp/d.fcs" >/dev/null
"$cli" embed "$tmp/d.fcs" --metaclusters 20 --seed 2 --out "$tmp/d.csv" --model "$tmp/m.json" -q
printf 'name,rule\nHelper T,CD3+ CD4+\nKiller T,CD3+ CD8+\n' >"$tmp/types.csv"
printf 'channel,class\nCD4,state\n' >"$tmp/classes.csv"
"$cli" embed "$tmp/d.fcs" --metaclusters 20 --seed 2 --out "$tmp/own.csv" --cell-types "$tmp/types.csv" \
    --marker-classes "$tmp/classes.csv" -q

printf 'CD3,lineage\n' >"$tmp/bad_classes.csv"
if "$cli" embed "$tmp/d.fcs" --metaclusters 5 --out "$tmp/x.csv" --marker-classes "$tmp/bad_classes.csv" 2>"$tmp/e1.txt"; then
    fail "a class 'lineage' was accepted"
fi
grep -q "bad_classes.csv:1" "$tmp/e1.txt" || fail "the message does not name the file and line: $(cat "$tmp/e1.txt")"
printf 'T cells,CD3\n' >"$tmp/bad_types.csv"
if "$cli" embed "$tmp/d.fcs" --metaclusters 5 --out "$tmp/x.csv" --cell-types "$tmp/bad_types.csv" 2>"$tmp/e2.txt"; then
    fail "a rule without + or - was accepted"
fi
grep -q "bad_types.csv:1.*'CD3'" "$tmp/e2.txt" || fail "the message does not name the word: $(cat "$tmp/e2.txt")"

python3 - "$tmp" <<'PY'
import csv, json, re, sys
tmp = sys.argv[1]
rows = list(csv.DictReader(open(f"{tmp}/d.csv")))
base = lambda n: re.sub(r" \(\d+\)$", "", n)
# A cell type's namesakes read "Effector CD8 T CD16+": the type with the words after it.
right = sum(base(r["population"]) == r["Population"] or
            base(r["population"]).startswith(r["Population"] + " ") for r in rows)
share = right / len(rows)
names = sorted({base(r["population"]) for r in rows})
assert share >= 0.9, f"only {share:.1%} of the cells are in a population of their true name: {names}"
model = json.load(open(f"{tmp}/m.json"))
pops = model["populations"]
assert all(p.get("phenotype") for p in pops), f"a population without its phrase: {pops}"
classes = dict(zip(model["columns"], model["marker_classes"]))
assert classes["Pr141Di"] == "type" and "Yb173Di" not in classes, f"the model's classes: {classes}"
# The state markers are not embedded: the model keeps them beside, for apply's medians.
kept = [c["name"] for c in model["state_transform"]["columns"]]
assert "Yb173Di" in kept and len(kept) == 9, f"the model's state markers: {kept}"
state = ("GranzymeB", "Perforin", "pSTAT5", "pERK", "pS6", "Ki67", "CD69", "IFNg", "TNFa")
for p in pops:
    for m in state:
        assert m not in p["name"] and m not in p["phenotype"], f"a state marker names {p['name']} [{p['phenotype']}]"
# Own rules: CD4 is a state marker now, so no rule or phrase uses it; Killer T names CD8 T cells
# (two kinds of them told apart after the name: "Killer T CD28+", "Killer T CD28-").
own = {base(r["population"]) for r in csv.DictReader(open(f"{tmp}/own.csv"))}
killers = {n for n in own if n == "Killer T" or n.startswith("Killer T ")}
assert killers and not any(n.startswith("Helper T") for n in own), f"own rules named {own}"
assert not any(re.search(r"(^| )CD4[+-]", n) for n in own), f"CD4, a state marker now, names a population: {own}"
print(f"{share:.1%} of the cells in a population of their true name; {len(pops)} populations; own rules: {sorted(own)[:4]}")
PY
