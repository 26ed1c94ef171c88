// OffsetFetch (key 9), up to v7: one group per request (the v8+ batched
// form is not declared).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct OffsetFetchRequest {
  static constexpr int16_t kApiKey = 9;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 7, kFlexibleFrom = 6;
  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    template <typename V>
    void visit(V& v) {
      v.field(name, between(0, 7));
      v.field(partition_indexes, between(0, 7));
    }
    bool operator==(const Topic&) const = default;
  };
  std::string group_id;
  // v2+: null = every partition the group has committed.
  std::optional<std::vector<Topic>> topics;
  bool require_stable = false;
  template <typename V>
  void visit(V& v) {
    v.field(group_id, between(0, 7));
    v.field(topics, between(0, 7), between(2, 7));
    v.field(require_stable, since(7));
  }
  bool operator==(const OffsetFetchRequest&) const = default;
};

struct OffsetFetchResponse {
  static constexpr int16_t kApiKey = 9;
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;  // -1 when nothing is committed
    int32_t committed_leader_epoch = -1;
    std::optional<std::string> metadata;
    int16_t error_code = 0;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, between(0, 7));
      v.field(committed_offset, between(0, 7));
      v.field(committed_leader_epoch, between(5, 7));
      v.field(metadata, between(0, 7), between(0, 7));
      v.field(error_code, between(0, 7));
    }
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(name, between(0, 7));
      v.field(partitions, between(0, 7));
    }
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  int16_t error_code = 0;  // v2+: group-level error
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, since(3));
    v.field(topics, between(0, 7));
    v.field(error_code, between(2, 7));
  }
  bool operator==(const OffsetFetchResponse&) const = default;
};

}  // namespace strata::kafka
