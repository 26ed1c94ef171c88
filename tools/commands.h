// The strata CLI's commands. Each add_* function registers its subcommands
// on the app; the one the user picks sets `action`, which main runs.
//
// An action returns kInvalidArgument for bad usage (exit code 2) and any
// other error for a failed operation (exit code 1).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "tools/kafka.h"

namespace strata::tools {

using Action = std::function<Status()>;

void add_topic_commands(CLI::App& app, Globals& g, Action& action);
void add_produce_command(CLI::App& app, Globals& g, Action& action);
void add_consume_commands(CLI::App& app, Globals& g, Action& action);  // consume, replay
void add_offsets_command(CLI::App& app, Globals& g, Action& action);
void add_group_commands(CLI::App& app, Globals& g, Action& action);
void add_cluster_command(CLI::App& app, Globals& g, Action& action);
void add_dump_log_command(CLI::App& app, Globals& g, Action& action);
void add_txn_commands(CLI::App& app, Globals& g, Action& action);
void add_schema_commands(CLI::App& app, Globals& g, Action& action);

}  // namespace strata::tools
