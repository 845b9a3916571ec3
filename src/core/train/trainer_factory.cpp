#include "core/train/trainer_factory.h"

#include <set>

#include "core/common/error.h"
#include "core/train/batch_som_trainer.h"
#include "core/train/force_layout.h"
#include "core/train/kmeans_trainer.h"
#include "core/train/plsom_trainer.h"
#include "core/train/som_trainer.h"
#include "core/train/tsne_layout.h"
#include "core/train/umap_layout.h"

namespace sepal {

namespace {

// Reads keys into fields, remembering which keys were used so that typos are reported.
class ParamReader {
  public:
    ParamReader(const std::string& trainer, const nlohmann::json& params)
        : m_trainer(trainer), m_params(params) {
        if (!params.is_null() && !params.is_object())
            throw InputError("parameters of trainer \"" + trainer + "\" must be a JSON object");
    }

    template <typename T>
    void read(const char* key, T& field) {
        m_known.insert(key);
        if (m_params.is_null() || !m_params.contains(key)) return;
        try {
            if constexpr (std::is_unsigned_v<T>) {
                if (m_params.at(key).is_number_integer() && m_params.at(key).get<long long>() < 0)
                    throw InputError("");
            }
            field = m_params.at(key).get<T>();
        } catch (const std::exception&) {
            throw InputError("trainer \"" + m_trainer + "\": parameter \"" + key +
                             "\" has the wrong type or sign: " + m_params.at(key).dump());
        }
    }

    std::string readString(const char* key, const std::string& fallback) {
        std::string s = fallback;
        read(key, s);
        return s;
    }

    void finish() const {
        if (m_params.is_null()) return;
        for (const auto& [key, value] : m_params.items())
            if (!m_known.count(key)) {
                std::string known;
                for (const auto& k : m_known) known += (known.empty() ? "" : ", ") + k;
                throw InputError("trainer \"" + m_trainer + "\" has no parameter \"" + key +
                                 "\" (it knows: " + known + ")");
            }
    }

  private:
    std::string m_trainer;
    const nlohmann::json& m_params;
    std::set<std::string> m_known;
};

Neighbourhood parseNeighbourhood(const std::string& s) {
    if (s == "square") return Neighbourhood::Square;
    if (s == "gaussian") return Neighbourhood::Gaussian;
    throw InputError("unknown SOM neighbourhood \"" + s + "\": use square or gaussian");
}

SomParams readSom(ParamReader& r) {
    SomParams p;
    r.read("epochs", p.epochs);
    r.read("alphaStart", p.alphaStart);
    r.read("alphaEnd", p.alphaEnd);
    r.read("radiusStart", p.radiusStart);
    r.read("radiusEnd", p.radiusEnd);
    p.topology = parseTopologyMetric(r.readString("topology", "grid"));
    p.neighbourhood = parseNeighbourhood(r.readString("neighbourhood", "square"));
    r.read("stepPoints", p.stepPoints);
    r.read("searchBatch", p.searchBatch);
    r.read("sampleSize", p.sampleSize);
    r.read("seed", p.seed);
    return p;
}

}  // namespace

std::vector<std::string> trainerNames() {
    return {"som", "kmeans"};
}

std::unique_ptr<Trainer> makeTrainer(const std::string& name, const nlohmann::json& params,
                                     NearestSearch& search) {
    ParamReader r(name, params);
    std::unique_ptr<Trainer> t;
    if (name == "som") {
        t = std::make_unique<SomTrainer>(readSom(r), search);
    } else if (name == "batchsom") {
        SomParams p = readSom(r);
        if (params.is_null() || !params.contains("stepPoints")) p.stepPoints = 65536;
        t = std::make_unique<BatchSomTrainer>(p, search);
    } else if (name == "plsom") {
        PlsomParams p;
        r.read("beta", p.beta);
        r.read("epochs", p.epochs);
        r.read("stepPoints", p.stepPoints);
        r.read("searchBatch", p.searchBatch);
        r.read("sampleSize", p.sampleSize);
        r.read("seed", p.seed);
        t = std::make_unique<PlsomTrainer>(p, search);
    } else if (name == "kmeans") {
        KmeansParams p;
        r.read("rate", p.rate);
        r.read("epochs", p.epochs);
        r.read("stepPoints", p.stepPoints);
        r.read("searchBatch", p.searchBatch);
        r.read("sampleSize", p.sampleSize);
        r.read("seed", p.seed);
        t = std::make_unique<KmeansTrainer>(p, search);
    } else if (name == "graph") {
        ForceParams p;
        r.read("k", p.k);
        r.read("springLength", p.springLength);
        r.read("spring", p.spring);
        r.read("repulsion", p.repulsion);
        r.read("damping", p.damping);
        r.read("timeStep", p.timeStep);
        r.read("iterationsPerStep", p.iterationsPerStep);
        r.read("iterations", p.iterations);
        r.read("seed", p.seed);
        t = std::make_unique<ForceLayoutTrainer>(p);
    } else if (name == "tsne") {
        TsneParams p;
        r.read("perplexity", p.perplexity);
        r.read("exaggeration", p.exaggeration);
        r.read("exaggerationIters", p.exaggerationIters);
        r.read("iterations", p.iterations);
        r.read("learningRate", p.learningRate);
        r.read("startStd", p.startStd);
        r.read("iterationsPerStep", p.iterationsPerStep);
        r.read("seed", p.seed);
        t = std::make_unique<TsneLayoutTrainer>(p);
    } else if (name == "umap") {
        UmapParams p;
        r.read("k", p.k);
        r.read("minDist", p.minDist);
        r.read("spread", p.spread);
        r.read("epochs", p.epochs);
        r.read("negativeSamples", p.negativeSamples);
        r.read("learningRate", p.learningRate);
        r.read("startStd", p.startStd);
        r.read("epochsPerStep", p.epochsPerStep);
        r.read("seed", p.seed);
        t = std::make_unique<UmapLayoutTrainer>(p);
    } else {
        std::string names;
        for (const auto& n : trainerNames()) names += (names.empty() ? "" : ", ") + n;
        throw InputError("unknown trainer \"" + name + "\": use one of " + names);
    }
    r.finish();
    return t;
}

}  // namespace sepal
