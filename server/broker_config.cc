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

// One of Strata's own broker properties (the topic defaults and Kafka's
// other broker configs are tables of their own): its names (the first is the
// one DescribeConfigs shows), what --help says of it, how a value is applied,
// and how the current one is shown (none: DescribeConfigs leaves it out).
// None of them can change at runtime.
struct Property {
  std::vector<std::string_view> names;
  std::string_view help;
  std::function<Status(BrokerConfig&, const std::string& key, const std::string& value)> set;
  std::function<std::string(const BrokerConfig&)> show;
};

using Shown = bool;

// An integer field in [min, max]; `scale` converts the property's unit to the
// field's (minutes to ms).
template <typename T>
Property integer(std::vector<std::string_view> names, std::string_view help, T BrokerConfig::*field,
                 int64_t min, int64_t max, Shown shown = true, int64_t scale = 1) {
  Property p{std::move(names), help,
             [=](BrokerConfig& c, const std::string& k, const std::string& v) -> Status {
               STRATA_ASSIGN_OR_RETURN(int64_t n, parse_int<int64_t>(k, v, min, max));
               c.*field = static_cast<T>(n * scale);
               return ok_status();
             },
             nullptr};
  if (shown) p.show = [=](const BrokerConfig& c) { return std::to_string(c.*field / scale); };
  return p;
}

Property boolean(std::string_view name, std::string_view help, bool BrokerConfig::*field) {
  return {{name},
          help,
          [=](BrokerConfig& c, const std::string& k, const std::string& v) -> Status {
            STRATA_ASSIGN_OR_RETURN(c.*field, parse_bool(k, v));
            return ok_status();
          },
          [=](const BrokerConfig& c) { return std::string(c.*field ? "true" : "false"); }};
}

Property text(std::string_view name, std::string_view help, std::string BrokerConfig::*field,
              Shown shown = true) {
  Property p{{name},
             help,
             [=](BrokerConfig& c, const std::string&, const std::string& v) -> Status {
               c.*field = v;
               return ok_status();
             },
             nullptr};
  if (shown) p.show = [=](const BrokerConfig& c) { return c.*field; };
  return p;
}

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

