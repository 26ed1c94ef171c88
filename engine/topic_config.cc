#include "engine/topic_config.h"

#include <functional>

#include <fmt/format.h>

#include "engine/config_value.h"

namespace strata::engine {
namespace {

struct Setting {
  ConfigDefinition def;
  std::function<Status(TopicConfig&, std::string_view)> set;
  std::function<std::string(const TopicConfig&)> get;
};

Setting integer(std::string_view name, std::string_view type, std::string_view doc,
                int64_t TopicConfig::*field, int64_t min, std::optional<int64_t> upper = {}) {
  int64_t max = upper ? *upper : type == "int" ? INT32_MAX : INT64_MAX;
  return Setting{
      {name, type, doc},
      [=](TopicConfig& c, std::string_view v) -> Status {
        STRATA_ASSIGN_OR_RETURN(c.*field, parse_config_integer(name, v, min, max));
        return ok_status();
      },
      [=](const TopicConfig& c) { return std::to_string(c.*field); },
  };
}

Setting boolean(std::string_view name, std::string_view doc, bool TopicConfig::*field,
                bool deprecated = false) {
  return Setting{
      {name, "boolean", doc, deprecated},
      [=](TopicConfig& c, std::string_view v) -> Status {
        STRATA_ASSIGN_OR_RETURN(c.*field, parse_config_bool(name, v));
        return ok_status();
      },
      [=](const TopicConfig& c) -> std::string { return c.*field ? "true" : "false"; },
  };
}

// One of a few names, each standing for a value of the field.
template <typename T>
Setting choice(std::string_view name, std::string_view doc, T TopicConfig::*field,
               std::vector<std::pair<std::string_view, T>> names) {
  std::string allowed;
  for (size_t i = 0; i < names.size(); ++i) {
    allowed += i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ");
    allowed += names[i].first;
  }
  return Setting{
      {name, "string", doc},
      [=](TopicConfig& c, std::string_view v) -> Status {
        for (const auto& [n, value] : names) {
          if (n == v) {
            c.*field = value;
            return ok_status();
          }
        }
        return invalid_config(name, v, "allowed values are " + allowed);
      },
      [=](const TopicConfig& c) -> std::string {
        for (const auto& [n, value] : names) {
          if (c.*field == value) return std::string(n);
        }
        return "";
      },
  };
}

// Kafka's throttled-replica lists: empty, "*", or partition:broker pairs.
Setting throttled_replicas(std::string_view name, std::string_view doc,
                           std::string TopicConfig::*field) {
  return Setting{
      {name, "list", doc},
      [=](TopicConfig& c, std::string_view v) -> Status {
        auto items = split_config_list(v);
        bool wildcard = items.size() == 1 && items[0] == "*";
        bool empty = items.size() == 1 && items[0].empty();
        if (!wildcard && !empty) {
          for (auto item : items) {
            auto colon = item.find(':');
            auto digits = [](std::string_view d) {
              return !d.empty() && d.find_first_not_of("0123456789") == std::string_view::npos;
            };
            if (colon == std::string_view::npos || !digits(item.substr(0, colon)) ||
                !digits(item.substr(colon + 1))) {
              return invalid_config(
                  name, v, "must be '*' or a list of partition:broker pairs such as 0:101,1:102");
            }
          }
        }
        c.*field = std::string(v);
        return ok_status();
      },
      [=](const TopicConfig& c) { return c.*field; },
  };
}

// Kafka versions as message.format.version takes them: 0.8.0, 2.8, 3.0-IV1,
// and longer forms (0.10.0.0, 2.8.0), which Kafka reads by their first
// three parts (0.x) or two (later).
bool is_kafka_version(std::string_view v) {
  auto dash = v.find('-');
  std::string_view numbers = v.substr(0, dash);
  if (dash != std::string_view::npos) {
    std::string_view iv = v.substr(dash + 1);
    if (iv.size() < 3 || !iv.starts_with("IV") ||
        iv.substr(2).find_first_not_of("0123456789") != std::string_view::npos) {
      return false;
    }
  }
  int dots = 0;
  bool digit_before = false;
  for (char ch : numbers) {
    if (ch == '.') {
      if (!digit_before) return false;
      ++dots;
      digit_before = false;
    } else if (ch >= '0' && ch <= '9') {
      digit_before = true;
    } else {
      return false;
    }
  }
  return digit_before && dots >= 1 && numbers.front() <= '3';
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = {
      {{"cleanup.policy", "list", "delete, compact, or both (comma-separated)"},
       [](TopicConfig& c, std::string_view v) -> Status {
         bool del = false, compact = false;
         for (auto item : split_config_list(v)) {
           if (item == "delete") {
             del = true;
           } else if (item == "compact") {
             compact = true;
           } else {
             return invalid_config("cleanup.policy", v, "allowed values are delete and compact");
           }
         }
         c.cleanup_delete = del;
         c.cleanup_compact = compact;
         return ok_status();
       },
       [](const TopicConfig& c) -> std::string {
         if (c.cleanup_delete && c.cleanup_compact) return "compact,delete";
         return c.cleanup_compact ? "compact" : "delete";
       }},
      {{"compression.gzip.level", "int",
        "gzip level (1 to 9, or -1 for zlib's default) when compression.type is gzip"},
       [](TopicConfig& c, std::string_view v) -> Status {
         STRATA_ASSIGN_OR_RETURN(int64_t level,
                                 parse_config_integer("compression.gzip.level", v, -1, 9));
         if (level == 0)
           return invalid_config("compression.gzip.level", v, "must be 1 to 9, or -1");
         c.compression_gzip_level = level;
         return ok_status();
       },
       [](const TopicConfig& c) { return std::to_string(c.compression_gzip_level); }},
      integer("compression.lz4.level", "int", "lz4 level (1 to 17) when compression.type is lz4",
              &TopicConfig::compression_lz4_level, 1, 17),
      choice<std::optional<Compression>>(
          "compression.type",
          "codec the broker stores batches with; producer keeps the producer's codec, "
          "uncompressed stores them without compression",
          &TopicConfig::compression_type,
          {{"uncompressed", Compression::kNone},
           {"zstd", Compression::kZstd},
           {"lz4", Compression::kLz4},
           {"snappy", Compression::kSnappy},
           {"gzip", Compression::kGzip},
           {"producer", std::nullopt}}),
      integer("compression.zstd.level", "int",
              "zstd level (-131072 to 22) when compression.type is zstd",
              &TopicConfig::compression_zstd_level, -131072, 22),
      integer("delete.retention.ms", "long",
              "how long a tombstone stays after the first cleaning that saw it",
              &TopicConfig::delete_retention_ms, 0),
      choice<Durability>("durability",
                         "fsync: acks=all waits for fdatasync; replicated: acks=all waits for the "
                         "in-sync replicas only",
                         &TopicConfig::durability,
                         {{"fsync", Durability::kFsync}, {"replicated", Durability::kReplicated}}),
      integer("file.delete.delay.ms", "long",
              "delay before a deleted segment's file goes (stored; Strata deletes at once)",
              &TopicConfig::file_delete_delay_ms, 0),
      integer("flush.messages", "long",
              "with durability=replicated, flush after this many appended records",
              &TopicConfig::flush_messages, 1),
      integer("flush.ms", "long",
              "with durability=replicated, flush when the oldest unflushed append is this old",
              &TopicConfig::flush_ms, 0),
      throttled_replicas("follower.replication.throttled.replicas",
                         "replicas Kafka throttles on the follower side (stored and shown; Strata "
                         "does not throttle replication)",
                         &TopicConfig::follower_replication_throttled_replicas),
      integer("index.interval.bytes", "int", "bytes appended between two index entries",
              &TopicConfig::index_interval_bytes, 0),
      throttled_replicas("leader.replication.throttled.replicas",
                         "replicas Kafka throttles on the leader side (stored and shown; Strata "
                         "does not throttle replication)",
                         &TopicConfig::leader_replication_throttled_replicas),
      integer("max.compaction.lag.ms", "long",
              "longest a record may stay uncompacted: its log is cleaned whatever its dirty ratio",
              &TopicConfig::max_compaction_lag_ms, 1),
      integer("max.message.bytes", "int", "largest record batch accepted, in bytes",
              &TopicConfig::max_message_bytes, 0),
      boolean("message.downconversion.enable",
              "deprecated: whether old fetch versions get converted batches; ignored",
              &TopicConfig::message_downconversion_enable, /*deprecated=*/true),
      {{"message.format.version", "string",
        "deprecated: the record format version; ignored (batches are always v2)", true},
       [](TopicConfig& c, std::string_view v) -> Status {
         if (!is_kafka_version(v)) {
           return invalid_config("message.format.version", v,
                                 "must be a Kafka version such as 3.0 or 2.8-IV1");
         }
         c.message_format_version = std::string(v);
         return ok_status();
       },
       [](const TopicConfig& c) { return c.message_format_version; }},
      integer("message.timestamp.after.max.ms", "long",
              "how far in the future of the broker's clock a CreateTime record may be",
              &TopicConfig::message_timestamp_after_max_ms, 0),
      integer("message.timestamp.before.max.ms", "long",
              "how far in the past of the broker's clock a CreateTime record may be",
              &TopicConfig::message_timestamp_before_max_ms, 0),
      integer("message.timestamp.difference.max.ms", "long",
              "deprecated: the before/after limit where those are left at their default",
              &TopicConfig::message_timestamp_difference_max_ms, 0),
      choice<TimestampType>("message.timestamp.type", "CreateTime or LogAppendTime",
                            &TopicConfig::timestamp_type,
                            {{"CreateTime", TimestampType::kCreateTime},
                             {"LogAppendTime", TimestampType::kLogAppendTime}}),
      {{"min.cleanable.dirty.ratio", "double",
        "share of a log's cleanable bytes that must be uncleaned before it is cleaned"},
       [](TopicConfig& c, std::string_view v) -> Status {
         STRATA_ASSIGN_OR_RETURN(c.min_cleanable_dirty_ratio,
                                 parse_config_double("min.cleanable.dirty.ratio", v, 0, 1));
         return ok_status();
       },
       [](const TopicConfig& c) { return format_config_double(c.min_cleanable_dirty_ratio); }},
      integer("min.compaction.lag.ms", "long", "shortest time a record stays uncompacted",
              &TopicConfig::min_compaction_lag_ms, 0),
      integer("min.insync.replicas", "int",
              "in-sync replicas (the leader included) an acks=all batch needs: with fewer in the "
              "ISR the produce is refused with NOT_ENOUGH_REPLICAS",
              &TopicConfig::min_insync_replicas, 1),
      boolean("preallocate", "whether segment files are preallocated (stored; not done)",
              &TopicConfig::preallocate),
      integer("retention.bytes", "long",
              "bytes kept per partition before old segments go; -1 = no limit",
              &TopicConfig::retention_bytes, INT64_MIN),
      integer("retention.ms", "long", "age after which closed segments are deleted; -1 = forever",
              &TopicConfig::retention_ms, -1),
      integer("segment.bytes", "int", "size at which the active segment is rolled",
              &TopicConfig::segment_bytes, 14),
      integer("segment.index.bytes", "int",
              "size of a segment's offset index (stored; Strata's index lives in RocksDB)",
              &TopicConfig::segment_index_bytes, 4),
      integer("segment.jitter.ms", "long",
              "random reduction of segment.ms per segment (stored; not applied)",
              &TopicConfig::segment_jitter_ms, 0),
      integer("segment.ms", "long", "age at which the active segment is rolled",
              &TopicConfig::segment_ms, 1),
      boolean("unclean.leader.election.enable",
              "whether an out-of-sync replica may become leader (stored; Strata never elects one)",
              &TopicConfig::unclean_leader_election_enable),
  };
  return table;
}

// Kafka's tiered-storage configs, which Strata refuses by name.
bool is_tiered_storage_config(std::string_view name) {
  return name == "remote.storage.enable" || name == "local.retention.ms" ||
         name == "local.retention.bytes" || name.starts_with("remote.log.");
}

}  // namespace

int TopicConfig::compression_level(Compression codec) const {
  switch (codec) {
    case Compression::kGzip: return static_cast<int>(compression_gzip_level);
    case Compression::kLz4: return static_cast<int>(compression_lz4_level);
    case Compression::kZstd: return static_cast<int>(compression_zstd_level);
    case Compression::kNone:
    case Compression::kSnappy: break;
  }
  return kDefaultCompressionLevel;
}

Status TopicConfig::set(std::string_view name, std::string_view value) {
  for (const auto& s : settings()) {
    if (s.def.name == name) return s.set(*this, value);
  }
  if (is_tiered_storage_config(name)) {
    return Error(
        Errc::kInvalidConfig,
        fmt::format("topic config '{}' is not supported: Strata has no tiered storage", name));
  }
  return Error(Errc::kInvalidConfig, fmt::format("unknown topic config '{}'", name));
}

Result<TopicConfig> TopicConfig::from_map(const std::map<std::string, std::string>& overrides,
                                          const TopicConfig& base) {
  TopicConfig c = base;
  for (const auto& [k, v] : overrides)
    STRATA_TRY(c.set(k, v));
  if (c.min_compaction_lag_ms > c.max_compaction_lag_ms) {
    return Error(
        Errc::kInvalidConfig,
        fmt::format("min.compaction.lag.ms ({}) must not exceed max.compaction.lag.ms ({})",
                    c.min_compaction_lag_ms, c.max_compaction_lag_ms));
  }
  return c;
}

std::map<std::string, std::string> TopicConfig::to_map() const {
  std::map<std::string, std::string> out;
  for (const auto& s : settings())
    out.emplace(std::string(s.def.name), s.get(*this));
  return out;
}

const std::vector<ConfigDefinition>& topic_config_definitions() {
  static const std::vector<ConfigDefinition> defs = [] {
    std::vector<ConfigDefinition> d;
    for (const auto& s : settings())
      d.push_back(s.def);
    return d;
  }();
  return defs;
}

const ConfigDefinition* find_topic_config(std::string_view name) {
  for (const auto& d : topic_config_definitions()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

}  // namespace strata::engine
