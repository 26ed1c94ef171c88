// Workload: what one strata-bench run does, the same for every driver.
//
// Defined by a small YAML file (keys as the field names below), by flags, or
// both (flags win). Everything is bounded: warm-up, measured duration and the
// drain that follows have fixed limits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace strata::bench {

enum class KeyDistribution {
  kNone,     // null keys: the system spreads messages over partitions itself
  kUniform,  // `key_count` distinct keys drawn uniformly; partition = hash(key)
  // `key_count` distinct keys in turn (each producer its share), so every
  // key is written once before any is written again; partition = hash(key)
  kSequential,
};

struct Workload {
  std::string name = "workload";
  std::string topic_prefix = "bench";
  int topics = 1;
  int partitions = 16;
  int replication_factor = -1;  // of the topics created; -1: the broker's default
  int message_size = 1024;      // bytes of value, at least kMinMessageSize
  KeyDistribution keys = KeyDistribution::kNone;
  int key_count = 1000;
  // Use the topics as they are if they exist, and leave them after the run
  // (to measure a second run over what a first one wrote).
  bool keep_topics = false;
  int producers = 1;       // threads, each with its own client, spread over topics
  double rate = 0;         // total target msg/s over all producers; 0 = as fast as possible
  std::string acks = "1";  // "0", "1" or "all" (drivers map it to their own guarantee)
  int linger_ms = 5;
  int batch_bytes = 1 << 20;
  int groups = 1;               // consumer groups, each reads every message
  int consumers_per_group = 1;  // per topic
  double warmup_s = 5;
  double duration_s = 30;
  double drain_timeout_s = 60;  // after producers stop, how long consumers may take to catch up

  // The topic names: "<prefix>-<i>".
  std::vector<std::string> topic_names() const;
  // The consumer group names: "<prefix>-g<i>".
  std::vector<std::string> group_names() const;
  // Checks ranges and combinations; the message names the field.
  Status validate() const;
};

// Reads a YAML workload file over the defaults. Unknown keys are errors.
Result<Workload> load_workload_yaml(const std::string& path);
// Same, from YAML text (for tests).
Result<Workload> parse_workload_yaml(const std::string& text);

std::string_view key_distribution_name(KeyDistribution k);
Result<KeyDistribution> parse_key_distribution(std::string_view s);

}  // namespace strata::bench
