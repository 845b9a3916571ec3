#include "core/io/read_any.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/io/csv_reader.h"
#include "core/io/fcs_reader.h"
#include "core/io/points_json.h"
#include "core/io/population_labels.h"

namespace sepal::io {

Table readTable(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot open '" + path + "' (check the path and permissions)");
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    in.close();

    if (head.rfind("FCS", 0) == 0) {
        Table table = readFcs(path);
        recoverPopulationLabels(table);
        return table;
    }
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".json") return readPointsJson(path);
    const bool text = head.find('\0') == std::string::npos;
    if (ext == ".csv" || ext == ".tsv" || ext == ".txt" || (text && !head.empty())) {
        if (!text)
            throw InputError(path +
                             ": holds binary bytes, not delimited text; expected an FCS "
                             "file (starting with \"FCS\"), CSV/TSV or points JSON");
        return readCsv(path);
    }
    throw InputError(path +
                     ": not an FCS file (it does not start with \"FCS\"), nor CSV/TSV text, "
                     "nor points JSON; Sepal reads FCS 2.0-3.2, CSV, TSV and JSON point lists");
}

}  // namespace sepal::io
