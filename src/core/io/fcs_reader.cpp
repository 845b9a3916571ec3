#include "core/io/fcs_reader.h"

#include "core/common/error.h"
#include "core/io/fcs_dataset.h"
#include "core/io/fcs_decode.h"
#include "core/io/mapped_file.h"
#include "core/io/regular_file.h"

namespace sepal::io {

Table readFcsBytes(std::span<const uint8_t> bytes, const std::string& name,
                   const FcsReadOptions& options) {
    std::vector<fcs::Dataset> sets = fcs::parseDatasets(bytes, name);
    if (options.dataset >= sets.size())
        throw InputError(name + ": data set " + std::to_string(options.dataset) +
                         " does not exist; the file holds " + std::to_string(sets.size()) +
                         " (numbered from 0)");
    fcs::Dataset& ds = sets[options.dataset];
    Table t;
    t.source = name;
    t.values = fcs::decodeEvents(ds, bytes, options.raw, name);
    for (const fcs::Parameter& p : ds.parameters)
        t.channels.push_back(fcs::channelOf(p, options.raw));
    t.keywords = std::move(ds.keywords);
    t.spillover = std::move(ds.spillover);
    t.warnings = std::move(ds.warnings);
    return t;
}

FcsFileInfo inspectFcsBytes(std::span<const uint8_t> bytes, const std::string& name) {
    FcsFileInfo info;
    info.path = name;
    for (fcs::Dataset& ds : fcs::parseDatasets(bytes, name)) {
        FcsDatasetInfo d;
        d.version = ds.version;
        d.events = ds.events;
        d.datatype = ds.datatype;
        if (const std::string* order = ds.keyword("$BYTEORD")) d.byteOrder = *order;
        for (const fcs::Parameter& p : ds.parameters)
            d.parameters.push_back(Channel{p.name, p.marker, p.range, p.bits});
        d.spillover = std::move(ds.spillover);
        d.eventsReadable = ds.dataError.empty();
        d.warnings = std::move(ds.warnings);
        if (!ds.dataError.empty()) d.warnings.push_back(ds.dataError);
        info.datasets.push_back(std::move(d));
    }
    return info;
}

Table readFcs(const std::string& path, const FcsReadOptions& options) {
    requireRegularFile(path);
    MappedFile file(path, true);
    return readFcsBytes(file.bytes(), path, options);
}

FcsFileInfo inspectFcs(const std::string& path) {
    requireRegularFile(path);
    MappedFile file(path, false);
    return inspectFcsBytes(file.bytes(), path);
}

}  // namespace sepal::io
