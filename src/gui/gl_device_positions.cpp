#include "gui/gl_device_positions.h"

namespace sepal::gui {

void GlDevicePositions::attach(size_t n) {
    // Read and written: projected into, then read by the CUDA splats.
    m_interop.attach(m_points.positionBuffer(), n * 2 * sizeof(float),
                     render::CudaGlAccess::ReadWrite);
    m_colours.attach(m_points.colourBuffer(), n * 4, render::CudaGlAccess::ReadOnly);
}

}  // namespace sepal::gui
