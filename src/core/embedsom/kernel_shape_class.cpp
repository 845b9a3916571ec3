#include "core/embedsom/kernel_shape_class.h"

namespace sepal {

std::optional<KernelShapeClass> kernelShapeClass(size_t n, size_t d, int g, int k, float adjust) {
    if (n < kMeasuredMinPoints) return std::nullopt;
    KernelShapeClass c;
    c.d = d;
    c.g = g;
    c.k = k;
    c.adjust = adjust == 1.0f   ? AdjustClass::One
               : adjust == 0.0f ? AdjustClass::Zero
                                : AdjustClass::Other;
    c.points = n < kMeasuredLargePoints  ? kMeasuredMinPoints
               : n < kMeasuredHugePoints ? kMeasuredLargePoints
                                         : kMeasuredHugePoints;
    return c;
}

std::string kernelShapeKey(const KernelShapeClass& c) {
    const char* adjust = c.adjust == AdjustClass::One    ? "adjust1"
                         : c.adjust == AdjustClass::Zero ? "adjust0"
                                                         : "adjust-other";
    return "d" + std::to_string(c.d) + " g" + std::to_string(c.g) + " k" + std::to_string(c.k) +
           " " + adjust + " n" + std::to_string(c.points);
}

}  // namespace sepal
