#include "app/dataset.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "core/common/error.h"
#include "core/transform/channel_roles.h"

namespace sepal::app {

bool DataSettings::operator==(const DataSettings& o) const {
    if (compensate != o.compensate || channels.size() != o.channels.size()) return false;
    for (size_t i = 0; i < channels.size(); ++i)
        if (channels[i].use != o.channels[i].use || channels[i].cofactor != o.channels[i].cofactor)
            return false;
    return true;
}

std::string channelLabel(const io::Channel& channel) {
    // Marker first: that is the name a user looks for in a list of channels.
    if (channel.marker.empty() || channel.marker == channel.name) return channel.name;
    return channel.marker + " (" + channel.name + ")";
}

std::vector<std::string> Dataset::channelNames() const {
    std::vector<std::string> names;
    if (tables.empty()) return names;
    for (const auto& c : tables.front().channels) names.push_back(channelLabel(c));
    return names;
}

std::vector<std::pair<std::string, std::string>> Dataset::labelsOf(size_t event) const {
    std::vector<std::pair<std::string, std::string>> out;
    if (event >= sampleOf.size() || sampleOf[event] >= tables.size()) return out;
    const size_t s = sampleOf[event];
    const size_t row = event - samples[s].first;
    for (const auto& lc : tables[s].labels) {
        const int code = row < lc.codes.size() ? lc.codes[row] : -1;
        if (code >= 0 && size_t(code) < lc.categories.size())
            out.emplace_back(lc.name, lc.categories[size_t(code)]);
    }
    return out;
}

DataSettings defaultSettings(const io::Table& table) {
    DataSettings s;
    // The same guesses as sepal-cli's default pipeline, so both open a file alike.
    const bool mass = guessCytometry(table) == Cytometry::Mass;
    for (size_t i = 0; i < table.channels.size(); ++i) {
        const auto& c = table.channels[i];
        ChannelTransform t;
        t.use = !isTechnicalChannel(table, i);
        t.cofactor = mass ? 5.0f : 150.0f;
        // Values already in a small range (generated or pre-transformed data) stay linear.
        if (c.range > 0 && c.range <= 16) t.cofactor = 0;
        s.channels.push_back(t);
    }
    if (std::none_of(s.channels.begin(), s.channels.end(), [](auto& c) { return c.use; }))
        for (auto& c : s.channels) c.use = true;
    return s;
}

namespace {
// Compensated copy of one row: x_comp = x * inverse(spillover) over the spillover's channels.
struct Compensation {
    std::vector<int> columns;  // table columns the matrix refers to
    std::vector<float> inverse;
};

std::optional<Compensation> compensationFor(const io::Table& t) {
    if (!t.spillover) return std::nullopt;
    const auto& sp = *t.spillover;
    size_t m = sp.channels.size();
    Compensation c;
    for (const auto& name : sp.channels) {
        int col = t.findChannel(name);
        if (col < 0) return std::nullopt;
        c.columns.push_back(col);
    }
    // Gauss-Jordan inverse of the m x m spillover matrix.
    std::vector<double> a(m * m), inv(m * m, 0.0);
    for (size_t i = 0; i < m * m; ++i) a[i] = sp.matrix.values[i];
    for (size_t i = 0; i < m; ++i) inv[i * m + i] = 1.0;
    for (size_t col = 0; col < m; ++col) {
        size_t pivot = col;
        for (size_t r = col + 1; r < m; ++r)
            if (std::abs(a[r * m + col]) > std::abs(a[pivot * m + col])) pivot = r;
        if (std::abs(a[pivot * m + col]) < 1e-12) return std::nullopt;
        for (size_t j = 0; j < m; ++j) {
            std::swap(a[col * m + j], a[pivot * m + j]);
            std::swap(inv[col * m + j], inv[pivot * m + j]);
        }
        double p = a[col * m + col];
        for (size_t j = 0; j < m; ++j) a[col * m + j] /= p, inv[col * m + j] /= p;
        for (size_t r = 0; r < m; ++r) {
            if (r == col) continue;
            double f = a[r * m + col];
            for (size_t j = 0; j < m; ++j)
                a[r * m + j] -= f * a[col * m + j], inv[r * m + j] -= f * inv[col * m + j];
        }
    }
    c.inverse.assign(inv.begin(), inv.end());
    return c;
}
}  // namespace

void rebuildPoints(Dataset& data, const DataSettings& settings) {
    data.points = Matrix();
    data.columns.clear();
    data.labels.clear();
    data.sampleOf.clear();
    data.samples.resize(data.tables.size());
    if (data.tables.empty()) {
        ++data.version;
        return;
    }
    const auto& first = data.tables.front();
    std::vector<std::string> names, labels;
    std::vector<float> cofactors;
    for (size_t c = 0; c < first.channels.size() && c < settings.channels.size(); ++c) {
        if (!settings.channels[c].use) continue;
        names.push_back(first.channels[c].name);
        labels.push_back(channelLabel(first.channels[c]));
        cofactors.push_back(settings.channels[c].cofactor);
    }
    size_t total = 0;
    for (const auto& t : data.tables) total += t.events();
    Matrix out(total, names.size());
    data.sampleOf.resize(total);
    size_t row = 0;
    for (size_t s = 0; s < data.tables.size(); ++s) {
        const auto& t = data.tables[s];
        std::vector<int> cols;
        for (const auto& n : names) {
            int c = t.findChannel(n);
            if (c < 0)
                throw InputError(t.source + ": has no channel '" + n +
                                 "' that the first sample has; open files of one panel together");
            cols.push_back(c);
        }
        auto comp = settings.compensate ? compensationFor(t) : std::nullopt;
        std::vector<float> buf(t.values.cols);
        data.samples[s].path = t.source;
        data.samples[s].name = std::filesystem::path(t.source).filename().string();
        data.samples[s].first = row;
        data.samples[s].count = t.events();
        for (size_t e = 0; e < t.events(); ++e, ++row) {
            const float* src = t.values.row(e);
            std::copy(src, src + t.values.cols, buf.begin());
            if (comp) {
                size_t m = comp->columns.size();
                std::vector<float> tmp(m, 0.0f);
                for (size_t j = 0; j < m; ++j)
                    for (size_t i = 0; i < m; ++i)
                        tmp[j] += src[comp->columns[i]] * comp->inverse[i * m + j];
                for (size_t j = 0; j < m; ++j) buf[comp->columns[j]] = tmp[j];
            }
            float* dst = out.row(row);
            for (size_t j = 0; j < cols.size(); ++j) {
                float v = buf[cols[j]];
                dst[j] = cofactors[j] > 0 ? std::asinh(v / cofactors[j]) : v;
            }
            data.sampleOf[row] = uint16_t(std::min<size_t>(s, 65535));
        }
    }
    data.points = std::move(out);
    data.columns = std::move(names);
    data.labels = std::move(labels);
    ++data.version;
}

}  // namespace sepal::app
