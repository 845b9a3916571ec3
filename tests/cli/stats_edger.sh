#!/usr/bin/env bash
# sepal-cli stats agrees with R's edgeR run as DA-edgeR (tests/stats/edger_da.R) on generated
# cohorts: the design matrix equals R's model.matrix, logFC within 1e-4, p-values within 1e-4
# relative, the same calls at FDR 0.05, and every planted population is found and no other.
# Cohorts: 3 patients x 2 conditions (paired, ~condition + patient) and 40 samples with a
# numeric covariate (~condition + age). Then the refusals: a column the metadata lacks, a
# design not of full rank, a group of one sample, a sample the metadata does not describe.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=lib/skip_without_stats.sh
. "$(dirname "$0")/lib/skip_without_stats.sh"
skip_without_stats "$cli"
if ! command -v Rscript >/dev/null || ! Rscript -e 'suppressMessages(library(edgeR))' >/dev/null 2>&1; then
    echo "SKIP: R's edgeR is missing (r-bioc-edger, installed by scripts/setup.sh): the agreement with R is not tested"
    exit 77
fi

# A cohort written as Sepal writes it: populations.csv (sample,population,cells,fraction) and
# the sample metadata; populations named "planted ..." change by a factor between conditions.
cat >"$tmp/cohort.R" <<'RS'
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]; kind <- args[2]; set.seed(as.integer(args[3]))
if (kind == "paired") {
  meta <- data.frame(file = sprintf("P%d_%s.fcs", rep(1:3, each = 2), rep(c("unstim", "stim"), 3)),
                     condition = rep(c("unstim", "stim"), 3), patient = sprintf("P%d", rep(1:3, each = 2)))
} else {
  n <- 40
  meta <- data.frame(file = sprintf("S%02d.fcs", 1:n), condition = rep(c("a", "b"), n / 2),
                     age = round(runif(n, 20, 80)))
}
k <- 12
base <- exp(seq(log(20), log(20000), length.out = k))
names <- c(sprintf("planted up %d", 1:2), "planted down", sprintf("population %d", 4:k))
rows <- list()
for (s in seq_len(nrow(meta))) {
  mu <- base * exp(rnorm(k, 0, 0.1))
  if (meta$condition[s] %in% c("stim", "b")) mu[1:3] <- mu[1:3] * c(4, 3, 0.25)
  if (kind == "paired") mu <- mu * exp(rnorm(1, 0, 0.3))
  cells <- rnbinom(k, mu = mu, size = 50)
  cells[k] <- if (s %% 3 == 0) 1 else 0   # a rare population, not tested
  rows[[s]] <- data.frame(sample = sub("\\.fcs$", "", meta$file[s]), population = names,
                          cells = cells, fraction = cells / sum(cells))
}
write.csv(do.call(rbind, rows), file.path(dir, "populations.csv"), row.names = FALSE, quote = FALSE)
write.csv(meta, file.path(dir, "samples.csv"), row.names = FALSE, quote = FALSE)
RS

# R's side: the design by model.matrix (factor levels sorted), then tests/stats/edger_da.R.
cat >"$tmp/reference.R" <<'RS'
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]; formula <- as.formula(args[2]); coef <- args[3]  # the contrast's coefficient
counts <- read.csv(file.path(dir, "populations.csv"), stringsAsFactors = FALSE)
meta <- read.csv(file.path(dir, "samples.csv"), stringsAsFactors = FALSE)
samples <- unique(counts$sample)
meta <- meta[match(samples, sub("\\.fcs$", "", meta$file)), ]
for (col in names(meta)[-1]) if (is.character(meta[[col]])) meta[[col]] <- factor(meta[[col]])
design <- model.matrix(formula, meta)
pops <- unique(counts$population)
m <- matrix(0, length(pops), length(samples))
m[cbind(match(counts$population, pops), match(counts$sample, samples))] <- counts$cells
ref <- file.path(dir, "r"); dir.create(ref)
write.csv(data.frame(population = pops, m, check.names = FALSE), file.path(ref, "counts.csv"), row.names = FALSE)
write.csv(design, file.path(ref, "design.csv"), row.names = FALSE)
sign <- if (startsWith(coef, "-")) -1 else 1   # "-conditionunstim": the reference minus it
write.table(t(sign * as.numeric(colnames(design) == sub("^-", "", coef))), file.path(ref, "contrast.csv"), sep = ",",
            row.names = FALSE, col.names = FALSE)
RS

# Compares sepal-cli's da.csv and design.csv with R's.
cat >"$tmp/compare.R" <<'RS'
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
ours <- read.csv(file.path(dir, "out", "da.csv"), stringsAsFactors = FALSE, check.names = FALSE)
theirs <- read.csv(file.path(dir, "r", "da_r.csv"), stringsAsFactors = FALSE, check.names = FALSE)
design <- as.matrix(read.csv(file.path(dir, "out", "design.csv"), check.names = FALSE)[, -1])
rdesign <- as.matrix(read.csv(file.path(dir, "r", "design.csv"), check.names = FALSE))
if (!identical(dim(design), dim(rdesign)) || any(design != rdesign) ||
    !identical(colnames(design), colnames(rdesign)))
  stop("the design differs from R's model.matrix: ", paste(colnames(design), collapse = " "),
       " against ", paste(colnames(rdesign), collapse = " "))
