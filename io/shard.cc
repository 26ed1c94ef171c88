#include "io/shard.h"

namespace strata::io {
namespace {
thread_local Shard* current_shard = nullptr;
}  // namespace

Result<std::unique_ptr<Shard>> Shard::create(unsigned id, unsigned ring_entries) {
  std::unique_ptr<Shard> shard(new Shard(id));
  STRATA_ASSIGN_OR_RETURN(shard->ring_, Ring::create(shard->io_, ring_entries));
  return shard;
}

Shard::Shard(unsigned id) : id_(id) {}

Shard::~Shard() {
  stop();
  // The ring waits for its operations in the kernel; it must go before the
  // io_context whose descriptor it owns.
  ring_.reset();
}

void Shard::start() {
  STRATA_CHECK(!thread_.joinable(), "shard {} started twice", id_);
  work_.emplace(asio::make_work_guard(io_));
  thread_ = std::thread([this] {
    current_shard = this;
    io_.run();
    current_shard = nullptr;
  });
}

void Shard::stop() {
  work_.reset();
  io_.stop();
  if (thread_.joinable() && !on_thread()) thread_.join();
}

// The loop-lag probe: a timer due every tick; how late its handler runs is
// how long a handler that became ready then waited for the loop.
struct Shard::StatsProbe {
  explicit StatsProbe(asio::io_context& io) : tick_timer(io) {}
  asio::steady_timer tick_timer;
  std::chrono::steady_clock::time_point due;
  std::chrono::steady_clock::time_point next_report;
  std::chrono::milliseconds interval{1000};
  std::function<void(const IoStats&)> report;
};

namespace {
constexpr std::chrono::milliseconds kProbeTick{10};
}  // namespace

void Shard::report_stats(std::chrono::milliseconds interval,
                         std::function<void(const IoStats&)> report) {
  post([this, interval, report = std::move(report)]() mutable {
    probe_ = std::make_shared<StatsProbe>(io_);
    probe_->interval = interval;
    probe_->report = std::move(report);
    auto now = std::chrono::steady_clock::now();
    probe_->next_report = now + interval;
    probe_->due = now + kProbeTick;
    arm_probe();
  });
}

void Shard::arm_probe() {
  probe_->tick_timer.expires_at(probe_->due);
  probe_->tick_timer.async_wait(
      [this, weak = std::weak_ptr<StatsProbe>(probe_)](const boost::system::error_code& ec) {
        auto p = weak.lock();
        if (ec || !p) return;
        auto now = std::chrono::steady_clock::now();
        auto lag = std::chrono::duration_cast<std::chrono::microseconds>(now - p->due).count();
        ring_->stats().loop_lag.record(static_cast<uint64_t>(std::max<int64_t>(lag, 0)));
        if (now >= p->next_report) {
          p->report(ring_->stats());
          ring_->stats() = IoStats();
          p->next_report += p->interval;
          if (p->next_report <= now) p->next_report = now + p->interval;
        }
        p->due = now + kProbeTick;
        arm_probe();
      });
}

Shard* Shard::current() {
  return current_shard;
}

}  // namespace strata::io
