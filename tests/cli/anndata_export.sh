#!/usr/bin/env bash
# AnnData exports read by Debian's python3-anndata, field by field against the CSV exports of
# the same runs: embed of two demo samples under a gate tree (Cells, Live, CD3/CD4 quadrants)
# to .h5ad and to CSV, then apply --format h5ad streamed in small blocks against apply --format
# csv. X holds the embedded channels as transformed (the others raw), layers['raw'] every
# channel as Sepal reads it (Time in its ticks), obsm['X_embedsom'] the coordinates, obs
# the sample, the population and each gate's membership (as `sepal-cli gate` counts them), var
# the channel names, markers and which were embedded. One file per population is refused.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Cells (DNA), Live under it (cisplatin), CD3/CD4 quadrants under Live, arcsinh(x/5) as fasinh.
tree=$(dirname "$0")/fixtures/live_cd3_cd4.xml

# shellcheck source=lib/python_with.sh
. "$(dirname "$0")/lib/python_with.sh"
python=$(python_with anndata numpy)
[ -n "$python" ] || fail "python3-anndata is missing: scripts/setup.sh installs it"

"$cli" demo --events 5000 --seed 1 --out "$tmp/s1.fcs" >/dev/null
"$cli" demo --events 3000 --seed 2 --out "$tmp/s2.fcs" >/dev/null

embed=(embed "$tmp/s1.fcs" "$tmp/s2.fcs" --gates "$tree" --population Cells/Live
       --metaclusters 5 --seed 3 -q)
"$cli" "${embed[@]}" --out "$tmp/pooled.h5ad" --model "$tmp/m.json"
"$cli" "${embed[@]}" --out "$tmp/pooled.csv" --values transformed
"$cli" "${embed[@]}" --out "$tmp/pooled_raw.csv"
"$cli" gate "$tmp/s1.fcs" --gates "$tree" --counts "$tmp/c1.csv" --quiet
"$cli" gate "$tmp/s2.fcs" --gates "$tree" --counts "$tmp/c2.csv" --quiet

"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" --format h5ad --block-events 700 \
    --out-dir "$tmp/h5" -q
"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" --format csv --values transformed \
    --out-dir "$tmp/csv" -q
"$cli" apply --model "$tmp/m.json" "$tmp/s1.fcs" "$tmp/s2.fcs" --format csv --out-dir "$tmp/raw" -q

if "$cli" "${embed[@]}" --out "$tmp/per.h5ad" --per-population 2>"$tmp/e.txt"; then
    fail "one .h5ad per population was written"
fi
grep -q "obs\['population'\]" "$tmp/e.txt" || fail "the refusal does not say why: $(cat "$tmp/e.txt")"
[ ! -e "$tmp/per.h5ad" ] || fail "a refused export left a file"

"$python" - "$tmp" <<'PY'
import csv, sys
import anndata
import numpy as np
tmp = sys.argv[1]

def table(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]

def counts(path):
    with open(path) as f:
        return {r["path"]: int(r["events"]) for r in csv.DictReader(f)}

def check(h5ad, transformed_csv, raw_csv, gates, samples):
    a = anndata.read_h5ad(h5ad)
    head, rows = table(transformed_csv)
    rhead, rrows = table(raw_csv)
    assert a.n_obs == len(rows), f"{h5ad}: {a.n_obs} cells, the CSV export has {len(rows)}"
    # var: channel names and markers; the CSV headers read "marker (name)" or the name.
    for j, (name, marker) in enumerate(zip(a.var_names, a.var["marker"])):
        label = f"{marker} ({name})" if marker and marker != name else name
        assert head[j] == label, f"{h5ad}: variable {j} is {name}/{marker}, the CSV's {head[j]}"
    cols = {h: i for i, h in enumerate(head)}
    values = np.array([[float(v) for v in r[: a.n_vars]] for r in rows], dtype=np.float32)
    raw = np.array([[float(v) for v in r[: a.n_vars]] for r in rrows], dtype=np.float32)
    assert np.allclose(a.X, values, rtol=1e-6, atol=1e-6), f"{h5ad}: X differs from the transformed CSV"
    assert np.allclose(a.layers["raw"], raw, rtol=1e-6, atol=1e-6), f"{h5ad}: layers['raw'] differs from the raw CSV"
    embedded = set(a.var_names[a.var["embedded"].values])
    assert len(embedded) >= 10 and "Time" not in embedded, f"{h5ad}: embedded channels {embedded}"
    different = [n for j, n in enumerate(a.var_names) if not np.allclose(a.X[:, j], a.layers["raw"][:, j])]
    assert set(different) <= embedded and len(different) > 5, f"{h5ad}: X and raw differ in {different}"
    # Time stays in the ticks the file stored: whole numbers.
    t = a.layers["raw"][:, list(a.var_names).index("Time")]
    assert np.all(t == np.round(t)), f"{h5ad}: Time is not in ticks"
    xy = np.array([[float(r[cols["EmbedSOM1"]]), float(r[cols["EmbedSOM2"]])] for r in rows])
    assert np.allclose(a.obsm["X_embedsom"], xy, atol=1e-5), f"{h5ad}: X_embedsom differs from the CSV"
    pop = [r[cols["population"]] for r in rows]
    assert a.obs["population"].dtype.name == "category", f"{h5ad}: population is not categorical"
    assert list(a.obs["population"].astype(str)) == pop, f"{h5ad}: populations differ from the CSV"
    assert list(a.obs["sample"].cat.categories) == samples, f"{h5ad}: samples {list(a.obs['sample'].cat.categories)}"
    if gates:
        for s, c in zip(samples, gates):
            cells = (a.obs["sample"] == s).values
            assert a.obs["Live"].values[cells].all(), f"{h5ad}: a cell of {s} outside Live"
            for g in ("CD4T", "CD3noCD4"):
                n = int(a.obs[g].values[cells].sum())
                assert n == c[f"Cells/Live/T/{g}"], f"{h5ad}: {g} of {s} holds {n}, gate counts {c[f'Cells/Live/T/{g}']}"
            assert cells.sum() == c["Cells/Live"], f"{h5ad}: {cells.sum()} cells of {s}, Live holds {c['Cells/Live']}"
    return a

c1, c2 = counts(f"{tmp}/c1.csv"), counts(f"{tmp}/c2.csv")
a = check(f"{tmp}/pooled.h5ad", f"{tmp}/pooled.csv", f"{tmp}/pooled_raw.csv", [c1, c2], ["s1", "s2"])
assert a.obs["Live"].dtype == bool, f"gate membership is {a.obs['Live'].dtype}, not bool"
for s, c in (("s1", c1), ("s2", c2)):
    b = check(f"{tmp}/h5/{s}.h5ad", f"{tmp}/csv/{s}.csv", f"{tmp}/raw/{s}.csv", [c], [s])
print(f"pooled: {a.n_obs} cells x {a.n_vars} channels, {a.obs['population'].nunique()} populations, "
      f"obs {list(a.obs.columns)}; apply's files agree with its CSV exports")
PY
