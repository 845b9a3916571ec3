#include "core/gate/gate_file.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/common/error.h"
#include "core/common/text.h"
#include "core/gate/flowjo_workspace.h"
#include "core/gate/gate_tree_json.h"
#include "core/gate/gating_ml.h"
#include "core/io/atomic_file.h"
#include "core/io/fcs_reader.h"
#include "core/io/read_any.h"
#include "core/io/regular_file.h"

namespace sepal {

namespace {

/// The whole of gates file `path` (a regular file; InputError when it cannot be read).
std::string gateFileText(const std::string& path) {
    io::requireRegularFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot open the gates file " + path + ": check the path");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

/// Whether `text` is a FlowJo workspace (an XML document whose root is Workspace).
bool isWorkspace(const std::string& text) {
    const size_t first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    return first != std::string::npos && text[first] == '<' &&
           text.find("<Workspace") != std::string::npos;
}
}  // namespace

bool isGateFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::string head(4096, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(size_t(in.gcount()));
    const size_t first = head.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (first == std::string::npos) return false;
    if (head[first] == '<')
        return head.find("Gating-ML") != std::string::npos ||
               head.find("<Workspace") != std::string::npos;
    return head[first] == '{' && head.find("\"sepal-gates\"") != std::string::npos;
}

GateTree readGateFile(const std::string& path, const std::string& dataPath) {
    const std::string text = gateFileText(path);
    const size_t first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (first != std::string::npos && text[first] == '<') {
        if (isWorkspace(text)) return readFlowJoWorkspace(text, path).treeFor(dataPath);
        return parseGatingMl(text, path);
    }
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
        throw InputError("gates file " + path + " is neither Gating-ML, a FlowJo workspace nor " +
                         "Sepal's JSON (Export > Gates writes all three)");
    }
    // A gates file holds the tree's fields; a model or session holds them under "gates".
    if (doc.is_object() && doc.contains("gates"))
        return gateTreeFromJson(doc["gates"].is_object() ? doc["gates"] : doc, path);
    throw InputError(path +
                     " holds no gates (a gates file, model or session with a \"gates\" field)");
}

std::vector<std::string> workspaceGatesNotes(const std::string& path,
                                             const std::vector<std::string>& dataPaths) {
    std::vector<std::string> notes;
    if (dataPaths.empty() || dataPaths.front().empty()) return notes;
    const std::string text = gateFileText(path);
    if (!isWorkspace(text)) return notes;
    const FlowJoWorkspace workspace = readFlowJoWorkspace(text, path);
    if (workspace.samples.empty()) return notes;
    const auto fileName = [](const std::string& p) {
        return std::filesystem::path(p).filename().string();
    };
    // The first file's sample, else the workspace's first, whose gates readGateFile then gives.
    const FlowJoSample* used = workspace.sampleFor(dataPaths.front());
    if (!used) {
        std::string listed;
        for (size_t i = 0; i < workspace.samples.size() && i < 3; ++i)
            listed += (i ? ", " : "") + workspace.samples[i].fileName;
        if (workspace.samples.size() > 3) listed += ", ...";
        notes.push_back(path + " has no sample of " + fileName(dataPaths.front()) + " (it has " +
                        listed + "): its first gates are used");
        used = &workspace.samples.front();
    }
    for (size_t i = 1; i < dataPaths.size(); ++i) {
        const FlowJoSample* own = workspace.sampleFor(dataPaths[i]);
        if (own == used) continue;
        notes.push_back(
            path + ": the gates of every input are those of " + used->fileName + "; " +
            (own ? "the workspace's own gates for " + fileName(dataPaths[i]) + " are not used"
                 : "it has no sample of " + fileName(dataPaths[i])));
    }
    return notes;
}

void writeGateFile(const std::string& path, const GateTree& tree,
                   const std::vector<std::string>& samples) {
    if (endsWith(lowercase(path), ".xml")) return writeGatingMl(path, tree);
    if (endsWith(lowercase(path), ".wsp")) {
        // FlowJo shows a sample's event count before it reads the file: $TOT of each FCS file.
        std::vector<WorkspaceSample> listed;
        for (const std::string& s : samples) {
            const io::FcsFileInfo info =
                io::startsWithFcs(s) ? io::inspectFcs(s) : io::FcsFileInfo{};
            const bool known = !info.datasets.empty();
            listed.push_back({s, known ? info.datasets.front().events : 0,
                              !known || info.datasets.front().spillover.has_value(),
                              known ? info.datasets.front().spillover : std::nullopt});
        }
        return writeFlowJoWorkspace(path, tree, listed);
    }
    tree.validate("the gates to save");
    nlohmann::json doc = gateTreeToJson(tree);
    doc["format"] = "sepal-gates";
    io::AtomicFile file(path);
    file.write(doc.dump(1) + "\n");
    file.commit();
}

}  // namespace sepal
