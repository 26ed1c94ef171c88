// EndTxn (key 26), up to v3 (the v5 epoch-bumping form is not declared).
#pragma once

#include <string>

#include "server/kafka/types.h"

namespace strata::kafka {

struct EndTxnRequest {
  static constexpr int16_t kApiKey = 26;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 3, kFlexibleFrom = 3;
  std::string transactional_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  bool committed = false;  // true = commit, false = abort
  template <typename V>
  void visit(V& v) {
    v.field(transactional_id, kAllVersions);
    v.field(producer_id, kAllVersions);
    v.field(producer_epoch, kAllVersions);
    v.field(committed, kAllVersions);
  }
  bool operator==(const EndTxnRequest&) const = default;
};

struct EndTxnResponse {
  static constexpr int16_t kApiKey = 26;
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(error_code, kAllVersions);
  }
  bool operator==(const EndTxnResponse&) const = default;
};

}  // namespace strata::kafka
