#pragma once
// Undoable edits: each change of the state is a command with apply, revert and a label.

#include <memory>
#include <string>
#include <vector>

#include "app/state.h"

namespace sepal::app {

/// One undoable edit.
class Command {
  public:
    virtual ~Command() = default;
    /// Makes the edit.
    virtual void apply(State& state) = 0;
    /// Undoes the edit.
    virtual void revert(State& state) = 0;
    /// Shown in the Edit menu ("Move landmark 12").
    virtual std::string label() const = 0;
    /// Folds a newer command of the same gesture into this one (a drag is one step); true if done.
    virtual bool merge(Command& newer) { return false; }
};

/// Replaces one field of the state; `mergeKey` (when not empty) folds consecutive edits with the
/// same key (a slider drag) into one step.
template <class T>
class ChangeCommand : public Command {
  public:
    /// field: the member changed; part: which version to bump.
    ChangeCommand(T State::*field, Part part, T before, T after, std::string label,
                  std::string mergeKey = {})
        : m_field(field),
          m_part(part),
          m_before(std::move(before)),
          m_after(std::move(after)),
          m_label(std::move(label)),
          m_mergeKey(std::move(mergeKey)) {}
    void apply(State& s) override { set(s, m_after); }
    void revert(State& s) override { set(s, m_before); }
    std::string label() const override { return m_label; }
    bool merge(Command& newer) override {
        auto* o = dynamic_cast<ChangeCommand*>(&newer);
        if (!o || m_mergeKey.empty() || o->m_mergeKey != m_mergeKey || o->m_field != m_field)
            return false;
        m_after = o->m_after;
        return true;
    }

  private:
    void set(State& s, const T& v) {
        s.*m_field = v;
        s.bump(m_part);
    }
    T State::*m_field;
    Part m_part;
    T m_before, m_after;
    std::string m_label, m_mergeKey;
};

/// Swaps two snapshots of several fields as one step; Snapshot has `void restore(State&)`
/// (non-const: a snapshot may complete itself the first time, and redo then reuses it).
template <class Snapshot>
class SnapshotCommand : public Command {
  public:
    /// before/after: what restore() puts back; label: the Edit menu's text.
    SnapshotCommand(Snapshot before, Snapshot after, std::string label)
        : m_before(std::move(before)), m_after(std::move(after)), m_label(std::move(label)) {}
    void apply(State& s) override { m_after.restore(s); }
    void revert(State& s) override { m_before.restore(s); }
    std::string label() const override { return m_label; }

  private:
    Snapshot m_before, m_after;
    std::string m_label;
};

/// The landmark model with its EmbedSOM parameters: they change together (a trained recipe,
/// removed landmarks lowering k), since parameters chosen for one model rarely suit another.
struct ModelSnapshot {
    LandmarkModel model;  ///< the landmarks
    EmbedParams params;   ///< EmbedSOM's k, smooth, adjust
    /// Puts both into the state.
    void restore(State& s) const {
        s.model = model;
        s.embed = params;
        s.bump(Part::Model);
    }
};

/// Replaces the model and its parameters as one step.
using ModelCommand = SnapshotCommand<ModelSnapshot>;

/// The populations with the colouring that shows them: made from the landmarks in one step.
struct PopulationsSnapshot {
    Populations populations;  ///< groups and membership
    ColourSettings colour;    ///< the colouring
    /// Puts both into the state.
    void restore(State& s) const {
        s.populations = populations;
        s.colour = colour;
        s.bump(Part::Populations);
        s.bump(Part::Colour);
    }
};

/// Replaces the populations and the colouring as one step.
using PopulationsCommand = SnapshotCommand<PopulationsSnapshot>;

/// The sample metadata with the colouring that shows it: opened in one step.
struct MetadataSnapshot {
    SampleMetadata metadata;  ///< the samples' attributes
    ColourSettings colour;    ///< the colouring (a metadata column by index)
    ViewSettings view;        ///< small multiples (panels by a metadata column's index)
    /// Puts them into the state.
    void restore(State& s) const {
        s.metadata = metadata;
        s.colour = colour;
        s.view = view;
        s.bump(Part::Colour);
        s.bump(Part::View);
    }
};

/// Replaces the sample metadata and the colouring as one step.
using MetadataCommand = SnapshotCommand<MetadataSnapshot>;

/// Two steps undone and redone as one (a gate and the training on its cells), named by the first.
class JoinedCommand : public Command {
  public:
    /// first happened before second.
    JoinedCommand(std::unique_ptr<Command> first, std::unique_ptr<Command> second)
        : m_first(std::move(first)), m_second(std::move(second)) {}
    void apply(State& state) override {
        m_first->apply(state);
        m_second->apply(state);
    }
    void revert(State& state) override {
        m_second->revert(state);
        m_first->revert(state);
    }
    std::string label() const override { return m_first->label(); }

  private:
    std::unique_ptr<Command> m_first, m_second;
};

/// The undo and redo stacks.
class UndoStack {
  public:
    /// Applies the command and records it (merging with the previous step when it allows).
    void push(std::unique_ptr<Command> command, State& state);
    /// Records a command whose effect is already in the state (a finished drag).
    void record(std::unique_ptr<Command> command);
    /// Reverts the last step; false when there is none.
    bool undo(State& state);
    /// Re-applies the last undone step; false when there is none.
    bool redo(State& state);
    /// Applies the command and makes it part of the last step, when that step is `last` (still
    /// the newest, not undone); else records it as a step of its own.
    void joinLast(const Command* last, std::unique_ptr<Command> command, State& state);
    /// The newest step (nullptr when none): what joinLast may join.
    const Command* last() const { return m_done.empty() ? nullptr : m_done.back().get(); }
    /// Label of the step undo would revert (empty when none).
    std::string undoLabel() const { return m_done.empty() ? "" : m_done.back()->label(); }
    /// Label of the step redo would apply (empty when none).
    std::string redoLabel() const { return m_undone.empty() ? "" : m_undone.back()->label(); }
    /// Stops merging into the last step (a gesture ended).
    void seal() { m_sealed = true; }
    /// Forgets everything (a new dataset).
    void clear() { m_done.clear(), m_undone.clear(); }

  private:
    std::vector<std::unique_ptr<Command>> m_done, m_undone;
    bool m_sealed = true;
};

}  // namespace sepal::app
