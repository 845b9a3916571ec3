// Core's PolishDevice on CUDA: the neighbour search over the cells kept on the device for the
// call, the graph made there from its lists, and every epoch with the positions staying there
// (only the progress goes back between epochs).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/pipeline/polish_device.h"
#include "cuda/cuda_backend.h"
#include "cuda/device_buffer.h"
#include "cuda/polish_kernels.h"

namespace sepal::cuda {
namespace {

/// A stream that destroys itself.
class OwnStream {
  public:
    OwnStream() { SEPAL_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking)); }
    ~OwnStream() { cudaStreamDestroy(m_stream); }
    OwnStream(const OwnStream&) = delete;
    OwnStream& operator=(const OwnStream&) = delete;
    /// The stream.
    cudaStream_t get() const { return m_stream; }

  private:
    cudaStream_t m_stream = nullptr;
};

template <class T>
void download(std::vector<T>& to, const DeviceBuffer<T>& from, size_t count, cudaStream_t stream) {
    to.resize(count);
    SEPAL_CUDA_CHECK(
        cudaMemcpyAsync(to.data(), from.get(), count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    SEPAL_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class T>
void upload(DeviceBuffer<T>& to, const T* from, size_t count, cudaStream_t stream) {
    to.reserve(std::max<size_t>(count, 1));
    SEPAL_CUDA_CHECK(
        cudaMemcpyAsync(to.get(), from, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}

class CudaPolishDevice final : public PolishDevice {
  public:
    CudaPolishDevice() { SEPAL_CUDA_CHECK(cudaGetDevice(&m_device)); }
    std::string name() const override { return "cuda"; }
    size_t mostNeighbours() const override { return kPolishMostNeighbours; }

    bool fits(size_t n, size_t d, size_t k, size_t probes) const override {
        // The peak, the search's: the cells, their lists, the work items and each query's
        // keys for every probe, and the graph made beside them; a reserve for the projector
        // and the window drawing on the same device.
        const size_t bytes = n * (d * 4 + 4 + 8 + k * 8 + probes * (8 + k * 8) + k * 8 + 4 + 1);
        constexpr size_t kReserve = size_t(1) << 30;
        size_t freeBytes = 0, total = 0;
        if (cudaSetDevice(m_device) != cudaSuccess ||
            cudaMemGetInfo(&freeBytes, &total) != cudaSuccess)
            return false;
        return bytes + kReserve <= freeBytes;
    }

    void neighbours(const Matrix& points, const CellLists& lists,
                    const std::vector<uint32_t>& probe, size_t probes, size_t k,
                    std::vector<uint32_t>& nbr, std::vector<float>& sq) override {
        SEPAL_CUDA_CHECK(cudaSetDevice(m_device));  // the app calls from a worker thread
        const size_t n = points.rows;
        DeviceBuffer<uint32_t> devNbr;
        DeviceBuffer<float> devSq;
        search(points, lists, probe, probes, k, devNbr, devSq);
        download(nbr, devNbr, n * k, m_stream.get());
        download(sq, devSq, n * k, m_stream.get());
        // Cells that were no query hold what the device's memory held: none found.
        for (size_t i = 0; i < n; ++i)
            if (!lists.usable[i]) {
                std::fill_n(nbr.begin() + long(i * k), k, kNoNeighbour);
                std::fill_n(sq.begin() + long(i * k), k, std::numeric_limits<float>::infinity());
            }
    }

    bool polish(const Matrix& points, const CellLists& lists, const std::vector<uint32_t>& probe,
                size_t probes, size_t k, const std::vector<uint32_t>& keep, std::vector<float>& y,
                PolishStep step, const std::vector<float>& rates,
                const std::function<bool(double)>& onProgress, PolishTimes* times) override {
        SEPAL_CUDA_CHECK(cudaSetDevice(m_device));
        const cudaStream_t stream = m_stream.get();
        const size_t n = points.rows, stride = polishStride(n);
        auto clock = std::chrono::steady_clock::now();
        const auto lap = [&](double PolishTimes::*slot) {
            SEPAL_CUDA_CHECK(cudaStreamSynchronize(stream));
            const auto now = std::chrono::steady_clock::now();
            if (times) times->*slot += std::chrono::duration<double>(now - clock).count();
            clock = now;
        };
        DeviceBuffer<uint32_t> devGraphNbr;
        DeviceBuffer<float> devWeight, devWeights;
        std::vector<uint8_t> usable(lists.usable);
        usable.resize(stride, 0);
        DeviceBuffer<uint8_t> devUsable;
        upload(devUsable, usable.data(), stride, stream);
        {
            DeviceBuffer<uint32_t> devNbr;
            DeviceBuffer<float> devSq;
            search(points, lists, probe, probes, k, devNbr, devSq);
            lap(&PolishTimes::neighbours);
            devGraphNbr.reserve(std::max<size_t>(k * stride, 1));
            devWeight.reserve(std::max<size_t>(k * stride, 1));
            devWeights.reserve(std::max<size_t>(stride, 1));
            PolishGraphArgs g;
            g.usable = devUsable.get();  // the others' lists hold what the memory held
            g.nbr = devNbr.get();
            g.sq = devSq.get();
            g.graphNbr = devGraphNbr.get();
            g.weight = devWeight.get();
            g.weights = devWeights.get();
            g.n = n;
            g.stride = stride;
            g.k = int(k);
            g.target = std::log2(double(std::max<size_t>(k, 2)));  // as polishGraph
            launchPolishGraph(g, stream);
            lap(&PolishTimes::graph);
        }
        if (onProgress && !onProgress(0.0)) return false;
        DeviceBuffer<uint32_t> devKeep;
        DeviceBuffer<float> devY[2];
        upload(devKeep, keep.data(), keep.size(), stream);
        upload(devY[0], y.data(), 2 * stride, stream);
        devY[1].reserve(std::max<size_t>(2 * stride, 1));
        PolishEpochArgs a;
        a.nbr = devGraphNbr.get();
        a.weight = devWeight.get();
        a.weights = devWeights.get();
        a.usable = devUsable.get();
        a.keep = devKeep.get();
        a.stride = stride;
        a.kept = keep.size();
        a.k = int(k);
        a.a = step.a, a.b = step.b;
        a.repulsion = step.repulsion;
        a.negativeSamples = int(std::min<size_t>(step.negativeSamples, 8));
        a.seed = step.seed;
        int current = 0;
        for (size_t e = 0; e < rates.size(); ++e) {
            a.epoch = e;
            a.rate = rates[e];
            a.y = devY[current].get();
            a.next = devY[1 - current].get();
            launchPolishEpoch(a, stream);
            current = 1 - current;
            if (onProgress) {
                // The host hears of each epoch once the device has done it.
                SEPAL_CUDA_CHECK(cudaStreamSynchronize(stream));
                if (!onProgress(double(e + 1) / double(rates.size()))) return false;
            }
        }
        download(y, devY[current], 2 * stride, stream);
        lap(&PolishTimes::epochs);
        return true;
    }

  private:
    /// Each usable cell's k nearest into devNbr and devSq (n x k; unusable cells' rows are
    /// left as the memory held them).
    void search(const Matrix& points, const CellLists& lists, const std::vector<uint32_t>& probe,
                size_t probes, size_t k, DeviceBuffer<uint32_t>& devNbr,
                DeviceBuffer<float>& devSq) {
        const size_t n = points.rows;
        const cudaStream_t stream = m_stream.get();
        DeviceBuffer<float> devPoints;
        DeviceBuffer<uint32_t> devCells;
        DeviceBuffer<uint64_t> devOffset;
        const std::vector<uint64_t> offset(lists.offset.begin(), lists.offset.end());
        upload(devPoints, points.data(), n * points.cols, stream);
        upload(devCells, lists.cells.data(), lists.cells.size(), stream);
        upload(devOffset, offset.data(), offset.size(), stream);
        devNbr.reserve(std::max<size_t>(n * k, 1));
        devSq.reserve(std::max<size_t>(n * k, 1));
        if (points.cols <= size_t(kPolishTiledMostDims) && probes <= kMostMergedProbes)
            tiledSearch(points, lists, probe, probes, k, devPoints, devCells, devOffset, devNbr,
                        devSq);
        else
            warpSearch(points, lists, probe, probes, k, devPoints, devCells, devOffset, devNbr,
                       devSq);
    }

    /// Probes whose key lists the merge takes per query.
    static constexpr size_t kMostMergedProbes = 8;

    /// One warp per query (any number of dimensions).
    void warpSearch(const Matrix& points, const CellLists& lists,
                    const std::vector<uint32_t>& probe, size_t probes, size_t k,
                    DeviceBuffer<float>& devPoints, DeviceBuffer<uint32_t>& devCells,
                    DeviceBuffer<uint64_t>& devOffset, DeviceBuffer<uint32_t>& devNbr,
                    DeviceBuffer<float>& devSq) {
        DeviceBuffer<uint32_t> devProbe;
        upload(devProbe, probe.data(), points.rows * probes, m_stream.get());
        PolishNeighbourArgs a;
        a.points = devPoints.get();
        a.cells = devCells.get();
        a.offset = devOffset.get();
        a.probe = devProbe.get();
        a.nbr = devNbr.get();
        a.sq = devSq.get();
        a.n = points.rows;
        a.listed = lists.cells.size();
        a.d = int(points.cols);
        a.probes = int(probes);
        a.k = int(k);
        launchPolishNeighbours(a, m_stream.get());
        SEPAL_CUDA_CHECK(cudaStreamSynchronize(m_stream.get()));
    }

    /// Each landmark's list searched through shared memory by the queries probing it, then
    /// each query's lists merged.
    void tiledSearch(const Matrix& points, const CellLists& lists,
                     const std::vector<uint32_t>& probe, size_t probes, size_t k,
                     DeviceBuffer<float>& devPoints, DeviceBuffer<uint32_t>& devCells,
                     DeviceBuffer<uint64_t>& devOffset, DeviceBuffer<uint32_t>& devNbr,
                     DeviceBuffer<float>& devSq) {
        const cudaStream_t stream = m_stream.get();
        const size_t g = lists.offset.size() - 1, listed = lists.cells.size();
        // Items (query q of the listed order, probe p) grouped by the landmark they search.
        std::vector<size_t> itemOffset(g + 1, 0);
        for (uint32_t i : lists.cells)
            for (size_t p = 0; p < probes; ++p) ++itemOffset[probe[i * probes + p] + 1];
        for (size_t u = 0; u < g; ++u) itemOffset[u + 1] += itemOffset[u];
        std::vector<uint32_t> itemQuery(listed * probes), itemSlot(listed * probes);
        std::vector<size_t> at(itemOffset.begin(), itemOffset.end() - 1);
        for (size_t q = 0; q < listed; ++q) {
            const uint32_t i = lists.cells[q];
            for (size_t p = 0; p < probes; ++p) {
                const size_t e = at[probe[i * probes + p]]++;
                itemQuery[e] = i;
                itemSlot[e] = uint32_t(q * probes + p);
            }
        }
        std::vector<uint32_t> taskList, taskCount;
        std::vector<uint64_t> taskFirst;
        for (size_t u = 0; u < g; ++u)
            for (size_t e = itemOffset[u]; e < itemOffset[u + 1]; e += kPolishQueriesPerBlock) {
                taskList.push_back(uint32_t(u));
                taskFirst.push_back(e);
                taskCount.push_back(
                    uint32_t(std::min<size_t>(kPolishQueriesPerBlock, itemOffset[u + 1] - e)));
            }
        DeviceBuffer<uint32_t> devTaskList, devTaskCount, devItemQuery, devItemSlot;
        DeviceBuffer<uint64_t> devTaskFirst, devKeys;
        upload(devTaskList, taskList.data(), taskList.size(), stream);
        upload(devTaskFirst, taskFirst.data(), taskFirst.size(), stream);
        upload(devTaskCount, taskCount.data(), taskCount.size(), stream);
        upload(devItemQuery, itemQuery.data(), itemQuery.size(), stream);
        upload(devItemSlot, itemSlot.data(), itemSlot.size(), stream);
        devKeys.reserve(std::max<size_t>(listed * probes * k, 1));
        PolishTiledArgs a;
        a.points = devPoints.get();
        a.cells = devCells.get();
        a.offset = devOffset.get();
        a.taskList = devTaskList.get();
        a.taskFirst = devTaskFirst.get();
        a.taskCount = devTaskCount.get();
        a.itemQuery = devItemQuery.get();
        a.itemSlot = devItemSlot.get();
        a.keys = devKeys.get();
        a.tasks = taskList.size();
        a.d = int(points.cols);
        a.k = int(k);
        launchPolishTiledSearch(a, stream);
        launchPolishMergeKeys(devKeys.get(), devCells.get(), listed, int(probes), int(k),
                              devNbr.get(), devSq.get(), stream);
        SEPAL_CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    int m_device = 0;  // the device the backend was made on (first: the stream is made there)
    OwnStream m_stream;
};

}  // namespace

std::unique_ptr<PolishDevice> makeCudaPolishDevice() {
    return std::make_unique<CudaPolishDevice>();
}

}  // namespace sepal::cuda
