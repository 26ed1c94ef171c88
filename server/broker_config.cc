#include "server/broker_config.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "coordinator/etcd_endpoints.h"
#include "server/kafka_broker_configs.h"

namespace strata::server {
namespace {

Error bad_value(const std::string& key, const std::string& value, std::string_view why) {
  return Error(Errc::kInvalidConfig, fmt::format("invalid value '{}' for {}: {}", value, key, why));
}

template <typename T>
Result<T> parse_int(const std::string& key, const std::string& value, int64_t min, int64_t max) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() || ptr != value.data() + value.size()) {
    return bad_value(key, value, "not an integer");
  }
  if (v < min || v > max)
    return bad_value(key, value, fmt::format("must be between {} and {}", min, max));
  return static_cast<T>(v);
}

Result<bool> parse_bool(const std::string& key, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  return bad_value(key, value, "must be true or false");
}

// The properties set() takes that are not topic defaults; none of them can
// change at runtime.
const std::vector<std::string_view>& static_keys() {
  static const std::vector<std::string_view> keys = {
      "node.id",
      "broker.id",
      "log.dirs",
      "log.dir",
      "data.dir",
      "listeners",
      "advertised.listeners",
      "num.cores",
      "cores",
      "log.level",
      "auto.create.topics.enable",
      "num.partitions",
      "default.replication.factor",
      "socket.request.max.bytes",
      "max.inflight.requests.per.connection",
      "fetch.max.bytes",
      "log.retention.check.interval.ms",
      "log.cleaner.enable",
      "log.cleaner.threads",
      "log.cleaner.backoff.ms",
      "log.cleaner.io.max.bytes.per.second",
      "group.initial.rebalance.delay.ms",
      "group.min.session.timeout.ms",
      "group.max.session.timeout.ms",
      "offsets.retention.minutes",
      "offsets.retention.check.interval.ms",
      "shutdown.timeout.ms",
      "strata.stats.interval.ms",
      "strata.log.cache.window.bytes",
      "producer.id.expiration.ms",
      "strata.test.sync.journal",
      "metadata.store",
      "etcd.endpoints",
      "metadata.startup.timeout.ms",
      "rpc.port",
      "schema.registry.enable",
      "schema.registry.listeners",
      "schema.registry.max.request.bytes",
      "broker.session.timeout.ms",
      "broker.rack",
      "auto.leader.rebalance.enable",
      "leader.imbalance.check.interval.seconds",
      "offsets.topic.replication.factor",
      "offsets.topic.segment.bytes",
      "transaction.state.log.segment.bytes",
      "replica.lag.time.max.ms",
      "replica.fetch.max.bytes",
      "replica.fetch.response.max.bytes",
      "replica.fetch.wait.max.ms",
      "controlled.shutdown.enable",
  };
  return keys;
}

}  // namespace

bool BrokerConfig::is_static_key(std::string_view key) {
  const auto& keys = static_keys();
  if (std::find(keys.begin(), keys.end(), key) != keys.end()) return true;
  const auto* s = find_synonym(key);
  return s != nullptr && !s->dynamic;
}

namespace {

// One listener, `scheme://host:port` or `host:port` (a list is refused:
// each listener config here takes one).
Result<std::pair<std::string, uint16_t>> parse_listener(const std::string& key,
                                                        const std::string& value,
                                                        std::string_view scheme) {
  std::string v = value;
  if (auto at = v.find("://"); at != std::string::npos) {
    if (v.substr(0, at) != scheme) {
      return bad_value(key, value, fmt::format("only {} listeners are supported", scheme));
    }
    v = v.substr(at + 3);
  }
  auto colon = v.rfind(':');
  if (v.find(',') != std::string::npos || colon == std::string::npos) {
    return bad_value(key, value, fmt::format("must be one listener, [{}://]host:port", scheme));
  }
  STRATA_ASSIGN_OR_RETURN(uint16_t port, parse_int<uint16_t>(key, v.substr(colon + 1), 0, 65535));
  return std::make_pair(v.substr(0, colon), port);
}

}  // namespace

