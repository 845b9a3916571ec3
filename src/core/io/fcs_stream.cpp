#include "core/io/fcs_stream.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/io/fcs_decode.h"
#include "core/io/regular_file.h"

namespace sepal::io {

FcsEventStream::FcsEventStream(const std::string& path, const FcsReadOptions& options)
    : m_path(path), m_raw(options.raw) {
    requireRegularFile(path);
    // Not read in at once: pages are read as blocks are decoded and can be dropped after.
    m_file = std::make_unique<MappedFile>(path, false);
    std::vector<fcs::Dataset> sets = fcs::parseDatasets(m_file->bytes(), path);
    if (options.dataset >= sets.size())
        throw InputError(path + ": data set " + std::to_string(options.dataset) +
                         " does not exist; the file holds " + std::to_string(sets.size()) +
                         " (numbered from 0)");
    m_set = std::move(sets[options.dataset]);
    if (!m_set.dataError.empty()) throw InputError(path + ": " + m_set.dataError);
    m_layout.source = path;
    for (const fcs::Parameter& p : m_set.parameters)
        m_layout.channels.push_back(fcs::channelOf(p, m_raw));
    m_layout.values = Matrix(0, m_set.parameters.size());
    m_layout.keywords = m_set.keywords;
    m_layout.spillover = m_set.spillover;
    m_layout.warnings = m_set.warnings;
}

Table FcsEventStream::read(size_t first, size_t count) {
    Table block;
    block.source = m_layout.source;
    block.channels = m_layout.channels;
    block.keywords = m_layout.keywords;
    block.spillover = m_layout.spillover;
    first = std::min(first, m_set.events);
    count = std::min(count, m_set.events - first);
    const size_t cols = m_set.parameters.size();
    if (m_set.delimitedAscii || m_set.eventBytes == 0) {
        if (!m_whole) m_whole = fcs::decodeEvents(m_set, m_file->bytes(), m_raw, m_path);
        block.values = Matrix(count, cols);
        std::copy_n(m_whole->row(first), count * cols, block.values.values.begin());
        return block;
    }
    // The same decoding as readFcs, over a window of whole events.
    fcs::Dataset window = m_set;
    window.events = count;
    window.dataBegin = m_set.dataBegin + uint64_t(first) * m_set.eventBytes;
    window.dataLength = uint64_t(count) * m_set.eventBytes;
    block.values = fcs::decodeEvents(window, m_file->bytes(), m_raw, m_path);
    // The decoded bytes are not needed again: memory stays one block, not the file.
    m_file->release(window.dataBegin, window.dataLength);
    return block;
}

}  // namespace sepal::io
