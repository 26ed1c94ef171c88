// AddPartitionsToTxn (key 24). Versions 0-3 carry one transaction at the top
// level (what clients send); v4 batches several transactions (what brokers
// send to verify partitions) and answers with a top-level error code.
#pragma once

#include <string>
#include <vector>

#include "server/kafka/types.h"

namespace strata::kafka {

struct AddPartitionsToTxnRequest {
  static constexpr int16_t kApiKey = 24;
  static constexpr int16_t kMinVersion = 0, kMaxVersion = 4, kFlexibleFrom = 3;
  struct Topic {
    std::string name;
    std::vector<int32_t> partitions;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(partitions, kAllVersions);
    }
    bool operator==(const Topic&) const = default;
  };
  // v4+: one transaction of the batch.
  struct Transaction {
    std::string transactional_id;
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    bool verify_only = false;  // check the partitions are in the transaction, add nothing
    std::vector<Topic> topics;
    template <typename V>
    void visit(V& v) {
      v.field(transactional_id, since(4));
      v.field(producer_id, since(4));
      v.field(producer_epoch, since(4));
      v.field(verify_only, since(4));
      v.field(topics, since(4));
    }
    bool operator==(const Transaction&) const = default;
  };
  std::vector<Transaction> transactions;  // v4+
  // v0-3: the single transaction.
  std::string v3_and_below_transactional_id;
  int64_t v3_and_below_producer_id = 0;
  int16_t v3_and_below_producer_epoch = 0;
  std::vector<Topic> v3_and_below_topics;
  template <typename V>
  void visit(V& v) {
    v.field(transactions, since(4));
    v.field(v3_and_below_transactional_id, between(0, 3));
    v.field(v3_and_below_producer_id, between(0, 3));
    v.field(v3_and_below_producer_epoch, between(0, 3));
    v.field(v3_and_below_topics, between(0, 3));
  }
  bool operator==(const AddPartitionsToTxnRequest&) const = default;
};

struct AddPartitionsToTxnResponse {
  static constexpr int16_t kApiKey = 24;
  struct PartitionResult {
    int32_t partition_index = 0;
    int16_t partition_error_code = 0;
    template <typename V>
    void visit(V& v) {
      v.field(partition_index, kAllVersions);
      v.field(partition_error_code, kAllVersions);
    }
    bool operator==(const PartitionResult&) const = default;
  };
  struct TopicResult {
    std::string name;
    std::vector<PartitionResult> results_by_partition;
    template <typename V>
    void visit(V& v) {
      v.field(name, kAllVersions);
      v.field(results_by_partition, kAllVersions);
    }
    bool operator==(const TopicResult&) const = default;
  };
  // v4+: the results of one transaction of the batch.
  struct TransactionResult {
    std::string transactional_id;
    std::vector<TopicResult> topic_results;
    template <typename V>
    void visit(V& v) {
      v.field(transactional_id, since(4));
      v.field(topic_results, since(4));
    }
    bool operator==(const TransactionResult&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;                                  // v4+
  std::vector<TransactionResult> results_by_transaction;   // v4+
  std::vector<TopicResult> results_by_topic_v3_and_below;  // v0-3
  template <typename V>
  void visit(V& v) {
    v.field(throttle_time_ms, kAllVersions);
    v.field(error_code, since(4));
    v.field(results_by_transaction, since(4));
    v.field(results_by_topic_v3_and_below, between(0, 3));
  }
  bool operator==(const AddPartitionsToTxnResponse&) const = default;
};

}  // namespace strata::kafka