const std::vector<Property>& properties() {
  using C = BrokerConfig;
  constexpr int64_t kMaxI32 = INT32_MAX;
  constexpr int64_t kMaxI64 = INT64_MAX;
  static const std::vector<Property> table = {
      integer({"node.id", "broker.id"}, "this broker's id (default 1)", &C::node_id, 0, kMaxI32),
      {{"log.dirs", "log.dir", "data.dir"},
       "the data directory, exactly one (default ./data)",
       [](C& c, const std::string& k, const std::string& v) -> Status {
         if (v.empty() || v.find(',') != std::string::npos) {
           return bad_value(k, v, "must be exactly one directory");
         }
         c.data_dir = v;
         return ok_status();
       },
       [](const C& c) { return c.data_dir.string(); }},
      {{"listeners"},
       "[PLAINTEXT://]host:port to listen on (default 127.0.0.1:9092)",
       [](C& c, const std::string& k, const std::string& v) -> Status {
         STRATA_ASSIGN_OR_RETURN(auto listener, parse_listener(k, v, "PLAINTEXT"));
         c.listen_host = listener.first.empty() ? "0.0.0.0" : listener.first;
         c.listen_port = listener.second;
         return ok_status();
       },
       [](const C& c) { return fmt::format("PLAINTEXT://{}:{}", c.listen_host, c.listen_port); }},
      {{"advertised.listeners"},
       "[PLAINTEXT://]host:port clients are told to connect to (default: the listener)",
       [](C& c, const std::string& k, const std::string& v) -> Status {
         STRATA_ASSIGN_OR_RETURN(auto listener, parse_listener(k, v, "PLAINTEXT"));
         if (listener.first.empty() || listener.second == 0) {
           return bad_value(k, v, "needs a host and a port");
         }
         std::tie(c.advertised_host, c.advertised_port) = listener;
         return ok_status();
       },
       [](const C& c) {
         return fmt::format("PLAINTEXT://{}:{}", c.advertised_host_or_listen(),
                            c.advertised_port_or_listen());
       }},
      integer({"num.cores", "cores"}, "shards, one thread each (default: one per CPU)", &C::cores,
              0, 1024, Shown(false)),
      text("log.level", "trace, debug, info, warn or error (default info)", &C::log_level,
           Shown(false)),
      boolean("auto.create.topics.enable", "create unknown topics on first use (default true)",
              &C::auto_create_topics),
      integer({"num.partitions"}, "partitions of an automatically created topic (default 1)",
              &C::num_partitions, 1, 100000),
      // Checked against the live brokers when a topic is created, as in Kafka:
      // a topic with more replicas than live brokers gets
      // INVALID_REPLICATION_FACTOR.
      integer({"default.replication.factor"}, "replicas of a topic that names none (default 1)",
              &C::default_replication_factor, 1, std::numeric_limits<int16_t>::max()),
      integer({"socket.request.max.bytes"}, "the largest request frame (default 100 MiB)",
              &C::socket_request_max_bytes, 1024, 1LL << 30),
      integer({"max.inflight.requests.per.connection"},
              "requests a connection may have in progress (default 128)", &C::max_inflight_requests,
              1, 100000, Shown(false)),
      integer({"fetch.max.bytes"}, "cap on one fetch response (default 55 MiB)",
              &C::fetch_max_bytes, 1024, kMaxI32),
      integer({"log.retention.check.interval.ms"}, "how often retention runs (default 5 min)",
              &C::retention_check_interval_ms, 1, kMaxI64),
      boolean("log.cleaner.enable", "compact topics with cleanup.policy=compact (default true)",
              &C::log_cleaner_enable),
      integer({"log.cleaner.threads"}, "the cleaner's threads (default 1)", &C::log_cleaner_threads,
              1, 64),
      integer({"log.cleaner.backoff.ms"}, "a shard's wait between looks for a log to clean",
              &C::log_cleaner_backoff_ms, 1, kMaxI64),
      {{"log.cleaner.io.max.bytes.per.second"},
       "what the cleaner may read and write a second (0 = no limit)",
       [](C& c, const std::string& k, const std::string& v) -> Status {
         char* end = nullptr;
         double d = std::strtod(v.c_str(), &end);
         if (v.empty() || end != v.c_str() + v.size() || !(d >= 0)) {
           return Error(
               Errc::kInvalidConfig,
               fmt::format("{}: '{}' is not a number of bytes per second (0 = no limit)", k, v));
         }
         c.log_cleaner_io_max_bytes_per_second = d;
         return ok_status();
       },
       [](const C& c) { return fmt::format("{}", c.log_cleaner_io_max_bytes_per_second); }},
      integer({"group.initial.rebalance.delay.ms"}, "wait for more members of a new group",
              &C::group_initial_rebalance_delay_ms, 0, kMaxI32),
      integer({"group.min.session.timeout.ms"}, "the shortest session a member may ask for",
              &C::group_min_session_timeout_ms, 1, kMaxI32),
      integer({"group.max.session.timeout.ms"}, "the longest session a member may ask for",
              &C::group_max_session_timeout_ms, 1, kMaxI32),
      integer({"group.consumer.session.timeout.ms"},
              "a consumer-group (KIP-848) member silent this long is removed",
              &C::group_consumer_session_timeout_ms, 1, kMaxI32),
      integer({"group.consumer.heartbeat.interval.ms"},
              "how often consumer-group (KIP-848) members heartbeat",
              &C::group_consumer_heartbeat_interval_ms, 1, kMaxI32),
      {{"group.consumer.assignors"},
       "the consumer groups' server-side assignors, the first the default (uniform,range)",
       [](C& c, const std::string& k, const std::string& v) -> Status {
         std::vector<std::string> names;
         size_t start = 0;
         while (start <= v.size()) {
           size_t comma = std::min(v.find(',', start), v.size());
           std::string name = v.substr(start, comma - start);
           name.erase(0, name.find_first_not_of(' '));
           name.erase(name.find_last_not_of(' ') + 1);
           // Kafka's class names stand for the same assignors.
           if (name == "org.apache.kafka.coordinator.group.assignor.UniformAssignor")
             name = "uniform";
           if (name == "org.apache.kafka.coordinator.group.assignor.RangeAssignor") name = "range";
           if (name != "uniform" && name != "range") {
             return bad_value(k, v, "the assignors are uniform and range");
           }
           names.push_back(name);
           start = comma + 1;
         }
         c.group_consumer_assignors = std::move(names);
         return ok_status();
       },
       [](const C& c) { return fmt::format("{}", fmt::join(c.group_consumer_assignors, ",")); }},
      integer({"group.consumer.max.size"}, "the most members a consumer group may have",
              &C::group_consumer_max_size, 1, kMaxI32),
      integer({"offsets.retention.minutes"}, "an empty group's offsets are kept this long",
              &C::offsets_retention_ms, 1, kMaxI64 / 60000, Shown(true), 60000),
      integer({"offsets.retention.check.interval.ms"}, "how often expired offsets go",
              &C::offsets_retention_check_interval_ms, 1, kMaxI64),
      integer({"shutdown.timeout.ms"}, "bound on draining connections at SIGTERM",
              &C::shutdown_timeout_ms, 0, kMaxI64, Shown(false)),
      integer({"strata.stats.interval.ms"},
              "per-shard disk latency and loop lag lines in the log (0 = off)",
              &C::stats_interval_ms, 0, 3'600'000),
      integer({"producer.id.expiration.ms"},
              "an idempotent producer silent this long is forgotten (default 1 day)",
              &C::producer_id_expiration_ms, 1, kMaxI64),
      integer({"strata.log.cache.window.bytes"},
              "bytes behind each log's end kept in the page cache (0 = the kernel decides)",
              &C::log_cache_window_bytes, 0, kMaxI64),
      text("strata.test.sync.journal",
           "a test hook: a file journaling every sync, for a fault harness's simulated "
           "power cut (empty = off)",
           &C::sync_journal_path),
      {{"metadata.store"},
       "embedded (the default) or etcd",
       [](C& c, const std::string& k, const std::string& v) -> Status {
         if (v == "embedded") {
           c.metadata_store = C::MetadataStoreKind::kEmbedded;
         } else if (v == "etcd") {
           c.metadata_store = C::MetadataStoreKind::kEtcd;
         } else {
           return bad_value(k, v, "must be embedded or etcd");
         }
         return ok_status();
       },
       [](const C& c) {
         return std::string(c.metadata_store == C::MetadataStoreKind::kEtcd ? "etcd" : "embedded");
       }},
      {{"etcd.endpoints"},
       "host:port,... of the etcd cluster, with metadata.store=etcd",
       [](C& c, const std::string& k, const std::string& v) -> Status {
         auto endpoints = coordinator::parse_etcd_endpoints(v);
         if (!endpoints) return bad_value(k, v, endpoints.error().message());
         c.etcd_endpoints = std::move(endpoints).value();
         return ok_status();
       },
       [](const C& c) { return fmt::format("{}", fmt::join(c.etcd_endpoints, ",")); }},
      integer({"metadata.startup.timeout.ms"}, "how long start-up waits for the metadata store",
              &C::metadata_startup_timeout_ms, 0, kMaxI64),
      integer({"rpc.port"}, "followers fetch there (0 = any free port, the default)", &C::rpc_port,
              0, 65535),
      boolean("schema.registry.enable", "the schema registry (default true)",
              &C::schema_registry_enable),
      {{"schema.registry.listeners"},
       "[http://]host:port of the registry (default the listen host, port 8081)",
       [](C& c, const std::string& k, const std::string& v) -> Status {
         STRATA_ASSIGN_OR_RETURN(auto listener, parse_listener(k, v, "http"));
         std::tie(c.schema_registry_host, c.schema_registry_port) = listener;
         c.schema_registry_explicit = true;
         return ok_status();
       },
       [](const C& c) {
         return fmt::format("http://{}:{}",
                            c.schema_registry_host.empty() ? c.listen_host : c.schema_registry_host,
                            c.schema_registry_port);
       }},
      integer({"schema.registry.max.request.bytes"}, "a larger body is refused (default 16 MiB)",
              &C::schema_registry_max_request_bytes, 1, int64_t{1} << 30),
      integer({"broker.session.timeout.ms"}, "a silent broker's registration lives this long",
              &C::broker_session_timeout_ms, 2000, 3'600'000),
      {{"broker.rack"},
       "this broker's rack, for replica placement",
       [](C& c, const std::string& k, const std::string& v) -> Status {
         if (v.empty()) return bad_value(k, v, "must not be empty");
         c.rack = v;
         return ok_status();
       },
       [](const C& c) { return c.rack.value_or(""); }},
      boolean("auto.leader.rebalance.enable", "move leaders back to preferred replicas",
              &C::auto_leader_rebalance),
      integer({"leader.imbalance.check.interval.seconds"}, "how often that is looked at",
              &C::leader_imbalance_check_interval_ms, 1, 86400 * 365, Shown(true), 1000),
      integer({"offsets.topic.replication.factor"}, "__consumer_offsets' replicas when created",
              &C::offsets_topic_replication_factor, 1, INT16_MAX),
      integer({"offsets.topic.segment.bytes"}, "__consumer_offsets' segment.bytes when created",
              &C::offsets_topic_segment_bytes, 1024, kMaxI32),
      integer({"transaction.state.log.segment.bytes"},
              "__transaction_state's segment.bytes when created",
              &C::transaction_state_segment_bytes, 1024, kMaxI32),
      integer({"transaction.state.log.replication.factor"},
              "__transaction_state's replicas when created",
              &C::transaction_state_replication_factor, 1, INT16_MAX),
      integer({"transaction.max.timeout.ms"}, "the longest transaction.timeout.ms allowed",
              &C::transaction_max_timeout_ms, 1, kMaxI32),
      integer({"transaction.abort.timed.out.transaction.cleanup.interval.ms"},
              "how often transactions past their timeout are looked for",
              &C::transaction_abort_check_interval_ms, 1, 3'600'000),
      boolean("controlled.shutdown.enable", "hand leaderships over at SIGTERM (default true)",
              &C::controlled_shutdown_enable),
      integer({"replica.lag.time.max.ms"}, "a follower behind this long leaves the ISR",
              &C::replica_lag_time_max_ms, 100, 3'600'000),
      // Under the RPC's 64 MiB response frame, with room for the others.
      integer({"replica.fetch.max.bytes"}, "a follower's fetch, per partition (default 1 MiB)",
              &C::replica_fetch_max_bytes, 1, 32 << 20),
      integer({"replica.fetch.response.max.bytes"},
              "a follower's fetch, per response (default 10 MiB)",
              &C::replica_fetch_response_max_bytes, 1, 32 << 20),
      // Below the follower's call timeout and the leader's longest wait.
      integer({"replica.fetch.wait.max.ms"},
              "a follower's long poll at the leader's log end (default 500)",
              &C::replica_fetch_wait_max_ms, 0, 30'000),
  };
  return table;
}

const Property* find_property(std::string_view key) {
  for (const auto& p : properties()) {
    if (std::find(p.names.begin(), p.names.end(), key) != p.names.end()) return &p;
  }
  return nullptr;
}

}  // namespace

