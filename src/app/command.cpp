#include "app/command.h"

namespace sepal::app {

namespace {
constexpr size_t kMaxSteps = 200;
}

void UndoStack::push(std::unique_ptr<Command> command, State& state) {
    command->apply(state);
    record(std::move(command));
}

void UndoStack::joinLast(const Command* last, std::unique_ptr<Command> command, State& state) {
    if (last == nullptr || m_done.empty() || m_done.back().get() != last)
        return push(std::move(command), state);
    command->apply(state);
    m_undone.clear();
    m_done.back() = std::make_unique<JoinedCommand>(std::move(m_done.back()), std::move(command));
    m_sealed = true;
}

void UndoStack::record(std::unique_ptr<Command> command) {
    m_undone.clear();
    if (!m_sealed && !m_done.empty() && m_done.back()->merge(*command)) return;
    m_done.push_back(std::move(command));
    if (m_done.size() > kMaxSteps) m_done.erase(m_done.begin());
    m_sealed = false;
}

bool UndoStack::undo(State& state) {
    if (m_done.empty()) return false;
    m_done.back()->revert(state);
    m_undone.push_back(std::move(m_done.back()));
    m_done.pop_back();
    m_sealed = true;
    return true;
}

bool UndoStack::redo(State& state) {
    if (m_undone.empty()) return false;
    m_undone.back()->apply(state);
    m_done.push_back(std::move(m_undone.back()));
    m_undone.pop_back();
    m_sealed = true;
    return true;
}

}  // namespace sepal::app
