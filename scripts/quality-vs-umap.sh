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
#   --polish-rate RATE); QUALITY_REFERENCES (uwot rtsne)
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
line() {  # DATA METHOD SECONDS PROCESS_SECONDS EMBEDDING [prepare options...]
    local data=$1 method=$2 seconds=$3 process=$4 y=$5
    shift 5
    "$cli" score "$work/$data.csv" "$@" --embedding "$y" --json |
        python3 -c "import json, sys; j = json.load(sys.stdin); r = {'bench': 'quality', 'data': '$data', 'method': '$method', 'seconds': $seconds, 'trustworthiness': j['trustworthiness'], 'knn_preservation': j['knn_preservation']}; r.update({'process_seconds': float('$process')} if '$process' else {}); print(json.dumps(r))"
}
for data in mammoth cytof; do
    prepare=(--transform none)
    rargs=()
    if [ $data = cytof ]; then prepare=(--columns "$markers" --transform asinh:5); rargs=("$markers" 5); fi
    for p in ${POLISH:-0 10 20}; do
        e=${p%%:*}
        rate=()
        [ "$p" != "$e" ] && rate=(--polish-rate "${p#*:}")
        start=$(date +%s.%N)
        "$cli" embed "$work/$data.csv" "${prepare[@]}" --threads 1 --polish "$e" "${rate[@]}" \
            --out "$work/y.csv" 2>"$work/embed.log"
        end=$(date +%s.%N)
        # "... seconds: train T, layout L, project P[, polish Q], total S"
        seconds=$(sed -n 's/.*seconds: .*total \([0-9.]*\).*/\1/p' "$work/embed.log")
        line $data "sepal --polish $e${rate[*]:+ ${rate[*]}}" "$seconds" "$(python3 -c "print(round($end - $start, 3))")" \
            "$work/y.csv" "${prepare[@]}"
    done
    for method in ${QUALITY_REFERENCES:-uwot rtsne}; do
        seconds=$(Rscript bench/reference_embeddings.R "$work/$data.csv" $method "$work/r.csv" "${rargs[@]}" 2>/dev/null | awk '{print $3}')
        line $data $method "$seconds" "" "$work/r.csv" "${prepare[@]}"
    done
done
