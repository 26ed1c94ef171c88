// Shard: one thread running one asio::io_context and owning one io_uring Ring.
//
// A shard is Strata's unit of parallelism: everything a shard owns (its
// partitions, its connections) is touched only on its thread, so the data
// path needs no locks. Other threads hand work to a shard with post(); disk
// completions of the shard's ring come back on the same thread.
//
//   Shard shard(0);
//   shard.start();
//   shard.post([&] { assert(Shard::current() == &shard); });
//   shard.stop();
//
// Thread-safety: post(), start() and stop() may be called from any thread;
// io() may be shared; ring() only on the shard's own thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include "io/ring.h"

namespace strata::io {

class Shard {
 public:
  // Creates the io_context and the ring; the thread starts with start().
  static Result<std::unique_ptr<Shard>> create(unsigned id, unsigned ring_entries = 256);
  ~Shard();
  Shard(const Shard&) = delete;
  Shard& operator=(const Shard&) = delete;

  unsigned id() const { return id_; }
  asio::io_context& io() { return io_; }
  Ring& ring() { return *ring_; }

  template <typename F>
  void post(F&& f) {
    asio::post(io_, std::forward<F>(f));
  }

  void start();
  // Stops the loop after the handler running now and joins the thread.
  // Handlers not yet run are dropped. Idempotent.
  void stop();

  // Measures the loop's lag (how late a timer due every 10 ms runs) and,
  // every `interval`, hands the ring's IoStats to `report` on the shard's
  // thread and resets them. Call once, from any thread, after start().
  void report_stats(std::chrono::milliseconds interval, std::function<void(const IoStats&)> report);

  bool on_thread() const { return std::this_thread::get_id() == thread_.get_id(); }
  // The shard whose thread is calling, or nullptr.
  static Shard* current();

 private:
  Shard(unsigned id);
  void arm_probe();

  unsigned id_;
  asio::io_context io_{1};
  std::unique_ptr<Ring> ring_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
  struct StatsProbe;
  std::shared_ptr<StatsProbe> probe_;
  std::thread thread_;
};

}  // namespace strata::io
