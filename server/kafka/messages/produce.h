// Produce (key 0).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct ProduceRequest {
  static constexpr int16_t kApiKey = 0;
  // From v0: librdkafka compresses with gzip or snappy only if the broker
  // lists Produce v0 (it still sends v7+). v0-v2 carry magic 0/1 message
  // sets, which the broker up-converts to RecordBatch v2.
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 9, kFlexibleFrom = 9;
  struct Partition {
    int32_t index = 0;
    Records records;
    template <typename V>
    void visit(V& v) {
      v.field(index, kAllVersions);
      v.field(records, kAllVersions, kAllVersions);
    }
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(partitions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  std::optional<std::string> transactional_id;
  int16_t acks = -1;
  int32_t timeout_ms = 30000;
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(transactional_id, since(3), since(3));
    v.field(acks, kAllVersions);
    v.field(timeout_ms, kAllVersions);
    v.field(topics, kAllVersions);
  }
  bool operator==(const ProduceRequest&) const = default;
};

struct ProduceResponse {
  static constexpr int16_t kApiKey = 0;
  struct RecordError {
    int32_t batch_index = 0;
    std::optional<std::string> message;
    template <typename V>
    void visit(V& v) {
      v.field(batch_index, kAllVersions);
      v.field(message, kAllVersions, kAllVersions);
    }
    bool operator==(const RecordError&) const = default;
  };
  struct Partition {
    int32_t index = 0;
    int16_t error_code = 0;
    int64_t base_offset = -1;
    int64_t log_append_time_ms = -1;
    int64_t log_start_offset = -1;
    std::vector<RecordError> record_errors;
    std::optional<std::string> error_message;
    template <typename V>
    void visit(V& v) {
      v.field(index, kAllVersions);
      v.field(error_code, kAllVersions);
      v.field(base_offset, kAllVersions);
      v.field(log_append_time_ms, since(2));
      v.field(log_start_offset, since(5));
      v.field(record_errors, since(8));
      v.field(error_message, since(8), since(8));
    }
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(partitions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> responses;
  int32_t throttle_time_ms = 0;
  template <typename V>
  void visit(V& v) {
    v.field(responses, kAllVersions);
    v.field(throttle_time_ms, since(1));
  }
  bool operator==(const ProduceResponse&) const = default;
};

}  // namespace strata::kafka
