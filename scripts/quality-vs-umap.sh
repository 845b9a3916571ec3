#!/usr/bin/env bash
# Sepal's neighbourhoods against UMAP's and t-SNE's (issues 17 and 42), on this machine, one
# thread each, on four sets: the mammoth (../shared/data/shapes), a CyTOF-like demo (50,000 cells
# of `sepal-cli demo`, 22 markers, arcsinh/5), the four real CyTOF files of
# ../shared/data/fcs/cytonorm pooled (4,000 cells, the 27 type markers embed picks, arcsinh/5) and
# a real flow file (../shared/data/fcs/flowio/fcs_files__100715.fcs: 65,016 cells, 12 markers,
# compensated, embed's default transform). Every method embeds the same table: the values as
# embed transforms them (`embed --values transformed`), its embedded columns only. Installs
# Debian's r-cran-uwot and r-cran-rtsne when missing (the benchmark alone needs them). Prints one
# JSON line per embedding: seconds and trustworthiness / k-NN preservation (k = 10, the
# 10,000-cell subsample of seed 1). The seconds are the embedding's alone for every method (R's:
# the call after reading; Sepal's: training, layout, projection and polish, as embed reports
# them); Sepal's lines also give the whole command's (reading and writing the CSV included) as
# process_seconds.
#   QUALITY_DATA ("mammoth cytof cytonorm flow"): the sets
#   POLISH ("0 20 t150"): the polishes tried, each EPOCHS or EPOCHS:RATE (UMAP-like, with
#   --polish-rate RATE) or tEPOCHS (t-SNE-like, --polish-kernel tsne); QUALITY_REFERENCES (uwot
#   rtsne); SEPAL_REPEATS (5): Sepal's embeddings are run this many times (the same bytes each
#   time, checked) and their median seconds reported, with every run's in seconds_runs: one run
#   of a third of a second catches the shared machine's bursts, which R's minute-long runs
#   average out.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${SEPAL_CLI:-build/src/sepal-cli}
shared=${SEPAL_SHARED_DATA:-../shared/data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! Rscript -e 'library(uwot); library(Rtsne)' >/dev/null 2>&1; then
    sudo_cmd=()
    [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
        r-cran-uwot r-cran-rtsne >/dev/null
fi
prepare() {  # NAME INPUT... [-- EMBED OPTIONS]: $work/NAME.csv, the embedded columns as transformed
    local name=$1
    shift
    "$cli" embed "$@" --values transformed --out "$work/$name.full.csv" --model "$work/$name.json" \
        --quiet 2>/dev/null
    python3 - "$work/$name.full.csv" "$work/$name.json" "$work/$name.csv" <<'PY'
import csv, json, sys
full, model, out = sys.argv[1:4]
columns = json.load(open(model))["columns"]
with open(full) as f, open(out, "w", newline="") as g:
    rows = csv.reader(f)
    head = next(rows)
    # A channel with a marker is headed "MARKER (CHANNEL)".
    at = [next(i for i, h in enumerate(head) if h == c or h.endswith("(" + c + ")")) for c in columns]
    w = csv.writer(g)
    w.writerow(columns)
    for row in rows:
        w.writerow([row[i] for i in at])
PY
}
for data in ${QUALITY_DATA:-mammoth cytof cytonorm flow}; do
    case $data in
    mammoth)
        "$cli" convert "$shared/shapes/mammoth_3d_50k.json" "$work/mammoth.csv" 2>/dev/null ;;
    cytof)
        markers=Y89Di,Pr141Di,Nd142Di,Nd143Di,Nd144Di,Nd145Di,Nd146Di,Sm147Di,Nd148Di,Sm149Di,Nd150Di
        markers+=,Eu151Di,Sm152Di,Eu153Di,Sm154Di,Gd155Di,Gd156Di,Gd158Di,Tb159Di,Gd160Di,Dy161Di,Dy162Di
        "$cli" demo --events 50000 --seed 5 --out "$work/cytof.raw.csv" >/dev/null
        prepare cytof "$work/cytof.raw.csv" --columns "$markers" --transform asinh:5 ;;
    cytonorm)
        [ -d "$shared/fcs/cytonorm" ] || { echo "no $shared/fcs/cytonorm: skipping cytonorm" >&2; continue; }
        prepare cytonorm "$shared"/fcs/cytonorm/*.fcs ;;
    flow)
        file=$shared/fcs/flowio/fcs_files__100715.fcs
        [ -f "$file" ] || { echo "no $file: skipping flow" >&2; continue; }
        prepare flow "$file" ;;
    *) echo "unknown data set $data" >&2; exit 2 ;;
    esac
    line() {  # METHOD SECONDS PROCESS_SECONDS RUNS EMBEDDING
        "$cli" score "$work/$data.csv" --transform none --embedding "$5" --json |
            python3 -c "import json, sys; j = json.load(sys.stdin); r = {'bench': 'quality', 'data': '$data', 'method': '$1', 'seconds': $2, 'trustworthiness': j['trustworthiness'], 'knn_preservation': j['knn_preservation']}; r.update({'process_seconds': float('$3')} if '$3' else {}); r.update({'seconds_runs': [$4]} if '$4' else {}); print(json.dumps(r))"
    }
    median() {  # VALUES...: the median (the lower middle one of an even count)
        printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
    }
    for p in ${POLISH:-0 20 t150}; do
        options=()
        case $p in
        t*) options=(--polish "${p#t}" --polish-kernel tsne) ;;
        *:*) options=(--polish "${p%%:*}" --polish-rate "${p#*:}") ;;
        *) options=(--polish "$p") ;;
        esac
        totals=() processes=()
        for ((r = 0; r < ${SEPAL_REPEATS:-5}; ++r)); do
            start=$(date +%s.%N)
            "$cli" embed "$work/$data.csv" --transform none --threads 1 "${options[@]}" \
                --out "$work/y$r.csv" 2>"$work/embed.log"
            end=$(date +%s.%N)
            cmp -s "$work/y0.csv" "$work/y$r.csv" || { echo "embed gave other bytes on run $r" >&2; exit 1; }
            # "... seconds: train T, layout L, project P[, polish Q], total S on N threads"
            totals+=("$(sed -n 's/.*seconds: .*total \([0-9.]*\).*/\1/p' "$work/embed.log")")
            processes+=("$(python3 -c "print(round($end - $start, 3))")")
        done
        runs=$(IFS=,; echo "${totals[*]}")
        line "sepal ${options[*]}" "$(median "${totals[@]}")" "$(median "${processes[@]}")" "$runs" \
            "$work/y0.csv"
    done
    for method in ${QUALITY_REFERENCES:-uwot rtsne}; do
        seconds=$(Rscript bench/reference_embeddings.R "$work/$data.csv" $method "$work/r.csv" 2>/dev/null | awk '{print $3}')
        line $method "$seconds" "" "" "$work/r.csv"
    done
done
