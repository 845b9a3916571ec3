#pragma once
// Samples chosen by their metadata: "type=control" (the samples whose type is control),
// "batch=b1,b2" (either value), "type!=reference" (all but those). The anchors of a batch
// alignment and the samples a comparison of conditions takes are chosen so.

#include <string>
#include <vector>

#include "core/pipeline/sample_metadata.h"

namespace sepal {

/// A choice of samples by the values of one metadata column.
struct SampleFilter {
    std::string column;               ///< the metadata column ("": every sample)
    std::vector<std::string> values;  ///< the values chosen
    bool exclude = false;             ///< true: the samples with none of the values
    bool operator==(const SampleFilter&) const = default;

    /// True when it chooses every sample.
    bool all() const { return column.empty(); }
    /// "type=control", "type!=a,b": the text parseSampleFilter reads back ("" : every sample).
    std::string text() const;
};

/// Reads "COLUMN=VALUE[,VALUE...]" or "COLUMN!=VALUE[,VALUE...]"; "" chooses every sample.
/// Throws InputError, naming `what` (the option: "--samples"), for any other form.
SampleFilter parseSampleFilter(const std::string& text, const std::string& what);

/// Per path of `paths`: whether the filter chooses it by its metadata (a path the metadata does
/// not list has the value ""). Throws InputError, naming `what`, for a column the metadata lacks
/// and for a value none of the paths has (a misspelt value would choose nothing, or everything).
std::vector<bool> chosenSamples(const SampleFilter& filter, const SampleMetadata& metadata,
                                const std::vector<std::string>& paths, const std::string& what);

}  // namespace sepal
