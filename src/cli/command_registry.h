#pragma once
// Subcommands of sepal-cli register themselves here, one file per command.

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace sepal::cli {

/// Adds a subcommand (its options and callback) to the sepal-cli application.
using CommandAdder = std::function<void(CLI::App&)>;

/// All registered subcommands, in registration order.
std::vector<CommandAdder>& commandRegistry();

/// Declared at namespace scope in a command's file: `static CommandRegistration reg{addX};`.
struct CommandRegistration {
    /// Registers `adder` to be called when sepal-cli builds its command line.
    explicit CommandRegistration(CommandAdder adder) {
        commandRegistry().push_back(std::move(adder));
    }
};

}  // namespace sepal::cli
