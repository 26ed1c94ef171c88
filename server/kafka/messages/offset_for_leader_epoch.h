// OffsetForLeaderEpoch (key 23): where a leader epoch ends in a partition's
// log (KIP-101/279), asked by followers and by clients after a leader change
// to detect truncation (KIP-320).
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct OffsetForLeaderEpochRequest {
  static constexpr int16_t kApiKey = 23;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 4, kFlexibleFrom = 4;
  static constexpr int32_t kConsumer = -1;
  static constexpr int32_t kDebugConsumer = -2;
  struct Partition {
    int32_t partition_index = 0;
    int32_t current_leader_epoch = -1;
    int32_t leader_epoch = 0;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(current_leader_epoch, since(2));
      v.field(leader_epoch, kAllVersions);
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
  int32_t replica_id = kDebugConsumer;
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(replica_id, since(3));
    v.field(topics, kAllVersions);
  }
  bool operator==(const OffsetForLeaderEpochRequest&) const = default;
};

struct OffsetForLeaderEpochResponse {
  static constexpr int16_t kApiKey = 23;
  struct Partition {
    int16_t error_code = 0;
    int32_t partition_index = 0;
    int32_t leader_epoch = -1;
    int64_t end_offset = -1;
    template <typename V>
    void visit(V& v) {
      v.field(error_code, kAllVersions);
      v.field(partition_index, kAllVersions);
      v.field(leader_epoch, since(1));
      v.field(end_offset, kAllVersions);
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
  bool operator==(const OffsetForLeaderEpochResponse&) const = default;
};

}  // namespace strata::kafka
