// DescribeTransactions (key 65). One version, always flexible.
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct DescribeTransactionsRequest {
  static constexpr int16_t kApiKey = 65;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 0, kFlexibleFrom = 0;
  std::vector<std::string> transactional_ids;
  template <typename V>
  void visit(V& v) {
    v.field(transactional_ids, kAllVersions);
  }
  bool operator==(const DescribeTransactionsRequest&) const = default;
};

struct DescribeTransactionsResponse {
  static constexpr int16_t kApiKey = 65;
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
  struct TransactionState {
    int16_t error_code = 0;
    std::string transactional_id;
    std::string transaction_state;  // "Ongoing", "PrepareCommit", ...
    int32_t transaction_timeout_ms = 0;
    int64_t transaction_start_time_ms = 0;
    int64_t producer_id = 0;
    // int16, as Apache Kafka 4.4 sends it (read off its answer; an older
    // schema said int32, which DescribeProducers' epoch still is).
    int16_t producer_epoch = 0;
    // The transaction's partitions; while it completes, those still without markers.
    std::vector<Topic> topic_partitions;
    template <typename V>
    void visit(V& v) {
      v.field(error_code, kAllVersions);
      v.field(transactional_id, kAllVersions);
      v.field(transaction_state, kAllVersions);
      v.field(transaction_timeout_ms, kAllVersions);
      v.field(transaction_start_time_ms, kAllVersions);
      v.field(producer_id, kAllVersions);
      v.field(producer_epoch, kAllVersions);
      v.field(topic_partitions, kAllVersions);
    }
    bool operator==(const TransactionState&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<TransactionState> transaction_states;
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(transaction_states, kAllVersions);
  }
  bool operator==(const DescribeTransactionsResponse&) const = default;
};

}  // namespace strata::kafka
