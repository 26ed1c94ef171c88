// OffsetCommit (key 8). v9 is v8 for members of consumer groups (KIP-848):
// its generation is the member epoch.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct OffsetCommitRequest {
  static constexpr int16_t kApiKey = 8;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 9, kFlexibleFrom = 8;
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;
    int64_t commit_timestamp = -1;  // v1 only
    std::optional<std::string> committed_metadata;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(committed_offset, kAllVersions);
      v.field(committed_leader_epoch, since(6));
      v.field(commit_timestamp, between(1, 1));
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
  std::string group_id;
  // The group generation for classic groups; -1 for a simple (memberless) commit.
  int32_t generation_id_or_member_epoch = -1;
  std::string member_id;
  std::optional<std::string> group_instance_id;
  int64_t retention_time_ms = -1;  // v2-4; -1 = the broker's retention
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(group_id, kAllVersions);
    v.field(generation_id_or_member_epoch, since(1));
    v.field(member_id, since(1));
    v.field(group_instance_id, since(7), since(7));
    v.field(retention_time_ms, between(2, 4));
    v.field(topics, kAllVersions);
  }
  bool operator==(const OffsetCommitRequest&) const = default;
};

struct OffsetCommitResponse {
  static constexpr int16_t kApiKey = 8;
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
    v.field(throttle_time_ms, since(3));
    v.field(topics, kAllVersions);
  }
  bool operator==(const OffsetCommitResponse&) const = default;
};

}  // namespace strata::kafka
