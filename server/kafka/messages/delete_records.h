// DeleteRecords (key 21).
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct DeleteRecordsRequest {
  static constexpr int16_t kApiKey = 21;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 2, kFlexibleFrom = 2;
  struct Partition {
    int32_t partition_index = 0;
    int64_t offset = 0;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(offset, kAllVersions);
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
  std::vector<Topic> topics;
  int32_t timeout_ms = 30000;
  template <typename V>
  void visit(V& v) {
    v.field(topics, kAllVersions);
    v.field(timeout_ms, kAllVersions);
  }
  bool operator==(const DeleteRecordsRequest&) const = default;
};

struct DeleteRecordsResponse {
  static constexpr int16_t kApiKey = 21;
  struct Partition {
    int32_t partition_index = 0;
    int64_t low_watermark = -1;
    int16_t error_code = 0;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(low_watermark, kAllVersions);
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
  bool operator==(const DeleteRecordsResponse&) const = default;
};

}  // namespace strata::kafka
