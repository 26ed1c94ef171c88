#include "replication/flush_policy.h"

namespace strata::replication {

void FlushPolicy::configure(const engine::TopicConfig& config) {
  active_ = config.durability == engine::Durability::kReplicated;
  flush_messages_ = config.flush_messages;
  // Beyond a century is never (and keeps time_point arithmetic in range).
  constexpr int64_t kNever = 100LL * 365 * 24 * 3600 * 1000;
  flush_ms_.reset();
  if (config.flush_ms < kNever) flush_ms_ = std::chrono::milliseconds(config.flush_ms);
  if (!active_) flushed();
}

bool FlushPolicy::on_append(int64_t records, Clock::time_point now) {
  if (!active_) return false;
  if (!dirty_since_) dirty_since_ = now;
  unflushed_records_ += records;
  return unflushed_records_ >= flush_messages_;
}

std::optional<FlushPolicy::Clock::time_point> FlushPolicy::deadline() const {
  if (!active_ || !dirty_since_ || !flush_ms_) return std::nullopt;
  return *dirty_since_ + *flush_ms_;
}

void FlushPolicy::flushed() {
  unflushed_records_ = 0;
  dirty_since_.reset();
}

}  // namespace strata::replication
