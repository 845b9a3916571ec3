#include "core/cluster/population_tally.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "core/common/error.h"
#include "core/common/median.h"
#include "core/io/atomic_file.h"
#include "core/io/csv_writer.h"

namespace sepal {

namespace {

/// A 64-bit mix (splitmix64's finaliser): nearby inputs give unrelated outputs.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/// Appends plain values to a byte string, and reads them back in the same order.
struct Bytes {
    std::string text;
    size_t at = 0;
    template <class T>
    void put(const T& v) {
        putRaw(&v, sizeof v);
    }
    void putRaw(const void* p, size_t n) {
        const size_t end = text.size();
        text.resize(end + n);
        if (n) std::memcpy(text.data() + end, p, n);
    }
    void putString(const std::string& s) {
        put(uint64_t(s.size()));
        putRaw(s.data(), s.size());
    }
    template <class T>
    void putVector(const std::vector<T>& v) {
        put(uint64_t(v.size()));
        putRaw(v.data(), v.size() * sizeof(T));
    }
    void need(size_t n) const {
        if (text.size() - at < n)
            throw InputError("population tally: the merged bytes are cut short");
    }
    template <class T>
    T get() {
        need(sizeof(T));
        T v;
        std::memcpy(&v, text.data() + at, sizeof v);
        at += sizeof v;
        return v;
    }
    std::string getString() {
        const auto n = get<uint64_t>();
        need(n);
        std::string s = text.substr(at, n);
        at += n;
        return s;
    }
    template <class T>
    std::vector<T> getVector() {
        const auto [data, n] = viewVector<T>();
        std::vector<T> v(n);
        if (n) std::memcpy(v.data(), data, n * sizeof(T));
        return v;
    }
    /// Where a vector's values are in `text` (unaligned: read them with memcpy), and how many.
    template <class T>
    std::pair<const char*, size_t> viewVector() {
        const auto n = get<uint64_t>();
        if (n > (text.size() - at) / sizeof(T))
            throw InputError("population tally: the merged bytes are cut short");
        const char* data = text.data() + at;
        at += n * sizeof(T);
        return {data, size_t(n)};
    }
};

}  // namespace

std::string tallyNumber(double v) {
    // 9 digits tell every float apart.
    if (!std::isfinite(v)) return "NA";
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}

PopulationTally::PopulationTally(std::vector<std::string> populations,
                                 std::vector<std::string> markers, uint64_t seed, bool pooled)
    : m_populations(std::move(populations)),
      m_markers(std::move(markers)),
      m_seed(seed),
      m_pooled(pooled),
      m_seen(m_populations.size(), 0),
      m_kept(m_populations.size()) {}

void PopulationTally::offer(Kept& kept, uint64_t key, const float* row) const {
    const size_t d = m_markers.size();
    if (d == 0 || (kept.trimmed && key >= kept.bound)) return;  // counts only: nothing to keep
    uint64_t slot;
    if (kept.free.empty()) {
        slot = kept.rows.size() / d;
        kept.rows.insert(kept.rows.end(), row, row + d);
    } else {
        slot = kept.free.back();
        kept.free.pop_back();
        std::copy(row, row + d, kept.rows.begin() + long(size_t(slot) * d));
    }
    kept.entries.push_back({key, slot});
    if (kept.entries.size() < kKeptPerPopulation + kKeptPerPopulation / 4) return;
    // Trim to the smallest keys; what is left at or above the largest of them is never kept.
    const auto byKey = [](const KeySlot& a, const KeySlot& b) { return a.key < b.key; };
    const auto cut = kept.entries.begin() + long(kKeptPerPopulation);
    std::nth_element(kept.entries.begin(), cut - 1, kept.entries.end(), byKey);
    kept.bound = (cut - 1)->key;
    kept.trimmed = true;
    for (auto e = cut; e != kept.entries.end(); ++e) kept.free.push_back(e->slot);
    kept.entries.erase(cut, kept.entries.end());
}

std::vector<PopulationTally::KeySlot> PopulationTally::smallest(const Kept& kept, bool ordered) {
    std::vector<KeySlot> order = kept.entries;
    const auto byKey = [](const KeySlot& a, const KeySlot& b) { return a.key < b.key; };
    if (order.size() > kKeptPerPopulation) {
        std::nth_element(order.begin(), order.begin() + long(kKeptPerPopulation - 1), order.end(),
                         byKey);
        order.resize(kKeptPerPopulation);
    }
    if (ordered) std::sort(order.begin(), order.end(), byKey);
    return order;
}

void PopulationTally::add(size_t sampleIndex, const std::string& sample,
                          const std::vector<int32_t>& codes, const Matrix& values,
                          size_t firstCell) {
    const size_t k = m_populations.size(), d = m_markers.size();
    if (codes.size() != values.rows || values.cols != d)
        throw InputError("population tally: " + std::to_string(codes.size()) + " codes for " +
                         std::to_string(values.rows) + " x " + std::to_string(values.cols) +
                         " values, expected " + std::to_string(d) + " markers");
    // Blocks of several samples may come interleaved (apply's lanes share one tally).
    auto found = std::find_if(m_samples.rbegin(), m_samples.rend(),
                              [&](const Sample& s) { return s.index == sampleIndex; });
    if (found == m_samples.rend()) {
        m_samples.push_back(
            {sampleIndex, sample, std::vector<uint64_t>(k + 1, 0), 0, std::vector<Kept>(k), {}});
        found = m_samples.rbegin();
    }
    Sample& s = *found;
    if (!s.medians.empty())
        throw InputError("population tally: a block of sample " + sample +
                         " came after the sample was finished");
    s.total += codes.size();
    // Counted in order; each population's cells (in order) then offered on a thread of its own.
    std::vector<std::vector<uint32_t>> cellsOf(k);
    for (size_t i = 0; i < codes.size(); ++i) {
        const int32_t c = codes[i];
        if (c < 0 || size_t(c) >= k) {
            ++s.cells[k];
            continue;
        }
        ++s.cells[size_t(c)];
        ++m_seen[size_t(c)];
        cellsOf[size_t(c)].push_back(uint32_t(i));
    }
    // Without markers (counts only) there are no values to keep. offer() throws nothing but
    // bad_alloc, which inside the parallel loop ends the program as it would anywhere else.
    if (d == 0) return;
    const uint64_t sampleKey = mix(m_seed ^ mix(sampleIndex));
#pragma omp parallel for schedule(dynamic) if (codes.size() > 4096)
    for (size_t p = 0; p < k; ++p)
        for (const uint32_t i : cellsOf[p]) {
            const uint64_t key = mix(sampleKey ^ (firstCell + i));
            if (m_pooled) offer(m_kept[p], key, values.row(i));
            offer(s.kept[p], key, values.row(i));
        }
}

void PopulationTally::finishSample(size_t sampleIndex) {
    for (Sample& s : m_samples)
        if (s.index == sampleIndex && s.medians.empty()) {
            s.medians = mediansOf(s);
            s.kept = {};
        }
}

std::vector<float> PopulationTally::keptMedians(const Kept& kept) const {
    const size_t d = m_markers.size();
    const std::vector<KeySlot> order = smallest(kept, false);
    // Column by column: a median reorders its values, in any order they come.
    std::vector<float> column(order.size()), medians(d);
    for (size_t t = 0; t < d; ++t) {
        size_t filled = 0;
        for (const KeySlot& r : order) {
            const float v = kept.rows[size_t(r.slot) * d + t];
            if (std::isfinite(v)) column[filled++] = v;
        }
        medians[t] = medianOf(column.data(), column.data() + filled);
    }
    return medians;
}

std::vector<float> PopulationTally::mediansOf(const Sample& sample) const {
    if (!sample.medians.empty()) return sample.medians;
    const size_t k = m_populations.size(), d = m_markers.size();
    std::vector<float> medians(k * d, NAN);
    for (size_t p = 0; p < k && p < sample.kept.size(); ++p) {
        const std::vector<float> m = keptMedians(sample.kept[p]);
        std::copy(m.begin(), m.end(), medians.begin() + long(p * d));
    }
    return medians;
}

std::vector<SampleMedians> PopulationTally::sampleMedians() const {
    const size_t k = m_populations.size(), d = m_markers.size();
    std::vector<const Sample*> ordered;
    for (const auto& s : m_samples) ordered.push_back(&s);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Sample* a, const Sample* b) { return a->index < b->index; });
    std::vector<SampleMedians> rows;
    for (const Sample* s : ordered) {
        const std::vector<float> medians = mediansOf(*s);
        for (size_t p = 0; p < k; ++p)
            rows.push_back({s->name, m_populations[p], s->cells[p],
                            std::vector<float>(medians.begin() + long(p * d),
                                               medians.begin() + long((p + 1) * d))});
    }
    return rows;
}

