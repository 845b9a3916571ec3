#pragma once
// The names of the built-in trainers, for the few places that choose one: the registry's own
// entries, sepal-cli embed's default and the app's recipes. Everything else about a trainer (how
// it starts, what follows it, its EmbedSOM parameters) comes from its registry entry, so code
// outside core/train names a trainer through these and never compares names.

#include <string>

namespace sepal::trainer_name {

/// Lloyd's (batch) k-means: what `--landmarks kmeans:G` has always run.
inline constexpr const char* kKmeans = "kmeans";
/// Online k-means: each point pulls only its nearest landmark.
inline constexpr const char* kOnlineKmeans = "online-kmeans";
/// The online SOM of the EmbedSOM R package.
inline constexpr const char* kSom = "som";
/// The batch SOM.
inline constexpr const char* kBatchSom = "batchsom";
/// The parameter-less SOM.
inline constexpr const char* kPlsom = "plsom";
/// The force layout of the landmarks' k-NN graph.
inline constexpr const char* kGraph = "graph";
/// Exact t-SNE of the landmarks.
inline constexpr const char* kTsne = "tsne";
/// The UMAP-like layout of the landmarks.
inline constexpr const char* kUmap = "umap";
/// Not a trainer: the layout name that keeps the 2D positions the landmarks start with.
inline constexpr const char* kKeepGrid = "grid";

/// The trainer a name meant before the online k-means was renamed (session files of version 2
/// and older): "kmeans" was the online one then.
inline std::string beforeLloydEntry(const std::string& name) {
    return name == kKmeans ? kOnlineKmeans : name;
}

}  // namespace sepal::trainer_name
