// The exact k-NN graph of every point on the GPU: single-precision candidates over tiles of
// references in shared memory, then an exact re-rank in double precision, summed in the CPU's
// order, so the graph equals the CPU's. A query whose candidates cannot be proven to hold its k
// nearest (the single-precision error bound says a point left out might be nearer) is done again
// exactly on the CPU. Batches of queries are dealt to the devices in turn, one host thread each,
// every device holding all the points.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/common/error.h"
#include "core/knn/knn_graph.h"
#include "cuda/cuda_backend.h"
#include "cuda/cuda_error.h"
#include "cuda/device_buffer.h"
#include "cuda/tile_keys.cuh"

namespace sepal::cuda {
namespace {

constexpr int kMargin = 8;                  // candidates kept beyond k
constexpr size_t kBatch = size_t(1) << 18;  // queries per launch (bounds the candidate buffers)

/// Offers reference `ref` at key s to a query's C best (ascending; ties keep the earlier).
template <int C>
__device__ __forceinline__ void offer(float (&key)[C], uint32_t (&id)[C], int& count, float& worst,
                                      float s, int ref) {
    if (!(s < worst)) return;
    int at = count < C ? count++ : C - 1;
    while (at > 0 && s < key[at - 1]) {
        key[at] = key[at - 1];
        id[at] = id[at - 1];
        --at;
    }
    key[at] = s;
    id[at] = uint32_t(ref);
    if (count == C) worst = key[C - 1];
}

/// Per query of the batch: its C best references by the single-precision key, ascending.
template <Sum S, int C, int W>
__global__ void candidateKernel(const float* __restrict__ rows, const uint8_t* __restrict__ usable,
                                int n, int d, int q0, int qn, float* __restrict__ outKey,
                                uint32_t* __restrict__ outIdx, int* __restrict__ outCount) {
    const int qi = blockIdx.x * kTileQueries + threadIdx.x;
    const bool active = qi < qn;
    float key[C];
    uint32_t id[C];
    int count = 0;
    float worst = INFINITY;
    scanReferences<S, W>(rows, usable, n, d, q0 + qi, active,
                         [&](int ref, float s) { offer<C>(key, id, count, worst, s, ref); });
    if (!active) return;
    for (int j = 0; j < count; ++j) {
        outKey[size_t(qi) * C + j] = key[j];
        outIdx[size_t(qi) * C + j] = id[j];
    }
    outCount[qi] = count;
}

/// Re-ranks each query's candidates exactly and keeps the k best (ties by index); certified[q]
/// says whether no point left out can be nearer than the k-th (the single-precision key of the
/// worst candidate, less its error bound, is above the k-th exact key).
template <Sum S, int C>
__global__ void rerankKernel(const float* __restrict__ rows, const double* __restrict__ shift,
                             const double* __restrict__ norm, int d, int q0, int qn, int k,
                             const float* __restrict__ candKey,
                             const uint32_t* __restrict__ candIdx,
                             const int* __restrict__ candCount, int others, double relError,
                             double absError, uint32_t* __restrict__ outIdx,
                             double* __restrict__ outKey, uint8_t* __restrict__ certified) {
    const int qi = blockIdx.x * blockDim.x + threadIdx.x;
    if (qi >= qn) return;
    const int q = q0 + qi;
    const int m = candCount[qi];
    double key[C];
    uint32_t id[C];
    for (int j = 0; j < m; ++j) {
        const uint32_t r = candIdx[size_t(qi) * C + j];
        const double s = exactKey<S>(rows + size_t(q) * d, rows + size_t(r) * d, d, shift[q],
                                     norm[q], shift[r], norm[r]);
        int at = j;
        while (at > 0 && (s < key[at - 1] || (s == key[at - 1] && r < id[at - 1]))) {
            key[at] = key[at - 1];
            id[at] = id[at - 1];
            --at;
        }
        key[at] = s;
        id[at] = r;
    }
    const int kept = m < k ? m : k;
    for (int j = 0; j < kept; ++j) {
        outIdx[size_t(qi) * k + j] = id[j];
        outKey[size_t(qi) * k + j] = key[j];
    }
    // Fewer than C candidates: complete when every other usable point is among them (a key that
    // overflowed single precision was never offered).
    bool sure = m == others;
    if (m == C) {
        const double worst = candKey[size_t(qi) * C + C - 1];
        const double bound =
            S == Sum::Dot ? worst - absError : worst / (1.0 + relError) - subnormalKeyError(d);
        sure = bound > key[k - 1];
    }
    certified[qi] = sure ? 1 : 0;
}

/// What every device's share of a build reads: the points, their scales, and the unit rows
/// cosine and pearson compare in single precision.
struct GraphInput {
    const Matrix& points;
    const KnnRowScales& scales;
    const std::vector<float>& unitRows;  // empty for euclidean and manhattan
    size_t k;
    KnnMetric metric;
    int others;  // usable points other than a usable query
};

class CudaKnnGraphBuilder : public KnnGraphBuilder {
  public:
    CudaKnnGraphBuilder(std::vector<int> devices, size_t batch)
        : m_devices(std::move(devices)), m_batch(batch > 0 ? batch : kBatch) {}

