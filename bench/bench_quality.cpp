// sepal-bench quality: trustworthiness and wall time of the embed recipe over a grid of settings
// (the measurements behind docs/QUALITY.md), one JSON line per setting.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/backends.h"
#include "bench_registry.h"
#include "core/io/points_json.h"
#include "core/metrics/quality.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/train/trainer_names.h"

namespace sepal::bench {
namespace {

struct QualityOptions {
    std::string points;
    std::vector<std::string> landmarks{"kmeans:512"};
    std::vector<std::string> layouts{""};
    std::vector<int> k{16};
    std::vector<float> smooth{-2.0f};
    std::vector<float> adjust{3.0f};
    std::vector<float> perplexity{10.0f};
    std::vector<size_t> iterations{400};
    std::vector<size_t> exaggerationIters{100};
    std::vector<size_t> trainSample{20000};
    std::vector<size_t> lloyd{10};
    std::vector<uint64_t> seeds{1};
    size_t scoreSample = 10000;
    size_t scoreK = 10;
    std::string backend = "cpu";
};

void runQuality(const QualityOptions& o) {
    const io::Table table = io::readPointsJson(o.points);
    const Matrix& x = table.values;
    Backend backend = makeBackend(o.backend);
    const size_t total = o.landmarks.size() * o.layouts.size() * o.trainSample.size() *
                         o.lloyd.size() * o.perplexity.size() * o.iterations.size() *
                         o.exaggerationIters.size() * o.k.size() * o.smooth.size() *
                         o.adjust.size() * o.seeds.size();
    // One flat loop over the grid: each option list is one digit of a mixed-radix counter.
    for (size_t flat = 0; flat < total; ++flat) {
        size_t rest = flat;
        auto pick = [&rest](const auto& list) {
            const auto& v = list[rest % list.size()];
            rest /= list.size();
            return v;
        };
        const float adj = pick(o.adjust), sm = pick(o.smooth);
        const int k = pick(o.k);
        const size_t it = pick(o.iterations);
        const size_t ex = pick(o.exaggerationIters);
        const float perp = pick(o.perplexity);
        const size_t ll = pick(o.lloyd), ts = pick(o.trainSample);
        const std::string layout = pick(o.layouts), lm = pick(o.landmarks);
        const uint64_t seed = pick(o.seeds);

        EmbedSettings s;
        s.landmarks = parseLandmarkSpec(lm);
        s.layout = layout;
        s.params = {k, sm, adj};
        s.trainSample = ts;
        if (s.landmarks.kind == trainer_name::kKmeans) s.landmarkParams = {{"epochs", ll}};
        s.seed = seed;
        if (layout.empty() || layout == "tsne")
            s.layoutParams = {{"perplexity", perp}, {"iterations", it}, {"exaggerationIters", ex}};
        // CPU seconds of all threads: comparable across runs on a shared, busy machine.
        const std::clock_t cpuStart = std::clock();
        const EmbedResult r = embedMatrix(x, s, *backend.projector, *backend.search);
        const double cpu = static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;
        QualityParams q;
        q.k = o.scoreK;
        q.sampleSize = o.scoreSample;
        const QualityScores sc = scoreEmbedding(x.data(), x.rows, x.cols, r.xy.data(), q);

        nlohmann::json j = nlohmann::json::parse(contextJson());
        j["bench"] = "quality";
        j["data"] = o.points;
        j["n"] = x.rows;
        j["landmarks"] = lm;
        j["layout"] = layout.empty() ? "default" : layout;
        j["train_sample"] = ts;
        j["lloyd"] = ll;
        j["perplexity"] = perp;
        j["iterations"] = it;
        j["exaggeration_iters"] = ex;
        j["k"] = k;
        j["smooth"] = sm;
        j["adjust"] = adj;
        j["seed"] = seed;
        j["train_s"] = r.timings.train;
        j["layout_s"] = r.timings.layout;
        j["project_s"] = r.timings.project;
        j["total_s"] = r.timings.train + r.timings.layout + r.timings.project;
        j["cpu_s"] = cpu;
        j["trustworthiness"] = sc.trustworthiness;
        j["knn_preservation"] = sc.knnPreservation;
        std::printf("%s\n", j.dump().c_str());
        std::fflush(stdout);
    }
}

void addQuality(CLI::App& app) {
    auto o = std::make_shared<QualityOptions>();
    CLI::App* cmd = app.add_subcommand(
        "quality",
        "embed recipe on a points JSON file over a grid of settings: seconds per "
        "stage and trustworthiness (k = 10, 10,000-point subsample)");
    cmd->add_option("--points", o->points, "points JSON file (e.g. mammoth_3d_50k.json)")
        ->required();
    cmd->add_option("--landmarks", o->landmarks, "landmark specs")->delimiter(',');
    cmd->add_option("--layout", o->layouts, "layouts (empty = default)")->delimiter(',');
    cmd->add_option("--k", o->k, "EmbedSOM k values")->delimiter(',');
    cmd->add_option("--smooth", o->smooth, "smooth values")->delimiter(',');
    cmd->add_option("--adjust", o->adjust, "adjust values")->delimiter(',');
    cmd->add_option("--perplexity", o->perplexity, "t-SNE perplexities")->delimiter(',');
    cmd->add_option("--iterations", o->iterations, "t-SNE iterations")->delimiter(',');
    cmd->add_option("--exaggeration-iters", o->exaggerationIters,
                    "t-SNE early exaggeration iterations")
        ->delimiter(',');
    cmd->add_option("--train-sample", o->trainSample, "training subsample sizes")->delimiter(',');
    cmd->add_option("--lloyd", o->lloyd, "Lloyd iterations")->delimiter(',');
    cmd->add_option("--seed", o->seeds, "seeds")->delimiter(',');
    cmd->add_option("--score-sample", o->scoreSample, "points scored");
    cmd->add_option("--backend", o->backend, "projection backend");
    cmd->callback([o] { runQuality(*o); });
}

BenchRegistration qualityBench{addQuality};

}  // namespace
}  // namespace sepal::bench
