#!/usr/bin/env Rscript
# Reference differential abundance by binomial GLMMs, the way the DA-GLMM method runs them:
# per population, glmer(y/n ~ design + (1 | sample) [+ (1 | patient)], binomial, weights n) by the
# Laplace approximation, and a Wald z of the contrast from fixef and vcov (what multcomp's glht
# does with one contrast), for comparison with sepal's differentialAbundanceGlmm.
#
# Usage: Rscript glmm_da.R <folder> [tight|default]
# Reads from <folder>:
#   counts.csv    header "population,<sample1>,...", one row of cell counts per population
#   design.csv    header of coefficient names, one row per sample (same order as counts.csv)
#   contrast.csv  one line, one weight per coefficient
#   block.csv     (optional) header "patient", one row per sample: its patient's id
#   options.csv   (optional) header "min_cells,min_samples", one row of values
# Writes <folder>/glmm_r.csv with columns
#   population,logFC,z,p_val,p_adj,sd_sample,sd_patient,vcov_hessian,logFC_modes,z_modes,p_modes
# (logFC: the contrast over log(2); NA for populations filtered out). vcov_hessian tells whether
# vcov took the finite-difference Hessian (else its fallback, RX).
#
# "tight" (the default) runs glmer's two stages with bobyqa to rhoend 1e-12 and PIRLS to
# tolPwrss 1e-10 (1e-12 fails in PIRLS' step halving): the same estimator as glmer's defaults,
# converged to the optimum. glmer's defaults (Nelder-Mead in the second stage, FtolAbs 1e-5,
# tolPwrss 1e-7) stop about 1e-5 short of it in deviance; "default" shows them.
#
# z_modes, p_modes: the same test with the Hessian of a deviance whose log determinant is taken
# at the conditional modes themselves. glmer's deviance factors Lambda'Z'WZLambda + I with the
# weights of the PIRLS iterate before the last one (about 5e-7 off at tolPwrss 1e-10), and its
# finite-difference Hessian over (theta, beta) inherits the bend: z moves by up to ~5e-4
# relative, p-values near 1e-20 by a few per mille (at the default tolPwrss p-values near 1e-14
# by a few per cent). These columns use glmer's own deviance function and modes, recompute only
# that determinant, and take its optimum by bobyqa from glmer's.

suppressPackageStartupMessages(library(lme4))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1 || length(args) > 2) stop("usage: Rscript glmm_da.R <folder> [tight|default]")
dir <- args[1]
mode <- if (length(args) == 2) args[2] else "tight"
control <- switch(mode,
  tight = glmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-12, maxfun = 1e6),
                       tolPwrss = 1e-10),
  default = glmerControl(),
  stop("mode must be tight or default"))

counts_table <- read.csv(file.path(dir, "counts.csv"), check.names = FALSE,
                         stringsAsFactors = FALSE, colClasses = c("character"))
populations <- counts_table[[1]]
counts <- as.matrix(counts_table[, -1, drop = FALSE])
storage.mode(counts) <- "double"

design <- as.matrix(read.csv(file.path(dir, "design.csv"), check.names = FALSE))
storage.mode(design) <- "double"
if (nrow(design) != ncol(counts)) stop("design.csv rows differ from counts.csv samples")
contrast <- as.numeric(unlist(read.csv(file.path(dir, "contrast.csv"), header = FALSE)[1, ]))
if (length(contrast) != ncol(design)) stop("contrast.csv length differs from design columns")
block_file <- file.path(dir, "block.csv")
patient <- if (file.exists(block_file)) factor(read.csv(block_file)[[1]]) else NULL
if (!is.null(patient) && length(patient) != ncol(counts)) stop("block.csv rows differ from samples")

min_cells <- 3
min_samples <- ncol(counts) / 2
options_file <- file.path(dir, "options.csv")
if (file.exists(options_file)) {
  options <- read.csv(options_file)
  if (!is.null(options$min_cells)) min_cells <- options$min_cells[1]
  if (!is.null(options$min_samples) && options$min_samples[1] > 0) min_samples <- options$min_samples[1]
}

