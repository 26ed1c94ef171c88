// AsioTimers: Timers on an asio::io_context (a shard's), one steady_timer per
// scheduled callback.
#pragma once

#include <memory>
#include <unordered_map>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "base/timers.h"

namespace strata::io {

class AsioTimers final : public Timers {
 public:
  explicit AsioTimers(boost::asio::io_context& io) : io_(io) {}
  ~AsioTimers() override;

  TimerId schedule(int64_t delay_ms, std::function<void()> fn) override;
  void cancel(TimerId id) override;

 private:
  boost::asio::io_context& io_;
  TimerId next_id_ = 0;
  std::unordered_map<TimerId, std::unique_ptr<boost::asio::steady_timer>> timers_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace strata::io
