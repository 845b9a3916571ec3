#include "core/train/trainer_registry.h"

#include <iterator>
#include <stdexcept>
#include <utility>

#include "core/train/batch_som_trainer.h"
#include "core/train/force_layout.h"
#include "core/train/kmeans_trainer.h"
#include "core/train/lloyd_trainer.h"
#include "core/train/plsom_trainer.h"
#include "core/train/som_trainer.h"
#include "core/train/trainer_entry.h"
#include "core/train/trainer_names.h"
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

// The fields of the trainers that stream points (som, batchsom, plsom, online-kmeans).
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
void lloydFields(V& v, P& p) {
    v("epochs", p.epochs);
    v("stepPoints", p.stepPoints);
    v("seed", p.seed);
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

// Small steps with batched winner searches keep one step of an online trainer well inside a
// frame; a fixed subsample keeps its epochs short on large files.
const nlohmann::json kOnlineInteractive = {
    {"stepPoints", 1024}, {"searchBatch", 64}, {"sampleSize", 50000}};

// sepal-cli embed's passes over its training sample for the trainers of data space: the SOMs'
// schedules run over them, and the online trainers would otherwise run until stopped.
const nlohmann::json kTenEpochs = {{"epochs", 10}};

// EmbedSOM's parameters for sampled landmarks laid out by t-SNE: the quality defaults of
// docs/QUALITY.md (k 16, smooth -2, adjust 3). SOM grids keep the R package's (EmbedParams{}).
const EmbedParams kSampledEmbed{16, -2.0f, 3.0f};

const TrainerParam kEpochs{"epochs", "Epochs", ParamKind::Int, 1, 100, 20};
const TrainerParam kSigma{"radiusStart", "Sigma", ParamKind::Float, 0.1, 5.0, 1.5};
const TrainerParam kAlpha{"alphaStart", "Alpha", ParamKind::Float, 0.001, 0.5, 0.05, true};

// "kmeans" is Lloyd's k-means: what `sepal-cli embed --landmarks kmeans:G` has always run (its
// outputs stay the same), and the better start for a layout. The online trainer, which the app
// once offered under that name, is "online-kmeans": one name, one algorithm, everywhere.
TrainerList buildRegistry() {
    const auto som = [](auto& v, SomParams& p) { somFields(v, p); };
    SomParams batch;
    batch.stepPoints = 65536;  // assignments are cheap next to an online update
    return {
        trainerEntry(
            {.name = trainer_name::kSom,
             .description = "Online self-organising map (as EmbedSOM's R package): each point "
                            "pulls its winner's map neighbourhood; alpha and radius shrink over "
                            "the epochs",
             .role = TrainerRole::Landmarks,
             .moves = TrainerSpace::Data,
             .init = TrainerInit::Grid,
             .interactive = kOnlineInteractive,
             .batch = kTenEpochs,
             .followedBy = trainer_name::kKeepGrid,
             .shown = {kEpochs, kAlpha, kSigma}},
            SomParams{}, som,
            [](const SomParams& p, NearestSearch& s) { return new SomTrainer(p, s); }),
        trainerEntry(
            {.name = trainer_name::kBatchSom,
             .description = "Batch SOM: every epoch moves each landmark to the "
                            "neighbourhood-weighted mean of its map neighbours' points; "
                            "deterministic, no learning rate",
             .role = TrainerRole::Landmarks,
             .moves = TrainerSpace::Data,
             .init = TrainerInit::Grid,
             .interactive = {{"sampleSize", 50000}},
             .batch = kTenEpochs,
             .followedBy = trainer_name::kKeepGrid,
             .shown = {kEpochs, kSigma}},
            batch, som,
            [](const SomParams& p, NearestSearch& s) { return new BatchSomTrainer(p, s); }),
        trainerEntry(
            {.name = trainer_name::kPlsom,
             .description = "Parameter-less SOM: updates scale with the winner's distance, no "
                            "schedule, so it keeps adapting while the data changes",
             .role = TrainerRole::Landmarks,
             .moves = TrainerSpace::Data,
             .init = TrainerInit::Grid,
             .interactive = kOnlineInteractive,
             .batch = kTenEpochs,
             .followedBy = trainer_name::kKeepGrid,
             .shown = {{"beta", "Beta (0 = map size)", ParamKind::Float, 0.0, 32.0, 0.0}}},
            PlsomParams{}, [](auto& v, PlsomParams& p) { plsomFields(v, p); },
            [](const PlsomParams& p, NearestSearch& s) { return new PlsomTrainer(p, s); }),
        trainerEntry(
            {.name = trainer_name::kKmeans,
             .description = "Lloyd's k-means: every iteration moves each landmark to the mean "
                            "of the points nearest to it",
             .role = TrainerRole::Landmarks,
             .moves = TrainerSpace::Data,
             .init = TrainerInit::Sample,
             // A part of an iteration per step keeps a frame short; the landmarks are the same.
             .interactive = {{"stepPoints", 4096}},
             .batch = kTenEpochs,
             .followedBy = trainer_name::kTsne,
             .embed = kSampledEmbed,
             .shown = {kEpochs}},
            LloydParams{}, [](auto& v, LloydParams& p) { lloydFields(v, p); },
            [](const LloydParams& p, NearestSearch& s) { return new LloydTrainer(p, s); }),
        trainerEntry(
            {.name = trainer_name::kOnlineKmeans,
             .description = "Online k-means: each point pulls only its nearest landmark",
             .role = TrainerRole::Landmarks,
             .moves = TrainerSpace::Data,
             .init = TrainerInit::Sample,
             .interactive = kOnlineInteractive,
             .batch = kTenEpochs,
             .followedBy = trainer_name::kTsne,
             .embed = kSampledEmbed,
             .shown = {kEpochs, {"rate", "Alpha", ParamKind::Float, 0.001, 0.5, 0.01, true}}},
            KmeansParams{}, [](auto& v, KmeansParams& p) { kmeansFields(v, p); },
            [](const KmeansParams& p, NearestSearch& s) { return new KmeansTrainer(p, s); }),
        trainerEntry(
            {.name = trainer_name::kGraph,
             .description = "Force layout of the landmarks' k-nearest-neighbour graph: springs "
                            "along its edges, soft repulsion between all pairs",
             .role = TrainerRole::Layout,
             .moves = TrainerSpace::Layout,
             .init = TrainerInit::Sample,
             .drawsGraph = true,
             .shown = {{"k", "Graph k", ParamKind::Int, 1, 30, 10},
                       {"repulsion", "Repulsion", ParamKind::Float, 0.05, 5.0, 0.5, true}}},
            ForceParams{}, [](auto& v, ForceParams& p) { forceFields(v, p); },
            [](const ForceParams& p, NearestSearch&) { return new ForceLayoutTrainer(p); }),
        trainerEntry(
            {.name = trainer_name::kTsne,
             .description = "Exact t-SNE of the landmarks, refining their current 2D layout",
             .role = TrainerRole::Layout,
             .moves = TrainerSpace::Layout,
             .init = TrainerInit::Sample,
             // Short runs do: the layout starts from the PCA plane of the landmarks (init).
             .batch = {{"perplexity", 10.0}, {"iterations", 400}, {"exaggerationIters", 100}},
             .supervisable = true,
             .shown = {{"perplexity", "Perplexity", ParamKind::Float, 2.0, 100.0, 30.0},
                       {"exaggeration", "Exaggeration", ParamKind::Float, 1.0, 32.0, 12.0}}},
            TsneParams{}, [](auto& v, TsneParams& p) { tsneFields(v, p); },
            [](const TsneParams& p, NearestSearch&) { return new TsneLayoutTrainer(p); }),
        trainerEntry(
            {.name = trainer_name::kUmap,
             .description = "UMAP-like layout of the landmarks' fuzzy neighbour graph, refining "
                            "their current 2D layout",
             .role = TrainerRole::Layout,
             .moves = TrainerSpace::Layout,
             .init = TrainerInit::Sample,
             .supervisable = true,
             .shown = {{"k", "Graph k", ParamKind::Int, 2, 50, 15},
                       {"minDist", "Min distance", ParamKind::Float, 0.0, 1.0, 0.1}}},
            UmapParams{}, [](auto& v, UmapParams& p) { umapFields(v, p); },
            [](const UmapParams& p, NearestSearch&) { return new UmapLayoutTrainer(p); }),
    };
}

const TrainerInfo* findIn(const TrainerList& list, const std::string& name) {
    for (const auto& t : list)
        if (t.name == name) return &t;
    return nullptr;
}

// Throws std::invalid_argument when `t` cannot work beside the entries of `list`.
void checkEntry(const TrainerInfo& t, const TrainerList& list) {
    const auto bad = [&](const std::string& why) {
        throw std::invalid_argument("trainer \"" + t.name + "\": " + why);
    };
    // --landmarks NAME:SIZE and the lists of names in messages need names without these.
    if (t.name.empty() || t.name.find_first_of(":, ") != std::string::npos)
        bad("a name is needed, without ':', ',' or ' '");
    if (t.description.empty()) bad("no description");
    if (!t.make) bad("no factory");
    if (!t.defaults.is_object() || !t.defaults.contains("seed")) bad("the defaults need a seed");
    if (!t.interactive.is_object() || !t.batch.is_object())
        bad("interactive and batch must be JSON objects");
    if ((t.role == TrainerRole::Landmarks && t.moves != TrainerSpace::Data) ||
        (t.role == TrainerRole::Layout && t.moves != TrainerSpace::Layout))
        bad("its role does not match the space it moves");
    if (placesLandmarks(t) && t.followedBy != trainer_name::kKeepGrid) {
        const TrainerInfo* layout = findIn(list, t.followedBy);
        if (!layout || !laysOutLandmarks(*layout))
            bad("followedBy \"" + t.followedBy + "\" is neither a layout nor \"" +
                trainer_name::kKeepGrid + "\"");
    }
}

// The entries, and how many of them are built in (registerTrainer appends after those).
struct Registry {
    TrainerList list;
    size_t builtIn = 0;
};

Registry& registry() {
    static Registry r = [] {
        Registry made{buildRegistry(), 0};
        made.builtIn = made.list.size();
        for (const auto& t : made.list) checkEntry(t, made.list);
        return made;
    }();
    return r;
}

std::vector<std::string> namesWhere(const std::function<bool(const TrainerInfo&)>& keep) {
    std::vector<std::string> names;
    for (const auto& t : trainerRegistry())
        if (keep(t)) names.push_back(t.name);
    return names;
}

}  // namespace

