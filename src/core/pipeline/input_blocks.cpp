#include "core/pipeline/input_blocks.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/io/population_labels.h"
#include "core/pipeline/prepare.h"

namespace sepal {

namespace {

/// True for a file io::readTable reads as FCS: it starts with "FCS", whatever its name.
bool startsAsFcs(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[3] = {0, 0, 0};
    in.read(head, 3);
    return in.gcount() == 3 && head[0] == 'F' && head[1] == 'C' && head[2] == 'S';
}

}  // namespace

InputBlocks::InputBlocks(const std::string& path, size_t blockEvents)
    : m_blockEvents(std::max<size_t>(1, blockEvents)) {
    if (std::filesystem::is_regular_file(path) && startsAsFcs(path)) {
        m_fcs = std::make_unique<io::FcsEventStream>(path);
    } else {
        m_whole = readInput(path);
    }
}

size_t InputBlocks::events() const {
    return m_fcs ? m_fcs->events() : m_whole ? m_whole->events() : 0;
}

std::optional<io::Table> InputBlocks::next() {
    if (!m_fcs) {
        if (m_next > 0 || !m_whole) return std::nullopt;
        m_next = 1;
        return std::move(m_whole);
    }
    // An empty file is one empty block, so that its output is still written.
    if (m_next >= m_fcs->events() && (m_next > 0 || m_fcs->events() > 0)) return std::nullopt;
    io::Table block = m_fcs->read(m_next, m_blockEvents);
    m_next += std::max<size_t>(1, block.events());
    // As readTable reads FCS: Sepal's population code parameters become label columns.
    io::recoverPopulationLabels(block);
    return block;
}

}  // namespace sepal
