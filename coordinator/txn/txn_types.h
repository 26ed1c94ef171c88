// The vocabulary of the transaction coordinator: a transaction's states
// (with Kafka's numbers, as __transaction_state stores them) and what the
// coordinator keeps per transactional id. Its errors are Errc values
// (base/error.h), which the server maps to Kafka's codes.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "base/error.h"

namespace strata::coordinator {

enum class TxnState : int8_t {
  kEmpty = 0,
  kOngoing = 1,
  kPrepareCommit = 2,
  kPrepareAbort = 3,
  kCompleteCommit = 4,
  kCompleteAbort = 5,
  kDead = 6,
  kPrepareEpochFence = 7,
};
// "Empty", "Ongoing", ... as DescribeTransactions and ListTransactions show them.
std::string_view state_name(TxnState state);

struct TxnPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TxnPartition&) const = default;
};

// One transactional id's state: its producer, the transaction in progress
// and the partitions it wrote to.
struct TxnMetadata {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t timeout_ms = 60000;
  TxnState state = TxnState::kEmpty;
  std::set<TxnPartition> partitions;
  int64_t last_update_ms = -1;
  int64_t start_ms = -1;  // when the transaction in progress began; -1: none
  bool operator==(const TxnMetadata&) const = default;
};

}  // namespace strata::coordinator