Status BrokerConfig::set(const std::string& key, const std::string& value) {
  if (const auto* synonym = find_synonym(key)) {
    STRATA_TRY(topic_value_of(*synonym, value));
    topic_default_props[key] = value;
    STRATA_ASSIGN_OR_RETURN(topic_defaults, resolve_topic_defaults({{}, {}, topic_default_props}));
    return ok_status();
  }
  if (key == "node.id" || key == "broker.id") {
    STRATA_ASSIGN_OR_RETURN(node_id, parse_int<int32_t>(key, value, 0, INT32_MAX));
  } else if (key == "log.dirs" || key == "log.dir" || key == "data.dir") {
    if (value.empty() || value.find(',') != std::string::npos) {
      return bad_value(key, value, "must be exactly one directory");
    }
    data_dir = value;
  } else if (key == "listeners" || key == "advertised.listeners") {
    STRATA_ASSIGN_OR_RETURN(auto listener, parse_listener(key, value, "PLAINTEXT"));
    auto [host, port] = listener;
    if (key == "listeners") {
      listen_host = host.empty() ? "0.0.0.0" : host;
      listen_port = port;
    } else {
      if (host.empty() || port == 0) return bad_value(key, value, "needs a host and a port");
      advertised_host = host;
      advertised_port = port;
    }
  } else if (key == "num.cores" || key == "cores") {
    STRATA_ASSIGN_OR_RETURN(cores, parse_int<unsigned>(key, value, 0, 1024));
  } else if (key == "log.level") {
    log_level = value;
  } else if (key == "auto.create.topics.enable") {
    STRATA_ASSIGN_OR_RETURN(auto_create_topics, parse_bool(key, value));
  } else if (key == "num.partitions") {
    STRATA_ASSIGN_OR_RETURN(num_partitions, parse_int<int32_t>(key, value, 1, 100000));
  } else if (key == "default.replication.factor") {
    // Checked against the live brokers when a topic is created, as in Kafka: a
    // topic with more replicas than live brokers gets INVALID_REPLICATION_FACTOR.
    STRATA_ASSIGN_OR_RETURN(default_replication_factor,
                            parse_int<int16_t>(key, value, 1, std::numeric_limits<int16_t>::max()));
  } else if (key == "socket.request.max.bytes") {
    STRATA_ASSIGN_OR_RETURN(socket_request_max_bytes,
                            parse_int<int64_t>(key, value, 1024, 1LL << 30));
  } else if (key == "max.inflight.requests.per.connection") {
    STRATA_ASSIGN_OR_RETURN(max_inflight_requests, parse_int<int32_t>(key, value, 1, 100000));
  } else if (key == "fetch.max.bytes") {
    STRATA_ASSIGN_OR_RETURN(fetch_max_bytes, parse_int<int32_t>(key, value, 1024, INT32_MAX));
  } else if (key == "log.retention.check.interval.ms") {
    STRATA_ASSIGN_OR_RETURN(retention_check_interval_ms,
                            parse_int<int64_t>(key, value, 1, INT64_MAX));
  } else if (key == "log.cleaner.enable") {
    STRATA_ASSIGN_OR_RETURN(log_cleaner_enable, parse_bool(key, value));
  } else if (key == "log.cleaner.threads") {
    STRATA_ASSIGN_OR_RETURN(log_cleaner_threads, parse_int<int32_t>(key, value, 1, 64));
  } else if (key == "log.cleaner.backoff.ms") {
    STRATA_ASSIGN_OR_RETURN(log_cleaner_backoff_ms, parse_int<int64_t>(key, value, 1, INT64_MAX));
  } else if (key == "log.cleaner.io.max.bytes.per.second") {
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !(v >= 0)) {
      return Error(
          Errc::kInvalidConfig,
          fmt::format("{}: '{}' is not a number of bytes per second (0 = no limit)", key, value));
    }
    log_cleaner_io_max_bytes_per_second = v;
  } else if (key == "group.initial.rebalance.delay.ms") {
    STRATA_ASSIGN_OR_RETURN(group_initial_rebalance_delay_ms,
                            parse_int<int32_t>(key, value, 0, INT32_MAX));
  } else if (key == "group.min.session.timeout.ms") {
    STRATA_ASSIGN_OR_RETURN(group_min_session_timeout_ms,
                            parse_int<int32_t>(key, value, 1, INT32_MAX));
  } else if (key == "group.max.session.timeout.ms") {
    STRATA_ASSIGN_OR_RETURN(group_max_session_timeout_ms,
                            parse_int<int32_t>(key, value, 1, INT32_MAX));
  } else if (key == "offsets.retention.minutes") {
    STRATA_ASSIGN_OR_RETURN(int64_t minutes, parse_int<int64_t>(key, value, 1, INT64_MAX / 60000));
    offsets_retention_ms = minutes * 60000;
  } else if (key == "offsets.retention.check.interval.ms") {
    STRATA_ASSIGN_OR_RETURN(offsets_retention_check_interval_ms,
                            parse_int<int64_t>(key, value, 1, INT64_MAX));
  } else if (key == "shutdown.timeout.ms") {
    STRATA_ASSIGN_OR_RETURN(shutdown_timeout_ms, parse_int<int64_t>(key, value, 0, INT64_MAX));
  } else if (key == "strata.stats.interval.ms") {
    STRATA_ASSIGN_OR_RETURN(stats_interval_ms, parse_int<int64_t>(key, value, 0, 3'600'000));
  } else if (key == "producer.id.expiration.ms") {
    STRATA_ASSIGN_OR_RETURN(producer_id_expiration_ms,
                            parse_int<int64_t>(key, value, 1, INT64_MAX));
  } else if (key == "strata.log.cache.window.bytes") {
    STRATA_ASSIGN_OR_RETURN(log_cache_window_bytes, parse_int<int64_t>(key, value, 0, INT64_MAX));
  } else if (key == "strata.test.sync.journal") {
    sync_journal_path = value;
  } else if (key == "metadata.store") {
    if (value == "embedded") {
      metadata_store = MetadataStoreKind::kEmbedded;
    } else if (value == "etcd") {
      metadata_store = MetadataStoreKind::kEtcd;
    } else {
      return bad_value(key, value, "must be embedded or etcd");
    }
  } else if (key == "etcd.endpoints") {
    auto endpoints = coordinator::parse_etcd_endpoints(value);
    if (!endpoints) return bad_value(key, value, endpoints.error().message());
    etcd_endpoints = std::move(endpoints).value();
  } else if (key == "rpc.port") {
    STRATA_ASSIGN_OR_RETURN(rpc_port, parse_int<uint16_t>(key, value, 0, 65535));
  } else if (key == "schema.registry.enable") {
    STRATA_ASSIGN_OR_RETURN(schema_registry_enable, parse_bool(key, value));
  } else if (key == "schema.registry.listeners") {
    STRATA_ASSIGN_OR_RETURN(auto listener, parse_listener(key, value, "http"));
    std::tie(schema_registry_host, schema_registry_port) = listener;
    schema_registry_explicit = true;
  } else if (key == "schema.registry.max.request.bytes") {
    STRATA_ASSIGN_OR_RETURN(schema_registry_max_request_bytes,
                            parse_int<size_t>(key, value, 1, size_t{1} << 30));
  } else if (key == "metadata.startup.timeout.ms") {
    STRATA_ASSIGN_OR_RETURN(metadata_startup_timeout_ms,
                            parse_int<int64_t>(key, value, 0, INT64_MAX));
  } else if (key == "broker.session.timeout.ms") {
    STRATA_ASSIGN_OR_RETURN(broker_session_timeout_ms,
                            parse_int<int64_t>(key, value, 2000, 3'600'000));
  } else if (key == "broker.rack") {
    if (value.empty()) return bad_value(key, value, "must not be empty");
    rack = value;
  } else if (key == "auto.leader.rebalance.enable") {
    STRATA_ASSIGN_OR_RETURN(auto_leader_rebalance, parse_bool(key, value));
  } else if (key == "leader.imbalance.check.interval.seconds") {
    STRATA_ASSIGN_OR_RETURN(int64_t seconds, parse_int<int64_t>(key, value, 1, 86400 * 365));
    leader_imbalance_check_interval_ms = seconds * 1000;
  } else if (key == "offsets.topic.replication.factor") {
    STRATA_ASSIGN_OR_RETURN(offsets_topic_replication_factor,
                            parse_int<int16_t>(key, value, 1, INT16_MAX));
  } else if (key == "offsets.topic.segment.bytes") {
    STRATA_ASSIGN_OR_RETURN(offsets_topic_segment_bytes,
                            parse_int<int32_t>(key, value, 1024, INT32_MAX));
  } else if (key == "transaction.state.log.segment.bytes") {
    STRATA_ASSIGN_OR_RETURN(transaction_state_segment_bytes,
                            parse_int<int32_t>(key, value, 1024, INT32_MAX));
  } else if (key == "transaction.state.log.replication.factor") {
    STRATA_ASSIGN_OR_RETURN(transaction_state_replication_factor,
                            parse_int<int16_t>(key, value, 1, INT16_MAX));
  } else if (key == "transaction.max.timeout.ms") {
    STRATA_ASSIGN_OR_RETURN(transaction_max_timeout_ms,
                            parse_int<int32_t>(key, value, 1, INT32_MAX));
  } else if (key == "transaction.abort.timed.out.transaction.cleanup.interval.ms") {
    STRATA_ASSIGN_OR_RETURN(transaction_abort_check_interval_ms,
                            parse_int<int64_t>(key, value, 1, 3'600'000));
  } else if (key == "controlled.shutdown.enable") {
    STRATA_ASSIGN_OR_RETURN(controlled_shutdown_enable, parse_bool(key, value));
  } else if (key == "replica.lag.time.max.ms") {
    STRATA_ASSIGN_OR_RETURN(replica_lag_time_max_ms,
                            parse_int<int64_t>(key, value, 100, 3'600'000));
  } else if (key == "replica.fetch.max.bytes") {
    // Under the RPC's 64 MiB response frame, with room for the others.
    STRATA_ASSIGN_OR_RETURN(replica_fetch_max_bytes, parse_int<int32_t>(key, value, 1, 32 << 20));
  } else if (key == "replica.fetch.response.max.bytes") {
    STRATA_ASSIGN_OR_RETURN(replica_fetch_response_max_bytes,
                            parse_int<int32_t>(key, value, 1, 32 << 20));
  } else if (key == "replica.fetch.wait.max.ms") {
    // Below the follower's call timeout and the leader's longest wait.
    STRATA_ASSIGN_OR_RETURN(replica_fetch_wait_max_ms, parse_int<int32_t>(key, value, 0, 30'000));
  } else if (const auto* kafka = find_kafka_broker_config(key)) {
    STRATA_TRY(check_kafka_broker_value(*kafka, value));
    kafka_only_props[key] = value;
  } else {
    return Error(Errc::kInvalidConfig, fmt::format("unknown broker config '{}'", key));
  }
  return ok_status();
}

Status BrokerConfig::load_properties(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return Error::io(errno, "open config " + path.string());
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    auto trim = [](std::string s) {
      auto b = s.find_first_not_of(" \t\r");
      auto e = s.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    line = trim(line);
    if (line.empty() || line[0] == '#' || line[0] == '!') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) {
      return Error(Errc::kInvalidConfig,
                   fmt::format("{}:{}: expected key=value, got '{}'", path.string(), lineno, line));
    }
    auto st = set(trim(line.substr(0, eq)), trim(line.substr(eq + 1)));
    if (!st) {
      return Error(Errc::kInvalidConfig,
                   fmt::format("{}:{}: {}", path.string(), lineno, st.error().message()));
    }
  }
  return ok_status();
}

