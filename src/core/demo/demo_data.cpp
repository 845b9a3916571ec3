#include "core/demo/demo_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/common/error.h"
#include "core/io/population_labels.h"

namespace sepal::demo {

namespace {

/// xoshiro256** seeded through splitmix64: portable, so the demo file is the same everywhere.
class Random {
  public:
    explicit Random(uint64_t seed) {
        for (auto& s : m_state) {
            seed += 0x9E3779B97F4A7C15ull;
            uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            s = z ^ (z >> 31);
        }
    }
    uint64_t next() {
        const uint64_t result = rotl(m_state[1] * 5, 7) * 9;
        const uint64_t t = m_state[1] << 17;
        m_state[2] ^= m_state[0];
        m_state[3] ^= m_state[1];
        m_state[1] ^= m_state[2];
        m_state[0] ^= m_state[3];
        m_state[2] ^= t;
        m_state[3] = rotl(m_state[3], 45);
        return result;
    }
    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// Standard normal (Box-Muller).
    double normal() {
        const double u = 1.0 - uniform();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * uniform());
    }

  private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::array<uint64_t, 4> m_state{};
};

struct Marker {
    const char* marker;
    const char* channel;
};

constexpr std::array<Marker, 22> kMarkers{{
    {"CD45", "Y89Di"},    {"CD3", "Pr141Di"},    {"CD4", "Nd142Di"},  {"CD8", "Nd143Di"},
    {"CD19", "Nd144Di"},  {"CD20", "Nd145Di"},   {"CD14", "Nd146Di"}, {"CD16", "Sm147Di"},
    {"CD56", "Nd148Di"},  {"CD45RA", "Sm149Di"}, {"CCR7", "Nd150Di"}, {"CD27", "Eu151Di"},
    {"CD28", "Sm152Di"},  {"CD127", "Eu153Di"},  {"CD25", "Sm154Di"}, {"HLA-DR", "Gd155Di"},
    {"CD11c", "Gd156Di"}, {"CD123", "Gd158Di"},  {"IgD", "Tb159Di"},  {"CD38", "Gd160Di"},
    {"CD57", "Dy161Di"},  {"TCRgd", "Dy162Di"},
}};

/// The state markers of the demo with state markers, after the lineage markers by mass.
constexpr std::array<Marker, 9> kStateMarkers{{
    {"pSTAT5", "Er166Di"},
    {"pERK", "Er167Di"},
    {"pS6", "Er168Di"},
    {"Ki67", "Tm169Di"},
    {"CD69", "Er170Di"},
    {"IFNg", "Yb171Di"},
    {"TNFa", "Yb172Di"},
    {"GranzymeB", "Yb173Di"},
    {"Perforin", "Yb174Di"},
}};

/// Palladium isotopes of the sample barcode, and which of them this sample carries.
struct BarcodeChannel {
    const char* channel;
    bool positive;
};

constexpr std::array<BarcodeChannel, 5> kBarcodes{{
    {"Pd104Di", true},
    {"Pd105Di", false},
    {"Pd106Di", true},
    {"Pd108Di", true},
    {"Pd110Di", false},
}};

/// Where each kind of channel sits in a row.
struct DemoLayout {
    size_t time = 0, eventLength = 0, population = 0;
    size_t dna1 = 0, dna2 = 0, cisplatin = 0, beads = 0;
    std::array<size_t, kMarkers.size()> markers{};
    std::array<size_t, kStateMarkers.size()> states{};
    bool hasStates = false;
    std::array<size_t, kBarcodes.size()> barcodes{};
    std::array<size_t, 4> gaussian{};  // Center, Offset, Width, Residual
};

/// The channels in a Helios file's order: Time and Event_length, the isotopes by mass, the
/// Gaussian parameters, then the population code.
DemoLayout addChannels(io::Table& table, bool stateMarkers) {
    DemoLayout at;
    const auto add = [&table](const char* name, const char* marker, double range) {
        table.channels.push_back({name, marker, range, 32});
        return table.channels.size() - 1;
    };
    at.time = add("Time", "", 600000);
    at.eventLength = add("Event_length", "", 128);
    at.markers[0] = add(kMarkers[0].channel, kMarkers[0].marker, 16384);  // Y89Di
    for (size_t b = 0; b < kBarcodes.size(); ++b)
        at.barcodes[b] = add(kBarcodes[b].channel, kBarcodes[b].channel, 16384);
    at.beads = add("Ce140Di", "Beads", 16384);
    for (size_t k = 1; k < kMarkers.size(); ++k)
        at.markers[k] = add(kMarkers[k].channel, kMarkers[k].marker, 16384);
    at.hasStates = stateMarkers;
    if (stateMarkers)
        for (size_t k = 0; k < kStateMarkers.size(); ++k)
            at.states[k] = add(kStateMarkers[k].channel, kStateMarkers[k].marker, 16384);
    at.dna1 = add("Ir191Di", "DNA1", 16384);
    at.dna2 = add("Ir193Di", "DNA2", 16384);
    at.cisplatin = add("Pt195Di", "Cisplatin", 16384);
    const char* const gaussian[] = {"Center", "Offset", "Width", "Residual"};
    for (size_t g = 0; g < at.gaussian.size(); ++g) at.gaussian[g] = add(gaussian[g], "", 65536);
    at.population = add("Population", "", 1024);
    return at;
}

/// Ion counts for an arcsinh(x / 5) level, non-negative and rounded like the instrument's.
float ionCounts(double level) {
    const double counts = 5.0 * std::sinh(level);
    return static_cast<float>(std::max(0.0, std::round(counts * 100) / 100));
}

/// The channels that are not markers: DNA rising with cell size, a few dead cells bright in
/// cisplatin, this sample's palladium barcode, almost no bead signal on cells, and the Gaussian
/// parameters of the event's ion cloud.
void fillAcquisition(float* row, const DemoLayout& at, Random& rng, double size, double length) {
    const double dna = 5.3 + size + 0.12 * rng.normal();
    row[at.dna1] = ionCounts(dna);
    row[at.dna2] = ionCounts(dna + 0.52 + 0.05 * rng.normal());  // Ir193 is 1.7x as abundant
    const bool dead = rng.uniform() < 0.05;
    row[at.cisplatin] = ionCounts((dead ? 4.6 : 1.0) + 0.4 * rng.normal());
    for (size_t b = 0; b < kBarcodes.size(); ++b)
        row[at.barcodes[b]] = ionCounts((kBarcodes[b].positive ? 4.0 : 0.6) + 0.3 * rng.normal());
    row[at.beads] = ionCounts(0.1 + 0.3 * rng.normal());
    const auto rounded = [](double v) { return static_cast<float>(std::round(v * 100) / 100); };
    row[at.gaussian[0]] = rounded(std::exp(6.5 + 0.4 * rng.normal()));
    row[at.gaussian[1]] = rounded(std::exp(3.5 + 0.3 * rng.normal()));
    row[at.gaussian[2]] = rounded(std::max(1.0, 1.3 * length + 2.0 * rng.normal()));
    row[at.gaussian[3]] = rounded(std::exp(3.8 + 0.5 * rng.normal()));
}

size_t markerIndex(const std::string& name) {
    for (size_t i = 0; i < kMarkers.size(); ++i)
        if (name == kMarkers[i].marker) return i;
    return 0;
}

/// Expression levels in arcsinh(x / 5) units: negative, dim, positive, bright.
constexpr std::array<double, 4> kLevel{0.2, 1.7, 3.1, 4.4};

struct Population {
    const char* name;
    double share;                                     // relative abundance
    std::vector<std::pair<const char*, int>> levels;  // markers above negative
};

std::vector<Population> populations() {
    return {
        {"Naive CD4 T",
         18,
         {{"CD3", 2},
          {"CD4", 2},
          {"CD45RA", 2},
          {"CCR7", 2},
          {"CD27", 2},
          {"CD28", 2},
          {"CD127", 2}}},
        {"Memory CD4 T",
         14,
         {{"CD3", 2},
          {"CD4", 2},
          {"CCR7", 1},
          {"CD27", 2},
          {"CD28", 2},
          {"CD127", 2},
          {"HLA-DR", 1}}},
        {"Treg",
         3,
         {{"CD3", 2},
          {"CD4", 2},
          {"CD25", 3},
          {"CD45RA", 1},
          {"CCR7", 1},
          {"CD27", 2},
          {"CD28", 2}}},
        {"Naive CD8 T",
         9,
         {{"CD3", 2},
          {"CD8", 3},
          {"CD45RA", 2},
          {"CCR7", 2},
          {"CD27", 2},
          {"CD28", 2},
          {"CD127", 1}}},
        {"Memory CD8 T",
         6,
         {{"CD3", 2}, {"CD8", 3}, {"CD27", 2}, {"CD28", 1}, {"CD45RA", 0}, {"HLA-DR", 1}}},
        {"Effector CD8 T", 6, {{"CD3", 2}, {"CD8", 3}, {"CD45RA", 2}, {"CD57", 3}, {"CD16", 1}}},
        {"gd T", 2.5, {{"CD3", 2}, {"TCRgd", 3}, {"CD16", 1}, {"CD45RA", 1}, {"CD27", 1}}},
        {"CD56bright NK", 1, {{"CD56", 3}, {"CD16", 1}, {"CD127", 1}, {"CD38", 2}}},
        {"CD56dim NK", 7, {{"CD56", 2}, {"CD16", 3}, {"CD57", 2}, {"CD45RA", 2}, {"CD38", 1}}},
        {"Naive B", 6, {{"CD19", 2}, {"CD20", 3}, {"IgD", 3}, {"HLA-DR", 3}, {"CD45RA", 2}}},
        {"Memory B", 3, {{"CD19", 2}, {"CD20", 3}, {"CD27", 2}, {"HLA-DR", 3}}},
        {"Classical monocytes",
         14,
         {{"CD14", 3}, {"HLA-DR", 2}, {"CD11c", 2}, {"CD38", 2}, {"CD45RA", 1}}},
        {"Non-classical monocytes", 3, {{"CD14", 1}, {"CD16", 3}, {"HLA-DR", 3}, {"CD11c", 2}}},
        {"Myeloid DC", 1.5, {{"CD11c", 3}, {"HLA-DR", 3}, {"CD123", 1}, {"CD38", 1}}},
        {"Plasmacytoid DC",
         0.5,
         {{"CD123", 3}, {"HLA-DR", 2}, {"CD45RA", 2}, {"CD4", 1}, {"CD38", 2}}},
    };
}

/// Each population's state markers above negative (levels as kLevel), by population name.
std::vector<std::pair<const char*, std::vector<std::pair<const char*, int>>>> stateLevels() {
    return {
        {"Memory CD4 T", {{"Ki67", 1}, {"CD69", 1}}},
        {"Treg", {{"pSTAT5", 2}, {"Ki67", 1}}},
        {"Memory CD8 T", {{"GranzymeB", 1}, {"CD69", 1}}},
        {"Effector CD8 T", {{"GranzymeB", 3}, {"Perforin", 2}, {"IFNg", 1}}},
        {"gd T", {{"GranzymeB", 2}, {"Perforin", 1}, {"CD69", 1}}},
        {"CD56bright NK", {{"GranzymeB", 1}, {"CD69", 2}}},
        {"CD56dim NK", {{"GranzymeB", 3}, {"Perforin", 3}, {"IFNg", 1}}},
        {"Memory B", {{"pS6", 1}, {"Ki67", 1}}},
        {"Classical monocytes", {{"pERK", 1}, {"pS6", 1}, {"TNFa", 2}}},
        {"Non-classical monocytes", {{"pERK", 1}, {"TNFa", 1}}},
        {"Myeloid DC", {{"pS6", 1}, {"TNFa", 1}}},
        {"Plasmacytoid DC", {{"pS6", 1}}},
    };
}

/// Continuous differentiation paths through populations (indices) and their relative share.
struct Trajectory {
    std::vector<size_t> path;
    double share;
};

std::vector<Trajectory> trajectories() {
    return {{{0, 1}, 6}, {{3, 4, 5}, 5}, {{11, 12}, 3}};
}

}  // namespace

