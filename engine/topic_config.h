// TopicConfig: the per-topic settings the log obeys — every topic config of
// Kafka 3.x with its name, type, default and validation, plus Strata's
// `durability`.
//
//   auto cfg = TopicConfig::from_map({{"retention.ms", "3600000"}});
//   if (!cfg) fail(cfg.error().message());   // names the key and the value
//
// Unknown names and bad values are errors (kInvalidConfig) whose message
// names the offending key, value and what is allowed. Some configs change
// what the broker does now (segments, retention, sizes, timestamps,
// compression.type, flush.*, durability, min.insync.replicas, unclean
// leader election); those for features still to come (compaction's) are
// stored and validated; deprecated ones (message.format.version,
// message.downconversion.enable) are accepted and ignored as Kafka 3.x does.
// Tiered storage's configs are refused: Strata has no tiered storage.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/compression.h"
#include "engine/record_batch.h"

namespace strata::engine {

enum class TimestampType { kCreateTime, kLogAppendTime };
enum class Durability {
  kFsync,       // acks=all answered after fdatasync (group-committed)
  kReplicated,  // acks=all answered when the in-sync replicas hold it; flushing left to the OS
};

struct TopicConfig {
  int64_t segment_bytes = 1073741824;      // 1 GiB
  int64_t segment_ms = 604800000;          // 7 days
  int64_t retention_ms = 604800000;        // 7 days; -1 = forever
  int64_t retention_bytes = -1;            // per partition; -1 = unlimited
  int64_t index_interval_bytes = 4096;     // bytes between index entries
  int64_t max_message_bytes = 1048588;     // largest batch accepted
  int64_t segment_index_bytes = 10485760;  // stored; the index lives in RocksDB
  int64_t segment_jitter_ms = 0;           // stored
  int64_t file_delete_delay_ms = 60000;    // stored; segments are deleted at once
  bool preallocate = false;                // stored
  // Under durability=replicated, flush after this many appended records or
  // when the oldest unflushed append is this old (INT64_MAX = never).
  int64_t flush_messages = INT64_MAX;
  int64_t flush_ms = INT64_MAX;
  // The codec batches are stored with; nullopt ("producer") keeps the
  // producer's. kNone is Kafka's "uncompressed".
  std::optional<Compression> compression_type;
  int64_t compression_gzip_level = -1;  // -1: zlib's default; else 1..9
  int64_t compression_lz4_level = 9;    // 1..17
  int64_t compression_zstd_level = 3;   // -131072..22
  // Compaction (stored and validated until the cleaner exists).
  int64_t delete_retention_ms = 86400000;
  int64_t min_compaction_lag_ms = 0;
  int64_t max_compaction_lag_ms = INT64_MAX;
  double min_cleanable_dirty_ratio = 0.5;
  // Replication (stored and validated until replication exists).
  int64_t min_insync_replicas = 1;
  bool unclean_leader_election_enable = false;
  std::string leader_replication_throttled_replicas;
  std::string follower_replication_throttled_replicas;
  // Deprecated in Kafka 3.x: accepted, described, ignored.
  std::string message_format_version = "3.0-IV1";
  bool message_downconversion_enable = true;
  bool cleanup_delete = true;    // cleanup.policy contains "delete"
  bool cleanup_compact = false;  // cleanup.policy contains "compact"
  TimestampType timestamp_type = TimestampType::kCreateTime;
  // CreateTime records older (before) or newer (after) than the broker's
  // clock by more than these are refused (Kafka 3.6+, KIP-937). The older
  // message.timestamp.difference.max.ms stands in for either one left at
  // its default, as Kafka does.
  int64_t message_timestamp_before_max_ms = INT64_MAX;
  int64_t message_timestamp_after_max_ms = INT64_MAX;
  int64_t message_timestamp_difference_max_ms = INT64_MAX;
  Durability durability = Durability::kFsync;

  int64_t timestamp_before_max_ms() const {
    return message_timestamp_before_max_ms != INT64_MAX ? message_timestamp_before_max_ms
                                                        : message_timestamp_difference_max_ms;
  }
  int64_t timestamp_after_max_ms() const {
    return message_timestamp_after_max_ms != INT64_MAX ? message_timestamp_after_max_ms
                                                       : message_timestamp_difference_max_ms;
  }
  // The level configured for `codec` (compression.<codec>.level), or
  // kDefaultCompressionLevel for codecs without one.
  int compression_level(Compression codec) const;

  // Applies `overrides` on top of `base` (Kafka's defaults when omitted),
  // then checks what relates configs (min.compaction.lag.ms is at most
  // max.compaction.lag.ms).
  static Result<TopicConfig> from_map(const std::map<std::string, std::string>& overrides,
                                      const TopicConfig& base);
  static Result<TopicConfig> from_map(const std::map<std::string, std::string>& overrides) {
    return from_map(overrides, TopicConfig{});
  }

  // Sets one config by its Kafka name, validating the value.
  Status set(std::string_view name, std::string_view value);
  // Every config with its current value, as Kafka would describe it.
  std::map<std::string, std::string> to_map() const;

  bool operator==(const TopicConfig&) const = default;
};

struct ConfigDefinition {
  std::string_view name;
  std::string_view type;  // "boolean", "int", "long", "double", "string", "list"
  std::string_view doc;
  bool deprecated = false;  // accepted and ignored
};

// The configs TopicConfig understands, in name order.
const std::vector<ConfigDefinition>& topic_config_definitions();
// The definition of `name`, or nullptr.
const ConfigDefinition* find_topic_config(std::string_view name);

}  // namespace strata::engine
