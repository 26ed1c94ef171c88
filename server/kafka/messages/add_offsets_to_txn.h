// AddOffsetsToTxn (key 25): adds a consumer group's offsets partition to a
// transaction, ahead of TxnOffsetCommit.
#pragma once

#include <string>

#include "server/kafka/types.h"

namespace strata::kafka {

struct AddOffsetsToTxnRequest {
  static constexpr int16_t kApiKey = 25;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 3, kFlexibleFrom = 3;
  std::string transactional_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  std::string group_id;
  template <typename V>
  void visit(V& v) {
    v.field(transactional_id, kAllVersions);
    v.field(producer_id, kAllVersions);
    v.field(producer_epoch, kAllVersions);
    v.field(group_id, kAllVersions);
  }
  bool operator==(const AddOffsetsToTxnRequest&) const = default;
};

struct AddOffsetsToTxnResponse {
  static constexpr int16_t kApiKey = 25;
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(error_code, kAllVersions);
  }
  bool operator==(const AddOffsetsToTxnResponse&) const = default;
};

}  // namespace strata::kafka
