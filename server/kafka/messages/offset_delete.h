// OffsetDelete (key 47). One version, never flexible.
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct OffsetDeleteRequest {
  static constexpr int16_t kApiKey = 47;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 0, kFlexibleFrom = INT16_MAX;
  struct Partition {
    int32_t partition_index = 0;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
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
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(group_id, kAllVersions);
    v.field(topics, kAllVersions);
  }
  bool operator==(const OffsetDeleteRequest&) const = default;
};

struct OffsetDeleteResponse {
  static constexpr int16_t kApiKey = 47;
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
  int16_t error_code = 0;  // group-level error
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  template <typename V>
  void visit(V& v) {
    v.field(error_code, kAllVersions);
    v.field(throttle_time_ms, kAllVersions);
    v.field(topics, kAllVersions);
  }
  bool operator==(const OffsetDeleteResponse&) const = default;
};

}  // namespace strata::kafka
