#pragma once
// The Counts window: each gate's events per sample, as gate_counts.csv holds them (percent of the
// parent, or events), and cells per population and sample, as populations.csv holds them
// (percent of the sample's cells, or cells), each in a grid of rows x samples.

#include <cstdint>
#include <string>
#include <vector>

#include "core/cluster/population_tally.h"
#include "ui/panel.h"

namespace sepal::ui {

/// Draws the workspace's counts per sample, gate and population, recounted when the document
/// changes.
class CountsPanel : public Panel {
  public:
    const char* title() const override { return "Counts"; }
    bool openByDefault() const override { return false; }
    void draw(UiContext& ctx) override;

  private:
    std::vector<PopulationCount> m_rows;
    uint64_t m_counter = ~uint64_t(0);  // the versions m_rows were counted at
    int m_percent = 1;                  // 1: percent (of the sample, of the parent); 0: cells
};

}  // namespace sepal::ui
