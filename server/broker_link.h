// BrokerLink: one Kafka-protocol connection from a shard to another
// broker's listener, kept open for this broker's own requests to it — a
// transaction coordinator's WriteTxnMarkers to a partition's leader, a
// leader's AddPartitionsToTxn verification at a coordinator. Before, each
// such call opened and closed a connection of its own: a cluster committing
// a few hundred small transactions a second piled up sockets in TIME_WAIT
// by the thousand.
//
//   auto link = BrokerLink::create(io, "broker 3", "127.0.0.13", 9092, "127.0.0.11");
//   link->call(kafka::encode_request(header, req), 30000, [](Result<SharedBytes> r) {...});
//
// Requests go out one after another on the one connection; a broker
// answers a connection's requests in the order they came, so answers are
// matched to calls in order (the frames keep their callers' correlation
// ids). The connection leaves from `source` (the broker's listener
// address, io/tcp_connect.h). It opens at the first call; when it fails,
// every call in flight fails (kUnavailable) and the next call opens a new
// one. A call not answered within its timeout fails, and so does every
// call behind it: the connection is closed, since a late answer could no
// longer be matched.
//
// Thread-safety: the io_context's thread (the shard's) only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "base/result.h"
#include "base/shared_bytes.h"

namespace strata::server {

class BrokerLink : public std::enable_shared_from_this<BrokerLink> {
 public:
  // Gets a response frame without its size prefix (from the correlation
  // id on).
  using Callback = std::function<void(Result<SharedBytes>)>;

  // `peer` names the broker in errors ("broker 3").
  static std::shared_ptr<BrokerLink> create(boost::asio::io_context& io, std::string peer,
                                            std::string host, int32_t port, std::string source);
  ~BrokerLink();

  // Sends `request` (a whole frame, size prefix included).
  void call(std::vector<SharedBytes> request, int64_t timeout_ms, Callback done);
  // Fails every call in flight (kShutdown) and closes the connection.
  void close();

  bool same_address(const std::string& host, int32_t port) const {
    return host == host_ && port == port_;
  }

 private:
  BrokerLink(boost::asio::io_context& io, std::string peer, std::string host, int32_t port,
             std::string source);
  void connect();
  void write_next();
  void read_size();
  void read_body(size_t size);
  void fail_all(const Error& e);

  struct Call {
    uint64_t id = 0;
    std::vector<SharedBytes> request;
    Callback done;
    std::unique_ptr<boost::asio::steady_timer> timer;
  };

  boost::asio::io_context& io_;
  std::string peer_;
  std::string host_;
  int32_t port_;
  std::string source_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::ip::tcp::socket socket_;
  enum class State { kIdle, kConnecting, kConnected } state_ = State::kIdle;
  uint64_t next_id_ = 1;
  std::deque<Call> calls_;  // in the order sent: the order answered
  size_t sent_ = 0;         // how many of calls_ are written
  bool writing_ = false;
  std::byte size_[4];
  SharedBytes body_;
  uint64_t generation_ = 0;  // bumps with every connection: stale callbacks see it moved
};

}  // namespace strata::server
