#include "gui/gl_device_positions.h"

namespace sepal::gui {

void GlDevicePositions::resize(size_t n) {
    if (m_points.size() == n) return;
    // The registration names the old storage: forgotten before it is reallocated.
    m_interop.detach();
    m_points.resize(n);
}

void GlDevicePositions::attach(size_t n) {
    // Written whole by every projection (the CUDA splats read the projector's own copy).
    m_interop.attach(m_points.positionBuffer(), n * 2 * sizeof(float),
                     render::CudaGlAccess::WriteDiscard);
}

}  // namespace sepal::gui
