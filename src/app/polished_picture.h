#pragma once
// A polish of EmbedSOM's picture (core/pipeline/polish.h) shown in its place. Polished cells no
// longer follow the landmarks, so the polished picture stands only while the picture it was
// polished from does: a drag, training, new EmbedSOM parameters, new gates or new data return
// the window to EmbedSOM's picture.

#include <cstdint>
#include <string>
#include <vector>

#include "app/state.h"

namespace sepal::app {

/// Which EmbedSOM picture the state draws: the data, the model and its parameters.
struct PictureKey {
    uint64_t data = 0;   ///< Part::Data's version
    uint64_t model = 0;  ///< Part::Model's version (the model and the EmbedSOM parameters)
    uint64_t high = 0;   ///< the landmarks' data-space version (edits in place, training)
    uint64_t low = 0;    ///< the landmarks' 2D version (a drag in progress)
    uint64_t gates = 0;  ///< Part::Gates' version: the cells polished are those inside
    /// Equal keys name the same picture.
    bool operator==(const PictureKey&) const = default;
};

/// The key of the picture `state` draws now.
inline PictureKey pictureKeyOf(const State& state) {
    return {state.version(Part::Data), state.version(Part::Model), state.model.highVersion,
            state.model.lowVersion, state.version(Part::Gates)};
}

/// Positions a polish moved, and what they were polished from.
struct PolishedPicture {
    std::vector<float> xy;  ///< n x 2, the polished positions (world units, as EmbedSOM's)
    PictureKey key;         ///< the EmbedSOM picture they started from
    std::string label;      ///< what made them, e.g. "t-SNE-like polish, 150 iterations"
};

}  // namespace sepal::app
