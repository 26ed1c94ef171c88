// BrokerConfig: everything strata-broker is configured with, from Kafka-style
// `key=value` properties (a file given with --config, then --set overrides)
// and from command-line flags. Defaults give a single broker on
// 127.0.0.1:9092 with its data in ./data.
//
//   auto cfg = BrokerConfig::from_args(argc, argv);   // prints --help itself
//
// Unknown keys and bad values are errors whose message names them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "coordinator/broker_config_store.h"
#include "engine/topic_config.h"
#include "server/topic_defaults.h"

namespace strata::server {

struct BrokerConfig {
  int32_t node_id = 1;
  std::filesystem::path data_dir = "data";
  std::string listen_host = "127.0.0.1";
  uint16_t listen_port = 9092;
  std::string advertised_host;   // empty: the listen host
  uint16_t advertised_port = 0;  // 0: the listen port
  // rpc.port: where followers fetch from this broker (on the listen host);
  // 0, the default, lets the kernel pick one — peers learn it from the
  // broker's registration.
  uint16_t rpc_port = 0;
  // schema.registry.enable / schema.registry.listeners: the schema
  // registry's REST API. Listeners empty: the listen host, port 8081 — and
  // a port already taken there is a warning, not a failure (another broker
  // of the host has it); an explicit host:port that cannot be bound stops
  // the broker.
  bool schema_registry_enable = true;
  std::string schema_registry_host;
  uint16_t schema_registry_port = 8081;
  bool schema_registry_explicit = false;
  // schema.registry.max.request.bytes: a larger body is refused unread (413).
  size_t schema_registry_max_request_bytes = 16 << 20;
  unsigned cores = 0;  // 0: one shard per CPU
  std::string log_level = "info";

  bool auto_create_topics = true;
  int32_t num_partitions = 1;
  int16_t default_replication_factor = 1;
  int64_t socket_request_max_bytes = 104857600;
  int32_t max_inflight_requests = 128;  // per connection
  int32_t fetch_max_bytes = 57671680;   // cap on one fetch response
  int64_t retention_check_interval_ms = 300000;
  // The log cleaner (compacted topics): on/off, its threads (shared by the
  // shards), how long a shard waits between looks for a log to clean, and
  // the bytes per second it may read and write together (0: no limit).
  bool log_cleaner_enable = true;
  int32_t log_cleaner_threads = 1;
  int64_t log_cleaner_backoff_ms = 15000;
  double log_cleaner_io_max_bytes_per_second = 0;
  int64_t shutdown_timeout_ms = 10000;  // bound on draining connections at SIGTERM

  // Consumer groups.
  int32_t group_initial_rebalance_delay_ms = 3000;
  int32_t group_min_session_timeout_ms = 6000;
  int32_t group_max_session_timeout_ms = 1800000;
  // Consumer groups of KIP-848's protocol.
  int32_t group_consumer_session_timeout_ms = 45000;
  int32_t group_consumer_heartbeat_interval_ms = 5000;
  std::vector<std::string> group_consumer_assignors = {"uniform", "range"};
  int32_t group_consumer_max_size = INT32_MAX;
  int64_t offsets_retention_ms = 7LL * 24 * 3600 * 1000;
  int64_t offsets_retention_check_interval_ms = 600000;
  // Strata's own: every this many ms each shard logs its disk latencies and
  // loop lag as one "io stats" JSON line (0: off).
  int64_t stats_interval_ms = 0;
  // Strata's own: bytes of each partition's log, behind its end, kept in the
  // page cache; older durable bytes the broker wrote are dropped from it
  // (0: leave the page cache to the kernel). See engine/README.md, "Flush".
  int64_t log_cache_window_bytes = 64LL << 20;
  int64_t producer_id_expiration_ms = 86'400'000;  // producer.id.expiration.ms
  // Strata's own test hook: where the shards journal their syncs for a fault
  // harness's power cut (io/sync_journal.h); empty: off.
  std::string sync_journal_path;

  // Where the cluster metadata lives (metadata.store): the embedded store in
  // the data directory (one broker; the default) or etcd, at etcd.endpoints
  // (host:port,...; required with etcd).
  enum class MetadataStoreKind { kEmbedded, kEtcd };
  MetadataStoreKind metadata_store = MetadataStoreKind::kEmbedded;
  std::vector<std::string> etcd_endpoints;
  // How long start-up keeps retrying a metadata store that does not answer
  // before the broker gives up (Strata's own).
  int64_t metadata_startup_timeout_ms = 30000;

