// DescribeProducers (key 61): the active producers of partitions. One
// version, always flexible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct DescribeProducersRequest {
  static constexpr int16_t kApiKey = 61;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 0, kFlexibleFrom = 0;
  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(partition_indexes, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(topics, kAllVersions);
  }
  bool operator==(const DescribeProducersRequest&) const = default;
};

struct DescribeProducersResponse {
  static constexpr int16_t kApiKey = 61;
  struct Producer {
    int64_t producer_id = 0;
    int32_t producer_epoch = 0;  // int32 on the wire, unlike elsewhere
    int32_t last_sequence = -1;
    int64_t last_timestamp = -1;
    int32_t coordinator_epoch = 0;
    int64_t current_txn_start_offset = -1;  // -1: no open transaction
    template <typename V>
    void visit(V& v) {
      v.field(producer_id, kAllVersions);
      v.field(producer_epoch, kAllVersions);
      v.field(last_sequence, kAllVersions);
      v.field(last_timestamp, kAllVersions);
      v.field(coordinator_epoch, kAllVersions);
      v.field(current_txn_start_offset, kAllVersions);
    }
    bool operator==(const Producer&) const = default;
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::vector<Producer> active_producers;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(error_code, kAllVersions);
      v.field(error_message, kAllVersions, kAllVersions);
      v.field(active_producers, kAllVersions);
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
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(topics, kAllVersions);
  }
  bool operator==(const DescribeProducersResponse&) const = default;
};

}  // namespace strata::kafka
