// Helpers of the consumer-group tests: topic ids and partition counts.
#pragma once

#include <cstdint>

#include "coordinator/group/group_types.h"

namespace strata::coordinator::testing {

// A topic id whose last byte is `n`.
inline TopicId topic_id(uint8_t n) {
  TopicId id{};
  id[15] = n;
  return id;
}

// How many partitions `a` holds.
inline size_t partition_count(const Assignment& a) {
  size_t n = 0;
  for (const auto& [topic, parts] : a)
    n += parts.size();
  return n;
}

}  // namespace strata::coordinator::testing
