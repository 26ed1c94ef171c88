#include "replication/in_sync_replicas.h"

#include <algorithm>

namespace strata::replication {

InSyncReplicas::InSyncReplicas(int32_t self, const Clock& clock, Options options)
    : self_(self), clock_(clock), options_(options) {}

void InSyncReplicas::reset(const std::vector<int32_t>& replicas, const std::vector<int32_t>& isr,
                           Offset epoch_start) {
  // At the start of a leadership every member gets a full lag window from
  // now; later, only members just taken in.
  bool new_leadership = !led_ || epoch_start != epoch_start_;
  auto old_isr = std::move(isr_);
  replicas_ = replicas;
  isr_ = isr;
  epoch_start_ = epoch_start;
  led_ = true;
  int64_t now = clock_.steady_ms();
  std::map<int32_t, Follower> kept;
  for (int32_t r : replicas_) {
    if (r == self_) continue;
    auto it = followers_.find(r);
    Follower f = it != followers_.end() ? it->second : Follower{};
    bool was_in = std::find(old_isr.begin(), old_isr.end(), r) != old_isr.end();
    if (in_isr(r) && (new_leadership || !was_in)) f.caught_up_ms = now;
    if (!in_isr(r) && (was_in || new_leadership)) f.fetched_outside = false;
    kept[r] = f;
  }
  followers_ = std::move(kept);
  advance();
}

void InSyncReplicas::on_leader_log(Offset log_end, Offset durable) {
  leader_end_ = log_end;
  leader_durable_ = durable;
  advance();
}

void InSyncReplicas::on_fetch(int32_t replica, Offset fetch_offset, Offset durable) {
  auto it = followers_.find(replica);
  if (it == followers_.end()) return;  // not a replica of this partition (any more)
  auto& f = it->second;
  int64_t now = clock_.steady_ms();
  if (fetch_offset >= leader_end_) {
    f.caught_up_ms = now;
  } else if (f.last_fetch_ms >= 0 && fetch_offset >= f.leader_end_at_last_fetch) {
    f.caught_up_ms = std::max(f.caught_up_ms, f.last_fetch_ms);
  }
  f.last_fetch_ms = now;
  f.leader_end_at_last_fetch = leader_end_;
  if (!in_isr(replica)) f.fetched_outside = true;
  f.log_end = fetch_offset;
  f.durable = std::min(durable, fetch_offset);
  advance();
}

bool InSyncReplicas::in_isr(int32_t id) const {
  return std::find(isr_.begin(), isr_.end(), id) != isr_.end();
}

bool InSyncReplicas::may_join(const Follower& f) const {
  return f.fetched_outside && f.log_end >= high_watermark_ && f.log_end >= epoch_start_ &&
         clock_.steady_ms() - f.caught_up_ms <= options_.lag_time_max_ms;
}

std::vector<int32_t> InSyncReplicas::counted() const {
  std::vector<int32_t> out = isr_;
  if (!in_isr(self_)) out.push_back(self_);
  for (const auto& [id, f] : followers_)
    if (!in_isr(id) && may_join(f)) out.push_back(id);
  return out;
}

bool InSyncReplicas::enough_in_sync() const {
  return static_cast<int32_t>(counted().size()) >= options_.min_insync;
}

void InSyncReplicas::advance() {
  auto members = counted();
  if (static_cast<int32_t>(members.size()) < options_.min_insync) return;
  Offset low = options_.durable ? leader_durable_ : leader_end_;
  for (int32_t id : members) {
    if (id == self_) continue;
    auto it = followers_.find(id);
    if (it == followers_.end()) return;  // an ISR member that is not a replica: wait
    low = std::min(low, options_.durable ? it->second.durable : it->second.log_end);
  }
  high_watermark_ = std::max(high_watermark_, low);
}

std::optional<std::vector<int32_t>> InSyncReplicas::proposal() const {
  int64_t now = clock_.steady_ms();
  std::vector<int32_t> next;
  for (int32_t r : replicas_) {
    if (r == self_) {
      next.push_back(r);
      continue;
    }
    const auto& f = followers_.find(r)->second;
    bool keep = in_isr(r) ? now - f.caught_up_ms <= options_.lag_time_max_ms : may_join(f);
    if (keep) next.push_back(r);
  }
  auto sorted = [](std::vector<int32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  if (sorted(next) == sorted(isr_)) return std::nullopt;
  return next;
}

}  // namespace strata::replication