theirs <- theirs[match(ours$population, theirs$population), ]
if (any(is.na(ours$p_val) != is.na(theirs$p_val))) stop("different populations were tested")
t <- !is.na(ours$p_val)
worst <- function(a, b) max(abs(a - b))
rel <- function(a, b) max(abs(a - b) / pmax(abs(b), 1e-300))
cat(sprintf("worst: logFC %.2g, logCPM %.2g, LR %.2g, p %.2g relative, p_adj %.2g relative\n",
            worst(ours$logFC[t], theirs$logFC[t]), worst(ours$logCPM[t], theirs$logCPM[t]),
            worst(ours$LR[t], theirs$LR[t]), rel(ours$p_val[t], theirs$p_val[t]),
            rel(ours$p_adj[t], theirs$p_adj[t])))
if (worst(ours$logFC[t], theirs$logFC[t]) > 1e-4) stop("logFC differs from edgeR's")
if (worst(ours$logCPM[t], theirs$logCPM[t]) > 1e-4) stop("logCPM differs from edgeR's")
if (rel(ours$p_val[t], theirs$p_val[t]) > 1e-4) stop("p-values differ from edgeR's")
if (rel(ours$p_adj[t], theirs$p_adj[t]) > 1e-4) stop("adjusted p-values differ from edgeR's")
called <- sort(ours$population[t & ours$p_adj < 0.05])
if (!identical(called, sort(theirs$population[t & theirs$p_adj < 0.05]))) stop("the calls differ")
planted <- sort(grep("^planted", ours$population, value = TRUE))
if (!identical(called, planted))
  stop("called ", paste(called, collapse = ", "), "; planted ", paste(planted, collapse = ", "))
if (any(!is.na(ours$p_val[ours$population == "population 12"]))) stop("the rare population was tested")
RS

run() {  # folder kind seed design contrast R-formula R-coefficient
    local dir=$tmp/$1
    mkdir -p "$dir"
    Rscript "$tmp/cohort.R" "$dir" "$2" "$3"
    "$cli" stats --counts "$dir/populations.csv" --metadata "$dir/samples.csv" --design "$4" \
        --contrast "$5" --out-dir "$dir/out" 2>"$dir/note.txt" || fail "$1: stats failed: $(cat "$dir/note.txt")"
    grep -q "3 differ in abundance at FDR 0.05" "$dir/note.txt" || fail "$1: the summary: $(cat "$dir/note.txt")"
    Rscript "$tmp/reference.R" "$dir" "$6" "$7"
    Rscript "$here/../stats/edger_da.R" "$dir/r" >/dev/null
    Rscript "$tmp/compare.R" "$dir" || fail "$1: sepal-cli stats and edgeR disagree"
}
# stim sorts before unstim: R's reference level is stim, so stim - unstim is -conditionunstim.
run paired paired 7 "condition + patient" "condition:stim-unstim" "~condition + patient" -conditionunstim
run covariate covariate 11 "condition+age" "condition:b" "~condition + age" conditionb

# Refusals, each naming what is wrong; nothing is written.
dir=$tmp/paired
expect_refusal() {  # message-part stats-arguments...
    local want=$1; shift
    if "$cli" stats --counts "$dir/populations.csv" --out-dir "$tmp/refused" "$@" 2>"$tmp/err"; then
        fail "accepted: $*"
    fi
    grep -qF "$want" "$tmp/err" || fail "for $*: expected '$want', got: $(cat "$tmp/err")"
    [ ! -e "$tmp/refused/da.csv" ] || fail "da.csv written after a refusal: $*"
}
expect_refusal "'batch' is no column of" --metadata "$dir/samples.csv" --design "condition + batch" --contrast condition:stim-unstim
awk -F, 'BEGIN{OFS=","} NR==1{print $0",pair"} NR>1{print $0","$2}' "$dir/samples.csv" >"$tmp/nested.csv"
expect_refusal "is not of full rank" --metadata "$tmp/nested.csv" --design "condition + patient + pair" --contrast condition:stim-unstim
awk -F, 'BEGIN{OFS=","} NR==1{print} NR==2{$2="alone"} NR>1{print}' "$dir/samples.csv" >"$tmp/alone.csv"
expect_refusal "alone has 1 sample" --metadata "$tmp/alone.csv" --design "condition" --contrast condition:alone-stim
grep -v "P3_stim" "$dir/samples.csv" >"$tmp/short.csv"
expect_refusal "no row describes the sample 'P3_stim'" --metadata "$tmp/short.csv" --design "condition" --contrast condition:stim-unstim
expect_refusal "'resting' is no level of condition" --metadata "$dir/samples.csv" --design "condition" --contrast condition:stim-resting
# A threshold no population meets leaves nothing tested: said even with --quiet.
"$cli" stats --counts "$dir/populations.csv" --metadata "$dir/samples.csv" --design condition \
    --contrast condition:stim-unstim --min-samples 1000 --out-dir "$tmp/none" -q 2>"$tmp/none.txt"
grep -q "^sepal-cli: warning: none of the .* populations was tested" "$tmp/none.txt" ||
    fail "no warning of a comparison that tested nothing: $(cat "$tmp/none.txt")"
echo "stats: sepal-cli agrees with edgeR on both cohorts; refusals named"
