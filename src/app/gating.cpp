#include "app/gating.h"

#include <algorithm>

namespace sepal::app {

std::vector<size_t> Gating::events(size_t total) const {
    std::vector<size_t> out;
    out.reserve(total);
    for (size_t i = 0; i < total; ++i)
        if (contains(i)) out.push_back(i);
    return out;
}

Gating gatingOf(const Dataset& data, std::vector<Gate> gates) {
    Gating g;
    g.gates = std::move(gates);
    if (g.gates.empty()) return g;
    g.inside.assign(data.events(), 0);
    // Sample s is the events of table s.
    for (size_t s = 0; s < data.samples.size() && s < data.tables.size(); ++s) {
        const auto inside = insideGates(data.tables[s], g.gates);
        std::copy_n(inside.begin(), std::min(inside.size(), data.samples[s].count),
                    g.inside.begin() + long(data.samples[s].first));
    }
    g.kept = size_t(std::count(g.inside.begin(), g.inside.end(), uint8_t(1)));
    return g;
}

Matrix gatedRows(const Matrix& points, const Gating& gating) {
    if (gating.inside.empty()) return points;
    const auto rows = gating.events(points.rows);
    Matrix out(rows.size(), points.cols);
    for (size_t r = 0; r < rows.size(); ++r)
        std::copy_n(points.row(rows[r]), points.cols, out.row(r));
    return out;
}

}  // namespace sepal::app
