#include "core/stats/abundance_input.h"

#include "core/common/error.h"
#include "core/stats/independent_columns.h"

namespace sepal::stats {

void checkAbundanceInput(const Eigen::MatrixXd& counts, const std::vector<std::string>& populations,
                         const Eigen::MatrixXd& design, const Eigen::VectorXd& contrast,
                         const std::string& where, const std::string& noResidual) {
    if (size_t(counts.rows()) != populations.size())
        throw InputError(where + std::to_string(counts.rows()) + " count rows but " +
                         std::to_string(populations.size()) + " population names");
    if (counts.cols() != design.rows())
        throw InputError(where + std::to_string(counts.cols()) + " samples in the counts but " +
                         std::to_string(design.rows()) + " rows in the design");
    if (contrast.size() != design.cols())
        throw InputError(where + "the contrast has " + std::to_string(contrast.size()) +
                         " weights but the design " + std::to_string(design.cols()) +
                         " coefficients");
    if (!counts.allFinite() || (counts.array() < 0).any())
        throw InputError(where + "cell counts must be finite and not negative");
    if (!design.allFinite() || !contrast.allFinite())
        throw InputError(where + "the design and contrast must be finite");
    if (contrast.size() == 0 || contrast.cwiseAbs().maxCoeff() == 0)
        throw InputError(where + "the contrast is all zero");
    if (numericalRank(design) < design.cols())
        throw InputError(where + "the design (" + std::to_string(design.rows()) + " samples x " +
                         std::to_string(design.cols()) +
                         " coefficients) is not of full rank: some coefficients cannot be "
                         "estimated; drop or merge them");
    if (design.cols() >= design.rows())
        throw InputError(where + "the design has " + std::to_string(design.cols()) +
                         " coefficients for " + std::to_string(design.rows()) +
                         " samples: nothing is left " + noResidual);
}

}  // namespace sepal::stats
