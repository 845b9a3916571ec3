#pragma once
// A split of the GPU's multiprocessors into two partitions (green contexts), each with its own
// stream, so that two kernels run side by side on disjoint multiprocessors: the projection, which
// waits on L2, beside the k-NN, which waits on its own multiprocessors' arithmetic.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace sepal::cuda {

/// Two partitions of the current device's multiprocessors, each with a stream and a few events.
class SmSplit {
  public:
    /// Gives partition 0 about `firstShare` (0 to 1) of the multiprocessors, rounded down to
    /// the device's granularity, and partition 1 the rest. Returns null, with the reason in
    /// *whyNot, when the driver has no green contexts or the device is too small to split.
    static std::unique_ptr<SmSplit> create(double firstShare, std::string* whyNot);
    ~SmSplit();
    SmSplit(const SmSplit&) = delete;
    SmSplit& operator=(const SmSplit&) = delete;

    /// The stream whose kernels run only on partition i's multiprocessors.
    cudaStream_t stream(int i) const;
    /// Multiprocessors in partition i.
    int multiprocessors(int i) const;
    /// Event `slot` of partition i's context, created on first use: it may be recorded on
    /// stream(i) only, and waited on by any stream; two of one partition give elapsed times.
    cudaEvent_t event(int i, int slot);

  private:
    struct Impl;
    explicit SmSplit(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m;
};

}  // namespace sepal::cuda
