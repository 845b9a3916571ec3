#pragma once
// Gate files of any kind Sepal reads and writes: Gating-ML 2.0 (.xml), FlowJo workspaces
// (.wsp) and Sepal's JSON (gates files, models and sessions with gates).

#include <string>
#include <vector>

#include "core/gate/gate_tree.h"

namespace sepal {

/// Reads the gates of `path`, whose kind is told by its content (an XML root of Gating-ML or a
/// FlowJo Workspace, else JSON). From a workspace, the gates of the sample whose file name is
/// that of `dataPath` when there is one, else those of its first sample (or group) with gates
/// (workspaceGatesNotes says so). Throws InputError naming the file and what is wrong.
GateTree readGateFile(const std::string& path, const std::string& dataPath = "");

/// For a FlowJo workspace whose gates (readGateFile's, by the first of `dataPaths`) serve every
/// data file: a note when the first file has no sample in it, and one for each later file that
/// the workspace gates otherwise (a sample of its own, or none of its name); empty for other
/// gate files. Said to the user: another file's gates may not suit these cells.
std::vector<std::string> workspaceGatesNotes(const std::string& path,
                                             const std::vector<std::string>& dataPaths);

/// True when `path` holds gates rather than data: Gating-ML or a FlowJo workspace (an XML
/// document of either root), or Sepal's gates file (JSON whose "format" is "sepal-gates").
bool isGateFile(const std::string& path);

/// Writes the tree to `path` atomically, in the format its extension names: .xml Gating-ML,
/// .wsp a FlowJo workspace (its gates under each of `samples`, FCS files), anything else
/// Sepal's JSON. Throws InputError.
void writeGateFile(const std::string& path, const GateTree& tree,
                   const std::vector<std::string>& samples = {});

}  // namespace sepal
