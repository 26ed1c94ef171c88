// WatchHandle: owns one watch of a MetadataStore and cancels it when it goes
// away (or on cancel()). Movable, not copyable.
//
//   WatchHandle w = store.watch("/strata/brokers/", 0, on_change);
//   ...
//   w.cancel();  // or let it go out of scope
//
// Once cancel() returns on any thread but the watch's own, the callback is
// not running and never runs again. Called from inside the callback it
// returns at once and the callback is not called again.
#pragma once

#include <functional>
#include <utility>

namespace strata::coordinator {

class WatchHandle {
 public:
  WatchHandle() = default;
  explicit WatchHandle(std::function<void()> cancel) : cancel_(std::move(cancel)) {}
  WatchHandle(WatchHandle&& other) noexcept : cancel_(std::exchange(other.cancel_, nullptr)) {}
  WatchHandle& operator=(WatchHandle&& other) noexcept {
    if (this != &other) {
      cancel();
      cancel_ = std::exchange(other.cancel_, nullptr);
    }
    return *this;
  }
  WatchHandle(const WatchHandle&) = delete;
  WatchHandle& operator=(const WatchHandle&) = delete;
  ~WatchHandle() { cancel(); }

  // Idempotent.
  void cancel() {
    if (auto c = std::exchange(cancel_, nullptr)) c();
  }
  bool active() const { return cancel_ != nullptr; }

 private:
  std::function<void()> cancel_;
};

}  // namespace strata::coordinator
