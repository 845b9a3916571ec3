#include "core/pipeline/export_stream.h"

#include "core/common/error.h"
#include "core/io/input_guard.h"
#include "core/pipeline/export_files.h"

namespace sepal {

ExportStream::ExportStream(std::string path, ExportOptions options,
                           const std::vector<std::string>& inputs)
    : m_path(std::move(path)), m_options(options), m_format(exportFormatOf(m_path)) {
    if (m_options.perPopulation)
        throw InputError(m_path + ": one file per population is not written block by block");
    io::refuseOverwritingInput(m_path, inputs, "the output");
}

ExportStream::~ExportStream() = default;

void ExportStream::append(const ExportSource& block) {
    if (block.tables.size() != 1 || !block.xy)
        throw InputError(m_path + ": a streamed export takes one table of events at a time");
    ExportSource source = block;
    source.bounds = nullptr;
    if (m_format == ExportFormat::H5ad) {
        if (!m_anndata) m_anndata = std::make_unique<AnnDataExport>(m_path, m_options);
        m_anndata->append(source);
        return;
    }
    const io::Table table = buildExportTable(source, m_options, m_format);
    if (m_format == ExportFormat::Csv) {
        if (!m_csv) m_csv = std::make_unique<io::CsvStreamWriter>(m_path);
        m_csv->append(table);
        return;
    }
    if (!m_fcs) {
        // What the final header is made from: the first block's columns, without events.
        m_fcs = std::make_unique<io::FcsStreamWriter>(m_path);
        const io::Table& first = block.tables.front();
        m_firstLayout = io::keepRows(first, std::vector<uint8_t>(first.events(), 0));
        m_usedColumns = block.usedColumns;
        m_sampleColumn = block.sampleColumn;
        if (block.populations)
            m_populations =
                PopulationCodes{block.populations->column, block.populations->names, {}};
    }
    m_bounds.add(*block.xy);
    m_fcs->append(table);
}

void ExportStream::commit() {
    if (m_csv) return m_csv->commit();
    if (m_anndata) return m_anndata->commit();
    if (!m_fcs) throw InputError("cannot write '" + m_path + "': no events");
    // The header as writeExport makes it from every event: the same columns, the coordinates'
    // ranges over all blocks.
    const Matrix noXy(0, 2), noPoints(0, m_usedColumns.size());
    ExportSource layout;
    layout.tables = std::span<const io::Table>(&m_firstLayout, 1);
    layout.sampleColumn = m_sampleColumn;
    layout.xy = &noXy;
    layout.usedColumns = m_usedColumns;
    layout.transformed = &noPoints;
    layout.populations = m_populations ? &*m_populations : nullptr;
    layout.bounds = &m_bounds;
    const io::Table header = buildExportTable(layout, m_options, m_format);
    m_fcs->commit(&header);
}

}  // namespace sepal
