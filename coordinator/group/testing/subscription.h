// Test helper: the bytes of a ConsumerProtocolSubscription (version i16,
// topics [string], then `tail`: user data, owned partitions... as later
// versions add them), as a consumer puts them in JoinGroup metadata.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "base/big_endian.h"
#include "coordinator/group/group_types.h"

namespace strata::coordinator::testing {

inline Bytes subscription_bytes(int16_t version, const std::vector<std::string>& topics,
                                const Bytes& tail = {}) {
  Bytes out(6);
  be::store<int16_t>(out.data(), version);
  be::store<int32_t>(out.data() + 2, static_cast<int32_t>(topics.size()));
  for (const auto& t : topics) {
    size_t at = out.size();
    out.resize(at + 2 + t.size());
    be::store<int16_t>(out.data() + at, static_cast<int16_t>(t.size()));
    std::memcpy(out.data() + at + 2, t.data(), t.size());
  }
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

}  // namespace strata::coordinator::testing