const TrainerList& trainerRegistry() {
    return registry().list;
}

void registerTrainer(TrainerInfo info) {
    Registry& r = registry();
    if (findIn(r.list, info.name))
        throw std::invalid_argument("trainer \"" + info.name + "\" is registered already");
    checkEntry(info, r.list);
    r.list.push_back(std::move(info));
}

bool unregisterTrainer(const std::string& name) {
    Registry& r = registry();
    auto it = r.list.begin();
    std::advance(it, r.builtIn);
    for (; it != r.list.end(); ++it)
        if (it->name == name) {
            r.list.erase(it);
            return true;
        }
    return false;
}

const TrainerInfo* findTrainer(const std::string& name) {
    return findIn(trainerRegistry(), name);
}

std::vector<std::string> trainerNames() {
    return namesWhere([](const TrainerInfo&) { return true; });
}

std::vector<std::string> trainerNames(TrainerSpace space) {
    return namesWhere([space](const TrainerInfo& t) { return t.moves == space; });
}

std::vector<std::string> trainerNames(TrainerRole role) {
    return namesWhere([role](const TrainerInfo& t) {
        const bool landmarks = placesLandmarks(t), layout = laysOutLandmarks(t);
        if (role == TrainerRole::Landmarks) return landmarks;
        if (role == TrainerRole::Layout) return layout;
        return landmarks && layout;
    });
}

bool placesLandmarks(const TrainerInfo& info) {
    return info.role != TrainerRole::Layout;
}

bool laysOutLandmarks(const TrainerInfo& info) {
    return info.role != TrainerRole::Landmarks;
}

}  // namespace sepal
