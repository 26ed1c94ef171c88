// Clock: where every component reads time, so tests can drive it by hand.
//
// now_ms() is wall-clock time (record timestamps, retention, segment age);
// steady_ms() only moves forward (timeouts). SystemClock reads the OS;
// ManualClock moves only when told to.
//
// Thread-safety: both implementations may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/ids.h"

namespace strata {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimestampMs now_ms() const = 0;
  virtual int64_t steady_ms() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimestampMs now_ms() const override;
  int64_t steady_ms() const override;
  // The process-wide instance.
  static SystemClock& instance();
};

class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimestampMs start_ms = 1'700'000'000'000) : now_(start_ms), steady_(0) {}
  TimestampMs now_ms() const override { return now_.load(); }
  int64_t steady_ms() const override { return steady_.load(); }
  void advance_ms(int64_t ms) {
    now_ += ms;
    steady_ += ms;
  }
  void set_now_ms(TimestampMs ms) { now_ = ms; }

 private:
  std::atomic<TimestampMs> now_;
  std::atomic<int64_t> steady_;
};

}  // namespace strata
