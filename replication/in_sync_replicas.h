// InSyncReplicas: a leader's view of its followers — the log end (and
// durable) offset each one's fetches report, and when it was last caught up
// — and what follows: the high watermark, whether acks=all may proceed, and
// the ISR the leader should propose to the controller.
//
//   InSyncReplicas isr(self, clock, {.lag_time_max_ms = 10000, .min_insync = 2});
//   isr.reset(state.replicas, state.isr, epoch_start);   // after each accepted state
//   isr.on_leader_log(log.log_end_offset(), log.durable_offset());
//   isr.on_fetch(follower, fetch_offset, follower_durable);
//   Offset hw = isr.high_watermark();
//   if (auto next = isr.proposal()) controller_cas(*next);
//
// The rules, Kafka's:
//  - A follower is caught up at a fetch that asks for the leader's log end
//    at that moment, or for at least what the leader's end was at its
//    previous fetch (then it was caught up as of that previous fetch).
//  - An ISR member not caught up for longer than lag_time_max_ms is
//    proposed for removal; a replica outside the ISR whose log end reaches
//    the high watermark and this leader's epoch start, which was caught up
//    within lag_time_max_ms and has fetched since it was last taken out, is
//    proposed for addition. Proposals take effect only through
//    reset() with the state the controller accepted: until then a member proposed for removal still
//    holds the high watermark back, and an addition counts at once.
//  - The high watermark is the minimum, over the leader and the ISR with
//    its pending additions, of each one's log end (`durable`: its synced
//    offset); it never goes back, and it advances only while that set has
//    at least min_insync members (KIP-966).
//
// Thread-safety: the partition's shard only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "base/clock.h"
#include "base/ids.h"

namespace strata::replication {

class InSyncReplicas {
 public:
  struct Options {
    int64_t lag_time_max_ms = 10000;  // replica.lag.time.max.ms
    int32_t min_insync = 1;           // min.insync.replicas
    bool durable = true;              // durability=fsync: count synced offsets
  };

  InSyncReplicas(int32_t self, const Clock& clock, Options options);

  // The state the controller accepted: its replicas and ISR, and the offset
  // at which this leader's epoch began (the log end when it became leader).
  // Followers keep what their fetches reported; new ones start unknown.
  void reset(const std::vector<int32_t>& replicas, const std::vector<int32_t>& isr,
             Offset epoch_start);
  void set_options(Options options) { options_ = options; }
  // Where the watermark starts (a new leader's: what it exposed before).
  void start_at(Offset hw) { high_watermark_ = hw; }

  // The leader's own log moved (appends committed, a sync completed).
  void on_leader_log(Offset log_end, Offset durable);
  // A follower fetched from `fetch_offset` (its log end), having synced up
  // to `durable`.
  void on_fetch(int32_t replica, Offset fetch_offset, Offset durable);

  Offset high_watermark() const { return high_watermark_; }
  // The ISR (with pending additions) has at least min_insync members:
  // acks=all may append (NOT_ENOUGH_REPLICAS otherwise).
  bool enough_in_sync() const;
  // The ISR the leader should propose, if it differs from the accepted one.
  std::optional<std::vector<int32_t>> proposal() const;
  const std::vector<int32_t>& isr() const { return isr_; }

 private:
  struct Follower {
    Offset log_end{-1};
    Offset durable{-1};
    int64_t caught_up_ms = 0;  // steady time it was last caught up
    int64_t last_fetch_ms = -1;
    Offset leader_end_at_last_fetch{-1};
    // Outside the ISR, it fetched since it was last taken out: only then
    // may it join again (a replica the controller dropped as dead stays out).
    bool fetched_outside = false;
  };
  bool in_isr(int32_t id) const;
  bool may_join(const Follower& f) const;
  // The ISR and the followers that may join it: who the watermark waits for.
  std::vector<int32_t> counted() const;
  void advance();

  int32_t self_;
  const Clock& clock_;
  Options options_;
  std::vector<int32_t> replicas_;
  std::vector<int32_t> isr_;
  Offset epoch_start_{0};
  Offset leader_end_{0};
  Offset leader_durable_{0};
  std::map<int32_t, Follower> followers_;
  Offset high_watermark_{0};
  bool led_ = false;  // reset() was called
};

}  // namespace strata::replication
