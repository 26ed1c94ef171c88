// WriteTxnMarkers (key 27): the transaction coordinator asks partition
// leaders to append commit or abort markers.
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct WriteTxnMarkersRequest {
  static constexpr int16_t kApiKey = 27;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 1, kFlexibleFrom = 1;
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
  struct Marker {
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    bool transaction_result = false;  // true = commit, false = abort
    std::vector<Topic> topics;
    int32_t coordinator_epoch = 0;
    template <typename V>
    void visit(V& v) {
      v.field(producer_id, kAllVersions);
      v.field(producer_epoch, kAllVersions);
      v.field(transaction_result, kAllVersions);
      v.field(topics, kAllVersions);
      v.field(coordinator_epoch, kAllVersions);
    }
    bool operator==(const Marker&) const = default;
  };
  std::vector<Marker> markers;
  template <typename V>
  void visit(V& v) {
    v.field(markers, kAllVersions);
  }
  bool operator==(const WriteTxnMarkersRequest&) const = default;
};

struct WriteTxnMarkersResponse {
  static constexpr int16_t kApiKey = 27;
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
  struct Marker {
    int64_t producer_id = 0;
    std::vector<Topic> topics;
    template <typename V>
    void visit(V& v) {
      v.field(producer_id, kAllVersions);
      v.field(topics, kAllVersions);
    }
    bool operator==(const Marker&) const = default;
  };
  std::vector<Marker> markers;
  template <typename V>
  void visit(V& v) {
    v.field(markers, kAllVersions);
  }
  bool operator==(const WriteTxnMarkersResponse&) const = default;
};

}  // namespace strata::kafka
