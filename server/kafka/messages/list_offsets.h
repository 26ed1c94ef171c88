// ListOffsets (key 2).
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct ListOffsetsRequest {
  static constexpr int16_t kApiKey = 2;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 7, kFlexibleFrom = 6;
  // Special timestamps.
  static constexpr int64_t kLatest = -1, kEarliest = -2, kMaxTimestamp = -3;
  struct Partition {
    int32_t partition_index = 0;
    int32_t current_leader_epoch = -1;
    int64_t timestamp = 0;
    int32_t max_num_offsets = 1;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(current_leader_epoch, since(4));
      v.field(timestamp, kAllVersions);
      v.field(max_num_offsets, between(0, 0));
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
  int32_t replica_id = -1;
  int8_t isolation_level = 0;
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(replica_id, kAllVersions);
    v.field(isolation_level, since(2));
    v.field(topics, kAllVersions);
  }
  bool operator==(const ListOffsetsRequest&) const = default;
};

struct ListOffsetsResponse {
  static constexpr int16_t kApiKey = 2;
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::vector<int64_t> old_style_offsets;
    int64_t timestamp = -1;
    int64_t offset = -1;
    int32_t leader_epoch = -1;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(error_code, kAllVersions);
      v.field(old_style_offsets, between(0, 0));
      v.field(timestamp, since(1));
      v.field(offset, since(1));
      v.field(leader_epoch, since(4));
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
    v.field(throttle_time_ms, since(2));
    v.field(topics, kAllVersions);
  }
  bool operator==(const ListOffsetsResponse&) const = default;
};

}  // namespace strata::kafka
