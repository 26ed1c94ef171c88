#include "io/asio_timers.h"

namespace strata::io {

AsioTimers::~AsioTimers() {
  *alive_ = false;
  for (auto& [id, t] : timers_)
    t->cancel();
}

TimerId AsioTimers::schedule(int64_t delay_ms, std::function<void()> fn) {
  TimerId id = ++next_id_;
  auto timer = std::make_unique<boost::asio::steady_timer>(io_);
  timer->expires_after(std::chrono::milliseconds(std::max<int64_t>(0, delay_ms)));
  timer->async_wait(
      [this, id, fn = std::move(fn), alive = alive_](const boost::system::error_code& ec) {
        if (!*alive || ec) return;
        timers_.erase(id);
        fn();
      });
  timers_.emplace(id, std::move(timer));
  return id;
}

void AsioTimers::cancel(TimerId id) {
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  it->second->cancel();
  timers_.erase(it);
}

}  // namespace strata::io
