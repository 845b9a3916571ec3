#pragma once
// A monotone map that carries one distribution onto another through their quantiles: what batch
// alignment (batch_alignment.h) applies to each channel of a batch.

#include <cstddef>
#include <vector>

namespace sepal {

/// The type-7 quantiles (R's default: linear between order statistics) of `sorted`, ascending
/// and finite, at each of `levels` (0 to 1). Empty input gives an empty result.
std::vector<double> quantilesOfSorted(const std::vector<double>& sorted,
                                      const std::vector<double>& levels);

/// `count` levels spread evenly from 0 to 1 (at least 2).
std::vector<double> evenLevels(size_t count);

/// The earth mover's (Wasserstein-1) distance between two samples, each sorted ascending and
/// finite: the mean distance between their quantiles over 1,000 even levels; 0 when one is
/// empty.
double earthMoversDistance(const std::vector<double>& sortedA, const std::vector<double>& sortedB);

/// x -> y through knots (from[i], to[i]): a monotone cubic (Fritsch and Carlson's tangents,
/// as R's splinefun(method = "monoH.FC")) between them, and slope 1 beyond the first and the
/// last, so that values outside what was learnt keep their distance to its edge. Knots of one
/// `from` (a batch's many zeros) take the mean of their `to`, as splinefun's ties = mean.
class QuantileMap {
  public:
    /// The identity.
    QuantileMap() = default;
    /// Through the knots; `from` and `to` ascending, of one length. One distinct `from` shifts
    /// every value by to - from; none is the identity.
    QuantileMap(const std::vector<double>& from, const std::vector<double>& to);
    /// The mapped value (NaN stays NaN).
    double operator()(double x) const;

  private:
    std::vector<double> m_x, m_y, m_slope;  // knots and the cubic's tangents there
};

}  // namespace sepal