void PopulationTally::writeSampleMedians(const std::string& path) const {
    std::string text = "sample,population,cells";
    for (const auto& m : m_markers) text.append(",").append(io::csvField(m));
    text += "\n";
    for (const auto& row : sampleMedians()) {
        text += io::csvField(row.sample) + "," + io::csvField(row.population) + "," +
                std::to_string(row.cells);
        for (const float v : row.medians) text.append(",").append(tallyNumber(v));
        text += "\n";
    }
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

void PopulationTally::renameMarkers(std::vector<std::string> markers) {
    if (markers.size() != m_markers.size())
        throw InputError("population tally: " + std::to_string(markers.size()) +
                         " marker names for " + std::to_string(m_markers.size()) + " markers");
    m_markers = std::move(markers);
}

std::string PopulationTally::toBytes(const std::vector<uint64_t>& bounds) const {
    if (!bounds.empty() && bounds.size() != m_populations.size())
        throw std::logic_error("PopulationTally::toBytes: bounds of another number of populations");
    Bytes b;
    b.put(m_seed);
    b.put(uint64_t(m_populations.size()));
    b.put(uint64_t(m_markers.size()));
    b.put(uint64_t(m_samples.size()));
    for (const auto& s : m_samples) {
        b.put(s.index);
        b.putString(s.name);
        b.putVector(s.cells);
        b.put(s.total);
        b.putVector(mediansOf(s));
    }
    b.putVector(m_seen);
    // Only the kept rows, slots renumbered, each population's keys then values: sized first, so
    // that each population (on a thread of its own) copies its rows once, straight into place.
    // A merge offers them in any order.
    const size_t d = m_markers.size(), k = m_kept.size();
    std::vector<std::vector<KeySlot>> orders(k);
#pragma omp parallel for schedule(dynamic)
    for (size_t p = 0; p < k; ++p) {
        orders[p] = smallest(m_kept[p], false);
        if (!bounds.empty())
            orders[p].erase(std::remove_if(orders[p].begin(), orders[p].end(),
                                           [&](const KeySlot& e) { return e.key > bounds[p]; }),
                            orders[p].end());
    }
    std::vector<size_t> offset(k + 1, b.text.size());
    for (size_t p = 0; p < k; ++p)
        offset[p + 1] = offset[p] + 2 * sizeof(uint64_t) +
                        orders[p].size() * (sizeof(KeySlot) + d * sizeof(float));
    b.text.resize(offset[k]);
#pragma omp parallel for schedule(dynamic)
    for (size_t p = 0; p < k; ++p) {
        char* at = b.text.data() + offset[p];
        const auto put = [&](const void* v, size_t n) {
            std::memcpy(at, v, n);
            at += n;
        };
        const std::vector<KeySlot>& order = orders[p];
        const uint64_t count = order.size(), values = order.size() * d;
        put(&count, sizeof count);
        for (size_t i = 0; i < order.size(); ++i) {
            const KeySlot renumbered{order[i].key, i};
            put(&renumbered, sizeof renumbered);
        }
        put(&values, sizeof values);
        for (const KeySlot& e : order)
            put(m_kept[p].rows.data() + size_t(e.slot) * d, d * sizeof(float));
    }
    return b.text;
}

std::vector<std::vector<uint64_t>> PopulationTally::keptKeys() const {
    std::vector<std::vector<uint64_t>> keys(m_kept.size());
#pragma omp parallel for schedule(dynamic)
    for (size_t p = 0; p < m_kept.size(); ++p)
        for (const KeySlot& e : smallest(m_kept[p])) keys[p].push_back(e.key);
    return keys;
}

std::vector<uint64_t> cohortKeyBounds(
    size_t populations,
    const std::function<std::vector<uint64_t>(const std::vector<uint64_t>&)>& keysAtMost) {
    // The smallest bound with kKeptPerPopulation keys at or below it lies in [low, high]; each
    // call halves every population's interval (64 halve 2^64 keys to one).
    std::vector<uint64_t> low(populations, 0), high(populations, UINT64_MAX), middle(populations);
    for (int step = 0; step < 64; ++step) {
        for (size_t p = 0; p < populations; ++p) middle[p] = low[p] + (high[p] - low[p]) / 2;
        const std::vector<uint64_t> below = keysAtMost(middle);
        if (below.size() != populations)
            throw std::logic_error("cohortKeyBounds: counts of another number of populations");
        for (size_t p = 0; p < populations; ++p) {
            if (low[p] == high[p]) continue;
            if (below[p] >= PopulationTally::kKeptPerPopulation)
                high[p] = middle[p];
            else
                low[p] = middle[p] + 1;
        }
    }
    return high;
}

std::vector<uint64_t> keysAtMost(const std::vector<std::vector<uint64_t>>& keys,
                                 const std::vector<uint64_t>& bounds) {
    std::vector<uint64_t> counts(bounds.size(), 0);
    for (size_t p = 0; p < bounds.size() && p < keys.size(); ++p)
        counts[p] =
            uint64_t(std::upper_bound(keys[p].begin(), keys[p].end(), bounds[p]) - keys[p].begin());
    return counts;
}

void PopulationTally::merge(const std::string& bytes) {
    Bytes b{bytes};
    const size_t k = m_populations.size(), d = m_markers.size();
    if (b.get<uint64_t>() != m_seed || b.get<uint64_t>() != k || b.get<uint64_t>() != d)
        throw InputError("population tally: the merged tally has other populations or markers");
    const auto samples = b.get<uint64_t>();
    for (uint64_t i = 0; i < samples; ++i) {
        Sample s;
        s.index = b.get<uint64_t>();
        s.name = b.getString();
        s.cells = b.getVector<uint64_t>();
        s.total = b.get<uint64_t>();
        s.medians = b.getVector<float>();
        if (s.cells.size() != k + 1 || s.medians.size() != k * d)
            throw InputError("population tally: sample " + s.name + " has other populations");
        m_samples.push_back(std::move(s));
    }
    const auto seen = b.getVector<uint64_t>();
    if (seen.size() != k) throw InputError("population tally: other populations");
    // Where each population's kept rows are, checked, then offered a population a thread.
    std::vector<std::pair<const char*, size_t>> keys(k), rows(k);
    for (size_t p = 0; p < k; ++p) {
        m_seen[p] += seen[p];
        keys[p] = b.viewVector<KeySlot>();
        rows[p] = b.viewVector<float>();
        if (rows[p].second != keys[p].second * d)
            throw InputError("population tally: kept values do not match their keys");
        for (size_t i = 0; i < keys[p].second; ++i) {
            KeySlot e;
            std::memcpy(&e, keys[p].first + i * sizeof e, sizeof e);
            if (e.slot >= keys[p].second) throw InputError("population tally: a slot out of range");
        }
    }
#pragma omp parallel for schedule(dynamic)
    for (size_t p = 0; p < k; ++p) {
        std::vector<float> row(d);
        for (size_t i = 0; i < keys[p].second; ++i) {
            KeySlot e;
            std::memcpy(&e, keys[p].first + i * sizeof e, sizeof e);
            std::memcpy(row.data(), rows[p].first + e.slot * d * sizeof(float), d * sizeof(float));
            offer(m_kept[p], e.key, row.data());
        }
    }
}

std::vector<PopulationCount> PopulationTally::counts() const {
    const size_t k = m_populations.size();
    bool anyUnassigned = false;
    for (const auto& s : m_samples) anyUnassigned |= s.cells[k] > 0;
    std::vector<const Sample*> ordered;
    for (const auto& s : m_samples) ordered.push_back(&s);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Sample* a, const Sample* b) { return a->index < b->index; });
    std::vector<PopulationCount> rows;
    for (const Sample* s : ordered)
        for (size_t p = 0; p < k + (anyUnassigned ? 1 : 0); ++p)
            rows.push_back({s->name, p < k ? m_populations[p] : "unassigned", s->cells[p],
                            s->total ? double(s->cells[p]) / double(s->total) : NAN});
    return rows;
}

