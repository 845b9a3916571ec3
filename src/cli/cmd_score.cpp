// sepal-cli score: how well an embedding keeps neighbourhoods (trustworthiness, k-NN
// preservation) on a fixed subsample.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "backend/backends.h"
#include "cli/cli_progress.h"
#include "cli/cli_seed.h"
#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/common/threads.h"
#include "core/metrics/quality.h"
#include "core/pipeline/export_table.h"
#include "core/pipeline/prepare.h"

namespace sepal::cli {
namespace {

struct ScoreArgs {
    std::vector<std::string> inputs;
    PrepareOptions prepare;
    std::string embedding;
    size_t k = 10;
    size_t sample = 10000;
    uint64_t seed = 1;
    int threads = 0;
    std::string backend = "auto";
    std::string labels;
    bool json = false;
    bool even = false;  // evenly spaced events instead of a seeded random subsample
};

// The 2D coordinates in an embedding table: EmbedSOM1/EmbedSOM2, embed_x/embed_y (tables
// written before those names), or its only two columns.
Matrix coordinates(const io::Table& t) {
    int cx = t.findChannel(kEmbedSom1), cy = t.findChannel(kEmbedSom2);
    if (cx < 0 || cy < 0) cx = t.findChannel(kLegacyEmbedX), cy = t.findChannel(kLegacyEmbedY);
    if ((cx < 0 || cy < 0) && t.channels.size() == 2) cx = 0, cy = 1;
    if (cx < 0 || cy < 0)
        throw InputError(t.source + ": no " + kEmbedSom1 + " and " + kEmbedSom2 +
                         " columns and not exactly two columns; give the table embed wrote");
    Matrix xy(t.events(), 2);
    for (size_t i = 0; i < t.events(); ++i) {
        xy.at(i, 0) = t.values.at(i, cx);
        xy.at(i, 1) = t.values.at(i, cy);
    }
    return xy;
}

void runScore(const ScoreArgs& a) {
    setThreads(a.threads);
    PreparedInput input = prepareInputs(a.inputs, a.prepare);
    Matrix xy = coordinates(readInput(a.embedding));
    if (xy.rows != input.points.rows)
        throw InputError(a.embedding + " has " + std::to_string(xy.rows) +
                         " rows but the inputs have " + std::to_string(input.points.rows) +
                         " events; score the files it was made from");
    // Distances need every value: events with a missing one (in the data or the embedding) are
    // left out of the score, and the note says how many.
    std::vector<uint8_t> whole(xy.rows, 1);
    size_t left = 0;
    for (size_t i = 0; i < xy.rows; ++i) {
        bool finite = std::isfinite(xy.at(i, 0)) && std::isfinite(xy.at(i, 1));
        for (size_t c = 0; c < input.points.cols && finite; ++c)
            finite = std::isfinite(input.points.at(i, c));
        if (!finite) whole[i] = 0, ++left;
    }
    if (left > 0) {
        note(
            false,
            std::to_string(left) + " of " + std::to_string(xy.rows) +
                " events hold a missing value (NaN, NA or infinite) and are left out of the score");
        if (left == xy.rows)
            throw InputError("no event has a value in every column: nothing to score");
        Matrix points(xy.rows - left, input.points.cols), kept(xy.rows - left, 2);
        for (size_t i = 0, r = 0; i < xy.rows; ++i)
            if (whole[i]) {
                std::copy_n(input.points.row(i), input.points.cols, points.row(r));
                std::copy_n(xy.row(i), 2, kept.row(r));
                ++r;
            }
        input.points = std::move(points);
        xy = std::move(kept);
        input.table = io::keepRows(input.table, whole);
    }
    QualityParams params;
    params.k = a.k;
    params.sampleSize = a.sample;
    params.seed = a.seed;
    std::vector<size_t> taken;  // with --even, the events scored
    if (a.even && a.sample > 0 && a.sample < xy.rows) {
        // The app's Stats window's cells: m evenly spaced events.
        const size_t m = a.sample, n = xy.rows;
        Matrix points(m, input.points.cols), kept(m, 2);
        for (size_t j = 0; j < m; ++j) {
            const size_t i = evenlySpaced(j, n, m);
            taken.push_back(i);
            std::copy_n(input.points.row(i), input.points.cols, points.row(j));
            std::copy_n(xy.row(i), 2, kept.row(j));
        }
        input.points = std::move(points);
        xy = std::move(kept);
        params.sampleSize = 0;  // the events taken are the sample
    }
    Backend backend = makeBackend(a.backend);
    const ThreadsForLoad threads;  // beside busy programs, the cores they leave free
    const QualityScores s = backend.quality->score(input.points.data(), input.points.rows,
                                                   input.points.cols, xy.data(), params);
    // How well the picture keeps a label column's groups apart (a supervised layout's aim).
    std::optional<double> agreement, silhouette;
    if (!a.labels.empty()) {
        const io::LabelColumn* column = nullptr;
        std::string names;
        for (const auto& l : input.table.labels) {
            if (l.name == a.labels) column = &l;
            names += (names.empty() ? "" : ", ") + l.name;
        }
        if (!column)
            throw InputError("--labels " + a.labels + ": no such label column (the inputs have " +
                             (names.empty() ? std::string("none") : names) + ")");
        std::vector<int32_t> codes = column->codes;
        if (!taken.empty()) {
            codes.clear();
            for (size_t i : taken) codes.push_back(column->codes[i]);
        }
        agreement = labelAgreement(xy.data(), xy.rows, codes, params);
        silhouette = labelSilhouette(xy.data(), xy.rows, codes, params);
    }
    if (a.json) {
        nlohmann::json j = {{"trustworthiness", s.trustworthiness},
                            {"knn_preservation", s.knnPreservation},
                            {"points", s.points},
                            {"k", a.k},
                            {"seed", a.seed}};
        if (agreement) j["label_agreement"] = *agreement, j["label_silhouette"] = *silhouette;
        std::printf("%s\n", j.dump().c_str());
    } else {
        std::printf("trustworthiness %.5f\nknn_preservation %.5f\npoints %zu\nk %zu\n",
                    s.trustworthiness, s.knnPreservation, s.points, a.k);
        if (agreement)
            std::printf("label_agreement %.5f\nlabel_silhouette %.5f\n", *agreement, *silhouette);
    }
}

void addScoreCommand(CLI::App& app) {
    auto args = std::make_shared<ScoreArgs>();
    CLI::App* cmd = app.add_subcommand(
        "score",
        "Trustworthiness and k-NN preservation of an embedding on a fixed subsample, "
        "measured in the transformed space of the inputs");
    cmd->add_option("inputs", args->inputs, "the files that were embedded")->required();
    cmd->add_option("--embedding", args->embedding, "table with EmbedSOM1, EmbedSOM2 (from embed)")
        ->required();
    cmd->add_option("--k", args->k, "neighbours")->capture_default_str();
    cmd->add_option("--sample", args->sample, "events scored (0 = all)")->capture_default_str();
    addSeedOption(cmd, args->seed, "which subsample");
    cmd->add_flag("--even", args->even,
                  "score --sample evenly spaced events instead of a random subsample (the app's "
                  "Stats window: --sample 5000 --even)");
    cmd->add_option("--columns", args->prepare.columns, "as for embed")->delimiter(',');
    cmd->add_option("--transform", args->prepare.transform, "as for embed")->capture_default_str();
    cmd->add_option("--threads", args->threads, "CPU threads (0 = all)")->capture_default_str();
    cmd->add_option("--labels", args->labels,
                    "a label column: also print label_agreement (the mean share of a scored "
                    "event's k nearest 2D neighbours with its label) and label_silhouette (how "
                    "far apart the labels lie, -1 to 1)");
    cmd->add_option("--backend", args->backend,
                    "cpu, cuda or auto (the GPU when there is one; the same figures)")
        ->capture_default_str();
    cmd->add_flag("--json", args->json, "one JSON object instead of lines");
    cmd->callback([args] { runScore(*args); });
}

CommandRegistration scoreCommand{addScoreCommand};

}  // namespace
}  // namespace sepal::cli
