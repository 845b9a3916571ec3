#include "gui/gl_device_positions.h"

namespace sepal::gui {

void GlDevicePositions::attach(size_t n) {
    m_interop.attach(m_points.positionBuffer(), n * 2 * sizeof(float));
}

}  // namespace sepal::gui
