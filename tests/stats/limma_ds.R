# Differential state of marker medians by limma, as diffcyt's testDS_limma does it: the reference
# that Sepal's `stats` results are compared with.
#
# Usage: Rscript limma_ds.R FOLDER [MIN_CELLS] [MIN_SAMPLES]
# FOLDER holds medians.csv (population,marker,<samples...>), cells.csv (population,<samples...>),
# design.csv (coefficient names, one row per sample), contrast.csv (one line of weights) and
# optionally block.csv (one line of per-sample group ids). Writes FOLDER/ds_r.csv with columns
# population,marker,logFC,t,p_val,p_adj; populations that fail the cell filter get NA.
# MIN_CELLS defaults to 3, MIN_SAMPLES to half the samples.
suppressPackageStartupMessages(library(limma))

args <- commandArgs(trailingOnly = TRUE)
folder <- args[1]
path <- function(name) file.path(folder, name)

medians <- read.csv(path("medians.csv"), check.names = FALSE, stringsAsFactors = FALSE,
                    colClasses = c("character", "character"))
cells <- read.csv(path("cells.csv"), check.names = FALSE, stringsAsFactors = FALSE,
                  colClasses = "character")
samples <- colnames(cells)[-1]
counts <- as.matrix(sapply(cells[, samples, drop = FALSE], as.numeric))
dim(counts) <- c(nrow(cells), length(samples))
populations <- cells$population
design <- as.matrix(read.csv(path("design.csv"), check.names = FALSE))
contrast <- as.numeric(strsplit(readLines(path("contrast.csv"), warn = FALSE)[1], ",")[[1]])
block <- NULL
if (file.exists(path("block.csv")))
  block <- trimws(strsplit(readLines(path("block.csv"), warn = FALSE)[1], ",")[[1]])

min_cells <- if (length(args) >= 2) as.numeric(args[2]) else 3
min_samples <- if (length(args) >= 3) as.numeric(args[3]) else length(samples) / 2

# Populations with at least min_cells cells in at least min_samples samples are tested.
keep <- rowSums(counts >= min_cells) >= min_samples
markers <- unique(medians$marker)

# One row per (kept population, marker), weighted by the population's cell counts.
rows <- expand.grid(marker = markers, population = populations[keep], stringsAsFactors = FALSE)
key <- paste(medians$population, medians$marker, sep = "\r")
index <- match(paste(rows$population, rows$marker, sep = "\r"), key)
if (anyNA(index)) stop("medians.csv lacks some (population, marker) pairs")
y <- as.matrix(sapply(medians[index, samples, drop = FALSE], as.numeric))
dim(y) <- c(nrow(rows), length(samples))
w <- counts[match(rows$population, populations), , drop = FALSE]

if (!is.null(block)) {
  dupcor <- duplicateCorrelation(y, design, block = block, weights = w)
  fit <- lmFit(y, design, block = block, correlation = dupcor$consensus.correlation, weights = w)
} else {
  fit <- lmFit(y, design, weights = w)
}
fit <- contrasts.fit(fit, contrast)
efit <- eBayes(fit, trend = TRUE)
tt <- topTable(efit, coef = 1, number = Inf, adjust.method = "BH", sort.by = "none")

all_rows <- expand.grid(marker = markers, population = populations, stringsAsFactors = FALSE)
out <- data.frame(population = all_rows$population, marker = all_rows$marker,
                  logFC = NA_real_, t = NA_real_, p_val = NA_real_, p_adj = NA_real_)
at <- match(paste(rows$population, rows$marker), paste(out$population, out$marker))
out$logFC[at] <- tt$logFC
out$t[at] <- tt$t
out$p_val[at] <- tt$P.Value
out$p_adj[at] <- tt$adj.P.Val
write.csv(out, path("ds_r.csv"), row.names = FALSE, quote = FALSE)
