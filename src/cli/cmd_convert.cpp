// sepal-cli convert IN OUT.csv|OUT.fcs: one data set out, optionally transformed and selected.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_progress.h"
#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/common/text.h"
#include "core/io/csv_writer.h"
#include "core/io/fcs_reader.h"
#include "core/io/fcs_writer.h"
#include "core/io/input_guard.h"
#include "core/io/population_labels.h"
#include "core/io/read_any.h"
#include "core/io/regular_file.h"
#include "core/transform/channel_label.h"
#include "core/transform/pipeline.h"

namespace sepal::cli {

namespace {

struct ConvertOptions {
    std::string input;
    std::string output;
    size_t dataset = 0;
    std::string transform;
    std::string columns;
    bool raw = false;
};

bool looksLikeFcs(const std::string& path) {
    io::requireRegularFile(path);  // a FIFO would block the peek below
    std::ifstream in(path, std::ios::binary);
    char magic[3] = {0, 0, 0};
    in.read(magic, 3);
    return in.gcount() == 3 && std::string(magic, 3) == "FCS";
}

/// The pipeline from inline JSON (starting with '{') or from a JSON file.
TransformPipeline loadPipeline(const std::string& spec) {
    std::string text = spec;
    std::string where = "--transform";
    if (spec.find_first_not_of(" \t\r\n") == std::string::npos ||
        spec[spec.find_first_not_of(" \t\r\n")] != '{') {
        io::requireRegularFile(spec);
        std::ifstream in(spec);
        if (!in)
            throw InputError("--transform: cannot open '" + spec +
                             "' (give inline JSON or a file)");
        std::stringstream ss;
        ss << in.rdbuf();
        text = ss.str();
        where = spec;
    }
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw InputError(where + ": not valid JSON: " + e.what());
    }
    return TransformPipeline::fromJson(json);
}

/// The transformed values as a table: one channel per pipeline column.
io::Table transformed(const io::Table& in, const TransformPipeline& pipeline) {
    io::Table out;
    out.source = in.source;
    out.values = pipeline.apply(in);
    for (const std::string& name : pipeline.columns()) {
        io::Channel ch;
        ch.name = name;
        const int idx = in.findChannel(name);
        if (idx >= 0) {
            ch.name = in.channels[static_cast<size_t>(idx)].name;
            ch.marker = in.channels[static_cast<size_t>(idx)].marker;
        }
        ch.range = 0;
        out.channels.push_back(ch);
    }
    out.labels = in.labels;
    out.keywords = in.keywords;
    out.warnings = in.warnings;
    return out;
}

/// Only the named columns (names or markers), in the order given.
io::Table selectColumns(const io::Table& in, const std::string& list) {
    std::vector<size_t> picked;
    std::stringstream ss(list);
    for (std::string name; std::getline(ss, name, ',');) {
        if (name.empty()) continue;
        picked.push_back(resolveChannel(in, name, "--columns"));
    }
    if (picked.empty()) throw InputError("--columns: no column named");
    io::Table out;
    out.source = in.source;
    out.keywords = in.keywords;
    out.labels = in.labels;
    out.warnings = in.warnings;
    for (size_t idx : picked) out.channels.push_back(in.channels[idx]);
    if (in.spillover) {
        bool all = true;
        for (const auto& name : in.spillover->channels)
            all = all && std::any_of(out.channels.begin(), out.channels.end(),
                                     [&](const io::Channel& c) { return c.name == name; });
        if (all) out.spillover = in.spillover;
    }
    out.values = Matrix(in.events(), picked.size());
    for (size_t r = 0; r < in.events(); ++r)
        for (size_t c = 0; c < picked.size(); ++c) out.values.at(r, c) = in.values.at(r, picked[c]);
    return out;
}

void runConvert(const ConvertOptions& o) {
    const std::string ext = lowerExtension(o.output);
    const bool toFcs = ext == ".fcs";
    const bool toCsv = ext == ".csv" || ext == ".tsv" || ext == ".txt";
    if (!toFcs && !toCsv)
        throw InputError("convert: cannot tell the output format of '" + o.output +
                         "'; name it .csv or .fcs");
    io::refuseOverwritingInput(o.output, {o.input, o.transform}, "convert: the output");
    io::Table table;
    if (looksLikeFcs(o.input)) {
        table = io::readFcs(o.input, {.dataset = o.dataset, .raw = o.raw});
        io::recoverPopulationLabels(table);  // population codes become a label column again
    } else {
        if (o.dataset != 0 || o.raw)
            throw InputError("convert: --dataset and --raw apply to FCS input only; '" + o.input +
                             "' is not an FCS file");
        table = io::readTable(o.input);
    }
    if (!o.transform.empty()) table = transformed(table, loadPipeline(o.transform));
    if (!o.columns.empty()) table = selectColumns(table, o.columns);
    if (toFcs) {
        io::writeFcs(o.output, table);
    } else {
        headChannelsWithLabels(table);
        io::writeCsv(o.output, table);
    }
    for (const auto& w : table.warnings) warn(w);
}

void addConvert(CLI::App& app) {
    auto o = std::make_shared<ConvertOptions>();
    auto* cmd = app.add_subcommand("convert", "Convert FCS or CSV to CSV or FCS 3.1");
    cmd->add_option("input", o->input, "Input file (FCS or CSV/TSV)")->required();
    cmd->add_option("output", o->output, "Output file: .csv (or .tsv) or .fcs")->required();
    cmd->add_option("--dataset", o->dataset, "0-based FCS data set, as listed by info");
    cmd->add_option("--transform", o->transform,
                    "Transform pipeline: inline JSON or a JSON file (values are transformed)");
    cmd->add_option("--columns", o->columns, "Comma-separated columns to keep, in order");
    cmd->add_flag("--raw", o->raw, "FCS stored values after bit masking, before any scaling");
    cmd->callback([o] { runConvert(*o); });
}

CommandRegistration convertCommand{addConvert};

}  // namespace

}  // namespace sepal::cli