bool BrokerConfig::is_static_key(std::string_view key) {
  if (find_property(key) != nullptr) return true;
  const auto* s = find_synonym(key);
  return s != nullptr && !s->dynamic;
}

Status BrokerConfig::set(const std::string& key, const std::string& value) {
  if (const auto* synonym = find_synonym(key)) {
    STRATA_TRY(topic_value_of(*synonym, value));
    topic_default_props[key] = value;
    STRATA_ASSIGN_OR_RETURN(topic_defaults, resolve_topic_defaults({{}, {}, topic_default_props}));
    return ok_status();
  }
  if (const auto* p = find_property(key)) return p->set(*this, key, value);
  if (const auto* kafka = find_kafka_broker_config(key)) {
    STRATA_TRY(check_kafka_broker_value(*kafka, value));
    kafka_only_props[key] = value;
    return ok_status();
  }
  return Error(Errc::kInvalidConfig, fmt::format("unknown broker config '{}'", key));
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
    std::cout << "\nProperties (for --config and --set):\n";
    for (const auto& p : properties()) {
      std::cout << "  " << fmt::format("{}", fmt::join(p.names, ", ")) << ": " << p.help << "\n";
    }
    std::cout << "and the defaults of the topic configs, with Kafka's names:\n";
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
  std::map<std::string, std::string> m;
  for (const auto& p : properties()) {
    if (p.show) m.emplace(p.names.front(), p.show(*this));
  }
  return m;
}

}  // namespace strata::server
