#include "core/transform/compensation.h"

#include <cmath>
#include <utility>

#include "core/common/error.h"

namespace sepal {

std::vector<double> invertMatrix(const std::vector<double>& m, size_t n, const std::string& what) {
    if (m.size() != n * n)
        throw InputError(what + ": expected a " + std::to_string(n) + " x " + std::to_string(n) +
                         " matrix, found " + std::to_string(m.size()) + " values");
    std::vector<double> a = m;
    std::vector<double> inv(n * n, 0.0);
    for (size_t i = 0; i < n; ++i) inv[i * n + i] = 1.0;
    double largest = 0;
    for (double v : a) {
        if (!std::isfinite(v)) throw InputError(what + ": the matrix holds a non-finite value");
        largest = std::max(largest, std::abs(v));
    }
    for (size_t col = 0; col < n; ++col) {
        size_t pivot = col;
        for (size_t r = col + 1; r < n; ++r)
            if (std::abs(a[r * n + col]) > std::abs(a[pivot * n + col])) pivot = r;
        if (std::abs(a[pivot * n + col]) <= 1e-12 * std::max(largest, 1.0))
            throw InputError(what +
                             ": the matrix is singular and cannot be inverted (check the "
                             "spillover values)");
        if (pivot != col)
            for (size_t k = 0; k < n; ++k) {
                std::swap(a[pivot * n + k], a[col * n + k]);
                std::swap(inv[pivot * n + k], inv[col * n + k]);
            }
        const double scale = 1.0 / a[col * n + col];
        for (size_t k = 0; k < n; ++k) {
            a[col * n + k] *= scale;
            inv[col * n + k] *= scale;
        }
        for (size_t r = 0; r < n; ++r) {
            if (r == col) continue;
            const double factor = a[r * n + col];
            if (factor == 0) continue;
            for (size_t k = 0; k < n; ++k) {
                a[r * n + k] -= factor * a[col * n + k];
                inv[r * n + k] -= factor * inv[col * n + k];
            }
        }
    }
    return inv;
}

ResolvedCompensation resolveCompensation(const io::Spillover& spillover, const io::Table& table,
                                         const std::string& origin) {
    const size_t n = spillover.channels.size();
    if (spillover.matrix.rows != n || spillover.matrix.cols != n)
        throw InputError("compensation: the spillover matrix is " +
                         std::to_string(spillover.matrix.rows) + " x " +
                         std::to_string(spillover.matrix.cols) + " but names " + std::to_string(n) +
                         " channels");
    ResolvedCompensation resolved;
    std::string missing;
    for (const auto& name : spillover.channels) {
        const int index = table.findChannel(name);
        if (index < 0)
            missing += missing.empty() ? name : ", " + name;
        else
            resolved.columns.push_back(static_cast<size_t>(index));
    }
    if (!missing.empty())
        throw InputError("compensation: the spillover matrix names channels that " +
                         (table.source.empty() ? std::string("the data") : table.source) +
                         " does not have: " + missing +
                         " (compensate only files from the same panel, or turn compensation off)");
    std::vector<double> m(spillover.matrix.values.begin(), spillover.matrix.values.end());
    const std::string named =
        !origin.empty() ? origin
                        : (table.source.empty() ? std::string("the data") : table.source) +
                              ": its spillover matrix ($SPILLOVER/SPILL keyword)";
    resolved.inverse = invertMatrix(m, n, named);
    return resolved;
}

}  // namespace sepal
