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

Shard* Shard::current() {
  return current_shard;
}

}  // namespace strata::io
