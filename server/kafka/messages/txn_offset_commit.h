// TxnOffsetCommit (key 28): offsets committed as part of a transaction,
// visible once it commits.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct TxnOffsetCommitRequest {
  static constexpr int16_t kApiKey = 28;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 3, kFlexibleFrom = 3;
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v2+
    std::optional<std::string> committed_metadata;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(committed_offset, kAllVersions);
      v.field(committed_leader_epoch, since(2));
      v.field(committed_metadata, kAllVersions, kAllVersions);
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
  std::string transactional_id;
  std::string group_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  // v3+: the consumer's group membership, to fence zombie members.
  int32_t generation_id = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(transactional_id, kAllVersions);
    v.field(group_id, kAllVersions);
    v.field(producer_id, kAllVersions);
    v.field(producer_epoch, kAllVersions);
    v.field(generation_id, since(3));
    v.field(member_id, since(3));
    v.field(group_instance_id, since(3), since(3));
    v.field(topics, kAllVersions);
  }
  bool operator==(const TxnOffsetCommitRequest&) const = default;
};

struct TxnOffsetCommitResponse {
  static constexpr int16_t kApiKey = 28;
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(error_code, kAllVersions);
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
  bool operator==(const TxnOffsetCommitResponse&) const = default;
};

}  // namespace strata::kafka
