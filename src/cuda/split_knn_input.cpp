// The host half of the split candidates: rows centred on the column means (or the unit rows of
// cosine and pearson), their norms, the scale into FP16's range, and each row's error bound.
//
// Euclidean, for centred rows a = fl(x - mean), b likewise (u = 2^-24):
// - the key the kernel compares is v = fl(|b|^2 - 2 dot), dot = the tensor cores' a.b, and a
//   left-out point has v >= tau, the query's final threshold (with parts, a point of a part
//   the block left out has |x - y|^2 above tau + |a|^2, more than the bound below needs);
// - |dot - a.b| <= eps |a| |b| + tiny (|a| + |b|), eps = (2 k + 8) 2^-22 for k padded columns:
//   the three products miss lo.lo and round each lo to 11 bits (3 x 2^-22), and the tensor
//   cores may truncate each of their accumulations (at most one ulp of 2^-23 per term: 3 k / 16
//   products of 17 terms); tiny = 2^-25 sqrt(k) / scale, where an FP16 part falls below its
//   normal range (half its spacing there, per value);
// - rounding |b|^2 to float and v itself: 2.01 u (|a| + |b|)^2; centring moves |x - y|^2 by at
//   most 2.0001 u (|a| + |b|)^2;
// so |x - y|^2 >= tau + |a|^2 - error, error = 1.05 (2 eps |a| r + 2 tiny (|a| + r) + 4.02 u
// (|a| + r)^2), r the largest |b| of any row.
// Cosine and pearson compare unit rows U as 2 (1 - U.U') = 1 + v with |row|^2 taken as 1: the
// float unit rows move the dot by 2.01 u, v's rounding by 3.01 u, so error = 1.05 (2 eps (1 + 3u)
// + 4 tiny (1 + u) + 7.03 u) and the key is half.
// The accumulation term is a model of the tensor cores (products exact, sums aligned and
// truncated to single precision); it holds for Ampere and Hopper's FP16 products, and would have
// to be revisited for hardware that keeps fewer accumulator bits.
// With partial sums (sumColumns = c: a kernel sums each c columns' products from zero and adds
// each partial sum to a running sum in single precision), a partial sum errs by at most
// 2 c 2^-22 times its columns' sum of |a_i| |b_i| (the model above, for c columns), and each of
// the k / c additions by 2^-24 of the running sum, at most |a| |b| (with room): eps =
// (2 c + 8 + k / (4 c)) 2^-22, 80 2^-22 for 1024 columns in sums of 32 where one sum has 2056.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "cuda/split_knn.h"

