// EventLog: collects what a watch delivers so a test can wait, bounded, for
// a condition on it instead of sleeping.
//
//   EventLog log;
//   auto w = store.watch("/p/", 0, log.callback());
//   ASSERT_TRUE(log.wait_until([](const auto& evs) { return evs.size() >= 2; }));
//
// hold() makes the callback block (on the store's thread) until release():
// the watch is then cut off from its store with a batch in hand.
//
// Thread-safety: thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "coordinator/metadata_store.h"

namespace strata::coordinator::testing {

class EventLog {
 public:
  using Events = std::vector<WatchEvent>;

  WatchCallback callback() {
    return [this](const Events& batch) {
      std::unique_lock lock(mu_);
      for (const auto& e : batch)
        events_.push_back(e);
      cv_.notify_all();
      if (hold_) {
        held_ = true;
        cv_.notify_all();
        cv_.wait(lock, [&] { return !hold_; });
        held_ = false;
      }
    };
  }

  // Whether `pred(events)` became true within `timeout`.
  bool wait_until(const std::function<bool(const Events&)>& pred,
                  std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return pred(events_); });
  }

  // The next batch's callback blocks until release().
  void hold() {
    std::lock_guard lock(mu_);
    hold_ = true;
  }
  // Whether a callback is blocked by hold() within `timeout`.
  bool wait_held(std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return held_; });
  }
  void release() {
    std::lock_guard lock(mu_);
    hold_ = false;
    cv_.notify_all();
  }

  Events events() {
    std::lock_guard lock(mu_);
    return events_;
  }

  // The keys and values the events leave, applied in order to `state` (the
  // entries under the prefix when the watch started).
  static std::map<std::string, std::string> replay(const Events& events,
                                                   std::map<std::string, std::string> state = {}) {
    for (const auto& e : events) {
      if (e.type == WatchEvent::Type::kPut) {
        state[e.entry.key] = e.entry.value;
      } else {
        state.erase(e.entry.key);
      }
    }
    return state;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  Events events_;
  bool hold_ = false;
  bool held_ = false;
};

}  // namespace strata::coordinator::testing
