#include "core/pipeline/export_anndata.h"

#include <algorithm>
#include <map>

#include "core/common/error.h"
#include "core/gate/gate_membership.h"
#include "core/pipeline/samples.h"

namespace sepal {

namespace {

/// Each population of `tree` over the rows of every table of `source` in order: its obs column
/// name (its own name where no other population shares it, else its path) and membership.
std::vector<std::pair<std::string, std::vector<uint8_t>>> gateColumns(const GateTree& tree,
                                                                      const ExportSource& source) {
    const std::vector<GatePopulation> populations = tree.populations();
    std::map<std::string, int> nameUses;
    const auto leaf = [](const std::string& path) { return path.substr(path.rfind('/') + 1); };
    for (const GatePopulation& p : populations) ++nameUses[leaf(p.path)];
    std::vector<std::pair<std::string, std::vector<uint8_t>>> columns;
    for (const GatePopulation& p : populations)
        columns.emplace_back(nameUses[leaf(p.path)] == 1 ? leaf(p.path) : p.path,
                             std::vector<uint8_t>());
    for (const io::Table& table : source.tables) {
        const GateMembership membership = evaluateGates(tree, table);
        for (size_t c = 0; c < populations.size(); ++c) {
            const std::vector<uint8_t>& inside = membership.of(populations[c].id);
            columns[c].second.insert(columns[c].second.end(), inside.begin(), inside.end());
        }
    }
    return columns;
}

}  // namespace

AnnDataExport::AnnDataExport(std::string path, ExportOptions options)
    : m_path(std::move(path)), m_options(options) {
    if (m_options.perPopulation)
        throw InputError(m_path +
                         ": an .h5ad file holds every population in its obs['population'] "
                         "column; one file per population is written as .csv or .fcs");
}

AnnDataExport::~AnnDataExport() = default;

void AnnDataExport::append(const ExportSource& block) {
    const io::Table table = buildExportTable(block, m_options, ExportFormat::H5ad);
    const size_t events = table.events();
    const size_t kept = table.channels.size() - 2;  // the last two are the coordinates
    if (!block.transformed || block.transformed->rows != events ||
        block.transformed->cols != block.usedColumns.size())
        throw InputError(m_path +
                         ": the transformed values of the embedded channels are needed "
                         "for AnnData's X");
    const std::vector<int> fromTransformed = transformedColumns(table, block);
    if (!m_writer) {
        io::AnnDataVariables variables;
        for (size_t j = 0; j < kept; ++j) {
            variables.names.push_back(table.channels[j].name);
            variables.markers.push_back(table.channels[j].marker);
            variables.embedded.push_back(fromTransformed[j] >= 0);
        }
        m_writer = std::make_unique<io::H5adWriter>(m_path, std::move(variables));
    }
    Matrix raw(events, kept), x(events, kept), xy(events, 2);
    const long long n = static_cast<long long>(events);
#pragma omp parallel for schedule(static) if (n > 16384)
    for (long long r = 0; r < n; ++r) {
        const size_t i = size_t(r);
        const float* row = table.values.row(i);
        for (size_t j = 0; j < kept; ++j) {
            raw.at(i, j) = row[j];
            x.at(i, j) = fromTransformed[j] >= 0
                             ? block.transformed->at(i, size_t(fromTransformed[j]))
                             : row[j];
        }
        xy.at(i, 0) = row[kept];
        xy.at(i, 1) = row[kept + 1];
    }
    io::AnnDataBlock out{&x, &raw, &xy, {}, {}};
    for (const io::LabelColumn& l : table.labels) out.categorical.push_back(&l);
    // Every file names its sample, so that Python users can concatenate files and still tell
    // the samples apart; one input without a sample column takes its file's name.
    io::LabelColumn sample{block.sampleColumn, {sampleName(table.source)}, {}};
    const bool named = std::any_of(table.labels.begin(), table.labels.end(),
                                   [&](const io::LabelColumn& l) { return l.name == sample.name; });
    if (!named) {
        sample.codes.assign(events, 0);
        out.categorical.push_back(&sample);
    }
    const auto gates = block.gates ? gateColumns(*block.gates, block)
                                   : std::vector<std::pair<std::string, std::vector<uint8_t>>>();
    for (const auto& [name, inside] : gates) out.flags.emplace_back(name, &inside);
    m_writer->append(out);
}

void AnnDataExport::commit() {
    if (!m_writer) throw InputError("cannot write '" + m_path + "': no events");
    m_writer->commit();
}

}  // namespace sepal