    std::string name() const override { return "cuda"; }

    KnnGraph buildRows(const Matrix& points, size_t k, KnnMetric metric, size_t first,
                       size_t last) override {
        KnnGraph g = emptyKnnGraph(points.rows, k, first, last);
        const size_t n = points.rows, d = points.cols;
        m_redone = 0;
        if (k + kMargin > 64 || n > size_t(INT32_MAX - 64) || d > size_t(INT32_MAX) / 2) {
            // Beyond what the kernels hold: the CPU gives the same graph.
            exactNeighbours(knnRows(points, metric), rowsOf(g), g);
            m_redone = g.rows();
            return g;
        }
        const KnnRowScales scales = knnRowScales(points, metric);
        std::vector<float> unitRows;
        if (metric == KnnMetric::Cosine || metric == KnnMetric::Pearson) {
            // Candidates compare the unit vectors in single precision.
            unitRows.assign(n * d, 0.0f);
            for (size_t i = 0; i < n; ++i)
                if (scales.usable[i] && scales.norm[i] > 0)
                    for (size_t c = 0; c < d; ++c)
                        unitRows[i * d + c] =
                            float((double(points.at(i, c)) - scales.shift[i]) / scales.norm[i]);
        }
        const int others = int(std::count(scales.usable.begin(), scales.usable.end(), 1)) - 1;
        const GraphInput input{points, scales, unitRows, k, metric, others};
        std::vector<int> devices = m_devices;
        if (devices.empty())
            for (int i = 0; i < deviceCount(); ++i) devices.push_back(i);
        if (devices.empty()) throw InputError("k-NN graph: no CUDA device");
        // Batches of queries go to the devices in turn; each device (one host thread each)
        // writes only its batches' rows of g, so the graph does not depend on how many there are.
        const size_t batches = (last - first + m_batch - 1) / m_batch;
        const size_t lanes = std::max<size_t>(1, std::min(devices.size(), batches));
        std::vector<std::vector<uint32_t>> redo(lanes);
        std::vector<std::exception_ptr> errors(lanes);
        const auto lane = [&](size_t w) {
            try {
                useDevice(devices[w]);
                std::vector<std::pair<size_t, size_t>> mine;
                for (size_t b = w; b < batches; b += lanes)
                    mine.emplace_back(first + b * m_batch,
                                      std::min(last, first + (b + 1) * m_batch));
                buildOnDevice(input, mine, g, redo[w]);
            } catch (...) {
                errors[w] = std::current_exception();
            }
        };
        int previous = 0;
        SEPAL_CUDA_CHECK(cudaGetDevice(&previous));
        if (lanes == 1) {
            lane(0);
        } else {
            std::vector<std::thread> running;
            for (size_t w = 0; w < lanes; ++w) running.emplace_back(lane, w);
            for (std::thread& t : running) t.join();
        }
        SEPAL_CUDA_CHECK(cudaSetDevice(previous));
        for (const std::exception_ptr& e : errors)
            if (e) std::rethrow_exception(e);
        std::vector<uint32_t> again;
        for (const auto& r : redo) again.insert(again.end(), r.begin(), r.end());
        std::sort(again.begin(), again.end());
        m_redone = again.size();
        if (!again.empty()) exactNeighbours(knnRows(points, metric), again, g);
        return g;
    }

    size_t redone() const override { return m_redone; }

