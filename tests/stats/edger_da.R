#!/usr/bin/env Rscript
# Reference differential abundance by edgeR's GLM likelihood ratio test, the way the DA-edgeR
# method runs it (normalize = FALSE), for comparison with `sepal-cli stats`.
#
# Usage: Rscript edger_da.R <folder>
# Reads from <folder>:
#   counts.csv    header "population,<sample1>,...", one row of cell counts per population
#   design.csv    header of coefficient names, one row per sample (same order as counts.csv)
#   contrast.csv  one line, one weight per coefficient
#   options.csv   (optional) header "min_cells,min_samples", one row of values
# Writes <folder>/da_r.csv with columns population,logFC,logCPM,LR,p_val,p_adj
# (NA for populations filtered out).

suppressPackageStartupMessages(library(edgeR))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript edger_da.R <folder>")
dir <- args[1]

counts_table <- read.csv(file.path(dir, "counts.csv"), check.names = FALSE,
                         stringsAsFactors = FALSE, colClasses = c("character"))
populations <- counts_table[[1]]
counts <- as.matrix(counts_table[, -1, drop = FALSE])
storage.mode(counts) <- "double"
rownames(counts) <- make.unique(populations)

design <- as.matrix(read.csv(file.path(dir, "design.csv"), check.names = FALSE))
storage.mode(design) <- "double"
if (nrow(design) != ncol(counts)) stop("design.csv rows differ from counts.csv samples")
contrast <- as.numeric(unlist(read.csv(file.path(dir, "contrast.csv"), header = FALSE)[1, ]))
if (length(contrast) != ncol(design)) stop("contrast.csv length differs from design columns")

min_cells <- 3
min_samples <- ncol(counts) / 2
options_file <- file.path(dir, "options.csv")
if (file.exists(options_file)) {
  options <- read.csv(options_file)
  if (!is.null(options$min_cells)) min_cells <- options$min_cells[1]
  if (!is.null(options$min_samples) && options$min_samples[1] > 0) min_samples <- options$min_samples[1]
}

keep <- rowSums(counts >= min_cells) >= min_samples
out <- data.frame(population = populations, logFC = NA_real_, logCPM = NA_real_,
                  LR = NA_real_, p_val = NA_real_, p_adj = NA_real_)
if (any(keep)) {
  kept <- counts[keep, , drop = FALSE]
  y <- DGEList(kept, lib.size = colSums(kept))
  y <- estimateDisp(y, design, trend.method = "none")
  fit <- glmFit(y, design)
  lrt <- glmLRT(fit, contrast = contrast)
  tt <- topTags(lrt, n = Inf, adjust.method = "BH", sort.by = "none")$table
  out$logFC[keep] <- tt$logFC
  out$logCPM[keep] <- tt$logCPM
  out$LR[keep] <- tt$LR
  out$p_val[keep] <- tt$PValue
  out$p_adj[keep] <- tt$FDR
}
# Quote only names that need it, so that the file stays plain for simple readers.
needs_quote <- grepl('[,"]', out$population)
out$population[needs_quote] <- paste0('"', gsub('"', '""', out$population[needs_quote]), '"')
write.csv(out, file.path(dir, "da_r.csv"), row.names = FALSE, quote = FALSE, na = "NA")
