#include "core/train/trainer_registry.h"

#include "core/train/batch_som_trainer.h"
#include "core/train/force_layout.h"
#include "core/train/kmeans_trainer.h"
#include "core/train/plsom_trainer.h"
#include "core/train/som_trainer.h"
#include "core/train/trainer_params.h"
#include "core/train/tsne_layout.h"
#include "core/train/umap_layout.h"

namespace sepal {
namespace {

const ParamChoices<TopologyMetric> kTopologies = {{"grid", TopologyMetric::Chebyshev},
                                                  {"free", TopologyMetric::Euclidean},
                                                  {"square", TopologyMetric::Chebyshev},
                                                  {"chebyshev", TopologyMetric::Chebyshev},
                                                  {"euclidean", TopologyMetric::Euclidean}};
const ParamChoices<Neighbourhood> kNeighbourhoods = {{"square", Neighbourhood::Square},
                                                     {"gaussian", Neighbourhood::Gaussian}};

// The field lists: the JSON keys are the parameter structs' field names.

// The fields of the trainers that stream points (som, batchsom, plsom, kmeans).
template <typename V, typename P>
void streamFields(V& v, P& p) {
    v("epochs", p.epochs);
    v("stepPoints", p.stepPoints);
    v("searchBatch", p.searchBatch);
    v("sampleSize", p.sampleSize);
    v("seed", p.seed);
}

template <typename V, typename P>
void somFields(V& v, P& p) {
    v("alphaStart", p.alphaStart);
    v("alphaEnd", p.alphaEnd);
    v("radiusStart", p.radiusStart);
    v("radiusEnd", p.radiusEnd);
    v.choice("topology", p.topology, kTopologies);
    v.choice("neighbourhood", p.neighbourhood, kNeighbourhoods);
    streamFields(v, p);
}

template <typename V, typename P>
void plsomFields(V& v, P& p) {
    v("beta", p.beta);
    streamFields(v, p);
}

template <typename V, typename P>
void kmeansFields(V& v, P& p) {
    v("rate", p.rate);
    streamFields(v, p);
}

template <typename V, typename P>
void forceFields(V& v, P& p) {
    v("k", p.k);
    v("springLength", p.springLength);
    v("spring", p.spring);
    v("repulsion", p.repulsion);
    v("damping", p.damping);
    v("timeStep", p.timeStep);
    v("iterationsPerStep", p.iterationsPerStep);
    v("iterations", p.iterations);
    v("seed", p.seed);
}

template <typename V, typename P>
void tsneFields(V& v, P& p) {
    v("perplexity", p.perplexity);
    v("exaggeration", p.exaggeration);
    v("exaggerationIters", p.exaggerationIters);
    v("iterations", p.iterations);
    v("learningRate", p.learningRate);
    v("startStd", p.startStd);
    v("iterationsPerStep", p.iterationsPerStep);
    v("seed", p.seed);
}

template <typename V, typename P>
void umapFields(V& v, P& p) {
    v("k", p.k);
    v("minDist", p.minDist);
    v("spread", p.spread);
    v("epochs", p.epochs);
    v("negativeSamples", p.negativeSamples);
    v("learningRate", p.learningRate);
    v("startStd", p.startStd);
    v("epochsPerStep", p.epochsPerStep);
    v("seed", p.seed);
}

// Completes `info` from a parameter struct's starting values, its field list and a constructor:
// the defaults are the fields as written, the factory reads JSON over the same start.
template <typename Params, typename Fields, typename Build>
TrainerInfo entry(TrainerInfo info, const Params& start, Fields fields, Build build) {
    ParamWriter writer;
    Params defaults = start;
    fields(writer, defaults);
    info.defaults = writer.json();
    info.make = [name = info.name, start, fields, build](const nlohmann::json& json,
                                                         NearestSearch& search) {
        ParamReader reader(name, json);
        Params p = start;
        fields(reader, p);
        reader.finish();
        return std::unique_ptr<Trainer>(build(p, search));
    };
    return info;
}

// Small steps with batched winner searches keep one step of an online trainer well inside a
// frame; a fixed subsample keeps its epochs short on large files.
const nlohmann::json kOnlineInteractive = {
    {"stepPoints", 1024}, {"searchBatch", 64}, {"sampleSize", 50000}};

const TrainerParam kEpochs{"epochs", "Epochs", ParamKind::Int, 1, 100, 20};
const TrainerParam kSigma{"radiusStart", "Sigma", ParamKind::Float, 0.1, 5.0, 1.5};
const TrainerParam kAlpha{"alphaStart", "Alpha", ParamKind::Float, 0.001, 0.5, 0.05, true};

std::vector<TrainerInfo> buildRegistry() {
    const auto som = [](auto& v, SomParams& p) { somFields(v, p); };
    SomParams batch;
    batch.stepPoints = 65536;  // assignments are cheap next to an online update
    return {
        entry({"som",
               "Online self-organising map (as EmbedSOM's R package): each point pulls its "
               "winner's map neighbourhood; alpha and radius shrink over the epochs",
               TrainerSpace::Data,
               TrainerInit::Grid,
               {},
               kOnlineInteractive,
               {kEpochs, kAlpha, kSigma},
               {}},
              SomParams{}, som,
              [](const SomParams& p, NearestSearch& s) { return new SomTrainer(p, s); }),
        entry({"batchsom",
               "Batch SOM: every epoch moves each landmark to the neighbourhood-weighted mean "
               "of its map neighbours' points; deterministic, no learning rate",
               TrainerSpace::Data,
               TrainerInit::Grid,
               {},
               {{"sampleSize", 50000}},
               {kEpochs, kSigma},
               {}},
              batch, som,
              [](const SomParams& p, NearestSearch& s) { return new BatchSomTrainer(p, s); }),
        entry(
            {"plsom",
             "Parameter-less SOM: updates scale with the winner's distance, no schedule, so "
             "it keeps adapting while the data changes",
             TrainerSpace::Data,
             TrainerInit::Grid,
             {},
             kOnlineInteractive,
             {{"beta", "Beta (0 = map size)", ParamKind::Float, 0.0, 32.0, 0.0}},
             {}},
            PlsomParams{}, [](auto& v, PlsomParams& p) { plsomFields(v, p); },
            [](const PlsomParams& p, NearestSearch& s) { return new PlsomTrainer(p, s); }),
        entry(
            {"kmeans",
             "Online k-means: each point pulls only its nearest landmark",
             TrainerSpace::Data,
             TrainerInit::Sample,
             {},
             kOnlineInteractive,
             {kEpochs, {"rate", "Alpha", ParamKind::Float, 0.001, 0.5, 0.01, true}},
             {}},
            KmeansParams{}, [](auto& v, KmeansParams& p) { kmeansFields(v, p); },
            [](const KmeansParams& p, NearestSearch& s) { return new KmeansTrainer(p, s); }),
        entry(
            {"graph",
             "Force layout of the landmarks' k-nearest-neighbour graph: springs along its "
             "edges, soft repulsion between all pairs",
             TrainerSpace::Layout,
             TrainerInit::Sample,
             {},
             nlohmann::json::object(),
             {{"k", "Graph k", ParamKind::Int, 1, 30, 10},
              {"repulsion", "Repulsion", ParamKind::Float, 0.05, 5.0, 0.5, true}},
             {}},
            ForceParams{}, [](auto& v, ForceParams& p) { forceFields(v, p); },
            [](const ForceParams& p, NearestSearch&) { return new ForceLayoutTrainer(p); }),
        entry(
            {"tsne",
             "Exact t-SNE of the landmarks, refining their current 2D layout",
             TrainerSpace::Layout,
             TrainerInit::Sample,
             {},
             nlohmann::json::object(),
             {{"perplexity", "Perplexity", ParamKind::Float, 2.0, 100.0, 30.0},
              {"exaggeration", "Exaggeration", ParamKind::Float, 1.0, 32.0, 12.0}},
             {}},
            TsneParams{}, [](auto& v, TsneParams& p) { tsneFields(v, p); },
            [](const TsneParams& p, NearestSearch&) { return new TsneLayoutTrainer(p); }),
        entry(
            {"umap",
             "UMAP-like layout of the landmarks' fuzzy neighbour graph, refining their "
             "current 2D layout",
             TrainerSpace::Layout,
             TrainerInit::Sample,
             {},
             nlohmann::json::object(),
             {{"k", "Graph k", ParamKind::Int, 2, 50, 15},
              {"minDist", "Min distance", ParamKind::Float, 0.0, 1.0, 0.1}},
             {}},
            UmapParams{}, [](auto& v, UmapParams& p) { umapFields(v, p); },
            [](const UmapParams& p, NearestSearch&) { return new UmapLayoutTrainer(p); }),
    };
}

}  // namespace

const std::vector<TrainerInfo>& trainerRegistry() {
    static const std::vector<TrainerInfo> registry = buildRegistry();
    return registry;
}

const TrainerInfo* findTrainer(const std::string& name) {
    for (const auto& t : trainerRegistry())
        if (t.name == name) return &t;
    return nullptr;
}

std::vector<std::string> trainerNames() {
    std::vector<std::string> names;
    for (const auto& t : trainerRegistry()) names.push_back(t.name);
    return names;
}

std::vector<std::string> trainerNames(TrainerSpace space) {
    std::vector<std::string> names;
    for (const auto& t : trainerRegistry())
        if (t.moves == space) names.push_back(t.name);
    return names;
}

}  // namespace sepal
