// The GPU tests never read or write the user's CUDA kernel cache: auto's process-wide cache
// (processKernelCache, auto_kernel.h) keeps its choices in memory only, so that a choice
// measured once on another day cannot decide a test. Tests of the file make caches of their own.

#include <cstdlib>

namespace {
const bool kKernelCacheOff = [] {
    setenv("SEPAL_KERNEL_CACHE", "off", 1);
    return true;
}();
}  // namespace
