// The records of the internal topic __transaction_state, in Kafka's
// formats:
//
//   key   v0: transactional id
//   value v0: producer id, producer epoch, timeout, state, partitions
//             (topic, partition ids), last update time, start time
// A null value is a tombstone (the transactional id expired).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "coordinator/txn/txn_types.h"

namespace strata::coordinator {

inline constexpr std::string_view kTransactionStateTopic = "__transaction_state";
inline constexpr int32_t kTransactionStatePartitions = 50;

// The __transaction_state partition that holds `transactional_id` (the
// partition Kafka would use: Java's string hash).
int32_t txn_partition_for(std::string_view transactional_id);

std::vector<std::byte> encode_txn_key(std::string_view transactional_id);
std::vector<std::byte> encode_txn_value(const TxnMetadata& meta);

// kCorruption for bytes that are not a v0 record of its kind.
Result<std::string> decode_txn_key(std::span<const std::byte> key);
Result<TxnMetadata> decode_txn_value(std::span<const std::byte> value);

}  // namespace strata::coordinator
