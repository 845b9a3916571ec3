#include "core/pipeline/grid_repulsion.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/error.h"

namespace sepal {

namespace {

/// The four nodes around a cell and their bilinear weights.
struct NodeWeights {
    size_t row, col;  // the lower node along x (rows) and y (columns)
    double wx[2], wy[2];
};

NodeWeights nodesOf(float x, float y, double lowX, double lowY, double spacing) {
    const double gx = (double(x) - lowX) / spacing, gy = (double(y) - lowY) / spacing;
    const double fx = std::floor(gx), fy = std::floor(gy);
    NodeWeights n;
    n.row = size_t(fx);
    n.col = size_t(fy);
    n.wx[1] = gx - fx, n.wx[0] = 1.0 - n.wx[1];
    n.wy[1] = gy - fy, n.wy[0] = 1.0 - n.wy[1];
    return n;
}

/// What a cell's own charge adds to its normaliser field through the grid: sum over its four
/// nodes a and b of w_a w_b / (1 + |a - b|^2) (the exact sums leave the pair i, i out).
double selfNormaliser(const NodeWeights& n, double spacing) {
    const double h2 = spacing * spacing;
    double sum = 0;
    for (int ax = 0; ax < 2; ++ax)
        for (int ay = 0; ay < 2; ++ay)
            for (int bx = 0; bx < 2; ++bx)
                for (int by = 0; by < 2; ++by) {
                    const double r2 = double((ax - bx) * (ax - bx) + (ay - by) * (ay - by)) * h2;
                    sum += n.wx[ax] * n.wy[ay] * n.wx[bx] * n.wy[by] / (1.0 + r2);
                }
    return sum;
}

}  // namespace

GridRepulsion::GridRepulsion(double spacing, size_t mostNodes)
    : m_spacing(spacing), m_mostNodes(std::max<size_t>(mostNodes, 16)) {}

GridRepulsion::~GridRepulsion() = default;

void GridRepulsion::prepareKernels(size_t side, double spacing) {
    const size_t padded = 2 * side;
    m_fft = std::make_unique<Fft2d>(padded);
    m_normaliser.assign(padded * padded, 0.0);
    m_force.assign(padded * padded, 0.0);
    // Offsets u >= side stand for u - padded: the convolution is linear, not periodic, because
    // the cells' nodes are at most side - 1 apart.
    for (size_t r = 0; r < padded; ++r)
        for (size_t c = 0; c < padded; ++c) {
            const double dx = (r < side ? double(r) : double(r) - double(padded)) * spacing;
            const double dy = (c < side ? double(c) : double(c) - double(padded)) * spacing;
            const double w = 1.0 / (1.0 + dx * dx + dy * dy);
            m_normaliser[r * padded + c] = w;
            m_force[r * padded + c] = std::complex<double>(dx, dy) * (w * w);
        }
    m_fft->forward(m_normaliser.data(), padded);
    m_fft->forward(m_force.data(), padded);
    m_side = side;
    m_kernelSpacing = spacing;
}

void GridRepulsion::compute(const float* y, const std::vector<uint32_t>& cells,
                            RepulsionSums& out) {
    const size_t m = cells.size();
    out.x.assign(m, 0.0);
    out.y.assign(m, 0.0);
    out.z = 0;
    if (m < 2) return;
    double lowX = std::numeric_limits<double>::infinity(), lowY = lowX;
    double highX = -lowX, highY = -lowX;
    for (uint32_t i : cells) {
        lowX = std::min(lowX, double(y[2 * i])), highX = std::max(highX, double(y[2 * i]));
        lowY = std::min(lowY, double(y[2 * i + 1])), highY = std::max(highY, double(y[2 * i + 1]));
    }
    const double span = std::max({highX - lowX, highY - lowY, 1e-6});
    if (!std::isfinite(span))
        throw InputError("t-SNE polish: the picture diverged (a position is not finite)");
    // The side is the power of two the spacing asks for; within it the spacing is as fine as
    // the side allows (a power-of-two side leaves room: finer sums at no cost). Past the largest
    // grid the spacing grows instead. It moves in steps of 2^(1/4), so that the kernels are
    // transformed again only now and then as the picture spreads.
    constexpr double kStep = 1.189207115002721;
    double spacing = m_spacing;
    while (span / spacing + 3.0 > double(m_mostNodes)) spacing *= kStep;
    size_t side = 8;
    while (double(side) < span / spacing + 3.0) side *= 2;
    while (span / (spacing / kStep) + 3.0 <= double(side)) spacing /= kStep;
    if (side != m_side || spacing != m_kernelSpacing) prepareKernels(side, spacing);
    // Node 0 one spacing below the lowest cell: every cell's upper nodes stay inside the side.
    lowX -= spacing, lowY -= spacing;
    const size_t padded = 2 * side;
    m_charges.assign(padded * padded, 0.0);
    // One thread adds the charges: their sums do not depend on the thread count.
    for (uint32_t i : cells) {
        const NodeWeights n = nodesOf(y[2 * i], y[2 * i + 1], lowX, lowY, spacing);
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b)
                m_charges[(n.row + size_t(a)) * padded + n.col + size_t(b)] += n.wx[a] * n.wy[b];
    }
    m_fft->forward(m_charges.data(), side);
    m_field.resize(padded * padded);
    for (size_t e = 0; e < padded * padded; ++e) {
        m_field[e] = multiply(m_charges[e], m_normaliser[e]);
        m_charges[e] = multiply(m_charges[e], m_force[e]);
    }
    m_fft->inverse(m_field.data(), side);    // real: the normaliser's field
    m_fft->inverse(m_charges.data(), side);  // real and imaginary: the force along x and y
    std::vector<double> selfless(m);
#pragma omp parallel for schedule(static)
    for (long long cc = 0; cc < static_cast<long long>(m); ++cc) {
        const size_t c = size_t(cc);
        const uint32_t i = cells[c];
        const NodeWeights n = nodesOf(y[2 * i], y[2 * i + 1], lowX, lowY, spacing);
        double z = 0, fx = 0, fy = 0;
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) {
                const size_t at = (n.row + size_t(a)) * padded + n.col + size_t(b);
                const double w = n.wx[a] * n.wy[b];
                z += w * m_field[at].real();
                fx += w * m_charges[at].real();
                fy += w * m_charges[at].imag();
            }
        selfless[c] = z - selfNormaliser(n, spacing);
        out.x[c] = fx;
        out.y[c] = fy;
    }
    for (double z : selfless) out.z += z;  // in the cells' order, whatever the threads
}

}  // namespace sepal