void PopulationTally::writeCounts(const std::string& path) const {
    std::string text = "sample,population,cells,fraction\n";
    for (const auto& row : counts())
        text += io::csvField(row.sample) + "," + io::csvField(row.population) + "," +
                std::to_string(row.cells) + "," + tallyNumber(row.fraction) + "\n";
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

void PopulationTally::writeMedians(const std::string& path) const {
    const size_t d = m_markers.size();
    std::string text = "population,cells";
    for (const auto& m : m_markers) text.append(",").append(io::csvField(m));
    text += "\n";
    // A population at a time on each thread; each value is the same whichever thread takes it.
    const size_t k = m_populations.size();
    std::vector<std::vector<float>> medians(k);
#pragma omp parallel for schedule(dynamic)
    for (size_t p = 0; p < k; ++p) medians[p] = keptMedians(m_kept[p]);
    for (size_t p = 0; p < k; ++p) {
        text += io::csvField(m_populations[p]) + "," + std::to_string(m_seen[p]);
        for (size_t t = 0; t < d; ++t) text.append(",").append(tallyNumber(medians[p][t]));
        text += "\n";
    }
    io::writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

Heatmap PopulationTally::heatmap() const {
    const size_t d = m_markers.size();
    std::vector<std::vector<KeySlot>> kept;
    size_t rows = 0;
    for (const auto& k : m_kept) {
        // Rows in key order, so the heatmap is the same however the tally was filled.
        kept.push_back(smallest(k));
        rows += kept.back().size();
    }
    Matrix values(rows, d);
    std::vector<int32_t> codes;
    codes.reserve(rows);
    size_t at = 0;
    for (size_t p = 0; p < m_kept.size(); ++p) {
        const auto& order = kept[p];
        for (const auto& [key, slot] : order)
            std::copy_n(m_kept[p].rows.begin() + long(size_t(slot) * d), d,
                        values.values.begin() + long((at++) * d));
        codes.insert(codes.end(), order.size(), int32_t(p));
    }
    Heatmap h = heatmapOf(values, codes, m_populations, m_markers);
    h.cells.assign(m_seen.begin(), m_seen.end());
    return h;
}

}  // namespace sepal
