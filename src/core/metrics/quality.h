#pragma once
// Embedding quality on a subsample: trustworthiness and k-NN preservation (exact neighbours).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sepal {

/// Which points and how many neighbours a quality metric uses.
struct QualityParams {
    size_t k = 10;              ///< neighbours; 1 <= k < (subsample size) / 2 for trustworthiness
    size_t sampleSize = 10000;  ///< points scored; 0 or >= n means all points
    uint64_t seed = 1;          ///< which subsample
};

/// The j-th of m evenly spaced of n items (j n / m): the cells the app's Stats window scores
/// and `sepal-cli score --even` takes, so that both score the same ones.
inline size_t evenlySpaced(size_t j, size_t n, size_t m) {
    return j * n / m;
}

/// Both metrics of one subsample.
struct QualityScores {
    double trustworthiness = 0.0;  ///< 1 = no false 2D neighbours (standard definition)
    double knnPreservation = 0.0;  ///< mean fraction of the k data-space neighbours kept in 2D
    size_t points = 0;             ///< the subsample's size
    /// Per scored point (in the order of its index): the share of its k data-space neighbours
    /// kept in 2D, where the picture tears (low) or holds (high).
    std::vector<float> keptPerPoint;
    /// Where the time went, stage by stage (seconds; filled by scorers that time their stages).
    std::vector<std::pair<std::string, double>> stageSeconds;
    /// The share of the cell pairs whose distances the GPU's ranks compared (1: every pair;
    /// -1 where not counted).
    double pairsCompared = -1.0;
};

/// high: n x d, low: n x 2, both row-major. Neighbours are found within the subsample, ties
/// broken by index. Trustworthiness is 1 - 2 / (m k (2m - 3k - 1)) * sum over points of
/// sum over 2D neighbours j that are no data-space neighbour of (rank_data(i, j) - k).
/// Throws InputError when k does not fit the subsample. OpenMP; thread-count independent.
QualityScores scoreEmbedding(const float* high, size_t n, size_t d, const float* low,
                             const QualityParams& params);

/// The points scoreEmbedding scores: params.sampleSize of n (all for 0), drawn with the seed,
/// ascending. Throws InputError when k does not fit them.
std::vector<size_t> qualitySample(size_t n, const QualityParams& params);

/// Scores embeddings on a device; every scorer gives scoreEmbedding's figures.
class QualityScorer {
  public:
    virtual ~QualityScorer() = default;
    /// "cpu" or "cuda".
    virtual std::string name() const = 0;
    /// As scoreEmbedding.
    virtual QualityScores score(const float* high, size_t n, size_t d, const float* low,
                                const QualityParams& params) = 0;
};

/// scoreEmbedding on all cores.
std::unique_ptr<QualityScorer> makeCpuQualityScorer();

/// How well the picture keeps labels apart: over the subsample scoreEmbedding scores (its
/// points with a label, labels[i] >= 0), the mean share of each point's k nearest 2D neighbours
/// (within the subsample, ties by index) that carry its label. low: n x 2; labels: n values.
double labelAgreement(const float* low, size_t n, const std::vector<int32_t>& labels,
                      const QualityParams& params);

/// How far apart the picture lays the labels out: the mean 2D silhouette of the subsample's
/// labelled points ((b - a) / max(a, b), a: the mean distance to the point's own label, b: the
/// smallest mean distance to another label), from -1 (mixed) to 1 (apart). 0 with one label.
double labelSilhouette(const float* low, size_t n, const std::vector<int32_t>& labels,
                       const QualityParams& params);

/// Trustworthiness alone (see scoreEmbedding).
double trustworthiness(const float* high, size_t n, size_t d, const float* low,
                       const QualityParams& params);
/// k-NN preservation alone (see scoreEmbedding).
double knnPreservation(const float* high, size_t n, size_t d, const float* low,
                       const QualityParams& params);

}  // namespace sepal
