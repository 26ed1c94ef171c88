// Consumer-group lag computed by the broker: for every partition a group has
// committed an offset for, the committed offset, the partition's high
// watermark and the difference. (Kafka brokers do not export lag; the
// admin tools and the metrics endpoint take it from here.)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "server/services.h"

namespace strata::server {

struct PartitionLag {
  std::string topic;
  int32_t partition = 0;
  int64_t committed = -1;
  int64_t high_watermark = -1;  // -1 if the partition no longer exists
  int64_t lag = 0;              // high watermark - committed, never negative
};

// Runs on any shard `origin`; `done` runs there too.
void group_lag(Services services, unsigned origin, const std::string& group,
               std::function<void(Result<std::vector<PartitionLag>>)> done);

}  // namespace strata::server