  // The cluster. The broker's registration lives this long without a
  // keep-alive (broker.session.timeout.ms); its rack (broker.rack) guides
  // placement; the controller moves leadership back to preferred replicas
  // every leader.imbalance.check.interval.seconds when
  // auto.leader.rebalance.enable.
  int64_t broker_session_timeout_ms = 6000;
  std::optional<std::string> rack;
  bool auto_leader_rebalance = true;
  int64_t leader_imbalance_check_interval_ms = 300000;
  // __consumer_offsets' replication factor when it is first created,
  // capped by the live brokers then (Kafka's default 3).
  int16_t offsets_topic_replication_factor = 3;
  // __transaction_state's replication factor when it is first created,
  // capped by the live brokers (transaction.state.log.replication.factor).
  int16_t transaction_state_replication_factor = 3;
  // The internal topics' segment.bytes when first created (Kafka's
  // offsets.topic.segment.bytes and transaction.state.log.segment.bytes).
  int32_t offsets_topic_segment_bytes = 104857600;
  int32_t transaction_state_segment_bytes = 104857600;
  // The longest transaction.timeout.ms a producer may ask for
  // (transaction.max.timeout.ms) and how often the transaction coordinator
  // looks for transactions past their timeout
  // (transaction.abort.timed.out.transaction.cleanup.interval.ms).
  int32_t transaction_max_timeout_ms = 900'000;
  int64_t transaction_abort_check_interval_ms = 10'000;
  // A follower that has not caught up to the leader's log end for this long
  // leaves the ISR (replica.lag.time.max.ms; Kafka's default is 30000).
  int64_t replica_lag_time_max_ms = 10000;
  // A follower's fetches (Kafka's names and defaults): bytes per partition
  // (replica.fetch.max.bytes; at least one batch), per response
  // (replica.fetch.response.max.bytes; at least one partition's records),
  // and the long poll's wait when the leader has nothing new
  // (replica.fetch.wait.max.ms).
  int32_t replica_fetch_max_bytes = 1 << 20;
  int32_t replica_fetch_response_max_bytes = 10 << 20;
  int32_t replica_fetch_wait_max_ms = 500;
  // At SIGTERM, move leaderships to other in-sync replicas before stopping
  // (controlled.shutdown.enable).
  bool controlled_shutdown_enable = true;

  // Broker-wide defaults of the topic configs (log.retention.ms and friends)
  // as the static properties set them, and those properties as given.
  engine::TopicConfig topic_defaults;
  coordinator::ConfigMap topic_default_props;
  // Kafka broker configs Strata has no use for (kafka_broker_configs.h), as
  // given: checked against their Kafka type, kept and shown.
  coordinator::ConfigMap kafka_only_props;

  // Parses argv. Returns nullopt after printing --help; errors name the
  // offending flag or key.
  static Result<std::optional<BrokerConfig>> from_args(int argc, char** argv);

  // Applies one Kafka-style property, e.g. ("log.retention.hours", "24").
  Status set(const std::string& key, const std::string& value);
  // Reads a properties file: `key=value` lines, `#` or `!` comments.
  Status load_properties(const std::filesystem::path& path);
  // The checks that span several properties (metadata.store=etcd needs
  // etcd.endpoints); from_args() runs them once everything is set.
  Status validate() const;

  // The address this broker's own connections to other brokers leave from:
  // its listener's, unless that is a wildcard (then the kernel chooses).
  std::string source_host() const {
    bool wildcard = listen_host.empty() || listen_host == "0.0.0.0" || listen_host == "::";
    return wildcard ? std::string() : listen_host;
  }
  std::string advertised_host_or_listen() const {
    return advertised_host.empty() ? listen_host : advertised_host;
  }
  uint16_t advertised_port_or_listen() const {
    return advertised_port == 0 ? listen_port : advertised_port;
  }

  // Whether `key` is a broker property that only a restart changes.
  static bool is_static_key(std::string_view key);

  // The broker's own properties (not the topic defaults) and their current
  // values (DescribeConfigs).
  std::map<std::string, std::string> describe() const;
};

}  // namespace strata::server
