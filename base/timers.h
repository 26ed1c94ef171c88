// Timers: deadlines a component schedules without owning a thread, so tests
// can drive them with a manual clock instead of sleeping.
//
//   TimerId id = timers.schedule(session_timeout_ms, [this] { expire(member); });
//   timers.cancel(id);                  // no-op if it already fired
//
// Thread-safety: a Timers instance belongs to one thread (a shard); callbacks
// run on it, never inside schedule().
#pragma once

#include <cstdint>
#include <functional>

namespace strata {

using TimerId = uint64_t;

class Timers {
 public:
  virtual ~Timers() = default;
  virtual TimerId schedule(int64_t delay_ms, std::function<void()> fn) = 0;
  virtual void cancel(TimerId id) = 0;
};

}  // namespace strata
