#pragma once
// The gate tree: gates as Gating-ML 2.0 defines them (rectangle and range, polygon, ellipsoid,
// quadrant, boolean), each under a parent population, each dimension with its compensation
// and scale. Gating-ML files, FlowJo workspaces, the app and sepal-cli share it; its
// populations are what Sepal embeds, counts and exports.

#include <optional>
#include <string>
#include <vector>

#include "core/gate/gate_scale.h"

namespace sepal {

/// Which compensation a dimension's values pass before their scale.
struct CompensationRef {
    /// Gating-ML's "uncompensated", "FCS" (the file's $SPILLOVER/SPILL) or a matrix of the tree.
    enum class Kind { Uncompensated, File, Matrix };
    Kind kind = Kind::Uncompensated;  ///< where the matrix comes from
    std::string matrix;               ///< Matrix: the id of one of GateTree::matrices
    /// Same reference.
    bool operator==(const CompensationRef&) const = default;
};

/// Gating-ML's fratio: A * (numerator - B) / (denominator - C), a dimension of two channels.
struct RatioDimension {
    std::string id;           ///< the transformation's id in Gating-ML
    std::string numerator;    ///< channel name
    std::string denominator;  ///< channel name
    double A = 1, B = 0, C = 0;
    /// Same ratio.
    bool operator==(const RatioDimension&) const = default;
};

/// One axis of a gate: a channel (or a ratio of two), its compensation and scale, and for a
/// rectangle the bounds in the scale's units (min inclusive, max exclusive, either open).
struct GateDimension {
    std::string channel;                  ///< $PnN (a fluorochrome under a spectrum matrix)
    std::optional<RatioDimension> ratio;  ///< when set, the dimension is this ratio
    CompensationRef compensation;         ///< applied to the channel values first
    GateScale scale;                      ///< the gate's coordinates are in its units
    std::optional<double> min, max;       ///< rectangle bounds; open when unset
    /// The name a user reads: the channel, or "ratio id".
    std::string label() const;
    /// Same axis.
    bool operator==(const GateDimension&) const = default;
};

/// A quadrant gate's divider: one dimension cut at increasing values.
struct QuadrantDivider {
    std::string id;              ///< referenced by the quadrants' positions
    GateDimension dimension;     ///< the axis it divides (no bounds)
    std::vector<double> values;  ///< cut points, increasing
    /// Same divider.
    bool operator==(const QuadrantDivider&) const = default;
};

/// One quadrant: a population of its own, named by its id, placed by a location per divider.
struct Quadrant {
    std::string id;                 ///< the population's id (unique in the tree)
    std::string name;               ///< what users read (the id when the file names none)
    std::vector<double> locations;  ///< per divider (in the quadrant gate's order): a value inside
    /// Same quadrant.
    bool operator==(const Quadrant&) const = default;
};

/// One operand of a boolean gate.
struct BooleanOperand {
    std::string ref;          ///< id of a gate or quadrant
    bool complement = false;  ///< Gating-ML's use-as-complement
    /// Same operand.
    bool operator==(const BooleanOperand&) const = default;
};

/// One gate. Its population is the events inside it and inside its parent's population.
struct GateNode {
    /// The gate's geometry.
    enum class Kind { Rectangle, Polygon, Ellipsoid, Quadrant, Boolean };
    /// A boolean gate's operation.
    enum class Operation { And, Or, Not };
    Kind kind = Kind::Rectangle;  ///< which fields below apply
    std::string id;               ///< unique in the tree
    std::string name;             ///< what users read (the id when the file names none)
    std::string parent;           ///< id of the parent gate or quadrant; empty: all events
    std::vector<GateDimension> dimensions;  ///< rectangle: n >= 1; polygon: 2; ellipsoid: n >= 2
    std::vector<double> vertices;           ///< polygon: x y pairs (at least 3)
    std::vector<double> mean;               ///< ellipsoid: centre, one value per dimension
    std::vector<double> covariance;         ///< ellipsoid: n x n, row-major
    double distanceSquare = 1;              ///< ellipsoid: inside when the Mahalanobis d^2 <= it
    std::vector<QuadrantDivider> dividers;  ///< quadrant gate
    std::vector<Quadrant> quadrants;        ///< quadrant gate: its populations
    Operation operation = Operation::And;   ///< boolean gate
    std::vector<BooleanOperand> operands;   ///< boolean gate: 2+ for and/or, 1 for not
    /// Same gate.
    bool operator==(const GateNode&) const = default;
};

/// A spectrum (spillover) matrix a gating file defines: fluorochromes x detectors.
struct SpectrumMatrix {
    std::string id;                          ///< referenced by CompensationRef::matrix
    std::vector<std::string> fluorochromes;  ///< the compensated dimensions' names
    std::vector<std::string> detectors;      ///< the channels measured ($PnN)
    std::vector<double> coefficients;        ///< fluorochromes x detectors, row-major
    bool invertedAlready = false;            ///< coefficients are already the inverse
    /// Same matrix.
    bool operator==(const SpectrumMatrix&) const = default;
};

/// One population of the tree: a gate, or one quadrant of a quadrant gate.
struct GatePopulation {
    std::string id;     ///< the gate's or quadrant's id
    std::string path;   ///< names from the root, joined by '/': "Cells/Singlets/Live"
    size_t gate = 0;    ///< index of its gate in GateTree::gates
    int quadrant = -1;  ///< index of the quadrant, or -1 for the gate itself
};

/// Gates, their parents and the matrices they reference.
struct GateTree {
    std::vector<SpectrumMatrix> matrices;  ///< spectrum matrices compensation refers to
    std::vector<GateNode> gates;           ///< parents before children is not required

    /// True without gates.
    bool empty() const { return gates.empty(); }
    /// The gate whose id is `id`, or nullptr.
    const GateNode* find(const std::string& id) const;
    /// The channel ($PnN) a dimension reads: its channel, or for a fluorochrome of a square
    /// spectrum matrix (FlowJo's "Comp-PE-A") the detector of its row ("PE-A").
    std::string detectorOf(const GateDimension& d) const;
    /// Every population: each gate but quadrant gates, and each quadrant; in gate order.
    std::vector<GatePopulation> populations() const;
    /// The population named by an id or a path ("Cells/Singlets"; a leading "/" is allowed).
    /// Throws InputError listing the populations there are.
    GatePopulation population(const std::string& idOrPath) const;
    /// Checks ids (unique, non-empty), parents and references (present, no cycles), and each
    /// gate's geometry; throws InputError naming `source`, the gate and what is wrong.
    void validate(const std::string& source) const;
    /// Same tree.
    bool operator==(const GateTree&) const = default;
};

}  // namespace sepal
