// ManualTimers: Timers driven by a ManualClock. advance(ms) moves the clock
// and runs every timer that falls due, in deadline order (including ones
// scheduled by the callbacks themselves).
#pragma once

#include <map>
#include <utility>

#include "base/clock.h"
#include "base/timers.h"

namespace strata::testing {

class ManualTimers final : public Timers {
 public:
  explicit ManualTimers(ManualClock& clock) : clock_(clock) {}

  TimerId schedule(int64_t delay_ms, std::function<void()> fn) override {
    TimerId id = ++next_id_;
    due_.emplace(std::make_pair(clock_.steady_ms() + std::max<int64_t>(0, delay_ms), id),
                 std::move(fn));
    return id;
  }

  void cancel(TimerId id) override {
    for (auto it = due_.begin(); it != due_.end(); ++it) {
      if (it->first.second == id) {
        due_.erase(it);
        return;
      }
    }
  }

  // Moves time forward by `ms`, firing what falls due on the way.
  void advance(int64_t ms) {
    int64_t target = clock_.steady_ms() + ms;
    while (!due_.empty() && due_.begin()->first.first <= target) {
      auto it = due_.begin();
      int64_t at = it->first.first;
      auto fn = std::move(it->second);
      due_.erase(it);
      clock_.advance_ms(at - clock_.steady_ms());
      fn();
    }
    clock_.advance_ms(target - clock_.steady_ms());
  }

  size_t pending() const { return due_.size(); }

 private:
  ManualClock& clock_;
  TimerId next_id_ = 0;
  std::map<std::pair<int64_t, TimerId>, std::function<void()>> due_;
};

}  // namespace strata::testing
