// InitProducerId (key 22).
#pragma once

#include <optional>
#include <string>

#include "server/kafka/types.h"

namespace strata::kafka {

struct InitProducerIdRequest {
  static constexpr int16_t kApiKey = 22;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 4, kFlexibleFrom = 2;
  std::optional<std::string> transactional_id;  // null: an idempotent producer only
  int32_t transaction_timeout_ms = 0;
  int64_t producer_id = -1;     // v3+: the producer's current id, to resume it
  int16_t producer_epoch = -1;  // v3+: and its epoch
  template <typename V>
  void visit(V& v) {
    v.field(transactional_id, kAllVersions, kAllVersions);
    v.field(transaction_timeout_ms, kAllVersions);
    v.field(producer_id, since(3));
    v.field(producer_epoch, since(3));
  }
  bool operator==(const InitProducerIdRequest&) const = default;
};

struct InitProducerIdResponse {
  static constexpr int16_t kApiKey = 22;
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = 0;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(error_code, kAllVersions);
    v.field(producer_id, kAllVersions);
    v.field(producer_epoch, kAllVersions);
  }
  bool operator==(const InitProducerIdResponse&) const = default;
};

}  // namespace strata::kafka
