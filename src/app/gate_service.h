#pragma once
// The workspace's gates: which cells the app embeds, colours, counts and exports. The gate tree
// of Gating-ML and FlowJo workspaces grows here.

#include <string>
#include <vector>

#include "app/service.h"

namespace sepal::app {

/// Every edit of the gates.
class GateService : public Service {
  public:
    using Service::Service;

    /// Replaces the gates (one undo step named `label`); false, with the reason logged, when a
    /// sample lacks a gate's channel.
    bool set(std::vector<Gate> gates, const std::string& label) {
        return m_document.setGates(std::move(gates), label);
    }
    /// Cells inside every gate (all cells without gates).
    size_t inside() const { return state().gating.count(state().data.events()); }
};

}  // namespace sepal::app
