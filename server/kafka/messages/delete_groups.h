// DeleteGroups (key 42).
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct DeleteGroupsRequest {
  static constexpr int16_t kApiKey = 42;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 2, kFlexibleFrom = 2;
  std::vector<std::string> groups_names;
  template <typename V>
  void visit(V& v) {
    v.field(groups_names, kAllVersions);
  }
  bool operator==(const DeleteGroupsRequest&) const = default;
};

struct DeleteGroupsResponse {
  static constexpr int16_t kApiKey = 42;
  struct Result {
    std::string group_id;
    int16_t error_code = 0;
    template <typename V>
    void visit(V& v) {
      v.field(group_id, kAllVersions);
      v.field(error_code, kAllVersions);
    }
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(results, kAllVersions);
  }
  bool operator==(const DeleteGroupsResponse&) const = default;
};

}  // namespace strata::kafka
