// FlushPolicy: when a partition under durability=replicated asks for a flush
// by itself — once flush.messages records were appended since the last
// flush, or once the oldest unflushed append is flush.ms old (Kafka's
// flush.messages and flush.ms; both default to never). Under
// durability=fsync every append is flushed anyway and the policy asks for
// nothing.
//
//   policy.configure(log.config());
//   if (policy.on_append(records, now)) flush();
//   else if (auto at = policy.deadline()) timer.expires_at(*at);
//
// Thread-safety: the owning shard's thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "engine/topic_config.h"

namespace strata::replication {

class FlushPolicy {
 public:
  using Clock = std::chrono::steady_clock;

  void configure(const engine::TopicConfig& config);

  // Counts `records` appended at `now`. True when flush.messages asks for a
  // flush now (the caller flushes and calls flushed()).
  bool on_append(int64_t records, Clock::time_point now);
  // When flush.ms asks for the next flush; nullopt when nothing is unflushed
  // or flush.ms is never.
  std::optional<Clock::time_point> deadline() const;
  // A flush started: it covers everything appended so far.
  void flushed();

 private:
  bool active_ = false;
  int64_t flush_messages_ = INT64_MAX;
  std::optional<std::chrono::milliseconds> flush_ms_;
  int64_t unflushed_records_ = 0;
  std::optional<Clock::time_point> dirty_since_;
};

}  // namespace strata::replication
