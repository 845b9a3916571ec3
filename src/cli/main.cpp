// sepal-cli: the headless twin of the Sepal application.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/cli_ranks.h"
#include "cli/command_registry.h"
#include "core/common/error.h"
#include "core/common/heap.h"
#include "core/common/threads.h"

namespace sepal::cli {
std::vector<CommandAdder>& commandRegistry() {
    static std::vector<CommandAdder> registry;
    return registry;
}
}  // namespace sepal::cli

int main(int argc, char** argv) {
    sepal::waitPassively(argv);
    sepal::reuseFreedMemory();
    CLI::App app{"sepal-cli: EmbedSOM for cytometry data, headless (version " SEPAL_VERSION ")"};
    app.require_subcommand(1);
    app.set_version_flag("--version", SEPAL_VERSION);
    for (auto& add : sepal::cli::commandRegistry()) add(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const sepal::cli::ReportedError&) {
        return 1;
    } catch (const sepal::InputError& e) {
        std::fprintf(stderr, "sepal-cli: error: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sepal-cli: internal error: %s\n", e.what());
        return 3;
    }
    return 0;
}
