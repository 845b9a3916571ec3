#pragma once
// The CPU implementations of the Projector interface.

#include <memory>

#include "core/embedsom/projector.h"

namespace sepal {

/// A plain single-threaded implementation that reads like embedsom.md; the oracle for tests.
std::unique_ptr<Projector> makeReferenceProjector();
/// The fast CPU backend: all cores, blocked k-NN, the O(k^2) pair loop; thread-count independent.
std::unique_ptr<Projector> makeCpuProjector();

}  // namespace sepal
