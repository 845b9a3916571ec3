#pragma once
// A study's design from its sample metadata, as R's model.matrix builds it: an intercept, each
// factor's levels but the reference as indicator columns, each numeric column as a covariate;
// and the contrast that compares two levels of a factor.

#include <Eigen/Dense>
#include <map>
#include <string>
#include <vector>

#include "core/pipeline/sample_metadata.h"

namespace sepal::stats {

/// The model matrix of the samples and the contrast to test.
struct StudyDesign {
    std::vector<std::string> samples;       ///< the rows, in the order given
    std::vector<std::string> coefficients;  ///< the columns: "(Intercept)", "conditionstim"...
    Eigen::MatrixXd matrix;                 ///< samples x coefficients
    Eigen::VectorXd contrast;               ///< one weight per coefficient
    std::string contrastText;               ///< what is compared: "condition: stim - unstim"
    std::string groupColumn;                ///< the factor the contrast compares
    std::vector<std::string> groupOf;       ///< per sample: its level of that factor
    /// The factor's levels: the contrast's baseline, the compared level, then any others.
    std::vector<std::string> groupLevels;
};

/// Builds the design of `samples` (each found in `metadata` by path, file name or name without
/// extension) from `formula` ("condition + patient": metadata columns joined by +; a column
/// whose every value is a number is a covariate, others are factors with their levels in
/// sorted order, the first the reference unless `references` names another, by column) and
/// `contrast` ("condition:stim-unstim", or "condition:stim" against the reference, or a
/// covariate's name). Throws InputError for a sample the metadata lacks, a column it does not
/// have, an unknown level, a design not of full rank, or a compared group of fewer than two
/// samples.
StudyDesign buildStudyDesign(const SampleMetadata& metadata,
                             const std::vector<std::string>& samples, const std::string& formula,
                             const std::string& contrast,
                             const std::map<std::string, std::string>& references = {});

}  // namespace sepal::stats
