#include "core/pipeline/embed_pipeline.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>

#include "core/common/error.h"
#include "core/common/stopwatch.h"
#include "core/knn/lloyd_assigner.h"
#include "core/train/init.h"
#include "core/train/kmeans_trainer.h"
#include "core/train/sampling.h"
#include "core/train/supervision.h"
#include "core/train/trainer_factory.h"
#include "core/train/trainer_params.h"
#include "core/train/trainer_registry.h"

namespace sepal {
namespace {

// Of the rows `usable` of `points`, a seeded sample of `count` (0: all), copied so trainers see
// a compact matrix. With every row usable the sample is the one of samplePoints(rows, count).
Matrix subsample(const Matrix& points, const std::vector<size_t>& usable, size_t count,
                 uint64_t seed) {
    if (usable.size() == points.rows && (count == 0 || count >= points.rows)) return points;
    std::vector<size_t> idx = usable;
    if (count != 0 && count < usable.size()) {
        idx = samplePoints(usable.size(), count, seed);
        for (size_t& i : idx) i = usable[i];
    }
    Matrix out(idx.size(), points.cols);
    for (size_t i = 0; i < idx.size(); ++i)
        std::copy(points.row(idx[i]), points.row(idx[i]) + points.cols, out.row(i));
    return out;
}

// A training sample with the same number of points from every group (trainSample / groups
// each, or all of a smaller group's), each group drawn with its own seed.
Matrix balancedSubsample(const Matrix& points, const std::vector<size_t>& usable,
                         const std::vector<int32_t>& groups, size_t count, uint64_t seed) {
    if (groups.size() != points.rows)
        throw InputError("the balanced sample needs a group for each of the " +
                         std::to_string(points.rows) + " events");
    std::map<int32_t, std::vector<size_t>> members;
    for (size_t i : usable) members[groups[i]].push_back(i);
    const size_t per = count == 0 ? 0 : std::max<size_t>(1, count / members.size());
    std::vector<size_t> idx;
    for (const auto& [group, rows] : members) {
        if (per == 0 || rows.size() <= per) {
            idx.insert(idx.end(), rows.begin(), rows.end());
            continue;
        }
        for (size_t i : samplePoints(rows.size(), per, seed + uint64_t(group) * 7919))
            idx.push_back(rows[i]);
    }
    std::sort(idx.begin(), idx.end());
    Matrix out(idx.size(), points.cols);
    for (size_t i = 0; i < idx.size(); ++i)
        std::copy(points.row(idx[i]), points.row(idx[i]) + points.cols, out.row(i));
    return out;
}

// Why too few events are usable: with missing values, say so and name a column without any.
std::string tooFewEvents(const Matrix& points, size_t usable, size_t count) {
    if (usable == points.rows)
        return "cannot train " + std::to_string(count) + " landmarks on " +
               std::to_string(points.rows) + " events: ask for " + std::to_string(points.rows) +
               " landmarks or fewer";
    std::string why = "cannot train " + std::to_string(count) + " landmarks: only " +
                      std::to_string(usable) + " of the " + std::to_string(points.rows) +
                      " events have a finite value in every column (the others hold NaN, NA "
                      "or infinity)";
    for (size_t c = 0; c < points.cols; ++c) {
        bool any = false;
        for (size_t i = 0; i < points.rows && !any; ++i) any = std::isfinite(points.at(i, c));
        if (!any)
            return why + "; column " + std::to_string(c + 1) +
                   " has no finite value: leave it out (--columns)";
    }
    return why + ": ask for " + std::to_string(usable) + " landmarks or fewer";
}

// Runs a trainer to its end, reporting progress.
void runTrainer(Trainer& trainer, LandmarkModel& model, const TrainingData& data,
                const std::string& stage, const ProgressFn& progress) {
    double last = -1.0;
    while (trainer.step(model, data)) {
        const double p = trainer.progress();
        if (progress && p >= 0.0 && p - last >= 0.05) progress(stage, p), last = p;
    }
    if (progress) progress(stage, 1.0);
}

// The registry's layout trainers, then "grid": what --layout takes.
std::vector<std::string> layoutNames() {
    std::vector<std::string> names = trainerNames(TrainerSpace::Layout);
    names.push_back("grid");
    return names;
}

}  // namespace

std::string landmarkForms() {
    std::vector<std::string> forms;
    for (const auto& t : trainerRegistry())
        if (t.moves == TrainerSpace::Data)
            forms.push_back(t.name + (t.init == TrainerInit::Grid ? ":ROWSxCOLS" : ":COUNT"));
    return joinAlternatives(forms);
}

LandmarkSpec parseLandmarkSpec(const std::string& text) {
    // Nine digits at most, so that the sizes below cannot overflow.
    static const std::regex grid(R"((\d{1,9})x(\d{1,9}))");
    static const std::regex count(R"(\d{1,9})");
    const size_t colon = text.find(':');
    const TrainerInfo* trainer =
        colon == std::string::npos ? nullptr : findTrainer(text.substr(0, colon));
    const std::string size = colon == std::string::npos ? "" : text.substr(colon + 1);
    std::smatch m;
    LandmarkSpec spec;
    if (trainer && trainer->moves == TrainerSpace::Data && trainer->init == TrainerInit::Grid &&
        std::regex_match(size, m, grid)) {
        spec.kind = trainer->name;
        spec.rows = std::stoul(m[1]);
        spec.cols = std::stoul(m[2]);
        spec.count = spec.rows * spec.cols;
    } else if (trainer && trainer->moves == TrainerSpace::Data &&
               trainer->init == TrainerInit::Sample && std::regex_match(size, count)) {
        spec.kind = trainer->name;
        spec.count = std::stoul(size);
    } else {
        throw InputError("--landmarks " + text + ": use " + landmarkForms() +
                         " (for example som:16x16 or kmeans:512)");
    }
    if (spec.count < 4 || spec.count > 65536)
        throw InputError("--landmarks " + text + " gives " + std::to_string(spec.count) +
                         " landmarks: use between 4 and 65536");
    return spec;
}

std::string layoutForms() {
    return joinAlternatives(layoutNames());
}

const std::string& checkLayout(const std::string& text) {
    const auto names = layoutNames();
    if (text.empty() || text == "none" ||
        std::find(names.begin(), names.end(), text) != names.end())
        return text;
    throw InputError("--layout " + text + ": use " + layoutForms());
}

EmbedParams defaultEmbedParams(const LandmarkSpec& spec) {
    if (spec.kind == "kmeans") return EmbedParams{16, -2.0f, 3.0f};
    return EmbedParams{};
}

LandmarkModel trainLandmarks(const Matrix& points, const EmbedSettings& settings,
                             NearestSearch& search, const ProgressFn& progress,
                             EmbedTimings* timings, size_t* skippedNonFinite) {
    const LandmarkSpec& spec = settings.landmarks;
    std::string layout = checkLayout(settings.layout);
    // A supervised layout weakens similarities: only the t-SNE and UMAP-like layouts have them.
    const std::string laidOut = !layout.empty()         ? layout
                                : spec.kind == "kmeans" ? "tsne"
                                                        : "the SOM's grid";
    if (!settings.supervision.empty() && laidOut != "tsne" && laidOut != "umap")
        throw InputError("a supervised layout needs --layout tsne or umap, not " + laidOut);
    if (points.rows == 0)
        throw InputError(
            "cannot train landmarks: the data holds no events; give a file with "
            "at least one event");
    // Events with a missing value are left out of training; projection places them later.
    const std::vector<size_t> usable = finiteRows(points.data(), points.rows, points.cols);
    if (skippedNonFinite) *skippedNonFinite = points.rows - usable.size();
    if (usable.size() < spec.count)
        throw InputError(tooFewEvents(points, usable.size(), spec.count));
    const auto start = StageClock::now();
    const Matrix train = settings.balanceGroups.empty()
                             ? subsample(points, usable, settings.trainSample, settings.seed)
                             : balancedSubsample(points, usable, settings.balanceGroups,
                                                 settings.trainSample, settings.seed);
    const TrainingData data{train.data(), train.rows, train.cols};
    LandmarkModel model;
    InitParams init;
    init.seed = settings.seed;
    if (spec.kind == "kmeans") {
        init.method = InitMethod::Sample;
        init.g = spec.count;
        initModel(model, data, init);
        const auto assigner = search.lloydAssigner(data.points, data.n, data.d);
        for (size_t it = 0; it < settings.lloydIterations; ++it) {
            lloydStep(model, data, search, assigner.get());
            if (progress) progress("train", static_cast<double>(it + 1) / settings.lloydIterations);
        }
        if (layout.empty()) layout = "tsne";
    } else {
        init.method = InitMethod::Grid;
        init.rows = spec.rows;
        init.cols = spec.cols;
        initModel(model, data, init);
        nlohmann::json params = {{"epochs", settings.somEpochs}, {"seed", settings.seed}};
        auto trainer = makeTrainer(spec.kind, params, search);
        runTrainer(*trainer, model, data, "train", progress);
    }
    if (timings) timings->train = secondsSince(start);
    const auto layoutStart = StageClock::now();
    if (!layout.empty() && layout != "none" && layout != "grid") {
        nlohmann::json params = settings.layoutParams;
        if (!params.contains("seed")) params["seed"] = settings.seed;
        if (layout == "tsne") {
            // Short runs do: the layout starts from the PCA plane of the landmarks (init).
            if (!params.contains("perplexity")) params["perplexity"] = 10.0;
            if (!params.contains("iterations")) params["iterations"] = 400;
            if (!params.contains("exaggerationIters")) params["exaggerationIters"] = 100;
        }
        auto trainer = makeTrainer(layout, params, search);
        if (!settings.supervision.empty())
            trainer->supervise(landmarkLabels(points.data(), points.rows, points.cols,
                                              settings.supervision, model, search),
                               settings.supervisionStrength);
        runTrainer(*trainer, model, data, "layout", progress);
    }
    if (timings) timings->layout = secondsSince(layoutStart);
    return model;
}

EmbedResult embedMatrix(const Matrix& points, const EmbedSettings& settings, Projector& projector,
                        NearestSearch& search, const ProgressFn& progress) {
    EmbedResult result;
    result.model = trainLandmarks(points, settings, search, progress, &result.timings,
                                  &result.trainingSkipped);
    validateParams(settings.params, result.model.count());
    const auto start = StageClock::now();
    result.xy = Matrix(points.rows, 2);
    if (progress) progress("project", 0.0);
    result.report = projector.project(points.data(), points.rows, points.cols, result.model,
                                      settings.params, result.xy.data());
    if (progress) progress("project", 1.0);
    result.timings.project = secondsSince(start);
    if (settings.polish.epochs > 0) {
        const auto polishStart = StageClock::now();
        polishPositions(points, result.model, result.xy.data(), settings.polish, search);
        result.timings.polish = secondsSince(polishStart);
    }
    return result;
}

}  // namespace sepal