  private:
    /// The rows of `ranges` on the calling thread's device; queries whose candidates are not
    /// proven complete go to `redo`.
    void buildOnDevice(const GraphInput& in, const std::vector<std::pair<size_t, size_t>>& ranges,
                       KnnGraph& g, std::vector<uint32_t>& redo) const {
        if (ranges.empty()) return;
        const size_t n = in.points.rows, d = in.points.cols, k = in.k;
        const KnnRowScales& scales = in.scales;
        DeviceBuffer<float> rows, unit;
        DeviceBuffer<uint8_t> usable;
        DeviceBuffer<double> shift, norm;
        rows.reserve(n * d);
        usable.reserve(n);
        shift.reserve(n);
        norm.reserve(n);
        SEPAL_CUDA_CHECK(cudaMemcpy(rows.get(), in.points.data(), n * d * sizeof(float),
                                    cudaMemcpyHostToDevice));
        SEPAL_CUDA_CHECK(cudaMemcpy(usable.get(), scales.usable.data(), n, cudaMemcpyHostToDevice));
        SEPAL_CUDA_CHECK(cudaMemcpy(shift.get(), scales.shift.data(), n * sizeof(double),
                                    cudaMemcpyHostToDevice));
        SEPAL_CUDA_CHECK(
            cudaMemcpy(norm.get(), scales.norm.data(), n * sizeof(double), cudaMemcpyHostToDevice));
        const float* candidateRows = rows.get();
        if (!in.unitRows.empty()) {
            unit.reserve(n * d);
            SEPAL_CUDA_CHECK(cudaMemcpy(unit.get(), in.unitRows.data(), n * d * sizeof(float),
                                        cudaMemcpyHostToDevice));
            candidateRows = unit.get();
        }
        const int C = k + kMargin <= 32 ? 32 : 64;
        size_t batch = 0;  // the longest range: small inputs get small buffers
        for (const auto& [q0, q1] : ranges) batch = std::max(batch, q1 - q0);
        DeviceBuffer<float> candKey;
        DeviceBuffer<uint32_t> candIdx, outIdx;
        DeviceBuffer<int> candCount;
        DeviceBuffer<double> outKey;
        DeviceBuffer<uint8_t> certified;
        candKey.reserve(batch * C);
        candIdx.reserve(batch * C);
        candCount.reserve(batch);
        outIdx.reserve(batch * k);
        outKey.reserve(batch * k);
        certified.reserve(batch);
        const double relError = relativeKeyError(int(d));
        const double absError = absoluteKeyError(int(d));
        std::vector<uint32_t> idx(batch * k);
        std::vector<double> keys(batch * k);
        std::vector<uint8_t> sure(batch);
        std::vector<int> counts(batch);
        for (const auto& [q0, q1] : ranges) {
            const int qn = int(q1 - q0);
            launchCandidates(in.metric, C,
                             d <= 4    ? 4
                             : d <= 32 ? 32
                                       : 0,
                             candidateRows, usable.get(), int(n), int(d), int(q0), qn,
                             candKey.get(), candIdx.get(), candCount.get());
            launchRerank(in.metric, C, rows.get(), shift.get(), norm.get(), int(d), int(q0), qn,
                         int(k), candKey.get(), candIdx.get(), candCount.get(), in.others, relError,
                         absError, outIdx.get(), outKey.get(), certified.get());
            SEPAL_CUDA_CHECK(cudaMemcpy(idx.data(), outIdx.get(), size_t(qn) * k * sizeof(uint32_t),
                                        cudaMemcpyDeviceToHost));
            SEPAL_CUDA_CHECK(cudaMemcpy(keys.data(), outKey.get(), size_t(qn) * k * sizeof(double),
                                        cudaMemcpyDeviceToHost));
            SEPAL_CUDA_CHECK(
                cudaMemcpy(sure.data(), certified.get(), size_t(qn), cudaMemcpyDeviceToHost));
            SEPAL_CUDA_CHECK(cudaMemcpy(counts.data(), candCount.get(), size_t(qn) * sizeof(int),
                                        cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < size_t(qn); ++i) {
                const size_t q = q0 + i;
                if (!scales.usable[q]) continue;
                if (!sure[i]) {
                    redo.push_back(uint32_t(q));
                    continue;
                }
                const size_t kept = std::min(k, size_t(counts[i]));
                for (size_t j = 0; j < kept; ++j) {
                    g.neighbours[(q - g.first) * k + j] = idx[i * k + j];
                    g.distances[(q - g.first) * k + j] = knnDistance(keys[i * k + j], in.metric);
                }
            }
        }
    }

    template <Sum S, int C>
    static void candidatesOf(int width, const float* rows, const uint8_t* usable, int n, int d,
                             int q0, int qn, float* key, uint32_t* idx, int* count) {
        const int blocks = (qn + kTileQueries - 1) / kTileQueries;
        if (width == 4)
            candidateKernel<S, C, 4>
                <<<blocks, kTileQueries>>>(rows, usable, n, d, q0, qn, key, idx, count);
        else if (width == 32)
            candidateKernel<S, C, 32>
                <<<blocks, kTileQueries>>>(rows, usable, n, d, q0, qn, key, idx, count);
        else
            candidateKernel<S, C, 0>
                <<<blocks, kTileQueries>>>(rows, usable, n, d, q0, qn, key, idx, count);
        SEPAL_CUDA_CHECK_LAUNCH("candidateKernel");
    }
    template <int C>
    static void candidatesBy(KnnMetric metric, int width, const float* rows, const uint8_t* usable,
                             int n, int d, int q0, int qn, float* key, uint32_t* idx, int* count) {
        if (metric == KnnMetric::Euclidean)
            candidatesOf<Sum::Squares, C>(width, rows, usable, n, d, q0, qn, key, idx, count);
        else if (metric == KnnMetric::Manhattan)
            candidatesOf<Sum::Absolute, C>(width, rows, usable, n, d, q0, qn, key, idx, count);
        else
            candidatesOf<Sum::Dot, C>(width, rows, usable, n, d, q0, qn, key, idx, count);
    }
    static void launchCandidates(KnnMetric metric, int C, int width, const float* rows,
                                 const uint8_t* usable, int n, int d, int q0, int qn, float* key,
                                 uint32_t* idx, int* count) {
        if (C == 32)
            candidatesBy<32>(metric, width, rows, usable, n, d, q0, qn, key, idx, count);
        else
            candidatesBy<64>(metric, width, rows, usable, n, d, q0, qn, key, idx, count);
    }
    template <Sum S, int C>
    static void rerankOf(const float* rows, const double* shift, const double* norm, int d, int q0,
                         int qn, int k, const float* ck, const uint32_t* ci, const int* cc,
                         int others, double rel, double abs, uint32_t* oi, double* ok,
                         uint8_t* sure) {
        rerankKernel<S, C><<<(qn + 127) / 128, 128>>>(rows, shift, norm, d, q0, qn, k, ck, ci, cc,
                                                      others, rel, abs, oi, ok, sure);
        SEPAL_CUDA_CHECK_LAUNCH("rerankKernel");
    }
    template <int C>
    static void rerankBy(KnnMetric metric, const float* rows, const double* shift,
                         const double* norm, int d, int q0, int qn, int k, const float* ck,
                         const uint32_t* ci, const int* cc, int others, double rel, double abs,
                         uint32_t* oi, double* ok, uint8_t* sure) {
        if (metric == KnnMetric::Euclidean)
            rerankOf<Sum::Squares, C>(rows, shift, norm, d, q0, qn, k, ck, ci, cc, others, rel, abs,
                                      oi, ok, sure);
        else if (metric == KnnMetric::Manhattan)
            rerankOf<Sum::Absolute, C>(rows, shift, norm, d, q0, qn, k, ck, ci, cc, others, rel,
                                       abs, oi, ok, sure);
        else
            rerankOf<Sum::Dot, C>(rows, shift, norm, d, q0, qn, k, ck, ci, cc, others, rel, abs, oi,
                                  ok, sure);
    }
    static void launchRerank(KnnMetric metric, int C, const float* rows, const double* shift,
                             const double* norm, int d, int q0, int qn, int k, const float* ck,
                             const uint32_t* ci, const int* cc, int others, double rel, double abs,
                             uint32_t* oi, double* ok, uint8_t* sure) {
        if (C == 32)
            rerankBy<32>(metric, rows, shift, norm, d, q0, qn, k, ck, ci, cc, others, rel, abs, oi,
                         ok, sure);
        else
            rerankBy<64>(metric, rows, shift, norm, d, q0, qn, k, ck, ci, cc, others, rel, abs, oi,
                         ok, sure);
    }

    std::vector<int> m_devices;  // empty: every visible device
    size_t m_batch;              // queries per launch
    size_t m_redone = 0;
};

}  // namespace

std::unique_ptr<KnnGraphBuilder> makeCudaKnnGraphBuilder(std::vector<int> devices,
                                                         size_t queriesPerBatch) {
    return std::make_unique<CudaKnnGraphBuilder>(std::move(devices), queriesPerBatch);
}

}  // namespace sepal::cuda
