// sepal-bench busy: one stage timed with 1 and with more threads while busy processes occupy
// every core (as on a shared machine), as JSON lines; --competitors 0 gives the quiet figures.

#include <omp.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "backend/backends.h"
#include "bench_registry.h"
#include "busy_load.h"
#include "core/common/threads.h"
#include "core/pipeline/embed_pipeline.h"
#include "core/pipeline/prepare.h"

namespace sepal::bench {

namespace {

struct BusyOptions {
    std::string data;
    std::vector<std::string> stages{"embed", "som", "sweep"};
    int competitors = -1;  // -1: one per core
    int threads = 2;
    int repeats = 3;
    unsigned limitSeconds = 600;
    size_t slice = 16384;  // the application's sweeper slice (projection_sweeper.cpp)
    mutable std::vector<int> threadsUsed;  // embed: the threads each run's stages ran on
};

// One run of a stage: its result, compared across thread counts bit for bit.
using Stage = std::function<std::vector<float>()>;

struct Run {
    double wall = 0.0;
    double cpu = 0.0;
};

double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

Run timeOnce(const Stage& stage, int threads, std::vector<float>& result) {
    omp_set_num_threads(threads);
    const double cpu0 = cpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    result = stage();
    const auto t1 = std::chrono::steady_clock::now();
    return {std::chrono::duration<double>(t1 - t0).count(), cpuSeconds() - cpu0};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::vector<float> flat(const Matrix& m) {
    return std::vector<float>(m.data(), m.data() + m.rows * m.cols);
}

Stage makeStage(const std::string& name, const BusyOptions& o, const Matrix& points,
                Backend& backend) {
    if (name == "embed") {
        // sepal-cli embed's defaults: kmeans:512, t-SNE, EmbedSOM of every point; the threads
        // it ran on (cut to the cores free) are kept for the JSON line.
        return [&points, &backend, &o] {
            const EmbedResult r =
                embedMatrix(points, EmbedSettings{}, *backend.projector, *backend.search);
            o.threadsUsed.push_back(r.timings.threads);
            return flat(r.xy);
        };
    }
    if (name == "som") {
        // The online SOM: 10 epochs of single points in batches of 32 (trainer many small steps).
        return [&points, &backend] {
            EmbedSettings s;
            s.landmarks = parseLandmarkSpec("som:16x16");
            return trainLandmarks(points, s, *backend.search).high;
        };
    }
    if (name == "sweep") {
        // The application's projection after a landmark moved: every point, slice by slice.
        auto model = std::make_shared<LandmarkModel>(
            trainLandmarks(points, EmbedSettings{}, *backend.search));
        const size_t slice = o.slice;
        return [&points, &backend, model, slice] {
            std::vector<float> xy(2 * points.rows);
            const EmbedParams params = EmbedSettings{}.params;
            for (size_t first = 0; first < points.rows; first += slice)
                backend.projector->project(points.row(first), std::min(slice, points.rows - first),
                                           points.cols, *model, params, xy.data() + 2 * first);
            return xy;
        };
    }
    throw std::runtime_error("busy: unknown stage '" + name + "' (use embed, som or sweep)");
}

const char* envOr(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v ? v : fallback;
}

void runStage(const std::string& name, const BusyOptions& o, const Matrix& points,
              Backend& backend) {
    const Stage stage = makeStage(name, o, points, backend);
    std::vector<float> one, many;
    timeOnce(stage, o.threads, many);  // warm-up: caches, pages, thread pool
    const int competitors = o.competitors < 0 ? omp_get_num_procs() : o.competitors;
    const double loadBefore = loadAverage();
    std::vector<double> wall1, wall2, cpu1, cpu2;
    std::vector<int> usedMany;  // embed: the threads each run with o.threads ran on
    bool identical = true;
    {
        BusyLoad load(competitors, o.limitSeconds);
        std::this_thread::sleep_for(std::chrono::milliseconds(competitors > 0 ? 200 : 0));
        for (int r = 0; r < o.repeats; ++r) {
            // Alternate the order so that a drift of the machine's load hits both alike.
            for (int i = 0; i < 2; ++i) {
                const bool single = (i == 0) == (r % 2 == 0);
                const Run run = timeOnce(stage, single ? 1 : o.threads, single ? one : many);
                if (!single && !o.threadsUsed.empty()) usedMany.push_back(o.threadsUsed.back());
                (single ? wall1 : wall2).push_back(run.wall);
                (single ? cpu1 : cpu2).push_back(run.cpu);
            }
            identical = identical && one == many;
        }
    }
    nlohmann::json j = nlohmann::json::parse(contextJson());
    j["bench"] = "busy";
    j["stage"] = name;
    j["data"] = o.data;
    j["n"] = points.rows;
    j["d"] = points.cols;
    j["competitors"] = competitors;
    j["load_before"] = loadBefore;
    j["load_after"] = loadAverage();
    j["omp_wait_policy"] = envOr("OMP_WAIT_POLICY", "unset");
    j["gomp_spincount"] = envOr("GOMP_SPINCOUNT", "unset");
    j["repeats"] = o.repeats;
    j["threads_many"] = o.threads;
    // embed cuts its threads to the cores other programs leave free (ThreadsForLoad): what the
    // runs asked for threads_many ran on.
    if (!usedMany.empty()) j["threads_used_many"] = usedMany;
    j["wall_1_s"] = median(wall1);
    j["wall_many_s"] = median(wall2);
    j["ratio_many_to_1"] = median(wall2) / median(wall1);
    j["cpu_1_s"] = median(cpu1);
    j["cpu_many_s"] = median(cpu2);
    j["identical"] = identical;
    std::printf("%s\n", j.dump().c_str());
    std::fflush(stdout);
}

void runBusy(BusyOptions o) {
    checkThreadCount(o.threads, "--threads");
    if (o.threads == 0) o.threads = omp_get_num_procs();
    PreparedInput input = prepareInputs({o.data}, PrepareOptions{});
    Backend backend = makeBackend("cpu");
    for (const auto& name : o.stages) runStage(name, o, input.points, backend);
}

void addBusy(CLI::App& app) {
    auto o = std::make_shared<BusyOptions>();
    CLI::App* cmd = app.add_subcommand(
        "busy",
        "a stage timed with 1 and with more threads while busy processes use every core: wall "
        "and CPU seconds, their ratio, and whether the results are identical");
    cmd->add_option("--data", o->data, "input file (FCS, CSV or points JSON), e.g. data/demo.fcs")
        ->required();
    cmd->add_option("--stages", o->stages, "embed (sepal-cli embed's recipe), som, sweep")
        ->delimiter(',');
    cmd->add_option("--competitors", o->competitors,
                    "busy processes (default: one per core; 0: a quiet measurement)");
    cmd->add_option("--threads", o->threads, "the thread count compared with 1 (0 = one per core)");
    cmd->add_option("--repeats", o->repeats, "runs of each thread count (the median is kept)");
    cmd->add_option("--limit", o->limitSeconds, "seconds after which a busy process ends itself");
    cmd->add_option("--slice", o->slice, "sweep: points per projection call");
    cmd->callback([o] { runBusy(*o); });
}

BenchRegistration busyBench{addBusy};

}  // namespace
}  // namespace sepal::bench
