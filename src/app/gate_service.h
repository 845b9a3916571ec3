#pragma once
// The workspace's gates: the gate tree drawn on biaxial plots or read from Gating-ML and FlowJo
// workspaces, and which of its populations the picture embeds. Each edit is one undo step;
// a change of the embedded population re-trains the picture on its cells unless turned off.

#include <string>

#include "app/service.h"

namespace sepal::app {

/// Every edit of the gates.
class GateService : public Service {
  public:
    using Service::Service;

    /// Replaces the gates and the embedded population (one undo step named `label`); false,
    /// with the reason logged, when a sample lacks a gate's channel.
    bool set(GateSelection gates, const std::string& label);
    /// Adds a gate under its parent (an id of the tree, "" for all cells) with a unique id and
    /// name, and embeds its population (a quadrant gate: its first quadrant). False when it
    /// cannot be evaluated.
    bool add(GateNode gate);
    /// Removes the gate and every gate under it or referring to it; the embedded population
    /// moves to the removed gate's parent when it was among them.
    bool remove(const std::string& id);
    /// Renames a gate or quadrant (names stay unique under one parent).
    bool rename(const std::string& id, const std::string& name);
    /// Moves a gate under another population ("" the root); refused when that would put it
    /// under itself.
    bool reparent(const std::string& id, const std::string& parent);
    /// Embeds the population `id` ("" every cell).
    bool embed(const std::string& id);
    /// Reads a gates file (Gating-ML, FlowJo workspace, Sepal's JSON) as the new gates, its
    /// population chosen as sepal-cli would (the file's own, else the end of a single chain);
    /// false with the reason logged.
    bool open(const std::string& path);

    /// Cells in the embedded population (all cells without gates).
    size_t inside() const { return state().gating.count(state().data.events()); }
    /// True when a change of the embedded population re-trains the picture (the default).
    bool retrainOnChange() const { return m_retrain; }
    /// Turns re-training on a change of the embedded population on or off.
    void setRetrainOnChange(bool on) { m_retrain = on; }

  private:
    /// set(), then a re-train when the embedded population changed and re-training is on.
    bool change(GateSelection gates, const std::string& label);

    bool m_retrain = true;
};

}  // namespace sepal::app
