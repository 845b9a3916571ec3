#include "ui/panel_table.h"

#include <functional>
#include <memory>

#include "ui/batches_panel.h"
#include "ui/biaxial_panel.h"
#include "ui/colour_panel.h"
#include "ui/compare_panel.h"
#include "ui/counts_panel.h"
#include "ui/data_panel.h"
#include "ui/export_panel.h"
#include "ui/gates_panel.h"
#include "ui/heatmap_panel.h"
#include "ui/landmarks_panel.h"
#include "ui/log_panel.h"
#include "ui/open_panel.h"
#include "ui/populations_panel.h"
#include "ui/stats_panel.h"
#include "ui/training_panel.h"

namespace sepal::ui {

namespace {
enum class Bar { Left, Right };

/// One window: its bar and how it is made.
struct PanelRow {
    Bar bar;
    std::function<std::unique_ptr<Panel>(Canvas&)> make;
};

template <typename P>
std::unique_ptr<Panel> plain(Canvas&) {
    return std::make_unique<P>();
}

const PanelRow kPanels[] = {
    {Bar::Left, plain<OpenPanel>},
    {Bar::Left, plain<DataPanel>},
    {Bar::Left, plain<BatchesPanel>},
    {Bar::Left, plain<TrainingPanel>},
    {Bar::Left, [](Canvas& c) { return std::make_unique<LandmarksPanel>(c.selection()); }},
    {Bar::Left, plain<ColourPanel>},
    {Bar::Left, plain<BiaxialPanel>},
    {Bar::Left, plain<GatesPanel>},
    {Bar::Right, plain<PopulationsPanel>},
    {Bar::Right, plain<HeatmapPanel>},
    {Bar::Right, plain<CountsPanel>},
    {Bar::Right, plain<ComparePanel>},
    {Bar::Right, plain<ExportPanel>},
    {Bar::Right, plain<StatsPanel>},
    {Bar::Right, plain<LogPanel>},
};
}  // namespace

void addPanels(SideBars& bars, Canvas& canvas) {
    for (const auto& row : kPanels)
        (row.bar == Bar::Left ? bars.left() : bars.right()).push_back(row.make(canvas));
}

}  // namespace sepal::ui
