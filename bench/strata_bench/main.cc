// strata-bench: runs one workload against one messaging system and reports
// throughput, latency percentiles, accounting, and the system's CPU and
// memory.
//
//   strata-bench --driver kafka --url 127.0.0.1:9092 --workload mission.yaml
//       --watch-pid $(pidof strata-broker) --json-out results.jsonl
//
// Exit status: 0 the run completed and every acknowledged message reached
// every group; 1 it did not (or could not start); 2 bad usage.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <signal.h>
#include <unistd.h>

#include "bench/strata_bench/driver.h"
#include "bench/strata_bench/report.h"
#include "bench/strata_bench/runner.h"
#include "bench/strata_bench/workload.h"

using namespace strata;
using namespace strata::bench;

namespace {

// Workload flags: each is applied over the YAML file only when given.
struct WorkloadFlags {
  Workload w;
  std::string keys = "none";
  std::vector<std::pair<CLI::Option*, std::function<void(Workload&)>>> given;

  template <typename T>
  void add(CLI::App& app, const std::string& flag, T Workload::*field, const std::string& help) {
    CLI::Option* o = app.add_option(flag, w.*field, help)->group("Workload (override the file)");
    given.emplace_back(o, [this, field](Workload& out) { out.*field = w.*field; });
  }
};

void add_workload_flags(CLI::App& app, WorkloadFlags& f) {
  f.add(app, "--name", &Workload::name, "Name shown in reports");
  f.add(app, "--topic-prefix", &Workload::topic_prefix,
        "Topics are <prefix>-<i>, groups <prefix>-g<i>");
  f.add(app, "--topics", &Workload::topics, "Number of topics (default 1)");
  f.add(app, "--partitions", &Workload::partitions, "Partitions per topic (default 16)");
  f.add(app, "--replication-factor", &Workload::replication_factor,
        "Replicas of each topic created (kafka; default: the broker's)");
  f.add(app, "--message-size", &Workload::message_size,
        "Value size in bytes (default 1024, >= 24)");
  CLI::Option* keys =
      app.add_option("--keys", f.keys, "Key distribution: none, uniform or sequential")
          ->group("Workload (override the file)");
  f.given.emplace_back(keys, [&f](Workload& out) {
    auto k = parse_key_distribution(f.keys);
    if (k) out.keys = *k;
  });
  f.add(app, "--key-count", &Workload::key_count, "Distinct keys with --keys uniform|sequential");
  f.add(app, "--keep-topics", &Workload::keep_topics,
        "true: use the topics if they exist and leave them after the run");
  f.add(app, "--producers", &Workload::producers, "Producer threads, each with its own client");
  f.add(app, "--rate", &Workload::rate, "Total msg/s over all producers; 0 = as fast as possible");
  f.add(app, "--acks", &Workload::acks, "0, 1 or all");
  f.add(app, "--linger-ms", &Workload::linger_ms, "Producer batching delay");
  f.add(app, "--batch-bytes", &Workload::batch_bytes, "Producer batch size");
  f.add(app, "--groups", &Workload::groups, "Consumer groups, each reading everything");
  f.add(app, "--consumers-per-group", &Workload::consumers_per_group,
        "Members per group and topic");
  f.add(app, "--warmup", &Workload::warmup_s, "Warm-up seconds before the window");
  f.add(app, "--duration", &Workload::duration_s, "Measured window in seconds");
  f.add(app, "--drain-timeout", &Workload::drain_timeout_s,
        "Seconds consumers may take to catch up after producers stop");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "strata-bench: one workload against Strata (kafka), Redis Streams or NATS JetStream"};
  std::string driver_name, url, workload_file, json_out;
  std::vector<std::string> settings;
  std::vector<int> watch;
  bool json = false, progress = false, quiet = false;
  app.add_option("--driver", driver_name, "kafka, redis-streams or nats-jetstream")->required();
  app.add_option("--url", url,
                 "The system's address: host:port (kafka), redis://host:port, nats://host:port");
  app.add_option("-D", settings,
                 "Driver setting key=value (repeatable; kafka: any librdkafka property)");
  app.add_option("--workload", workload_file, "YAML workload file (flags override it)")
      ->check(CLI::ExistingFile);
  app.add_option("--watch-pid", watch, "Report CPU and memory of this process (repeatable)");
  app.add_option("--json-out", json_out, "Append the result as one JSON line to this file");
  app.add_flag("--json", json, "Print JSON instead of the table");
  app.add_flag("--progress", progress,
               "A progress line a second on stderr (default when a terminal)");
  app.add_flag("--quiet", quiet, "No progress lines");
  WorkloadFlags flags;
  add_workload_flags(app, flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "strata-bench: %s (see strata-bench --help)\n", e.what());
    return 2;
  }

  auto fail = [](int code, const std::string& what) {
    std::fprintf(stderr, "strata-bench: %s\n", what.c_str());
    return code;
  };
  Workload w;
  if (!workload_file.empty()) {
    auto loaded = load_workload_yaml(workload_file);
    if (!loaded) return fail(2, loaded.error().message());
    w = *loaded;
  }
  if (auto k = parse_key_distribution(flags.keys); !k) return fail(2, k.error().message());
  for (auto& [option, apply] : flags.given) {
    if (option->count() > 0) apply(w);
  }
  if (Status s = w.validate(); !s) return fail(2, s.error().message());

  DriverOptions options;
  options.url = url;
  for (const auto& kv : settings) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return fail(2, "-D wants key=value, not '" + kv + "'");
    options.settings[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  auto driver = make_driver(driver_name, options);
  if (!driver) return fail(2, driver.error().message());

  RunOptions run;
  for (int pid : watch) {
    if (::kill(pid, 0) != 0)
      return fail(2, "--watch-pid " + std::to_string(pid) + ": no such process");
    run.watch_pids.push_back(pid);
  }
  run.progress = !quiet && (progress || ::isatty(2));
  auto result = run_workload(**driver, w, run);
  if (!result) return fail(1, result.error().message());

  nlohmann::json j = to_json(*result);
  if (json) {
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fputs(format_table(*result).c_str(), stdout);
  }
  if (!json_out.empty()) {
    FILE* f = std::fopen(json_out.c_str(), "a");
    if (f == nullptr) return fail(1, "cannot write " + json_out);
    std::fprintf(f, "%s\n", j.dump().c_str());
    std::fclose(f);
  }
  return result->accounting_ok() ? 0 : 1;
}
