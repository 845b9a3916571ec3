# The reference embeddings Sepal's quality is compared with (scripts/quality-vs-umap.sh):
# uwot's UMAP and Rtsne's Barnes-Hut t-SNE with their defaults, on one thread.
#   Rscript reference_embeddings.R IN.csv uwot|rtsne OUT.csv [COLUMNS [COFACTOR]]
# COLUMNS: comma-separated columns to embed (default: all); COFACTOR: arcsinh(x / COFACTOR).
# OUT.csv gets EmbedSOM1 and EmbedSOM2 (what sepal-cli score reads); the seconds of the
# embedding alone go to stdout.
args <- commandArgs(trailingOnly = TRUE)
x <- read.csv(args[1])
if (length(args) > 3) x <- x[, strsplit(args[4], ",")[[1]]]
x <- as.matrix(x)
if (length(args) > 4) x <- asinh(x / as.numeric(args[5]))
set.seed(1)
start <- proc.time()[["elapsed"]]
if (args[2] == "uwot") {
  y <- uwot::umap(x, n_threads = 1, n_sgd_threads = 1)
} else {
  y <- Rtsne::Rtsne(x, num_threads = 1, check_duplicates = FALSE, pca = FALSE)$Y
}
seconds <- proc.time()[["elapsed"]] - start
colnames(y) <- c("EmbedSOM1", "EmbedSOM2")
write.csv(y, args[3], row.names = FALSE)
cat(sprintf("%s seconds %.2f\n", args[2], seconds))
