#include "io/ring.h"

#include <cerrno>
#include <chrono>

#include <boost/asio/post.hpp>
#include <liburing.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace strata::io {
namespace {

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<std::unique_ptr<Ring>> Ring::create(asio::io_context& ctx, unsigned entries) {
  auto ring = std::make_unique<io_uring>();
  int rc = io_uring_queue_init(entries, ring.get(), 0);
  if (rc < 0) return Error::io(-rc, "io_uring_queue_init");
  int efd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (efd < 0) {
    int err = errno;
    io_uring_queue_exit(ring.get());
    return Error::io(err, "eventfd");
  }
  rc = io_uring_register_eventfd(ring.get(), efd);
  if (rc < 0) {
    ::close(efd);
    io_uring_queue_exit(ring.get());
    return Error::io(-rc, "io_uring_register_eventfd");
  }
  unsigned capacity = *ring->cq.kring_entries;
  return std::unique_ptr<Ring>(new Ring(ctx, std::move(ring), efd, capacity));
}

Ring::Ring(asio::io_context& ctx, std::unique_ptr<io_uring> ring, int event_fd, unsigned capacity)
    : ctx_(ctx), ring_(std::move(ring)), event_fd_(ctx, event_fd), capacity_(capacity) {}

Ring::~Ring() {
  *alive_ = false;
  // Submit what was prepared, then wait until the kernel is done with every
  // buffer it was given; the completions are dropped.
  if (unsubmitted_ > 0) io_uring_submit(ring_.get());
  while (in_flight_ > 0) {
    io_uring_cqe* cqe = nullptr;
    int rc = io_uring_wait_cqe(ring_.get(), &cqe);
    if (rc == -EINTR) continue;
    if (rc < 0) break;
    delete static_cast<Op*>(io_uring_cqe_get_data(cqe));
    io_uring_cqe_seen(ring_.get(), cqe);
    --in_flight_;
  }
  boost::system::error_code ignored;
  event_fd_.close(ignored);
  io_uring_queue_exit(ring_.get());
}

void Ring::writev(int fd, std::span<const iovec> iov, uint64_t offset, Completion done) {
  enqueue(
      [fd, iov, offset](io_uring_sqe* sqe) {
        io_uring_prep_writev(sqe, fd, iov.data(), static_cast<unsigned>(iov.size()), offset);
      },
      std::move(done), Kind::kWrite);
}

void Ring::read(int fd, std::span<std::byte> buf, uint64_t offset, Completion done) {
  enqueue(
      [fd, buf, offset](io_uring_sqe* sqe) {
        io_uring_prep_read(sqe, fd, buf.data(), static_cast<unsigned>(buf.size()), offset);
      },
      std::move(done), Kind::kRead);
}

void Ring::fdatasync(int fd, Completion done) {
  enqueue([fd](io_uring_sqe* sqe) { io_uring_prep_fsync(sqe, fd, IORING_FSYNC_DATASYNC); },
          std::move(done), Kind::kSync);
}

void Ring::fsync(int fd, Completion done) {
  enqueue([fd](io_uring_sqe* sqe) { io_uring_prep_fsync(sqe, fd, 0); }, std::move(done),
          Kind::kSync);
}

void Ring::fallocate(int fd, int mode, uint64_t offset, uint64_t len, Completion done) {
  enqueue(
      [fd, mode, offset, len](io_uring_sqe* sqe) {
        io_uring_prep_fallocate(sqe, fd, mode, static_cast<off_t>(offset), static_cast<off_t>(len));
      },
      std::move(done), Kind::kOther);
}

void Ring::fadvise(int fd, uint64_t offset, uint64_t len, int advice, Completion done) {
  enqueue(
      [fd, offset, len, advice](io_uring_sqe* sqe) {
        io_uring_prep_fadvise(sqe, fd, offset, static_cast<off_t>(len), advice);
      },
      std::move(done), Kind::kOther);
}

void Ring::sync_file_range(int fd, uint64_t offset, uint64_t len, unsigned flags, Completion done) {
  enqueue(
      [fd, offset, len, flags](io_uring_sqe* sqe) {
        io_uring_prep_sync_file_range(sqe, fd, static_cast<unsigned>(len), offset,
                                      static_cast<int>(flags));
      },
      std::move(done), Kind::kOther);
}

void Ring::enqueue(Prepare prepare, Completion done, Kind kind) {
  if (in_flight_ >= capacity_ || !backlog_.empty()) {
    backlog_.push_back(Pending{std::move(prepare), std::move(done), kind});
    return;
  }
  prepare_one(prepare, std::move(done), kind);
}

void Ring::prepare_one(Prepare& prepare, Completion done, Kind kind) {
  io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
  if (sqe == nullptr) {
    // The submission queue is full of prepared entries: hand them over now.
    submit();
    sqe = io_uring_get_sqe(ring_.get());
    STRATA_CHECK(sqe != nullptr, "io_uring submission queue still full after submit");
  }
  prepare(sqe);
  io_uring_sqe_set_data(sqe, new Op{std::move(done), kind, steady_ns()});
  ++in_flight_;
  ++unsubmitted_;
  schedule_submit();
  arm();
}

void Ring::schedule_submit() {
  if (submit_scheduled_) return;
  submit_scheduled_ = true;
  asio::post(ctx_, [this, alive = alive_] {
    if (!*alive) return;
    submit_scheduled_ = false;
    submit();
  });
}

void Ring::submit() {
  while (unsubmitted_ > 0) {
    int rc = io_uring_submit(ring_.get());
    if (rc >= 0) {
      unsubmitted_ -= std::min<unsigned>(unsubmitted_, static_cast<unsigned>(rc));
      ++submissions_;
      if (rc == 0) break;
      continue;
    }
    if (rc == -EINTR) continue;
    if (rc == -EAGAIN || rc == -EBUSY) {
      // The kernel is short of resources; completions will free them. Try
      // again after the next completion batch.
      break;
    }
    STRATA_CHECK(false, "io_uring_submit failed: {}", rc);
  }
}

void Ring::arm() {
  if (armed_) return;
  armed_ = true;
  event_fd_.async_wait(asio::posix::stream_descriptor::wait_read,
                       [this, alive = alive_](const boost::system::error_code& ec) {
                         if (!*alive) return;
                         armed_ = false;
                         if (ec) return;
                         drain_completions();
                       });
}

void Ring::drain_completions() {
  // Reset the eventfd before reaping: a completion posted after this read
  // signals it again, so no wake-up is lost.
  uint64_t counter = 0;
  [[maybe_unused]] ssize_t n = ::read(event_fd_.native_handle(), &counter, sizeof(counter));
  for (;;) {
    io_uring_cqe* cqe = nullptr;
    if (io_uring_peek_cqe(ring_.get(), &cqe) != 0 || cqe == nullptr) break;
    std::unique_ptr<Op> op(static_cast<Op*>(io_uring_cqe_get_data(cqe)));
    int res = cqe->res;
    io_uring_cqe_seen(ring_.get(), cqe);
    --in_flight_;
    // Refill from the backlog before running the callback, which may enqueue.
    while (!backlog_.empty() && in_flight_ < capacity_) {
      Pending next = std::move(backlog_.front());
      backlog_.pop_front();
      prepare_one(next.prepare, std::move(next.done), next.kind);
    }
    auto us = static_cast<uint64_t>(std::max<int64_t>(steady_ns() - op->submitted_ns, 0) / 1000);
    switch (op->kind) {
      case Kind::kWrite: stats_.write.record(us); break;
      case Kind::kRead: stats_.read.record(us); break;
      case Kind::kSync: stats_.sync.record(us); break;
      case Kind::kOther: break;
    }
    auto alive = alive_;
    op->done(res);
    if (!*alive) return;  // the callback destroyed the ring
  }
  if (unsubmitted_ > 0) submit();
  if (in_flight_ > 0) arm();
}

}  // namespace strata::io
