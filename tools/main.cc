// strata: the command-line tool for Strata clusters — topics, produce,
// consume, bounded replays by offset or time, offsets, groups, the cluster,
// and offline segment dumps. Exit codes: 0 success, 1 a failed operation,
// 2 bad usage.
#include <cstdio>
#include <cstdlib>

#include "tools/commands.h"

int main(int argc, char** argv) {
  using namespace strata::tools;
  Globals g;
  if (const char* env = std::getenv("STRATA_BOOTSTRAP"); env != nullptr && *env) g.bootstrap = env;
  CLI::App app{
      "strata: administer, produce to, consume from and replay a Strata (or Kafka) cluster",
      "strata"};
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("-b,--bootstrap", g.bootstrap,
                 "Broker address host:port (default 127.0.0.1:9092, or $STRATA_BOOTSTRAP)");
  app.add_flag("--json", g.json, "Print JSON (one document, or one object per line for streams)");
  app.add_option("--timeout", g.timeout_s,
                 "Seconds to wait for the cluster (default 10); for creating and deleting "
                 "topics and adding partitions, how long the broker may take (the CLI waits "
                 "5 s more for its answer)")
      ->check(CLI::PositiveNumber);
  app.add_option("-X", g.settings, "librdkafka setting key=value (repeatable)");
  Action action;
  add_topic_commands(app, g, action);
  add_produce_command(app, g, action);
  add_consume_commands(app, g, action);
  add_offsets_command(app, g, action);
  add_group_commands(app, g, action);
  add_cluster_command(app, g, action);
  add_dump_log_command(app, g, action);
  add_txn_commands(app, g, action);
  add_schema_commands(app, g, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "strata: %s (see strata --help)\n", e.what());
    return 2;
  }
  if (!action) {
    std::fprintf(stderr, "strata: missing a subcommand (see strata --help)\n");
    return 2;
  }
  auto st = action();
  if (st.ok()) return 0;
  std::fprintf(stderr, "strata: %s\n", st.error().message().c_str());
  return st.error().code() == strata::Errc::kInvalidArgument ? 2 : 1;
}