std::vector<std::string> demoPopulationNames() {
    std::vector<std::string> names;
    for (const auto& p : populations()) names.push_back(p.name);
    return names;
}

std::vector<std::string> demoStateMarkers() {
    std::vector<std::string> names;
    for (const auto& m : kStateMarkers) names.push_back(m.marker);
    return names;
}

io::Table makeDemoTable(size_t events, uint64_t seed, bool stateMarkers,
                        const DemoVariation& variation) {
    auto pops = populations();
    for (const auto& change : variation.abundance) {
        const std::string& name = change.first;
        const double factor = change.second;
        const auto it = std::find_if(pops.begin(), pops.end(),
                                     [&](const Population& p) { return name == p.name; });
        if (it == pops.end() || !(factor >= 0) || !std::isfinite(factor))
            throw InputError("demo: no population " + name + " to change by " +
                             std::to_string(factor));
        it->share *= factor;
    }
    const auto paths = trajectories();
    const size_t m = kMarkers.size();
    std::vector<std::vector<double>> profile(pops.size(), std::vector<double>(m, kLevel[0]));
    for (size_t p = 0; p < pops.size(); ++p) {
        profile[p][markerIndex("CD45")] = (p >= 11) ? kLevel[2] : kLevel[3];
        for (const auto& [marker, level] : pops[p].levels)
            profile[p][markerIndex(marker)] = kLevel[static_cast<size_t>(level)];
    }
    // One draw picks a population (its own cluster) or a trajectory (a point along it).
    std::vector<double> cumulative;
    double total = 0;
    for (const auto& p : pops) cumulative.push_back(total += p.share);
    for (const auto& t : paths) cumulative.push_back(total += t.share);

    io::Table table;
    table.source = "demo";
    const DemoLayout layout = addChannels(table, stateMarkers);
    // State levels per population (negative unless listed).
    std::vector<std::array<double, kStateMarkers.size()>> stateProfile(pops.size());
    for (auto& s : stateProfile) s.fill(kLevel[0]);
    for (const auto& [name, levels] : stateLevels())
        for (size_t p = 0; p < pops.size(); ++p)
            if (std::string(pops[p].name) == name)
                for (const auto& [marker, level] : levels)
                    for (size_t k = 0; k < kStateMarkers.size(); ++k)
                        if (std::string(kStateMarkers[k].marker) == marker)
                            stateProfile[p][k] = kLevel[static_cast<size_t>(level)];
    for (const auto& [at, shift] : variation.stateShift) {
        size_t p = 0, k = 0;
        while (p < pops.size() && at.first != pops[p].name) ++p;
        while (k < kStateMarkers.size() && at.second != kStateMarkers[k].marker) ++k;
        if (p == pops.size() || k == kStateMarkers.size() || !std::isfinite(shift))
            throw InputError("demo: no state marker " + at.second + " in population " + at.first +
                             " to shift");
        stateProfile[p][k] += shift;
    }
    Random states(seed ^ 0x57A7E5D0C0FFEEull);
    const size_t cols = table.channels.size();
    table.values = Matrix(events, cols);

    Random rng(seed);
    // The non-marker channels draw from their own stream, so the markers and populations are
    // the same as before those channels existed.
    Random acquisition(seed ^ 0x5EB0A1C7E5D3F00Dull);
    std::vector<double> z(m);
    for (size_t i = 0; i < events; ++i) {
        const double u = rng.uniform() * total;
        const size_t pick = static_cast<size_t>(
            std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
        size_t label;
        if (pick < pops.size()) {
            label = pick;
            z = profile[label];
        } else {
            const auto& path = paths[std::min(pick - pops.size(), paths.size() - 1)].path;
            const double t = rng.uniform() * static_cast<double>(path.size() - 1);
            const size_t seg = std::min(static_cast<size_t>(t), path.size() - 2);
            const double f = t - static_cast<double>(seg);
            for (size_t k = 0; k < m; ++k)
                z[k] = (1 - f) * profile[path[seg]][k] + f * profile[path[seg + 1]][k];
            label = path[f < 0.5 ? seg : seg + 1];
        }
        float* row = table.values.row(i);
        // Cell size shifts every marker a little together, as in real data.
        const double size = 0.15 * rng.normal();
        for (size_t k = 0; k < m; ++k) {
            const double level = z[k] + 0.35 * rng.normal() + (z[k] > 1 ? size : 0);
            row[layout.markers[k]] = ionCounts(level);
        }
        row[layout.time] = static_cast<float>(
            std::floor(600000.0 * static_cast<double>(i) / static_cast<double>(events)));
        const double length = std::round(std::clamp(22 + 4 * rng.normal(), 10.0, 75.0));
        row[layout.eventLength] = static_cast<float>(length);
        row[layout.population] = static_cast<float>(label);
        if (layout.hasStates)
            for (size_t k = 0; k < kStateMarkers.size(); ++k)
                row[layout.states[k]] = ionCounts(stateProfile[label][k] + 0.35 * states.normal());
        fillAcquisition(row, layout, acquisition, size, length);
    }
    std::vector<std::string> names;
    for (const auto& p : pops) names.push_back(p.name);
    table.keywords.push_back({"$CYT", "Sepal demo (simulated mass cytometry)"});
    table.keywords.push_back({io::kPopulationsKeyword, io::populationKeywordValue(names)});
    table.keywords.push_back({io::kPopulationParameterKeyword, "Population"});
    return table;
}

}  // namespace sepal::demo
