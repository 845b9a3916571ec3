#pragma once
// The Batches window: samples measured in several batches aligned onto the batches' common
// distribution (sepal-cli align): the batch column of the sample metadata, the anchors that
// teach the alignment, the clusters (one map per marker, or CytoNorm's clusters), the folder
// the aligned files go to.

#include <string>

#include "ui/panel.h"

namespace sepal::ui {

/// Chooses the batches and anchors and runs DataService::alignBatches.
class BatchesPanel : public Panel {
  public:
    BatchesPanel();
    const char* title() const override { return "Batches"; }
    bool openByDefault() const override { return false; }
    void draw(UiContext& ctx) override;

  private:
    std::string m_column;   // the metadata column naming each sample's batch
    std::string m_anchors;  // "COLUMN=VALUE", or "" for every sample
    std::string m_folder;   // where the aligned files go
    int m_clusters = 1;     // clusters of the anchors' cells, each with maps of its own
};

}  // namespace sepal::ui