Status BrokerConfig::validate() const {
  if (advertised_host_or_listen() == "0.0.0.0") {
    return Error(Errc::kInvalidConfig,
                 "listeners binds 0.0.0.0, which clients cannot connect to: set "
                 "advertised.listeners to the host:port they should use");
  }
  if (metadata_store == MetadataStoreKind::kEtcd && etcd_endpoints.empty()) {
    return Error(Errc::kInvalidConfig, "metadata.store=etcd needs etcd.endpoints (host:port,...)");
  }
  if (replica_fetch_wait_max_ms >= replica_lag_time_max_ms) {
    // A follower waiting out a long poll at the log end would leave the ISR.
    return Error(Errc::kInvalidConfig,
                 fmt::format("replica.fetch.wait.max.ms ({}) must be below "
                             "replica.lag.time.max.ms ({})",
                             replica_fetch_wait_max_ms, replica_lag_time_max_ms));
  }
  return ok_status();
}

Result<std::optional<BrokerConfig>> BrokerConfig::from_args(int argc, char** argv) {
  BrokerConfig cfg;
  CLI::App app{
      "strata-broker: a Kafka-compatible event log broker.\n"
      "With no arguments it runs a single broker with an embedded coordinator,\n"
      "listening on 127.0.0.1:9092 with its data in ./data.",
      "strata-broker"};
  std::string config_file, listen, advertised, data_dir, log_level;
  std::vector<std::string> sets;
  std::optional<int32_t> node_id;
  std::optional<unsigned> cores;
  app.add_option("-c,--config", config_file,
                 "Kafka-style properties file (key=value lines); flags override it")
      ->check(CLI::ExistingFile);
  app.add_option("-d,--data-dir", data_dir, "Data directory (default ./data)");
  app.add_option("-l,--listen", listen, "Address to listen on, host:port (default 127.0.0.1:9092)");
  app.add_option("-a,--advertised", advertised,
                 "Address clients are told to connect to, host:port (default: the listen address)");
  app.add_option("-n,--node-id", node_id, "This broker's node id (default 1)");
  app.add_option("--cores", cores, "Number of shards, one thread each (default: all CPUs)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn or error (default info)");
  app.add_option("-s,--set", sets,
                 "Any broker property as key=value, e.g. --set num.partitions=3, "
                 "--set log.retention.hours=24, --set auto.create.topics.enable=false; "
                 "repeatable");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    std::cout << "\nProperties (for --config and --set):\n"
                 "  node.id, log.dirs, listeners, advertised.listeners, num.cores, log.level,\n"
                 "  auto.create.topics.enable, num.partitions, default.replication.factor,\n"
                 "  socket.request.max.bytes, max.inflight.requests.per.connection,\n"
                 "  fetch.max.bytes, log.retention.check.interval.ms, shutdown.timeout.ms,\n"
                 "  log.cleaner.enable, log.cleaner.threads, log.cleaner.backoff.ms,\n"
                 "  log.cleaner.io.max.bytes.per.second (0 = no limit),\n"
                 "  group.initial.rebalance.delay.ms, group.min.session.timeout.ms,\n"
                 "  group.max.session.timeout.ms, offsets.retention.minutes,\n"
                 "  offsets.retention.check.interval.ms, strata.stats.interval.ms (per-shard\n"
                 "  disk latency and loop lag lines in the log; 0 = off),\n"
                 "  producer.id.expiration.ms (an idempotent producer silent this long\n"
                 "  is forgotten; default 1 day),\n"
                 "  strata.test.sync.journal (a test hook: a file journaling every sync,\n"
                 "  for a fault harness's simulated power cut; empty = off),\n"
                 "  metadata.store (embedded, the default, or etcd), etcd.endpoints\n"
                 "  (host:port,... of the etcd cluster, with metadata.store=etcd),\n"
                 "  metadata.startup.timeout.ms, broker.session.timeout.ms, broker.rack,\n"
                 "  rpc.port (followers fetch there; 0 = any free port, the default),\n"
                 "  schema.registry.enable (default true), schema.registry.listeners\n"
                 "  ([http://]host:port; default the listen host, port 8081),\n"
                 "  schema.registry.max.request.bytes (default 16 MiB),\n"
                 "  auto.leader.rebalance.enable, leader.imbalance.check.interval.seconds,\n"
                 "  offsets.topic.replication.factor, replica.lag.time.max.ms,\n"
                 "  replica.fetch.max.bytes (1 MiB), replica.fetch.response.max.bytes (10 MiB),\n"
                 "  replica.fetch.wait.max.ms (500),\n"
                 "  offsets.topic.segment.bytes, transaction.state.log.segment.bytes\n"
                 "  (the compacted internal topics' segment.bytes when first created),\n"
                 "  controlled.shutdown.enable,\n"
                 "  and the defaults of the topic configs, with Kafka's names:\n";
    std::string line = " ";
    for (const auto& s : topic_default_synonyms()) {
      if (line.size() + s.broker_key.size() + 2 > 78) {
        std::cout << line << "\n";
        line = " ";
      }
      line += " " + std::string(s.broker_key) + ",";
    }
    line.back() = '.';
    std::cout << line << "\n"
              << "Those topic defaults but log.retention.minutes/hours, log.roll.hours,\n"
                 "log.roll.jitter.hours, log.flush.scheduler.interval.ms and\n"
                 "log.message.format.version can also be changed at runtime (AlterConfigs on\n"
                 "the broker resource); they are kept in the metadata store.\n"
                 "Every other broker config Apache Kafka documents is taken too: its value is\n"
                 "checked against Kafka's type, kept and shown by DescribeConfigs, and has no\n"
                 "effect in Strata; those Kafka can change at runtime can be changed so here.\n";
    return std::optional<BrokerConfig>();
  } catch (const CLI::ParseError& e) {
    return Error(Errc::kInvalidArgument, e.what());
  }
  if (!config_file.empty()) STRATA_TRY(cfg.load_properties(config_file));
  for (const auto& kv : sets) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) {
      return Error(Errc::kInvalidArgument, fmt::format("--set expects key=value, got '{}'", kv));
    }
    STRATA_TRY(cfg.set(kv.substr(0, eq), kv.substr(eq + 1)));
  }
  if (!data_dir.empty()) STRATA_TRY(cfg.set("log.dirs", data_dir));
  if (!listen.empty()) STRATA_TRY(cfg.set("listeners", listen));
  if (!advertised.empty()) STRATA_TRY(cfg.set("advertised.listeners", advertised));
  if (node_id) STRATA_TRY(cfg.set("node.id", std::to_string(*node_id)));
  if (cores) STRATA_TRY(cfg.set("num.cores", std::to_string(*cores)));
  if (!log_level.empty()) cfg.log_level = log_level;
  STRATA_TRY(cfg.validate());
  return std::optional<BrokerConfig>(cfg);
}

