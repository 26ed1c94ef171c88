// ListTransactions (key 66). Always flexible; v1 adds the duration filter.
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct ListTransactionsRequest {
  static constexpr int16_t kApiKey = 66;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 1, kFlexibleFrom = 0;
  std::vector<std::string> state_filters;    // empty: every state
  std::vector<int64_t> producer_id_filters;  // empty: every producer
  int64_t duration_filter = -1;              // v1+: only those running longer (ms); < 0 = all
  template <typename V>
  void visit(V& v) {
    v.field(state_filters, kAllVersions);
    v.field(producer_id_filters, kAllVersions);
    v.field(duration_filter, since(1));
  }
  bool operator==(const ListTransactionsRequest&) const = default;
};

struct ListTransactionsResponse {
  static constexpr int16_t kApiKey = 66;
  struct TransactionState {
    std::string transactional_id;
    int64_t producer_id = 0;
    std::string transaction_state;
    template <typename V>
    void visit(V& v) {
      v.field(transactional_id, kAllVersions);
      v.field(producer_id, kAllVersions);
      v.field(transaction_state, kAllVersions);
    }
    bool operator==(const TransactionState&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::vector<std::string> unknown_state_filters;  // the request's filters no state has
  std::vector<TransactionState> transaction_states;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(error_code, kAllVersions);
    v.field(unknown_state_filters, kAllVersions);
    v.field(transaction_states, kAllVersions);
  }
  bool operator==(const ListTransactionsResponse&) const = default;
};

}  // namespace strata::kafka
