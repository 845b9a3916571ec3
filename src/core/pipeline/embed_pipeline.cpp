#include "core/pipeline/embed_pipeline.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/common/error.h"
#include "core/common/stopwatch.h"
#include "core/common/threads.h"
#include "core/train/init.h"
#include "core/train/sampling.h"
#include "core/train/supervision.h"
#include "core/train/trainer_registry.h"
#include "core/train/trainer_run.h"

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
    // Fewer events than the fewest landmarks leave nothing to lay out: no number of landmarks
    // would help (the advice to ask for 2 was refused: a count takes 4 to 65536).
    const auto advice = [&](size_t most) {
        return most < kFewestLandmarks
                   ? ": an embedding needs at least " + std::to_string(kFewestLandmarks) +
                         " events (as many landmarks, EmbedSOM's fewest)"
                   : ": ask for " + std::to_string(most) + " landmarks or fewer";
    };
    if (usable == points.rows)
        return "cannot train " + std::to_string(count) + " landmarks on " +
               std::to_string(points.rows) + (points.rows == 1 ? " event" : " events") +
               advice(points.rows);
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
    return why + advice(usable);
}

}  // namespace

LandmarkModel trainLandmarks(const Matrix& points, const EmbedSettings& settings,
                             NearestSearch& search, const ProgressFn& progress,
                             EmbedTimings* timings, size_t* skippedNonFinite) {
    const LandmarkSpec spec = landmarksFor(settings.landmarks, points.rows);
    const TrainerInfo* trainer = findTrainer(spec.kind);
    if (!trainer || !placesLandmarks(*trainer))
        throw InputError("--landmarks " + spec.kind + ": use " + landmarkForms());
    // The layout asked for, else the one the landmark trainer's entry says follows it.
    const std::string layout = layoutAfter(spec, checkLayout(settings.layout));
    const TrainerInfo* layoutEntry = layoutTrainer(layout);
    // A supervised layout weakens similarities: only some layouts have them.
    if (!settings.supervision.empty() && !(layoutEntry && layoutEntry->supervisable))
        throw InputError(
            "a supervised layout needs --layout " + supervisableLayouts() + ", not " + layout +
            (settings.layout.empty() ? " (the default after " + spec.kind + ")" : std::string()));
    if (points.rows == 0)
        throw InputError(
            "cannot train landmarks: the data holds no events; give a file with "
            "at least one event");
    // Events with a missing value are left out of training; projection places them later.
    const std::vector<size_t> usable = finiteRows(points.data(), points.rows, points.cols);
    if (skippedNonFinite) *skippedNonFinite = points.rows - usable.size();
    if (usable.size() < spec.count)
        throw InputError(tooFewEvents(points, usable.size(), spec.count));
    // Fewer training cells than landmarks would put several landmarks on one cell.
    if (settings.trainSample != 0 && settings.trainSample < spec.count &&
        settings.trainSample < usable.size())
        throw InputError("the training sample (--train-sample " +
                         std::to_string(settings.trainSample) + ") is smaller than the " +
                         std::to_string(spec.count) +
                         " landmarks to train, so landmarks would coincide: give at least " +
                         std::to_string(spec.count) + " (0 trains on every cell)");
    const auto start = StageClock::now();
    const Matrix train = settings.balanceGroups.empty()
                             ? subsample(points, usable, settings.trainSample, settings.seed)
                             : balancedSubsample(points, usable, settings.balanceGroups,
                                                 settings.trainSample, settings.seed);
    const TrainingData data{train.data(), train.rows, train.cols};
    const auto report = [&progress](const char* stage) {
        return progress ? RunProgress([&progress, stage](double p) { progress(stage, p); })
                        : RunProgress();
    };
    LandmarkModel model;
    initModel(model, data, startOf(*trainer, spec.rows, spec.cols, spec.count, settings.seed));
    auto landmarks = makeBatchTrainer(*trainer, settings.landmarkParams, settings.seed, search);
    runToEnd(*landmarks, model, data, report("train"));
    if (timings) timings->train = secondsSince(start);
    const auto layoutStart = StageClock::now();
    if (layoutEntry) {
        auto laying = makeBatchTrainer(*layoutEntry, settings.layoutParams, settings.seed, search);
        if (!settings.supervision.empty())
            laying->supervise(landmarkLabels(points.data(), points.rows, points.cols,
                                             settings.supervision, model, search),
                              settings.supervisionStrength);
        runToEnd(*laying, model, data, report("layout"));
    }
    if (timings) timings->layout = secondsSince(layoutStart);
    return model;
}

EmbedResult embedMatrix(const Matrix& points, const EmbedSettings& settings, Projector& projector,
                        NearestSearch& search, const ProgressFn& progress) {
    // Beside busy programs, no more threads than there are cores free (threads.h).
    const ThreadsForLoad threads;
    EmbedResult result;
    result.timings.threads = threads.threads();
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
        const std::vector<float> embedSom =
            settings.polish.device ? result.xy.values : std::vector<float>();
        try {
            polishPositions(points, result.model, result.xy.data(), settings.polish, search);
        } catch (const InputError&) {
            throw;
        } catch (const std::exception& e) {
            if (!settings.polish.device) throw;
            // The device failed (out of memory, lost): the CPU gives the same picture.
            result.xy.values = embedSom;
            PolishParams onCpu = settings.polish;
            onCpu.device = nullptr;
            polishPositions(points, result.model, result.xy.data(), onCpu, search);
            result.polishNote = std::string("the GPU could not polish (") + e.what() +
                                "); the CPU polished instead";
        }
        result.timings.polish = secondsSince(polishStart);
    }
    return result;
}

}  // namespace sepal
