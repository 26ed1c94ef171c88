// Listener: the TCP acceptor. Runs on shard 0 and gives each accepted
// connection to the next shard in turn; keeps, per shard, the connections it
// handed out so shutdown can drain them.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "base/result.h"
#include "io/tcp_listen.h"

namespace strata::server {

class Broker;
class Connection;

class Listener {
 public:
  // On shard 0: binds and listens; connections are accepted after start().
  static Result<std::unique_ptr<Listener>> open(Broker& broker);
  void start() { accept(); }
  uint16_t port() const { return port_; }
  // On shard 0: stop accepting.
  void close();
  // On shard `i`: drain its connections; force-close what is left at
  // `deadline`. `done` runs on shard `i`.
  void drain_shard(unsigned i, std::chrono::steady_clock::time_point deadline,
                   std::function<void()> done);

 private:
  explicit Listener(Broker& broker);
  void accept();

  Broker& broker_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  unsigned next_shard_ = 0;
  // Per shard, touched only on that shard.
  std::vector<std::vector<std::weak_ptr<Connection>>> connections_;
};

}  // namespace strata::server
