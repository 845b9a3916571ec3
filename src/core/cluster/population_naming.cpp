#include "core/cluster/population_naming.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/common/median.h"
#include "core/common/text.h"
#include "core/transform/channel_label.h"
#include "core/transform/channel_roles.h"

namespace sepal {

namespace {

// Shares and thresholds over at most ~200,000 cells keep naming fast on millions of cells.
constexpr size_t kSampled = 200000;
// A marker sets a population apart when its positive share (the carrying share, for cells that
// lack a marker whose lowest mode is dim) differs from all cells' by this.
constexpr double kApart = 0.25;
constexpr size_t kPhraseMarkers = 4;
// Of the way from the panel's background to the typical cut, where a lowest mode is dim.
constexpr float kDimFloor = 0.5f;
// A valley at most half as high as the smaller of its modes cuts cleanly (doublet calls).
constexpr float kCleanValley = 0.5f;
// Across a valley that is not clean, a name asserts a marker only when this share is positive.
constexpr double kShallowShare = 0.8;
// Positive on at least this many and this share of the resolved lineage markers: doublets.
constexpr size_t kMostPositive = 6;
constexpr double kMostPositiveShare = 0.5;
// A cell type whose rule the data confirm on this many conditions is no such doublets.
constexpr size_t kConfirmedConditions = 3;
// Populations named by one marker phrase are told apart by a marker whose medians part them by
// at least this many of their own spreads and this many of all cells' spreads there
// (tellNamesakesApart), in at most this many rounds (each splits a group of namesakes in two).
constexpr double kNamesakeSpreads = 1.0;
constexpr double kNamesakeAllSpreads = 0.5;
constexpr int kNamesakeRounds = 3;
// A population this many of all named cells' spreads above their median on a marker without a
// cut is no negative there for a rule's unknown exclusion.
constexpr double kBrighterSpreads = 0.5;

// A population above the cut of a marker whose lowest mode is dim reads "+", not "hi", where
// another population's median lies above its own by this many of the larger of their spreads.
constexpr float kOutshoneSpreads = 2.0f;

// Lineages that no single cell carries together (T, B, monocyte, granulocyte): a population
// positive on both of a pair is most likely made of two cells stuck together. CD15 marks
// granulocytes against T and B cells only (monocytes carry some).
constexpr const char* kExclusive[][2] = {
    {"CD3", "CD19"},
    {"CD3", "CD20"},
    {"CD3", "CD14"},
    {"CD19", "CD14"},
    {"CD20", "CD14"},
    {"CD3", "CD66"},
    {"CD19", "CD66"},
    {"CD20", "CD66"},
    {"CD14", "CD66"},
    {"CD3", "CD15"},
    {"CD19", "CD15"},
    {"CD20", "CD15"},
    // The gamma-delta T cell receptor is on T cells only.
    {"TCRgd", "CD14"},
    {"TCRgd", "CD19"},
    {"TCRgd", "CD20"},
    {"TCRgd", "CD66"},
    {"TCRgd", "CD15"},
};

/// A marker's name as rules and pairs compare it: the catalogue's canonical name, else its key.
std::string canonical(const std::string& marker) {
    const auto entry = catalogueEntry(marker);
    return markerKey(entry ? entry->name : marker);
}

/// Whether no single cell carries markers a and b together (a pair of kExclusive either way).
bool exclusive(const std::string& a, const std::string& b) {
    const std::string x = canonical(a), y = canonical(b);
    for (const auto& pair : kExclusive)
        if ((x == canonical(pair[0]) && y == canonical(pair[1])) ||
            (x == canonical(pair[1]) && y == canonical(pair[0])))
            return true;
    return false;
}

/// A detector's name without a trailing amplifier word ("FL1 Log" and "FL1 Lin": "FL1").
std::string withoutAmplifier(const std::string& name) {
    const std::string lower = lowercase(name);
    for (const char* word : {" log", " lin"})
        if (name.size() > 4 && endsWith(lower, word)) return name.substr(0, name.size() - 4);
    return name;
}

/// Per population and column: cells with a value, at or above the positive and bright cuts and
/// the dim floor (MarkerShare).
struct Tally {
    std::vector<double> cells, positive, bright, carrying;
};

/// Whether a condition holds for a population.
enum class Verdict {
    Holds,
    Fails,    ///< the other way, or the population's cells split on the marker
    Unknown,  ///< the panel cannot tell: the marker is absent, has one mode, or is on every cell
};

Verdict holds(const MarkerCondition& c, const MarkerThreshold& t, double cells,
              const MarkerShare& s) {
    if (!t.resolved || cells <= 0) return Verdict::Unknown;
    // A marker on every cell tells dim from bright only: "CD45+" says nothing of a population (a
    // phrase may still say "CD45-" of cells that lack it: namePopulations).
    if (t.onEveryCell && (c.call == MarkerCall::Positive || c.call == MarkerCall::Negative))
        return Verdict::Unknown;
    const double share =
        (c.call == MarkerCall::Bright || c.call == MarkerCall::NotBright) && t.hasBright
            ? s.bright
            : s.positive;
    const bool wantsUp = c.call == MarkerCall::Positive || c.call == MarkerCall::Bright;
    // Across a shallow valley dim cells of another lineage count as positive (NK cells as CD66+
    // in a file of 1,000 cells): a name asserts such a marker only when most cells agree.
    if (wantsUp && t.depth > kCleanValley && share < kShallowShare)
        return share <= 1 - kCallShare ? Verdict::Fails : Verdict::Unknown;
    if (share >= kCallShare) return wantsUp ? Verdict::Holds : Verdict::Fails;
    if (share <= 1 - kCallShare) return wantsUp ? Verdict::Fails : Verdict::Holds;
    return Verdict::Fails;
}

/// A channel name's parameter suffix as written ("-A" of "BL1-A"; also "-H", "-W", in either
/// case), or "".
std::string parameterSuffix(const std::string& name) {
    if (name.size() < 3 || name[name.size() - 2] != '-') return "";
    const std::string s = name.substr(name.size() - 2);
    return lowercase(s) == "-a" || lowercase(s) == "-h" || lowercase(s) == "-w" ? s : "";
}

/// The names a population's phrase gives the columns, from their labels (`input.markers`):
/// one name for a stain on two channels, stains without the parameter suffix an instrument
/// copied into them, detectors without their amplifier word.
void shortenForPhrases(const io::Table& table, const std::vector<std::string>& columns,
                       NamingInput& input) {
    std::vector<int> channel(columns.size());
    for (size_t k = 0; k < columns.size(); ++k) channel[k] = table.findChannel(columns[k]);
    const auto stained = [&](size_t k) {
        return k < input.stains.size() && !input.stains[k].empty() && k < input.markers.size();
    };
    const auto marker = [&](size_t k) { return table.channels[size_t(channel[k])].marker; };
    const auto name = [&](size_t k) { return table.channels[size_t(channel[k])].name; };
    // A stain on two channels is one marker in a name ("CD3+", not "CD3 (FL1-A)+"): a
    // population's name calls it by one channel at most (silenceSecondChannels).
    std::map<std::string, std::vector<size_t>> columnsOf;
    for (size_t k = 0; k < columns.size(); ++k)
        if (stained(k)) columnsOf[input.stains[k]].push_back(k);
    for (const auto& [stain, ks] : columnsOf)
        if (ks.size() > 1)
            for (size_t k : ks) input.markers[k] = marker(ks.front());
    std::set<std::string> names(input.markers.begin(), input.markers.end());
    // Renames every column of `ks` (one stain's, or one column) to `shorter`, unless a column
    // outside them goes by that name already.
    const auto rename = [&](const std::vector<size_t>& ks, const std::string& shorter) {
        if (shorter.empty() || names.count(shorter)) return;
        for (size_t k : ks) input.markers[k] = shorter;
        names.insert(shorter);
    };
    // An instrument that writes each stain with its channel's suffix, verbatim ("GFP-A" on
    // BL1-A, "mCherry-A" on YL2-A, as an Attune does): "mCherrybright", not "mCherry-Abright".
    // Only where every stain carries its channel's suffix and two stains at least do, so that
    // HLA-A among CD markers, or TNF-a and IFN-a written for alpha, keep their names.
    size_t suffixed = 0;
    for (const auto& [stain, ks] : columnsOf) {
        bool all = true;
        for (size_t k : ks) {
            const std::string suffix = parameterSuffix(name(k));
            const std::string& m = marker(k);
            all = all && !suffix.empty() && m.size() > 2 && endsWith(m, suffix);
        }
        suffixed += all;
    }
    if (suffixed >= 2 && suffixed == columnsOf.size())
        for (const auto& [stain, ks] : columnsOf)
            if (input.markers[ks.front()] == marker(ks.front()))
                rename(ks, marker(ks.front()).substr(0, marker(ks.front()).size() - 2));
    // A detector named with its amplifier ("FL1 Log", a Beckman Coulter's) is the detector in
    // a name: "FL1dim", not "FL1 Logdim".
    for (size_t k = 0; k < input.markers.size() && k < input.unnamed.size(); ++k)
        if (input.unnamed[k]) rename({k}, withoutAmplifier(input.markers[k]));
}

}  // namespace

NamingInput namingInputFor(const io::Table& table, const std::vector<std::string>& columns,
                           const MarkerClassOverrides& overrides,
                           const std::vector<CellTypeRule>* rules) {
    NamingInput input{
        markerNames(table, columns), columnClasses(table, columns, overrides), rules, {}, {}};
    for (size_t k = 0; k < columns.size(); ++k) {
        const int c = table.findChannel(columns[k]);
        const bool stained = c >= 0 && hasOwnMarker(table.channels[size_t(c)]);
        input.unnamed.push_back(c >= 0 && !stained);
        // The stain itself, which "CD3 (FL1-A)" and "CD3 (FL2-A)" share.
        input.stains.push_back(stained ? markerKey(table.channels[size_t(c)].marker) : "");
    }
    shortenForPhrases(table, columns, input);
    // A panel without a single stain name (an older instrument's FL1-H, FL2-H) is named by its
    // detectors, so they tell namesakes apart too; beside stained channels an unstained one
    // tells nothing.
    if (std::find(input.unnamed.begin(), input.unnamed.end(), false) == input.unnamed.end())
        input.unnamed.clear();
    return input;
}

std::vector<MarkerThreshold> learnThresholds(const Matrix& points,
                                             const std::vector<MarkerClass>& classes) {
    std::vector<MarkerThreshold> out(points.cols);
    const size_t step = std::max<size_t>(1, points.rows / kSampled);
    for (size_t c = 0; c < points.cols; ++c) {
        if (c >= classes.size() || classes[c] == MarkerClass::None) continue;
        std::vector<float> values;
        values.reserve(points.rows / step + 1);
        for (size_t i = 0; i < points.rows; i += step) values.push_back(points.at(i, c));
        out[c] = learnThreshold(std::move(values));
    }
    // A marker whose lowest mode lies above where most markers turn positive (the median of
    // their cuts) is on every cell (CD45 on leukocytes): its valley cuts dim from bright cells,
    // none are negative.
    std::vector<float> positives, lows;
    for (const MarkerThreshold& t : out)
        if (t.resolved) positives.push_back(t.positive), lows.push_back(t.lowMode);
    if (positives.size() >= 3) {
        const float typical = medianOf(positives);
        // Most markers' negative cells sit at the panel's background; a lowest mode half way
        // from there to the typical cut or above is a dim population, not a negative one.
        const float background = medianOf(lows);
        const float dim = background + kDimFloor * (typical - background);
        for (MarkerThreshold& t : out) {
            if (t.resolved && t.lowMode >= dim) t.lowIsDim = true, t.dimFloor = dim;
            if (t.resolved && t.lowMode >= typical) {
                t.hasBright = true;
                t.bright = t.positive;
                t.positive = -std::numeric_limits<float>::infinity();
                t.onEveryCell = true;
            }
        }
    }
    return out;
}

namespace {

/// Phrases that make the same calls in another order (each orders its markers by how far they
/// set it apart) become one name, the first population's, so that they read as namesakes
/// ("CD3- CD4-" and "CD4- CD3-" are the same finding).
void sameCallsOneName(std::vector<PopulationName>& names,
                      std::vector<std::vector<std::string>> calls) {
    std::map<std::vector<std::string>, size_t> first;
    for (size_t p = 0; p < names.size(); ++p) {
        if (names[p].doublets || !names[p].cellType.empty() || calls[p].empty()) continue;
        std::sort(calls[p].begin(), calls[p].end());
        const auto [it, added] = first.emplace(calls[p], p);
        if (!added) names[p].phrase = names[p].name = names[it->second].phrase;
    }
}

/// A phrase's call on a marker for a population on the positive side of its cut (`up`) or not,
/// with its median there. On a marker whose lowest mode is dim, a population whose median stays
/// above the background carries it dimly ("lo"; cells at the floor are still "-"), and one above
/// the cut reads "hi", or "+" where another population lies well above it (`outshone`): over one
/// broad positive mode, a B-precursor tube's CD45dim blasts beside its CD45bright lymphocytes
/// read "CD45hi".
const char* callWord(const MarkerThreshold& cut, bool up, float median, bool outshone) {
    if (!cut.lowIsDim) return up ? "+" : "-";
    if (up) return outshone ? "+" : "hi";
    return median >= cut.dimFloor ? "lo" : "-";
}

/// A population's median on a marker and its own spread there.
struct Level {
    float median = 0;
    float spread = 0;
};

/// Of the type markers with a cut that none of `members` names yet, the one on which every member
/// has a call (positive or negative, as a phrase's) and they do not all agree, the clearest
/// calls first (the member nearest an even share counts); cuts.size() when there is none.
/// `cells(p, c)`: population p's cells with a value on column c (none: no call).
template <class Share, class Cells>
size_t markerThatCallsApart(const std::vector<size_t>& members,
                            const std::vector<std::vector<size_t>>& used,
                            const std::vector<MarkerThreshold>& cuts, const NamingInput& input,
                            const Share& share, const Cells& cells) {
    size_t best = cuts.size();
    double clearest = 0;
    for (size_t c = 0; c < cuts.size() && c < input.markers.size(); ++c) {
        if (c >= input.classes.size() || input.classes[c] != MarkerClass::Type ||
            (c < input.unnamed.size() && input.unnamed[c]) || !cuts[c].resolved ||
            cuts[c].onEveryCell)
            continue;
        bool clear = true, anyUp = false, anyDown = false;
        double least = 1;
        for (size_t p : members) {
            clear = clear && std::find(used[p].begin(), used[p].end(), c) == used[p].end();
            const MarkerShare s = share(p, c);
            const double n = cells(p, c);
            const bool up = holds({input.markers[c], MarkerCall::Positive}, cuts[c], n, s) ==
                            Verdict::Holds,
                       down = holds({input.markers[c], MarkerCall::Negative}, cuts[c], n, s) ==
                              Verdict::Holds;
            clear = clear && (up || down);
            anyUp = anyUp || up;
            anyDown = anyDown || down;
            least = std::min(least, std::fabs(s.positive - 0.5));
        }
        if (clear && anyUp && anyDown && least > clearest) clearest = least, best = c;
    }
    return best;
}

/// No column.
constexpr size_t kNoMarker = std::numeric_limits<size_t>::max();

/// The widest gap between namesakes' medians on one marker found so far (tellNamesakesApart).
struct LevelSplit {
    double widest = kNamesakeSpreads;  ///< the gap in the larger of its two sides' spreads
    size_t marker = kNoMarker;         ///< its column (kNoMarker: none yet)
    float between = 0;                 ///< half way across the gap
    std::vector<Level> levels;         ///< the members' levels on that column
};

/// Takes column c's namesakes' `levels` as the split where their widest gap is wider than the
/// split's, at least kNamesakeAllSpreads of all cells' spread (`spread`) there.
void widenSplit(LevelSplit& split, size_t c, const std::vector<Level>& levels, float spread) {
    std::vector<Level> sorted = levels;
    std::sort(sorted.begin(), sorted.end(),
              [](const Level& a, const Level& b) { return a.median < b.median; });
    for (size_t i = 1; i < sorted.size(); ++i) {
        const float unit = std::max(sorted[i].spread, sorted[i - 1].spread);
        const double apart = double(sorted[i].median - sorted[i - 1].median);
        if (!(unit > 0) || !(apart >= kNamesakeAllSpreads * spread)) continue;
        const double gap = apart / unit;
        if (gap > split.widest) {
            split.widest = gap, split.marker = c, split.levels = levels;
            split.between = 0.5f * (sorted[i].median + sorted[i - 1].median);
        }
    }
}

/// Where `word` stands as one of the phrase's space-separated calls, or npos (a marker's name
/// may hold spaces itself: "VIVID / CD14+").
size_t findWord(const std::string& phrase, const std::string& word) {
    for (size_t at = phrase.find(word); at != std::string::npos; at = phrase.find(word, at + 1))
        if ((at == 0 || phrase[at - 1] == ' ') &&
            (at + word.size() == phrase.size() || phrase[at + word.size()] == ' '))
            return at;
    return std::string::npos;
}

/// `phrase` with `word` (a call or a bright/dim word on `marker`) said once: nothing when it
/// says it already, in place of the marker's "+" for a bright or dim word, else after it (a cell
/// type's namesakes are told apart by markers its phrase may hold).
void sayInPhrase(std::string& phrase, const std::string& marker, const std::string& word) {
    if (findWord(phrase, word) != std::string::npos) return;
    const bool level = word == marker + "bright" || word == marker + "dim";
    if (const size_t at = findWord(phrase, marker + "+"); level && at != std::string::npos)
        phrase.replace(at, marker.size() + 1, word);
    else
        phrase += (phrase.empty() ? "" : " ") + word;
}

/// Populations that one marker phrase or one cell type names (no doublets) are told apart: by a
/// call the phrase left out where one parts them (markerThatCallsApart), else as a
/// cytometrist tells CD10+ precursors apart by CD38: the named type marker on which their
/// medians part most, by the widest gap between them in units of the larger of its two sides'
/// own spreads (at least kNamesakeSpreads, and kNamesakeAllSpreads of all cells' spread, so that
/// spillover at the background parts nothing), adds "bright" to those above the gap and "dim"
/// to those below: words of their own, relative to the namesakes, where "hi" and "lo" are calls
/// on cuts. A marker with a cut serves only where all of them are positive on it (a "bright"
/// never names cells below the cut) and it has no bright cut or dim floor (which call "hi" and
/// "lo" themselves); a marker with one mode, which no cut calls, only in this relative way.
/// Where no marker the phrase left out parts them, one it calls positive may ("CCR5+" becomes
/// "CCR5bright" and "CCR5dim": on a T cell file, namesakes whose CCR5 medians lay 2.1 of their
/// spreads apart were numbered). `share`, `level` and `cells` give a population's share at the
/// cuts, its Level and its cells with a value on a column; `outshone` whether another
/// population lies well above it on a column (callWord). A cell type keeps its name with the
/// words after it ("Naive CD4 T CD28bright", "Naive CD4 T CD28dim": the naive CD4 T cells of a
/// CD4 T gate split by the landmarks). `used`: per population, the columns no word may tell it
/// apart by (its phrase's calls; a cell type's exclusions).
template <class Share, class LevelOf, class Cells, class Outshone>
void tellNamesakesApart(std::vector<PopulationName>& names,
                        const std::vector<MarkerThreshold>& cuts, const NamingInput& input,
                        std::vector<std::vector<size_t>> used, const Share& share,
                        const LevelOf& level, const Cells& cells, const Outshone& outshone) {
    std::vector<std::string> added(names.size());  // the words that told each one apart
    const auto tell = [&](size_t p, const std::string& word) {
        added[p] += " " + word;
        names[p].name = names[p].cellType.empty() ? names[p].phrase : names[p].cellType + added[p];
    };
    for (int round = 0; round < kNamesakeRounds; ++round) {
        std::map<std::string, std::vector<size_t>> groups;
        for (size_t p = 0; p < names.size(); ++p)
            if (!names[p].doublets && (!names[p].cellType.empty() || !names[p].phrase.empty()))
                groups[names[p].name].push_back(p);
        bool told = false;
        for (const auto& group : groups) {
            // Not a structured binding: the lambdas below capture it, which clang refuses.
            const std::vector<size_t>& members = group.second;
            if (members.size() < 2) continue;
            if (const size_t c = markerThatCallsApart(members, used, cuts, input, share, cells);
                c < cuts.size()) {
                // A call on a cut first: namesakes positive and negative on a marker their
                // phrase left out read "CD4+" and "CD4-", as their own phrases would.
                for (size_t p : members) {
                    const bool up = holds({input.markers[c], MarkerCall::Positive}, cuts[c],
                                          cells(p, c), share(p, c)) == Verdict::Holds;
                    const std::string word =
                        input.markers[c] +
                        callWord(cuts[c], up, level(p, c).median, outshone(p, c));
                    sayInPhrase(names[p].phrase, input.markers[c], word);
                    tell(p, word);
                    used[p].push_back(c);
                }
                told = true;
                continue;
            }
            // A marker the phrase left out first; else one it calls positive on all of them
            // ("CCR5+"), which then reads "CCR5bright" and "CCR5dim" in its place.
            const auto byLevel = [&](bool phraseMarkers) {
                // The phrase's own positive call on column c, still as "+"; or no part of it.
                const auto open = [&](size_t p, size_t c) {
                    const auto& called = names[p].called;
                    if (!phraseMarkers)
                        return std::find(used[p].begin(), used[p].end(), c) == used[p].end();
                    return std::find(called.begin(), called.end(), std::make_pair(c, true)) !=
                               called.end() &&
                           findWord(names[p].phrase, input.markers[c] + "+") != std::string::npos;
                };
                LevelSplit split;
                for (size_t c = 0; c < cuts.size() && c < input.markers.size(); ++c) {
                    if (c >= input.classes.size() || input.classes[c] != MarkerClass::Type ||
                        (c < input.unnamed.size() && input.unnamed[c]))
                        continue;
                    // A bright cut or a dim floor gives "hi" and "lo" a meaning of their own:
                    // such a marker tells namesakes apart only through its calls.
                    const MarkerThreshold& cut = cuts[c];
                    bool usable = !cut.resolved || (!cut.hasBright && !cut.lowIsDim);
                    for (size_t p : members)
                        usable = usable && open(p, c) &&
                                 (!cut.resolved || share(p, c).positive >= kCallShare);
                    // Nor a marker of a lineage their phrase excludes: CD19's levels on cells
                    // called CD3+ are spillover and background, and "CD19bright" would read as
                    // B cells.
                    for (size_t p : members)
                        for (const auto& [other, up] : names[p].called)
                            usable = usable &&
                                     !(up && exclusive(input.markers[other], input.markers[c]));
                    if (!usable) continue;
                    std::vector<Level> levels;
                    for (size_t p : members) levels.push_back(level(p, c));
                    widenSplit(split, c, levels, cut.spread);
                }
                return split;
            };
            LevelSplit split = byLevel(false);
            const bool inPhrase = split.marker == kNoMarker;
            if (inPhrase) split = byLevel(true);
            if (split.marker == kNoMarker) continue;
            const std::string& marker = input.markers[split.marker];
            for (size_t m = 0; m < members.size(); ++m) {
                PopulationName& out = names[members[m]];
                const std::string word =
                    marker + (split.levels[m].median > split.between ? "bright" : "dim");
                sayInPhrase(out.phrase, marker, word);
                tell(members[m], word);
                used[members[m]].push_back(split.marker);
            }
            told = true;
        }
        if (!told) break;
    }
}

/// Silences, population by population, the type columns that measure a stain another column
/// measures too (two tubes' stains, one stain read by two detectors; NamingInput::stains): a
/// population is named by the first of them that has its cells and a cut, and by none where
/// two of those disagree (one positive, one negative), so that no name says "CD3+ ... CD3-"
/// (nor "CD3+ CD3+") and none contradicts a channel. A silenced column counts no cells of the
/// population, as a column without its values; all cells' tally (index k) keeps them.
void silenceSecondChannels(std::vector<Tally>& tally, size_t k, const NamingInput& input,
                           const std::vector<MarkerThreshold>& cuts) {
    std::map<std::string, std::vector<size_t>> columnsOf;
    for (size_t c = 0; c < cuts.size() && c < input.markers.size() && c < input.classes.size();
         ++c) {
        if (input.classes[c] != MarkerClass::Type) continue;
        const bool own = c < input.stains.size() && !input.stains[c].empty();
        columnsOf[own ? input.stains[c] : markerKey(input.markers[c])].push_back(c);
    }
    for (const auto& [stain, columns] : columnsOf) {
        if (columns.size() < 2) continue;
        for (size_t p = 0; p < k; ++p) {
            std::vector<size_t> usable;
            bool up = false, down = false;
            for (size_t c : columns) {
                const double n = tally[p].cells[c];
                if (n <= 0 || !cuts[c].resolved) continue;
                usable.push_back(c);
                up = up || tally[p].positive[c] / n >= kCallShare;
                down = down || tally[p].positive[c] / n <= 1 - kCallShare;
            }
            for (size_t c : columns)
                if (usable.empty() || c != usable.front() || (up && down))
                    tally[p].cells[c] = tally[p].positive[c] = tally[p].bright[c] =
                        tally[p].carrying[c] = 0;
        }
    }
}

}  // namespace

std::vector<PopulationName> namePopulations(const Matrix& points, const std::vector<int32_t>& codes,
                                            size_t k, const NamingInput& input) {
    const size_t d = points.cols;
    if (input.cutsFrom && input.cutsFrom->cols != d)
        throw std::invalid_argument("namePopulations: the cells for the cuts have other columns");
    const std::vector<MarkerThreshold> cuts =
        learnThresholds(input.cutsFrom ? *input.cutsFrom : points, input.classes);
    const std::vector<CellTypeRule>& rules = input.rules ? *input.rules : builtInCellTypes();
    // Every population's shares, and all cells' (index k).
    const std::vector<double> zeros(d, 0);
    std::vector<Tally> tally(k + 1, Tally{zeros, zeros, zeros, zeros});
    const size_t step = std::max<size_t>(1, points.rows / kSampled);
    for (size_t i = 0; i < points.rows && i < codes.size(); i += step) {
        const int32_t code = codes[i];
        for (size_t c = 0; c < d; ++c) {
            const float v = points.at(i, c);
            if (!std::isfinite(v) || !cuts[c].resolved) continue;
            const bool up = v >= cuts[c].positive;
            const bool bright = cuts[c].hasBright ? v >= cuts[c].bright : up;
            const bool carries = cuts[c].lowIsDim ? v >= cuts[c].dimFloor : up;
            for (size_t p : {k, code >= 0 && size_t(code) < k ? size_t(code) : k + 1}) {
                if (p > k) continue;
                tally[p].cells[c] += 1;
                tally[p].positive[c] += up;
                tally[p].bright[c] += bright;
                tally[p].carrying[c] += carries;
            }
        }
    }
    silenceSecondChannels(tally, k, input, cuts);
    const auto share = [&](size_t p, size_t c) {
        const double n = tally[p].cells[c];
        return MarkerShare{n > 0 ? tally[p].positive[c] / n : 0, n > 0 ? tally[p].bright[c] / n : 0,
                           n > 0 ? tally[p].carrying[c] / n : 0};
    };
    // Type markers by canonical name (the first column of a marker on two channels): only
    // lineage markers name populations.
    std::map<std::string, size_t> columnOf;
    for (size_t c = 0; c < d && c < input.markers.size(); ++c)
        if (c < input.classes.size() && input.classes[c] == MarkerClass::Type)
            columnOf.emplace(canonical(input.markers[c]), c);
    const auto callOn = [&](size_t p, const MarkerCondition& condition) {
        const auto it = columnOf.find(canonical(condition.marker));
        if (it == columnOf.end()) return Verdict::Unknown;
        const size_t c = it->second;
        return holds(condition, cuts[c], tally[p].cells[c], share(p, c));
    };

    // A population's values on column c, over the same sampled cells (asked for a few phrase
    // markers and the namesakes' candidates only), its median, and its Level.
    std::vector<std::vector<size_t>> sampledRows(k);  // each population's sampled cells
    for (size_t i = 0; i < points.rows && i < codes.size(); i += step)
        if (codes[i] >= 0 && size_t(codes[i]) < k) sampledRows[size_t(codes[i])].push_back(i);
    const auto populationValues = [&](size_t p, size_t c) {
        std::vector<float> v;
        v.reserve(sampledRows[p].size());
        for (size_t i : sampledRows[p])
            if (std::isfinite(points.at(i, c))) v.push_back(points.at(i, c));
        return v;
    };
    const auto populationMedian = [&](size_t p, size_t c) {
        std::vector<float> v = populationValues(p, c);
        return v.empty() ? 0.0f : medianOf(v);
    };
    // The spread: half the distance between its 16th and 84th percentiles.
    const auto levelOf = [](std::vector<float> v) {
        if (v.empty()) return Level{};
        std::sort(v.begin(), v.end());
        const auto at = [&](double q) { return v[size_t(q * double(v.size() - 1))]; };
        return Level{medianOf(v), 0.5f * (at(0.84) - at(0.16))};
    };
    const auto populationLevel = [&](size_t p, size_t c) {
        return levelOf(populationValues(p, c));
    };
    // Whether another population above the cut of column c lies well above population p there:
    // p is then the dim one of the positives (callWord). The levels are made once per column.
    std::map<size_t, std::vector<Level>> levelsOn;
    const auto outshone = [&](size_t p, size_t c) {
        if (!cuts[c].lowIsDim) return false;
        auto it = levelsOn.find(c);
        if (it == levelsOn.end()) {
            std::vector<Level> levels;
            for (size_t q = 0; q < k; ++q) levels.push_back(populationLevel(q, c));
            it = levelsOn.emplace(c, std::move(levels)).first;
        }
        const std::vector<Level>& levels = it->second;
        for (size_t q = 0; q < k; ++q)
            if (q != p && tally[q].cells[c] > 0 &&
                levels[q].median - levels[p].median >
                    kOutshoneSpreads * std::max(levels[p].spread, levels[q].spread))
                return true;
        return false;
    };
    // Whether population p lies above most cells on `marker`, a column without a cut: its median
    // over all named cells' median by more than kBrighterSpreads of their spread. No cut can call
    // it negative there, and "Memory CD4 T"'s "CD45RA-" named the brightest CD45RA cells of a
    // CytoNorm CD4 T gate (on a T gate: median 4.33 against all T cells' 3.06, spread 1.28).
    std::map<size_t, Level> allLevels;  // all named cells' Level per column, made when asked
    const auto brighterThanMost = [&](size_t p, const std::string& marker) {
        const auto it = columnOf.find(canonical(marker));
        if (it == columnOf.end()) return false;  // the panel lacks it
        const size_t c = it->second;
        auto all = allLevels.find(c);
        if (all == allLevels.end()) {
            std::vector<float> v;
            for (const auto& rows : sampledRows)
                for (size_t i : rows)
                    if (std::isfinite(points.at(i, c))) v.push_back(points.at(i, c));
            all = allLevels.emplace(c, levelOf(std::move(v))).first;
        }
        return populationMedian(p, c) > all->second.median + kBrighterSpreads * all->second.spread;
    };
    // Per rule and condition: an exclusion that parts the type from a sibling, a rule of another
    // name with every positive condition of this one and that marker positive ("Memory CD4 T"'s
    // CD45RA- beside "Naive CD4 T"'s CD45RA+). Another lineage's marker ("Neutrophils"' CD19-)
    // parts none: CytoNorm's brightest CD19 neutrophils (CD19 of one mode, high on every cell)
    // stay neutrophils.
    const auto positiveOn = [](const CellTypeRule& rule, const std::string& marker) {
        return std::any_of(rule.conditions.begin(), rule.conditions.end(), [&](const auto& c) {
            return canonical(c.marker) == canonical(marker) &&
                   (c.call == MarkerCall::Positive || c.call == MarkerCall::Bright);
        });
    };
    std::vector<std::vector<bool>> setsApart(rules.size());
    for (size_t r = 0; r < rules.size(); ++r)
        for (const MarkerCondition& c : rules[r].conditions) {
            bool sibling = false;
            for (const CellTypeRule& other : rules) {
                if (sibling || other.name == rules[r].name || !positiveOn(other, c.marker))
                    continue;
                sibling = std::all_of(rules[r].conditions.begin(), rules[r].conditions.end(),
                                      [&](const auto& mine) {
                                          return !(mine.call == MarkerCall::Positive ||
                                                   mine.call == MarkerCall::Bright) ||
                                                 positiveOn(other, mine.marker);
                                      });
            }
            setsApart[r].push_back(sibling);
        }
    std::vector<PopulationName> names(k);
    std::map<std::string, int> seen;  // names given so far, for the " (2)" of a repeated one
    std::vector<std::vector<std::string>> calls(k);  // each phrase's calls ("CD3+", "CD45lo")
    for (size_t p = 0; p < k; ++p) {
        PopulationName& out = names[p];
        // The phrase: type markers whose positive share differs most from all cells'. A
        // population like all cells (none differs by kApart) is named by its clearest calls
        // instead: "CD19+ CD10+" says what it is where "population 1" said nothing.
        std::vector<std::pair<double, size_t>> apart, clearest;
        std::vector<bool> lacks(d, false);  // below the dim floor of a marker whose low is dim
        for (size_t c = 0; c < d && c < input.markers.size() && c < input.classes.size(); ++c) {
            if (input.classes[c] != MarkerClass::Type || tally[p].cells[c] <= 0) continue;
            // Cells mostly below the dim floor of a marker whose lowest mode is dim lack it
            // altogether (CD45- red cells and platelets among CD45lo neutrophils and CD45hi
            // lymphocytes): how far that sets them apart counts against all cells that carry it,
            // not those above its cut. On a marker on every cell that is the only call.
            static_assert(kCallShare > 0.5, "cells that lack a marker have their median below it");
            lacks[c] = cuts[c].lowIsDim && share(p, c).carrying <= 1 - kCallShare;
            if (cuts[c].onEveryCell && !lacks[c]) continue;
            const double mine = lacks[c] ? share(p, c).carrying : share(p, c).positive,
                         all = lacks[c] ? share(k, c).carrying : share(k, c).positive;
            if (!(mine >= kCallShare || mine <= 1 - kCallShare)) continue;
            // A marker the cells lack where all others carry it, at least dimly, leads the phrase:
            // on CytoNorm's leukocytes, CD45- says "not a leukocyte" where a fourth myeloid
            // marker's minus (which set them apart by 0.53-0.60 against CD45's 0.51) says little.
            if (std::fabs(mine - all) >= kApart)
                apart.emplace_back((lacks[c] ? -1.0 : 0.0) - std::fabs(mine - all), c);
            // Positive calls first: what a population carries names it better than the many
            // markers it lacks.
            clearest.emplace_back((mine >= kCallShare ? -1.0 : 0.0) - std::fabs(mine - 0.5), c);
        }
        if (apart.empty()) apart = clearest;
        std::sort(apart.begin(), apart.end());
        if (apart.size() > kPhraseMarkers) apart.resize(kPhraseMarkers);
        for (int positive = 1; positive >= 0; --positive)
            for (const auto& [score, c] : apart) {
                const bool up = !lacks[c] && share(p, c).positive >= kCallShare;
                if (up != bool(positive)) continue;
                const char* call =
                    callWord(cuts[c], up, populationMedian(p, c), up && outshone(p, c));
                out.phrase += (out.phrase.empty() ? "" : " ") + input.markers[c] + call;
                out.called.emplace_back(c, up);
                calls[p].push_back(input.markers[c] + call);
            }
        // Doublets are called on clean cuts only: a shallow valley puts dim cells on the
        // positive side.
        const auto cleanCut = [&](const char* m) {
            const auto it = columnOf.find(canonical(m));
            return it != columnOf.end() && cuts[it->second].depth <= kCleanValley;
        };
        for (const auto& pair : kExclusive) {
            const MarkerCondition a{pair[0], MarkerCall::Positive},
                b{pair[1], MarkerCall::Positive};
            if (callOn(p, a) == Verdict::Holds && callOn(p, b) == Verdict::Holds &&
                cleanCut(pair[0]) && cleanCut(pair[1])) {
                out.doublets = true;
                const auto name = [&](const char* m) {
                    return input.markers[columnOf.at(canonical(m))] + "+";
                };
                out.name = "Doublets (" + name(pair[0]) + " " + name(pair[1]) + ")";
                break;
            }
        }
        // The last rule that holds: none of its conditions fails, and of three or more one
        // exclusion ("CD19-": a marker the panel lacks or cannot resolve) may be unknown, unless
        // it parts the type from a sibling (setsApart) and the population is among the brightest
        // on that marker (brighterThanMost). What a name asserts (its positive markers) is
        // always seen in the data. (Three: on CytoNorm's files CD19 has one mode, and "T cells",
        // CD3+ CD19- CD14-, named no T cells.)
        size_t typeVerified = 0;  // conditions the data confirmed of the rule that names it
        for (size_t r = 0; r < rules.size(); ++r) {
            const CellTypeRule& rule = rules[r];
            size_t unknown = 0;
            bool failed = false;
            for (size_t i = 0; i < rule.conditions.size() && !failed; ++i) {
                const MarkerCondition& c = rule.conditions[i];
                const Verdict v = callOn(p, c);
                const bool exclusion =
                    c.call == MarkerCall::Negative || c.call == MarkerCall::NotBright;
                failed =
                    v == Verdict::Fails || (v == Verdict::Unknown && !exclusion) ||
                    (v == Verdict::Unknown && setsApart[r][i] && brighterThanMost(p, c.marker));
                unknown += v == Verdict::Unknown;
            }
            if (!failed && (unknown == 0 || (unknown == 1 && rule.conditions.size() >= 3))) {
                out.cellType = rule.name;
                typeVerified = rule.conditions.size() - unknown;
            }
        }
        // Positive on most lineage markers at once: cells stuck together (or stained by
        // everything), whichever lineages they are. Only markers the catalogue knows as
        // lineages count: markers it does not know (generic names, "Marker3") need not exclude
        // one another, and synthetic clusters positive on most of them were called doublets.
        // Cells a rule names on three conditions the data confirm are not: its exclusions hold,
        // and a myeloid panel's classical monocytes (CD14, HLA-DR, CCR2, CD33, CD11b, CD11c... 11
        // of 20 markers on a CytoNorm file; CD14+ CD16- CD3-, CD19 without a cut) were called
        // doublets. Two are too few: "Monocytes" (CD14+ CD3-) took cells also TCRgd+, CD56+,
        // CD15+ and CD66+.
        if (!out.doublets && typeVerified < kConfirmedConditions) {
            size_t resolved = 0, positive = 0;
            for (size_t c = 0; c < d && c < input.classes.size(); ++c) {
                if (input.classes[c] != MarkerClass::Type || !cuts[c].resolved ||
                    cuts[c].onEveryCell || tally[p].cells[c] <= 0 ||
                    !catalogueEntry(input.markers[c]))
                    continue;
                ++resolved;
                positive += share(p, c).positive >= kCallShare;
            }
            if (positive >= kMostPositive &&
                double(positive) >= kMostPositiveShare * double(resolved)) {
                out.doublets = true;
                out.name = "Doublets (positive on " + std::to_string(positive) + " of " +
                           std::to_string(resolved) + " lineage markers)";
            }
        }
        if (!out.doublets)
            out.name = !out.cellType.empty() ? out.cellType
                       : !out.phrase.empty() ? out.phrase
                                             : "population " + std::to_string(p + 1);
    }
    sameCallsOneName(names, calls);
    // Columns a name says already, which no word may tell its namesakes apart by: a phrase's
    // calls; none of a cell type's phrase (its name shows none of them: namesakes of a rule
    // positive and negative on CD4 were numbered, as if CD4 were said), but the markers its
    // rules exclude ("Neutrophils CD19bright" of a rule CD19-: CytoNorm's CD19 has one mode,
    // high on every cell, and parted neutrophils that CD16 and CD15 part almost as far).
    std::vector<std::vector<size_t>> used(k);
    for (size_t p = 0; p < k; ++p) {
        if (names[p].cellType.empty()) {
            for (const auto& [c, up] : names[p].called) used[p].push_back(c);
            continue;
        }
        for (const CellTypeRule& rule : rules)
            if (rule.name == names[p].cellType)
                for (const MarkerCondition& c : rule.conditions)
                    if (const auto it = columnOf.find(canonical(c.marker));
                        it != columnOf.end() &&
                        (c.call == MarkerCall::Negative || c.call == MarkerCall::NotBright))
                        used[p].push_back(it->second);
    }
    tellNamesakesApart(
        names, cuts, input, std::move(used), share, populationLevel,
        [&](size_t p, size_t c) { return tally[p].cells[c]; }, outshone);
    for (PopulationName& out : names) {
        const int n = ++seen[out.name];
        if (n > 1) out.name += " (" + std::to_string(n) + ")";
    }
    return names;
}

}  // namespace sepal
