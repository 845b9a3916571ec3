#pragma once
// The --seed option every command that draws at random takes: a whole number from 0 (CLI11
// reads "-1" into an unsigned as 2^64 - 1, which a trainer then refused in its own words).

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace sepal::cli {

/// Adds --seed to `cmd`, refusing a negative value with a message of its own.
inline CLI::Option* addSeedOption(CLI::App* cmd, uint64_t& seed, const std::string& help) {
    return cmd->add_option("--seed", seed, help)
        ->capture_default_str()
        ->check(CLI::Validator(
            [](std::string& text) {
                return !text.empty() && text.front() == '-'
                           ? "a seed is a whole number from 0, not " + text
                           : std::string();
            },
            "", "seed"));
}

}  // namespace sepal::cli
