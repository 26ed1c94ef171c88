// The internal topics, whose partitions host a coordinator's state: the
// group coordinator's __consumer_offsets and the transaction coordinator's
// __transaction_state. Only the broker creates and writes them.
#pragma once

#include <string_view>

#include "coordinator/group/group_records.h"
#include "coordinator/txn/txn_records.h"

namespace strata::coordinator {

inline bool is_internal_topic(std::string_view name) {
  return name == kOffsetsTopic || name == kTransactionStateTopic;
}

}  // namespace strata::coordinator
