#include "core/pipeline/landmark_spec.h"

#include <algorithm>
#include <regex>
#include <utility>
#include <vector>

#include "core/common/error.h"
#include "core/train/trainer_params.h"

namespace sepal {
namespace {

// The registry's layout trainers, then "grid": what --layout takes.
std::vector<std::string> layoutNames() {
    std::vector<std::string> names = trainerNames(TrainerRole::Layout);
    names.push_back(trainer_name::kKeepGrid);
    return names;
}

// The entry that places `spec`'s landmarks, or nullptr.
const TrainerInfo* landmarkTrainer(const std::string& name) {
    const TrainerInfo* t = findTrainer(name);
    return t && placesLandmarks(*t) ? t : nullptr;
}

// "a", "a and b", "a, b and c".
std::string joinAll(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    return out;
}

std::string formsError(const std::string& text) {
    return "--landmarks " + text + ": use " + landmarkForms() +
           " (for example som:16x16 or kmeans:512)";
}

// Fewer than 4 landmarks cannot be projected (EmbedSOM's k >= 4); more than 65536 is beyond
// what training and the projection's tiles are made for.
void checkCount(const LandmarkSpec& spec, const std::string& text) {
    const TrainerInfo* t = findTrainer(spec.kind);
    if (spec.count == 0 && t && t->init == TrainerInit::Sample) return;  // automatic
    if (spec.count < kFewestLandmarks || spec.count > 65536)
        throw InputError("--landmarks " + text + " gives " + std::to_string(spec.count) +
                         " landmarks: use between " + std::to_string(kFewestLandmarks) +
                         " and 65536");
}

}  // namespace

std::string landmarkForms() {
    std::vector<std::string> forms;
    for (const auto& t : trainerRegistry())
        if (placesLandmarks(t))
            forms.push_back(t.name + (t.init == TrainerInit::Grid ? ":ROWSxCOLS" : ":COUNT|auto"));
    return joinAlternatives(forms);
}

LandmarkSpec parseLandmarkSpec(const std::string& text) {
    // Nine digits at most, so that the sizes below cannot overflow.
    static const std::regex grid(R"((\d{1,9})x(\d{1,9}))");
    static const std::regex count(R"(\d{1,9})");
    const size_t colon = text.find(':');
    const TrainerInfo* trainer =
        colon == std::string::npos ? nullptr : landmarkTrainer(text.substr(0, colon));
    const std::string size = colon == std::string::npos ? "" : text.substr(colon + 1);
    std::smatch m;
    LandmarkSpec spec;
    if (trainer && trainer->init == TrainerInit::Grid && std::regex_match(size, m, grid)) {
        spec.kind = trainer->name;
        spec.rows = std::stoul(m[1]);
        spec.cols = std::stoul(m[2]);
        spec.count = spec.rows * spec.cols;
    } else if (trainer && trainer->init == TrainerInit::Sample &&
               (size == "auto" || std::regex_match(size, count))) {
        spec.kind = trainer->name;
        spec.count = size == "auto" ? 0 : std::stoul(size);
    } else {
        throw InputError(formsError(text));
    }
    checkCount(spec, text);
    return spec;
}

LandmarkSpec landmarkSpec(const std::string& trainer, size_t rows, size_t cols, size_t count) {
    const TrainerInfo* t = landmarkTrainer(trainer);
    if (!t) throw InputError(formsError(trainer));
    LandmarkSpec spec;
    spec.kind = t->name;
    if (t->init == TrainerInit::Grid) {
        spec.rows = rows;
        spec.cols = cols;
        // Beyond the limit either way; capped so that the product cannot wrap around.
        spec.count = rows != 0 && cols > 65536 / rows ? 65537 : rows * cols;
    } else {
        spec.count = count;
    }
    checkCount(spec, landmarkSpecText(spec));
    return spec;
}

std::string landmarkSpecText(const LandmarkSpec& spec) {
    const TrainerInfo* t = findTrainer(spec.kind);
    const bool grid = t ? t->init == TrainerInit::Grid : spec.rows > 0;
    return spec.kind + ":" +
           (grid              ? std::to_string(spec.rows) + "x" + std::to_string(spec.cols)
            : spec.count == 0 ? std::string("auto")
                              : std::to_string(spec.count));
}

size_t landmarksForCells(size_t cells) {
    // Never more than the cells, but not fewer than k-means' default k (16) needs: fewer cells
    // than that are refused by training, with its advice.
    return std::max<size_t>(16, std::min(cells, std::clamp<size_t>(cells / 20, 64, 512)));
}

LandmarkSpec landmarksFor(LandmarkSpec spec, size_t cells) {
    if (spec.count == 0 && spec.rows == 0) spec.count = landmarksForCells(cells);
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

std::string layoutAfter(const LandmarkSpec& spec, const std::string& layout) {
    if (!layout.empty()) return layout;
    const TrainerInfo* t = landmarkTrainer(spec.kind);
    return t ? t->followedBy : std::string(trainer_name::kKeepGrid);
}

const TrainerInfo* layoutTrainer(const std::string& layout) {
    const TrainerInfo* t = findTrainer(layout);
    return t && laysOutLandmarks(*t) ? t : nullptr;
}

std::string supervisableLayouts() {
    std::vector<std::string> names;
    for (const auto& t : trainerRegistry())
        if (laysOutLandmarks(t) && t.supervisable) names.push_back(t.name);
    return joinAlternatives(names);
}

EmbedParams defaultEmbedParams(const LandmarkSpec& spec) {
    const TrainerInfo* t = landmarkTrainer(spec.kind);
    EmbedParams p = t ? t->embed : EmbedParams{};
    // A trainer's k suits its usual sizes; with fewer landmarks than it (kmeans:8) the k of
    // the model's own size applies, so that no k the user never set is refused.
    if (spec.count > 0 && p.k > 0 && static_cast<size_t>(p.k) > spec.count) p.k = 0;
    return p;
}

std::string perLandmarkTrainer(const std::function<std::string(const TrainerInfo&)>& value) {
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
    for (const auto& t : trainerRegistry()) {
        if (!placesLandmarks(t)) continue;
        const std::string v = value(t);
        auto g = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& group) { return group.first == v; });
        if (g == groups.end()) g = groups.insert(groups.end(), {v, {}});
        g->second.push_back(t.name);
    }
    std::string text;
    for (const auto& [v, names] : groups)
        text += (text.empty() ? "" : ", ") + v + " for " + joinAll(names);
    return text;
}

}  // namespace sepal
