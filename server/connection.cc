#include "server/connection.h"

#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include "base/big_endian.h"
#include "server/kafka/header.h"

namespace strata::server {

namespace asio = boost::asio;

Connection::Connection(Services services, ShardState& shard, asio::ip::tcp::socket socket)
    : services_(services),
      shard_(shard),
      counted_(shard.count_connection()),
      socket_(std::move(socket)) {
  boost::system::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  info_ = std::make_shared<ConnectionInfo>(ConnectionInfo{
      .peer = ec ? "unknown" : ep.address().to_string() + ":" + std::to_string(ep.port())});
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
}

void Connection::start() {
  spdlog::debug("connection from {} on shard {}", info_->peer, shard_.id());
  read_size();
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  quiet_timer_.cancel();
  boost::system::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  if (on_closed_) {
    auto cb = std::move(on_closed_);
    on_closed_ = nullptr;
    cb();
  }
}

void Connection::drain(std::function<void()> closed) {
  on_closed_ = std::move(closed);
  draining_ = true;
  if (closed_) {
    auto cb = std::move(on_closed_);
    on_closed_ = nullptr;
    return cb();
  }
  maybe_finish_drain();
}

// A draining connection still reads and answers: a request the client sent
// before it learned that this broker's leaderships moved (controlled
// shutdown) gets NOT_LEADER_OR_FOLLOWER, which sends the client to the new
// leader, rather than a closed socket, which it sees as a transport failure
// of a write that may or may not have been stored. The connection closes
// once it has been quiet for kDrainQuiet: nothing in progress, nothing
// arriving (Listener::drain_shard's deadline bounds it all).
void Connection::maybe_finish_drain() {
  if (!draining_ || closed_) return;
  if (!quiet()) return;
  quiet_timer_.expires_after(kDrainQuiet);
  quiet_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec && !self->closed_ && self->quiet()) self->close();
  });
}

void Connection::read_size() {
  if (closed_) return;
  if (slots_.size() >= static_cast<size_t>(services_.configs.config().max_inflight_requests))
    return;
  reading_ = true;
  asio::async_read(
      socket_, asio::buffer(size_buf_),
      [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
        self->reading_ = false;
        if (ec) {
          if (ec != asio::error::eof && ec != asio::error::operation_aborted) {
            spdlog::debug("connection {}: read: {}", self->info_->peer, ec.message());
          }
          return self->close();
        }
        self->in_frame_ = true;
        int32_t size = be::load<int32_t>(self->size_buf_.data());
        if (size < 8 || size > self->services_.configs.config().socket_request_max_bytes) {
          spdlog::warn(
              "connection {}: closing: request frame size {} is outside "
              "8..{} (socket.request.max.bytes)",
              self->info_->peer, size, self->services_.configs.config().socket_request_max_bytes);
          return self->close();
        }
        self->read_frame(static_cast<size_t>(size));
      });
}

void Connection::read_frame(size_t size) {
  auto frame = SharedBytes::allocate(size);
  reading_ = true;
  asio::async_read(socket_, asio::buffer(frame.data(), size),
                   [self = shared_from_this(), frame](const boost::system::error_code& ec, size_t) {
                     self->reading_ = false;
                     self->in_frame_ = false;
                     if (ec) return self->close();
                     self->handle_frame(frame);
                     self->read_size();
                   });
}

void Connection::handle_frame(SharedBytes frame) {
  auto decoded = kafka::decode_request_header(frame);
  if (!decoded) {
    spdlog::warn("connection {}: closing: {}", info_->peer, decoded.error().message());
    return close();
  }
  uint64_t seq = first_seq_ + slots_.size();
  slots_.emplace_back();
  RequestContext ctx{info_,
                     decoded->header,
                     shard_,
                     services_.shards,
                     services_.cluster,
                     services_.configs,
                     services_.controller,
                     services_.clock};
  auto self = shared_from_this();
  dispatch(ctx, frame, *decoded,
           [self, seq](Reply reply) { self->complete(seq, std::move(reply)); });
}

void Connection::complete(uint64_t seq, Reply reply) {
  STRATA_DCHECK(shard_.shard().on_thread(), "reply on a foreign thread");
  if (closed_) return;
  STRATA_CHECK(seq >= first_seq_ && seq < first_seq_ + slots_.size(), "reply {} for no request",
               seq);
  auto& slot = slots_[seq - first_seq_];
  slot.done = true;
  slot.reply = std::move(reply);
  maybe_write();
}

void Connection::maybe_write() {
  if (writing_ || closed_) return;
  std::vector<asio::const_buffer> buffers;
  std::vector<SharedBytes> keep;
  size_t taken = 0;
  bool close_after = false;
  for (auto& slot : slots_) {
    if (!slot.done) break;
    ++taken;
    for (auto& part : slot.reply.frame) {
      buffers.emplace_back(part.data(), part.size());
      keep.push_back(part);
    }
    if (slot.reply.close_connection) {
      close_after = true;
      break;
    }
  }
  if (taken == 0) return;
  slots_.erase(slots_.begin(), slots_.begin() + static_cast<long>(taken));
  first_seq_ += taken;
  if (buffers.empty()) {
    if (close_after) return close();
    maybe_resume_reading();
    return maybe_finish_drain();
  }
  writing_ = true;
  asio::async_write(socket_, buffers,
                    [self = shared_from_this(), keep = std::move(keep), close_after](
                        const boost::system::error_code& ec, size_t) {
                      self->writing_ = false;
                      if (ec || close_after) return self->close();
                      self->maybe_write();
                      self->maybe_resume_reading();
                      self->maybe_finish_drain();
                    });
}

void Connection::maybe_resume_reading() {
  if (!reading_ && !closed_ &&
      slots_.size() < static_cast<size_t>(services_.configs.config().max_inflight_requests)) {
    read_size();
  }
}

}  // namespace strata::server
