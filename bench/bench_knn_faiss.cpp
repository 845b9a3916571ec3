// sepal-bench knn-faiss: the exact k-NN graph of every point on the CPU (sepal-cli knn) against
// FAISS's exact flat index (IndexFlatL2) on the same points and cores, as JSON lines. Built only
// where Debian's libfaiss-dev is installed (the benchmark alone uses it).

#ifdef SEPAL_HAVE_FAISS

#include <faiss/IndexFlat.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench_registry.h"
#include "core/knn/knn_graph.h"
#include "embedsom_bench_data.h"

namespace sepal::bench {

namespace {

struct FaissOptions {
    std::vector<size_t> n{100000};
    std::vector<size_t> d{32};
    size_t k = 15;
    int repeats = 1;
    uint64_t seed = 42;
};

void runFaiss(const FaissOptions& o) {
    for (size_t d : o.d)
        for (size_t n : o.n) {
            const std::vector<float> x = benchPoints("clustered", n, d, o.seed + d);
            Matrix points(n, d);
            std::copy(x.begin(), x.end(), points.values.begin());
            KnnGraph ours;
            const Timings sepal = timeRepeated(
                o.repeats, [&] { ours = knnGraph(points, o.k, KnnMetric::Euclidean); });
            // FAISS finds each point itself too: k + 1 neighbours, the first dropped.
            std::vector<float> dist(n * (o.k + 1));
            std::vector<faiss::Index::idx_t> idx(n * (o.k + 1));
            const Timings flat = timeRepeated(o.repeats, [&] {
                faiss::IndexFlatL2 index(static_cast<faiss::Index::idx_t>(d));
                index.add(faiss::Index::idx_t(n), x.data());
                index.search(faiss::Index::idx_t(n), x.data(), faiss::Index::idx_t(o.k + 1),
                             dist.data(), idx.data());
            });
            // Rows whose neighbour sets agree (FAISS breaks ties and rounds on its own).
            size_t same = 0;
            for (size_t i = 0; i < n; ++i) {
                std::vector<uint32_t> a(ours.neighbours.begin() + long(i * o.k),
                                        ours.neighbours.begin() + long((i + 1) * o.k)),
                    b;
                for (size_t j = 0; j <= o.k; ++j)
                    if (size_t(idx[i * (o.k + 1) + j]) != i && b.size() < o.k)
                        b.push_back(uint32_t(idx[i * (o.k + 1) + j]));
                std::sort(a.begin(), a.end());
                std::sort(b.begin(), b.end());
                same += a == b;
            }
            nlohmann::json j = nlohmann::json::parse(contextJson());
            j["bench"] = "knn-faiss";
            j["n"] = n;
            j["d"] = d;
            j["k"] = o.k;
            j["threads"] = omp_get_max_threads();
            j["sepal_s"] = sepal.median;
            j["faiss_flat_s"] = flat.median;
            j["sepal_over_faiss"] = sepal.median / flat.median;
            j["rows_with_the_same_neighbours"] = double(same) / double(n);
            std::printf("%s\n", j.dump().c_str());
            std::fflush(stdout);
        }
}

void addFaiss(CLI::App& app) {
    auto o = std::make_shared<FaissOptions>();
    CLI::App* sub = app.add_subcommand(
        "knn-faiss",
        "The CPU's exact k-NN graph against FAISS's flat index, same points and cores");
    sub->add_option("--n", o->n, "points, a list")->delimiter(',');
    sub->add_option("--d", o->d, "dimensions, a list")->delimiter(',');
    sub->add_option("--k", o->k, "neighbours");
    sub->add_option("--repeats", o->repeats, "timed runs after a warm-up (0: one, no warm-up)");
    sub->add_option("--seed", o->seed, "data seed");
    sub->callback([o] { runFaiss(*o); });
}

BenchRegistration knnFaissBench{addFaiss};

}  // namespace
}  // namespace sepal::bench

#endif
