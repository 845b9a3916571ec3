#!/usr/bin/env bash
# Sepal's neighbourhoods against UMAP's and t-SNE's (issue 17, item 6), on this machine, one
# thread each: the mammoth (../shared/data/shapes) and a CyTOF-like demo (50,000 cells of
# `sepal-cli demo`, 22 markers, arcsinh/5). Installs Debian's r-cran-uwot and r-cran-rtsne when
# missing (the benchmark alone needs them). Prints one JSON line per embedding: seconds and
# trustworthiness / k-NN preservation (k = 10, the 10,000-cell subsample of seed 1). The seconds
# are the embedding's alone for every method (R's: the call after reading and transforming;
# Sepal's: training, layout, projection and polish, as embed reports them); Sepal's lines also
# give the whole command's (reading and writing the CSV included) as process_seconds.
#   POLISH ("0 10 20"): the --polish epochs tried, each EPOCHS or EPOCHS:RATE (with
#   --polish-rate RATE); QUALITY_REFERENCES (uwot rtsne); SEPAL_REPEATS (5): Sepal's embeddings
#   are run this many times (the same bytes each time, checked) and their median seconds
#   reported, with every run's in seconds_runs: one run of a third of a second catches the
#   shared machine's bursts, which R's minute-long runs average out.
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
markers=Y89Di,Pr141Di,Nd142Di,Nd143Di,Nd144Di,Nd145Di,Nd146Di,Sm147Di,Nd148Di,Sm149Di,Nd150Di
markers+=,Eu151Di,Sm152Di,Eu153Di,Sm154Di,Gd155Di,Gd156Di,Gd158Di,Tb159Di,Gd160Di,Dy161Di,Dy162Di
"$cli" convert "$shared/shapes/mammoth_3d_50k.json" "$work/mammoth.csv" 2>/dev/null
"$cli" demo --events 50000 --seed 5 --out "$work/cytof.csv" >/dev/null
line() {  # DATA METHOD SECONDS PROCESS_SECONDS RUNS EMBEDDING [prepare options...]
    local data=$1 method=$2 seconds=$3 process=$4 runs=$5 y=$6
    shift 6
    "$cli" score "$work/$data.csv" "$@" --embedding "$y" --json |
        python3 -c "import json, sys; j = json.load(sys.stdin); r = {'bench': 'quality', 'data': '$data', 'method': '$method', 'seconds': $seconds, 'trustworthiness': j['trustworthiness'], 'knn_preservation': j['knn_preservation']}; r.update({'process_seconds': float('$process')} if '$process' else {}); r.update({'seconds_runs': [$runs]} if '$runs' else {}); print(json.dumps(r))"
}
median() {  # VALUES...: the median (the lower middle one of an even count)
    printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
for data in mammoth cytof; do
    prepare=(--transform none)
    rargs=()
    if [ $data = cytof ]; then prepare=(--columns "$markers" --transform asinh:5); rargs=("$markers" 5); fi
    for p in ${POLISH:-0 10 20}; do
        e=${p%%:*}
        rate=()
        [ "$p" != "$e" ] && rate=(--polish-rate "${p#*:}")
        totals=() processes=()
        for ((r = 0; r < ${SEPAL_REPEATS:-5}; ++r)); do
            start=$(date +%s.%N)
            "$cli" embed "$work/$data.csv" "${prepare[@]}" --threads 1 --polish "$e" "${rate[@]}" \
                --out "$work/y$r.csv" 2>"$work/embed.log"
            end=$(date +%s.%N)
            cmp -s "$work/y0.csv" "$work/y$r.csv" || { echo "embed gave other bytes on run $r" >&2; exit 1; }
            # "... seconds: train T, layout L, project P[, polish Q], total S"
            totals+=("$(sed -n 's/.*seconds: .*total \([0-9.]*\).*/\1/p' "$work/embed.log")")
            processes+=("$(python3 -c "print(round($end - $start, 3))")")
        done
        runs=$(IFS=,; echo "${totals[*]}")
        line $data "sepal --polish $e${rate[*]:+ ${rate[*]}}" "$(median "${totals[@]}")" \
            "$(median "${processes[@]}")" "$runs" "$work/y0.csv" "${prepare[@]}"
    done
    for method in ${QUALITY_REFERENCES:-uwot rtsne}; do
        seconds=$(Rscript bench/reference_embeddings.R "$work/$data.csv" $method "$work/r.csv" "${rargs[@]}" 2>/dev/null | awk '{print $3}')
        line $data $method "$seconds" "" "" "$work/r.csv" "${prepare[@]}"
    done
done
