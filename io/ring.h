// Ring: one io_uring instance bound to one asio::io_context.
//
// Completions are signalled through an eventfd that the io_context waits on,
// so disk completions run as ordinary handlers on the thread that runs the
// io_context, next to network completions. Operations prepared while a
// handler runs are gathered and submitted with one io_uring_enter when the
// handler returns ("several operations per submission").
//
//   auto ring = Ring::create(ctx).value();
//   ring->writev(fd, iov, pos, [](int res) { /* res = bytes or -errno */ });
//
// Thread-safety: none. Every call, and every completion, happens on the thread
// running the io_context. Buffers and iovec arrays handed to an operation
// must stay valid until its completion runs. Destroying the ring waits for
// operations still in the kernel and drops their completions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <sys/uio.h>

#include "base/result.h"
#include "io/io_stats.h"

struct io_uring;
struct io_uring_sqe;

namespace strata::io {

namespace asio = boost::asio;

class Ring {
 public:
  // res: bytes transferred (>= 0) or a negated errno.
  using Completion = std::function<void(int res)>;

  static Result<std::unique_ptr<Ring>> create(asio::io_context& ctx, unsigned entries = 256);
  ~Ring();
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;

  void writev(int fd, std::span<const iovec> iov, uint64_t offset, Completion done);
  void read(int fd, std::span<std::byte> buf, uint64_t offset, Completion done);
  void fdatasync(int fd, Completion done);
  void fsync(int fd, Completion done);
  void fallocate(int fd, int mode, uint64_t offset, uint64_t len, Completion done);
  void fadvise(int fd, uint64_t offset, uint64_t len, int advice, Completion done);
  void sync_file_range(int fd, uint64_t offset, uint64_t len, unsigned flags, Completion done);

  // Operations handed to the ring whose completion has not run yet.
  size_t in_flight() const { return in_flight_ + backlog_.size(); }
  // Number of io_uring_enter submissions made so far (for tests and metrics).
  uint64_t submissions() const { return submissions_; }
  // Latencies of the operations completed since the last reset (the loop
  // lag is recorded by the shard that owns the ring).
  IoStats& stats() { return stats_; }

 private:
  using Prepare = std::function<void(io_uring_sqe*)>;
  enum class Kind : uint8_t { kWrite, kRead, kSync, kOther };
  struct Op {
    Completion done;
    Kind kind;
    int64_t submitted_ns;
  };
  struct Pending {
    Prepare prepare;
    Completion done;
    Kind kind;
  };

  Ring(asio::io_context& ctx, std::unique_ptr<io_uring> ring, int event_fd, unsigned capacity);
  void enqueue(Prepare prepare, Completion done, Kind kind);
  void prepare_one(Prepare& prepare, Completion done, Kind kind);
  void schedule_submit();
  void submit();
  void arm();
  void drain_completions();

  asio::io_context& ctx_;
  std::unique_ptr<io_uring> ring_;
  asio::posix::stream_descriptor event_fd_;
  unsigned capacity_;       // ops allowed in the kernel at once (<= CQ size)
  unsigned in_flight_ = 0;  // prepared or submitted, completion not yet run
  unsigned unsubmitted_ = 0;
  bool submit_scheduled_ = false;
  bool armed_ = false;
  uint64_t submissions_ = 0;
  std::deque<Pending> backlog_;  // waiting for capacity
  IoStats stats_;
  // Shared with posted handlers so that they do nothing after destruction.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace strata::io
