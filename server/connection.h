// Connection: one client's TCP connection, on the shard it was given to.
//
// Reads size-prefixed request frames (refusing any over
// socket.request.max.bytes before allocating it), hands each to its API
// handler, and writes the responses back in request order even though
// handlers finish out of order (clients pipeline). At most
// max.inflight.requests.per.connection requests are in progress; reading
// pauses beyond that. A frame that cannot be answered (unknown API or
// version, unreadable header or body) closes the connection; other
// connections are unaffected.
//
// Thread-safety: the shard's thread only. Handlers keep the Connection alive
// (shared_ptr) until they reply.
#pragma once

#include <array>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "base/shared_bytes.h"
#include "server/dispatch.h"
#include "server/shard_state.h"

namespace strata::server {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Services services, ShardState& shard, boost::asio::ip::tcp::socket socket);

  void start();
  // Stops reading new requests; closes once every started request was
  // answered. `closed` runs when the socket is closed.
  void drain(std::function<void()> closed);
  void close();
  bool closed() const { return closed_; }

 private:
  struct Slot {
    bool done = false;
    Reply reply;
  };

  void read_size();
  void read_frame(size_t size);
  void handle_frame(SharedBytes frame);
  void complete(uint64_t seq, Reply reply);
  void maybe_write();
  void maybe_resume_reading();
  void maybe_finish_drain();
  // Nothing in progress: no request being read, waiting or being answered.
  bool quiet() const { return slots_.empty() && !writing_ && !in_frame_; }

  // How long a draining connection stays open with nothing to do.
  static constexpr std::chrono::milliseconds kDrainQuiet{200};

  std::shared_ptr<const ConnectionInfo> info_;
  Services services_;
  ShardState& shard_;  // not used once the connection is being destroyed
  ShardState::ConnectionCount counted_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer quiet_timer_{socket_.get_executor()};
  std::array<std::byte, 4> size_buf_{};
  std::deque<Slot> slots_;  // requests in arrival order, front = oldest
  uint64_t first_seq_ = 0;  // sequence number of slots_.front()
  bool reading_ = false;
  bool writing_ = false;
  bool closed_ = false;
  bool draining_ = false;
  bool in_frame_ = false;  // a request's size was read, its body not yet
  std::function<void()> on_closed_;
};

}  // namespace strata::server
