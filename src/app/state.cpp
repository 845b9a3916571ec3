#include "app/state.h"

namespace sepal::app {

void State::bump(Part part) {
    versions[size_t(part)] = ++counter;
    if (part == Part::Model) {
        // Restored snapshots carry old numbers; fresh ones make every consumer recompute.
        model.highVersion = ++counter;
        model.lowVersion = ++counter;
    }
}

}  // namespace sepal::app
