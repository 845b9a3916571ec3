#pragma once
// FlowJo 10 workspaces (.wsp): their samples and groups with named gate trees, compensation
// and FlowJo's per-parameter transforms (linear, log, arcsinh, logicle, hyperlog, biex), read
// into Sepal's gate tree; and workspaces written so that FlowJo shows Sepal's gates and
// populations by name under the samples they belong to.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/gate/gate_tree.h"
#include "core/io/table.h"

namespace sepal {

/// FlowJo's name for the matrix a sample's own FCS file holds ($SPILLOVER): gates on its "Comp-"
/// parameters are gates on the file's matrix.
inline constexpr const char* kAcquisitionDefined = "Acquisition-defined";

/// One sample of a workspace: its FCS file and its own gates.
struct FlowJoSample {
    std::string id;                      ///< FlowJo's sampleID
    std::string uri;                     ///< the DataSet's uri as written ("file:/...")
    std::string fileName;                ///< the uri's last path component, percent-decoded
    GateTree tree;                       ///< the sample's gates
    std::map<std::string, long> counts;  ///< FlowJo's event count per gate id (-1 unknown)
};

/// One group: its gates and the samples in it.
struct FlowJoGroup {
    std::string name;                    ///< "All Samples", a user's group...
    GateTree tree;                       ///< the group's gates (FlowJo copies them to samples)
    std::vector<std::string> sampleIds;  ///< members
};

/// What a workspace holds.
struct FlowJoWorkspace {
    std::vector<FlowJoSample> samples;  ///< in file order
    std::vector<FlowJoGroup> groups;    ///< in file order
    GateTree tree;  ///< the first sample's gates, else the first group's that has gates
    /// The gates for data file `path`: those of the sample with its file name, else `tree`.
    const GateTree& treeFor(const std::string& path) const;
    /// The sample of data file `path` (by file name), or null when none has it.
    const FlowJoSample* sampleFor(const std::string& path) const;
};

/// Parses a FlowJo workspace; `source` names it in errors. Throws InputError naming the element.
FlowJoWorkspace readFlowJoWorkspace(const std::string& text, const std::string& source);

/// One sample a written workspace lists.
struct WorkspaceSample {
    std::string path;   ///< the FCS file (written as an absolute file: uri)
    size_t events = 0;  ///< its event count (FlowJo shows it before it reads the file)
    /// The file has its own spillover matrix. Where none has, gates on "the file's matrix" read
    /// the values as they are (Gating-ML's "FCS" on such a file), and are written on the plain
    /// parameters: FlowJo has no "Comp-" parameter there.
    bool spillover = true;
    /// The file's own matrix when it was read: FlowJo's "Acquisition-defined" matrix of the
    /// sample, which compensates the "Comp-" parameters of gates on the file's matrix.
    std::optional<io::Spillover> ownMatrix;
};

/// Writes `tree` as a FlowJo 10 workspace atomically, its gates under each sample of `samples`
/// and under the group "All Samples". Throws InputError for what FlowJo cannot hold.
void writeFlowJoWorkspace(const std::string& path, const GateTree& tree,
                          const std::vector<WorkspaceSample>& samples);

/// The workspace's text (what writeFlowJoWorkspace writes).
std::string flowJoWorkspaceText(const GateTree& tree, const std::vector<WorkspaceSample>& samples);

}  // namespace sepal
