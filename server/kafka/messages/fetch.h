// Fetch (key 1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct FetchRequest {
  static constexpr int16_t kApiKey = 1;
  // v0-v3 read the legacy message formats (magic 0 for v0-v1, 1 for v2-v3):
  // the broker down-converts what it serves them.
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 13, kFlexibleFrom = 12;
  struct Partition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;
    int64_t fetch_offset = 0;
    int32_t last_fetched_epoch = -1;
    int64_t log_start_offset = -1;
    int32_t partition_max_bytes = 0;
    template <typename V>
    void visit(V& v) {
      v.field(partition, kAllVersions);
      v.field(current_leader_epoch, since(9));
      v.field(fetch_offset, kAllVersions);
      v.field(last_fetched_epoch, since(12));
      v.field(log_start_offset, since(5));
      v.field(partition_max_bytes, kAllVersions);
    }
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic;
    Uuid topic_id{};
    std::vector<Partition> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(topic, between(0, 12));
      v.field(topic_id, since(13));
      v.field(partitions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  struct ForgottenTopic {
    std::string topic;
    Uuid topic_id{};
    std::vector<int32_t> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(topic, between(7, 12));
      v.field(topic_id, since(13));
      v.field(partitions, since(7));
    }
    bool operator==(const ForgottenTopic&) const = default;
  };
  std::optional<std::string> cluster_id;
  int32_t replica_id = -1;
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = INT32_MAX;
  int8_t isolation_level = 0;
  int32_t session_id = 0;
  int32_t session_epoch = -1;
  std::vector<Topic> topics;
  std::vector<ForgottenTopic> forgotten_topics_data;
  std::string rack_id;
  template <typename V>
  void visit(V& v) {
    v.tagged(cluster_id, 0, since(12));
    v.field(replica_id, kAllVersions);
    v.field(max_wait_ms, kAllVersions);
    v.field(min_bytes, kAllVersions);
    v.field(max_bytes, since(3));
    v.field(isolation_level, since(4));
    v.field(session_id, since(7));
    v.field(session_epoch, since(7));
    v.field(topics, kAllVersions);
    v.field(forgotten_topics_data, since(7));
    v.field(rack_id, since(11));
  }
  bool operator==(const FetchRequest&) const = default;
};

struct FetchResponse {
  static constexpr int16_t kApiKey = 1;
  struct AbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;
    template <typename V>
    void visit(V& v) {
      v.field(producer_id, kAllVersions);
      v.field(first_offset, kAllVersions);
    }
    bool operator==(const AbortedTransaction&) const = default;
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;
    int32_t preferred_read_replica = -1;
    Records records;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(error_code, kAllVersions);
      v.field(high_watermark, kAllVersions);
      v.field(last_stable_offset, since(4));
      v.field(log_start_offset, since(5));
      v.field(aborted_transactions, since(4), since(4));
      v.field(preferred_read_replica, since(11));
      v.field(records, kAllVersions, kAllVersions);
    }
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic;
    Uuid topic_id{};
    std::vector<Partition> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(topic, between(0, 12));
      v.field(topic_id, since(13));
      v.field(partitions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int32_t session_id = 0;
  std::vector<Topic> responses;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(1));
    v.field(error_code, since(7));
    v.field(session_id, since(7));
    v.field(responses, kAllVersions);
  }
  bool operator==(const FetchResponse&) const = default;
};

}  // namespace strata::kafka