keep <- rowSums(counts >= min_cells) >= min_samples
out <- data.frame(population = populations, logFC = NA_real_, z = NA_real_, p_val = NA_real_,
                  p_adj = NA_real_, sd_sample = NA_real_, sd_patient = NA_real_,
                  vcov_hessian = NA, logFC_modes = NA_real_, z_modes = NA_real_,
                  p_modes = NA_real_)
# Trials: the sample's cells in the populations kept (diffcyt's n_cells_smp after filtering).
n_cells <- colSums(counts[keep, , drop = FALSE])
sample <- factor(seq_len(ncol(counts)))
formula <- if (is.null(patient)) y ~ 0 + X + (1 | sample) else
  y ~ 0 + X + (1 | sample) + (1 | patient)
for (i in which(keep)) {
  data <- data.frame(y = counts[i, ] / n_cells, n_cells = n_cells, sample = sample)
  data$X <- design
  if (!is.null(patient)) data$patient <- patient
  fit <- suppressMessages(glmer(formula, data = data, family = binomial, weights = n_cells,
                                control = control))
  beta <- fixef(fit)
  V <- as.matrix(vcov(fit))
  theta <- getME(fit, "theta")
  nt <- length(theta)
  # Which covariance vcov took: its Hessian's (positive definite) or RX's.
  hessian_vcov <- function(h) {
    hi <- tryCatch(solve(h), error = function(e) NULL)
    if (is.null(hi)) return(NULL)
    hi <- hi[-seq_len(nt), -seq_len(nt), drop = FALSE]
    v <- hi + t(hi)
    if (anyNA(v) || min(eigen(v, symmetric = TRUE, only.values = TRUE)$values) <= 0) NULL else v
  }
  Vh <- hessian_vcov(fit@optinfo$derivs$Hessian)
  estimate <- sum(contrast * beta)
  z <- estimate / sqrt(sum(contrast * (V %*% contrast)))
  out$logFC[i] <- estimate / log(2)
  out$z[i] <- z
  out$p_val[i] <- 2 * pnorm(-abs(z))
  out$sd_sample[i] <- theta[grep("^sample", names(theta))]
  if (!is.null(patient)) out$sd_patient[i] <- theta[grep("^patient", names(theta))]
  out$vcov_hessian[i] <- !is.null(Vh)

  # The deviance with the log determinant at the modes: glmer's deviance function (stage 2) less
  # its determinant, plus the determinant at the weights of the modes it reached.
  devfun <- suppressMessages(glmer(formula, data = data, family = binomial, weights = n_cells,
                                   control = control, devFunOnly = TRUE))
  rho <- environment(devfun)
  at_modes <- function(par) {
    value <- devfun(par)
    m <- rho$pp$Lambdat %*% rho$pp$Zt %*% Diagonal(x = as.numeric(rho$resp$sqrtXwt))
    log_det <- determinant(tcrossprod(m) + Diagonal(nrow(m)), logarithm = TRUE)$modulus
    value - rho$pp$ldL2() + as.numeric(log_det)
  }
  # Its optimum, from glmer's, by bobyqa as glmer's second stage runs it.
  opt <- minqa::bobyqa(c(theta, beta), at_modes, lower = c(rep(0, nt), rep(-Inf, length(beta))),
                       control = list(rhobeg = 2e-4, rhoend = 1e-12, maxfun = 1e6))
  par <- opt$par
  Vm <- hessian_vcov(lme4:::deriv12(at_modes, par, fx = at_modes(par))$Hessian)
  if (is.null(Vm)) Vm <- as.matrix(vcov(fit, use.hessian = FALSE))
  estimate_modes <- sum(contrast * par[-seq_len(nt)])
  out$logFC_modes[i] <- estimate_modes / log(2)
  out$z_modes[i] <- estimate_modes / sqrt(sum(contrast * (Vm %*% contrast)))
  out$p_modes[i] <- 2 * pnorm(-abs(out$z_modes[i]))
}
out$p_adj[keep] <- p.adjust(out$p_val[keep], method = "BH")
# Quote only names that need it, so that the file stays plain for simple readers.
needs_quote <- grepl('[,"]', out$population)
out$population[needs_quote] <- paste0('"', gsub('"', '""', out$population[needs_quote]), '"')
write.csv(out, file.path(dir, "glmm_r.csv"), row.names = FALSE, quote = FALSE, na = "NA")
