#include "app/training.h"

#include "core/train/trainer_factory.h"

namespace sepal::app {

std::vector<std::string> availableTrainers() {
    return {"som", "batchsom", "plsom", "kmeans", "graph", "tsne", "umap"};
}

std::unique_ptr<Trainer> createTrainer(const TrainingSettings& s, NearestSearch& search) {
    // Only the keys each trainer knows: the factory rejects the others.
    nlohmann::json p = {{"seed", s.seed}};
    const std::string& t = s.trainer;
    // Small steps with batched winner searches keep one step well inside a frame's budget.
    if (t == "som" || t == "kmeans" || t == "plsom") {
        p["stepPoints"] = size_t(1024);
        p["searchBatch"] = size_t(64);
    }
    if (t == "som" || t == "batchsom") {
        p["epochs"] = size_t(s.epochs);
        p["alphaStart"] = s.alpha;
        p["radiusStart"] = s.sigma;
        p["sampleSize"] = size_t(50000);
    } else if (t == "kmeans") {
        p["epochs"] = size_t(s.epochs);
        p["rate"] = s.alpha;
        p["sampleSize"] = size_t(50000);
    } else if (t == "plsom") {
        p["sampleSize"] = size_t(50000);
    } else if (t == "graph" || t == "umap") {
        p["k"] = size_t(std::max(1, s.graphK));
    }
    return makeTrainer(t, p, search);
}

}  // namespace sepal::app
