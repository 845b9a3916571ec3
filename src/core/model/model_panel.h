#pragma once
// The panel a model was trained on: each column's marker ($PnS), kept in the model file so that
// applying it to a file whose channels carry other markers (a flow panel reuses fluorochromes:
// PE-A is CD33 in one panel and CD10 in the next) is refused instead of naming cells by markers
// they were not stained for.

#include <string>
#include <vector>

#include "core/io/table.h"
#include "core/model/model_file.h"

namespace sepal {

/// Each column's marker in `table`: the $PnS of the channel so named, the column itself when it
/// names a channel by its marker, else "" (a channel without one, or no such channel).
std::vector<std::string> columnMarkers(const io::Table& table,
                                       const std::vector<std::string>& columns);

/// Throws InputError, prefixed by `where` (the data file), listing the columns whose marker in
/// `data` differs from the one the model recorded; names are compared without case, spaces,
/// '-', '_', isotope tags ("142Nd_CD19" is CD19) or fluorochrome words ("CD3 FITC" is CD3).
/// Columns either side leaves without a marker are not compared (nor models without markers).
void checkPanel(const std::vector<std::string>& columns,
                const std::vector<std::string>& modelMarkers, const io::Table& data,
                const std::string& where);

/// Throws InputError listing the channels that the samples `tables` name alike but whose markers
/// ($PnS, compared as checkPanel compares them) differ from the first sample's: samples must
/// share the panel (Nd142Di was CD4 in one file and CD19 in the next, and both were embedded as
/// one column). `accept` names the option that would take them anyway, for the message.
void checkSamplesPanel(const std::vector<io::Table>& tables, const std::string& accept);

/// checkPanel over the model's columns and its state columns.
void checkModelPanel(const LoadedModel& loaded, const io::Table& data, const std::string& where);

}  // namespace sepal
