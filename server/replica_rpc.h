// RpcServer: this broker's rpc.port, where followers copy the partitions it
// leads (proto/replication/replication.proto): EpochEnd (where a follower's
// last epoch ends here, KIP-101/279) and Fetch (whole batches from the
// follower's log end, up to this log's end, long-polling until there are
// some). Every partition is routed like a client's (route_partition: this
// broker leads it at the follower's current leader epoch), then served on
// its owning shard.
//
//   auto rpc = RpcServer::open(broker).value();   // on shard 0; binds
//   rpc->start(); ... rpc->close();
//
// Thread-safety: the acceptor on shard 0; each connection on the shard it
// was given to.
#pragma once

#include <cstdint>
#include <memory>

#include <boost/asio/ip/tcp.hpp>

#include "base/result.h"

namespace strata::server {

class Broker;

class RpcServer {
 public:
  static Result<std::unique_ptr<RpcServer>> open(Broker& broker);
  void start() { accept(); }
  uint16_t port() const { return port_; }
  // Stops accepting (open connections end with the broker's shards).
  void close();

 private:
  explicit RpcServer(Broker& broker);
  void accept();

  Broker& broker_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  unsigned next_shard_ = 0;
};

}  // namespace strata::server