namespace sepal::cuda {

namespace {
constexpr double kUnit = 0x1p-24;
}  // namespace

bool splitKnnTakes(KnnMetric metric, size_t d) {
    static const bool wanted = [] {
        const char* v = std::getenv("SEPAL_KNN_TENSOR");
        return !(v && std::string(v) == "0");
    }();
    // Below 8 columns the k nearest lie too close, relative to the rows' norms, for the
    // dot-product form's error bound to prove them (and the difference form is cheap there).
    return wanted && metric != KnnMetric::Manhattan && d >= 8 && d <= 64;
}

SplitKnnInput prepareSplitKnn(RowsView points, const KnnRowScales& scales, KnnMetric metric,
                              const std::vector<float>& unitRows, int sumColumns) {
    const size_t n = points.rows, d = points.cols;
    SplitKnnInput in;
    in.n = n;
    const size_t pad = sumColumns > 0 ? size_t(sumColumns) : 16;
    in.stride = int((d + pad - 1) / pad * pad);
    in.sumColumns = sumColumns;
    const size_t stride = size_t(in.stride);
    const double eps =
        sumColumns > 0
            ? (double(2 * sumColumns + 8) + double(stride) / double(4 * sumColumns)) * 0x1p-22
            : double(2 * stride + 8) * 0x1p-22;
    const bool unit = metric == KnnMetric::Cosine || metric == KnnMetric::Pearson;
    // Every value of the rows (padding and unusable rows as zeros) is written by the loops below,
    // on all cores.
    in.rows.resize(n * stride);
    in.norm2.assign(n, std::numeric_limits<float>::infinity());
    in.ownNorm2.assign(n, unit ? 1.0 : 0.0);
    in.error.assign(n, 0.0);
    in.margin.assign(n, 0.0f);
    const long long rowsSigned = static_cast<long long>(n);
    if (unit) {
        in.scale = 0x1p14f;  // unit rows: every value within 1
        const double tiny = 0x1p-25 * std::sqrt(double(stride)) / double(in.scale);
        const double error =
            1.05 * (2 * eps * (1 + 3 * kUnit) + 4 * tiny * (1 + kUnit) + 7.03 * kUnit);
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < rowsSigned; ++i) {
            float* a = in.rows.data() + size_t(i) * stride;
            const bool usable = scales.usable[size_t(i)];
            if (usable) std::copy_n(unitRows.data() + size_t(i) * d, d, a);
            std::fill(a + (usable ? d : 0), a + stride, 0.0f);
            if (!usable) continue;
            in.norm2[size_t(i)] = 1.0f;
            in.error[size_t(i)] = error;
            in.margin[size_t(i)] = float(2.5 * error);
        }
        in.keyScale = 0.5;
        in.absSlack = double(d + 2) * 0x1p-53;
        return in;
    }
    // The column means, summed in blocks of rows on all cores (the centre only has to be near
    // the data's: the bounds hold for any centre).
    constexpr size_t kMeanRows = 4096;
    const size_t blocks = (n + kMeanRows - 1) / kMeanRows;
    std::vector<double> blockSums(blocks * d, 0.0);
    std::vector<size_t> blockUsable(blocks, 0);
#pragma omp parallel for schedule(dynamic)
    for (long long bb = 0; bb < static_cast<long long>(blocks); ++bb) {
        const size_t b = size_t(bb);
        double* sum = blockSums.data() + b * d;
        for (size_t i = b * kMeanRows; i < std::min(n, (b + 1) * kMeanRows); ++i) {
            if (!scales.usable[i]) continue;
            ++blockUsable[b];
            const float* r = points.row(i);
            for (size_t c = 0; c < d; ++c) sum[c] += r[c];
        }
    }
    std::vector<double> mean(d, 0.0);
    size_t usable = 0;
    for (size_t b = 0; b < blocks; ++b) {
        usable += blockUsable[b];
        for (size_t c = 0; c < d; ++c) mean[c] += blockSums[b * d + c];
    }
    for (double& m : mean) m /= double(std::max<size_t>(usable, 1));
    double largest = 0, widest = 0;  // the largest |row|^2 and |value|
#pragma omp parallel for schedule(static) reduction(max : largest, widest)
    for (long long i = 0; i < rowsSigned; ++i) {
        float* a = in.rows.data() + size_t(i) * stride;
        const bool usable = scales.usable[size_t(i)];
        std::fill(a + (usable ? d : 0), a + stride, 0.0f);
        if (!usable) continue;
        const float* r = points.row(size_t(i));
        double s = 0;
        for (size_t c = 0; c < d; ++c) {
            a[c] = float(double(r[c]) - mean[c]);
            s += double(a[c]) * double(a[c]);
            widest = std::max(widest, double(std::fabs(a[c])));
        }
        in.ownNorm2[size_t(i)] = s;
        in.norm2[size_t(i)] = float(s);
        largest = std::max(largest, s);
    }
    // Values times the scale stay below 2^14, within FP16's range with room for the parts; data
    // too wide or too narrow for a scale within 2^+-60 keeps the difference form.
    // Squared norms (and the products) must stay finite in single precision: a reference whose
    // |b|^2 overflowed would never be a candidate though it might be near.
    if (!(4 * largest < 0x1p126)) return SplitKnnInput{};
    int exponent = 0;
    std::frexp(widest, &exponent);
    if (14 - exponent > 60 || 14 - exponent < -60) return SplitKnnInput{};
    in.scale = std::ldexp(1.0f, 14 - exponent);
    const double reach = std::sqrt(largest);
    const double tiny = 0x1p-25 * std::sqrt(double(stride)) / double(in.scale);
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < rowsSigned; ++i) {
        if (!scales.usable[size_t(i)]) continue;
        const double own = std::sqrt(in.ownNorm2[size_t(i)]);
        const double error = 1.05 * (2 * eps * own * reach + 2 * tiny * (own + reach) +
                                     4.02 * kUnit * (own + reach) * (own + reach));
        in.error[size_t(i)] = error;
        in.margin[size_t(i)] = float(2.5 * error);
    }
    in.relSlack = double(d + 2) * 0x1p-53;
    in.absSlack = double(8 * stride + 16) * 0x1p-149;
    return in;
}

}  // namespace sepal::cuda