std::map<std::string, std::string> BrokerConfig::describe() const {
  std::map<std::string, std::string> m = {
      {"node.id", std::to_string(node_id)},
      {"log.dirs", data_dir.string()},
      {"listeners", fmt::format("PLAINTEXT://{}:{}", listen_host, listen_port)},
      {"advertised.listeners",
       fmt::format("PLAINTEXT://{}:{}", advertised_host_or_listen(), advertised_port_or_listen())},
      {"auto.create.topics.enable", auto_create_topics ? "true" : "false"},
      {"num.partitions", std::to_string(num_partitions)},
      {"default.replication.factor", std::to_string(default_replication_factor)},
      {"socket.request.max.bytes", std::to_string(socket_request_max_bytes)},
      {"fetch.max.bytes", std::to_string(fetch_max_bytes)},
      {"log.retention.check.interval.ms", std::to_string(retention_check_interval_ms)},
      {"log.cleaner.enable", log_cleaner_enable ? "true" : "false"},
      {"log.cleaner.threads", std::to_string(log_cleaner_threads)},
      {"log.cleaner.backoff.ms", std::to_string(log_cleaner_backoff_ms)},
      {"log.cleaner.io.max.bytes.per.second",
       fmt::format("{}", log_cleaner_io_max_bytes_per_second)},
      {"group.initial.rebalance.delay.ms", std::to_string(group_initial_rebalance_delay_ms)},
      {"group.min.session.timeout.ms", std::to_string(group_min_session_timeout_ms)},
      {"group.max.session.timeout.ms", std::to_string(group_max_session_timeout_ms)},
      {"offsets.retention.minutes", std::to_string(offsets_retention_ms / 60000)},
      {"offsets.retention.check.interval.ms", std::to_string(offsets_retention_check_interval_ms)},
      {"strata.stats.interval.ms", std::to_string(stats_interval_ms)},
      {"strata.log.cache.window.bytes", std::to_string(log_cache_window_bytes)},
      {"producer.id.expiration.ms", std::to_string(producer_id_expiration_ms)},
      {"strata.test.sync.journal", sync_journal_path},
      {"metadata.store", metadata_store == MetadataStoreKind::kEtcd ? "etcd" : "embedded"},
      {"etcd.endpoints", fmt::format("{}", fmt::join(etcd_endpoints, ","))},
      {"metadata.startup.timeout.ms", std::to_string(metadata_startup_timeout_ms)},
      {"rpc.port", std::to_string(rpc_port)},
      {"schema.registry.enable", schema_registry_enable ? "true" : "false"},
      {"schema.registry.listeners",
       fmt::format("http://{}:{}",
                   schema_registry_host.empty() ? listen_host : schema_registry_host,
                   schema_registry_port)},
      {"schema.registry.max.request.bytes", std::to_string(schema_registry_max_request_bytes)},
      {"broker.session.timeout.ms", std::to_string(broker_session_timeout_ms)},
      {"broker.rack", rack.value_or("")},
      {"auto.leader.rebalance.enable", auto_leader_rebalance ? "true" : "false"},
      {"leader.imbalance.check.interval.seconds",
       std::to_string(leader_imbalance_check_interval_ms / 1000)},
      {"offsets.topic.replication.factor", std::to_string(offsets_topic_replication_factor)},
      {"replica.lag.time.max.ms", std::to_string(replica_lag_time_max_ms)},
      {"replica.fetch.max.bytes", std::to_string(replica_fetch_max_bytes)},
      {"replica.fetch.response.max.bytes", std::to_string(replica_fetch_response_max_bytes)},
      {"replica.fetch.wait.max.ms", std::to_string(replica_fetch_wait_max_ms)},
      {"offsets.topic.segment.bytes", std::to_string(offsets_topic_segment_bytes)},
      {"transaction.state.log.segment.bytes", std::to_string(transaction_state_segment_bytes)},
      {"transaction.state.log.replication.factor",
       std::to_string(transaction_state_replication_factor)},
      {"transaction.max.timeout.ms", std::to_string(transaction_max_timeout_ms)},
      {"transaction.abort.timed.out.transaction.cleanup.interval.ms",
       std::to_string(transaction_abort_check_interval_ms)},
      {"controlled.shutdown.enable", controlled_shutdown_enable ? "true" : "false"},
  };
  return m;
}

}  // namespace strata::server
