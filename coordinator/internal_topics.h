// The internal topics, whose partitions host a coordinator's state: the
// group coordinator's __consumer_offsets, the transaction coordinator's
// __transaction_state and the schema registry's _schemas. Only the broker
// creates and writes them; clients may read them.
#pragma once

#include <string_view>

#include "coordinator/group/group_records.h"
#include "coordinator/txn/txn_records.h"

namespace strata::coordinator {

// The schema registry's one partition (registry/).
inline constexpr std::string_view kSchemasTopic = "_schemas";

inline bool is_internal_topic(std::string_view name) {
  return name == kOffsetsTopic || name == kTransactionStateTopic || name == kSchemasTopic;
}

}  // namespace strata::coordinator
