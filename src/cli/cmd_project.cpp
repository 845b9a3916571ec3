// sepal-cli project: EmbedSOM of data through landmarks given as plain CSV matrices, for users
// who bring landmarks from elsewhere (a FlowSOM codebook and its grid, say).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "backend/backends.h"
#include "cli/command_registry.h"
#include "cli/csv_matrix.h"
#include "core/common/error.h"
#include "core/io/input_guard.h"

namespace sepal::cli {

namespace {

struct ProjectOptions {
    std::string data, landmarks, positions, out;
    std::string backend = "auto";
    std::string kernel = "auto";
    EmbedParams params;
};

void runProject(const ProjectOptions& o) {
    io::refuseOverwritingInput(o.out, {o.data, o.landmarks, o.positions}, "--out");
    const Matrix x = readCsvMatrix(o.data);
    const Matrix high = readCsvMatrix(o.landmarks);
    const Matrix low = readCsvMatrix(o.positions);
    if (high.cols != x.cols)
        throw InputError(o.landmarks + " has " + std::to_string(high.cols) + " columns but " +
                         o.data + " has " + std::to_string(x.cols) +
                         "; landmarks and data need the same dimensions in the same order");
    if (low.cols != 2 || low.rows != high.rows)
        throw InputError(o.positions + " must hold " + std::to_string(high.rows) +
                         " rows of 2 values (one 2D position per landmark); it has " +
                         std::to_string(low.rows) + " rows of " + std::to_string(low.cols));
    LandmarkModel model;
    model.resize(high.rows, high.cols);
    model.high = high.values;
    model.low = low.values;
    model.touch();
    BackendOptions options;
    options.kernel = o.kernel;
    Backend backend = makeBackend(o.backend, options);
    Matrix y(x.rows, 2);
    std::fprintf(stderr,
                 "project: %zu points, %zu dimensions, %zu landmarks, k %d; backend %s (%s)\n",
                 x.rows, x.cols, high.rows, resolveK(o.params, high.rows), backend.name.c_str(),
                 backend.reason.c_str());
    const ProjectionReport r =
        backend.projector->project(x.data(), x.rows, x.cols, model, o.params, y.data());
    if (r.nonFinitePoints)
        std::fprintf(stderr,
                     "project: %zu points had missing or non-finite values; they were placed "
                     "by their finite coordinates\n",
                     r.nonFinitePoints);
    if (r.degeneratePoints)
        std::fprintf(stderr,
                     "project: %zu points were equidistant from their neighbours; they were "
                     "placed at the neighbours' mean\n",
                     r.degeneratePoints);
    writeCsvPoints(o.out, y);
}

void addProject(CLI::App& app) {
    auto o = std::make_shared<ProjectOptions>();
    CLI::App* sub = app.add_subcommand(
        "project", "EmbedSOM with landmarks given as CSV matrices; writes n rows of x,y");
    sub->add_option("--data", o->data, "points: n rows of d numbers (CSV, no header needed)")
        ->required();
    sub->add_option("--landmarks", o->landmarks, "landmarks: g rows of d numbers")->required();
    sub->add_option("--positions", o->positions, "the landmarks' 2D positions: g rows of x,y")
        ->required();
    sub->add_option("--out", o->out, "output CSV: n rows of x,y")->required();
    sub->add_option("--k", o->params.k, "neighbours, 4 <= k <= g (default floor(1 + sqrt(g)))");
    sub->add_option("--smooth", o->params.smooth, "smoothing, >= -3 (default 0)");
    sub->add_option("--adjust", o->params.adjust, "2D distance discount, >= 0 (default 1)");
    sub->add_option("--backend", o->backend, "cpu, reference, cuda or auto (default)");
    sub->add_option("--kernel", o->kernel, "CUDA projection kernel by name (default auto)");
    sub->callback([o] { runProject(*o); });
}

const CommandRegistration projectCommand{addProject};

}  // namespace

}  // namespace sepal::cli
