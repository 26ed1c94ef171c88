// RpcServer: this broker's rpc.port, where followers copy the partitions it
// leads (proto/replication/replication.proto): EpochEnd (where a follower's
// last epoch ends here, KIP-101/279) and Fetch (whole batches from the
// follower's log end, up to this log's end, long-polling until there are
// some), and the controller's side of AlterIsr and ControlledShutdown.
// Every partition is routed like a client's (LeaderRoutes: this broker
// leads it at the follower's current leader epoch), then served on its
// owning shard (ShardSeam).
//
//   auto rpc = RpcServer::open({shards, routes, controller, codes}, host, port).value();
//   rpc->start(); ... rpc->close();                 // on the home shard
//
// Thread-safety: the acceptor on the home shard; each connection on the
// shard it was given to.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "base/result.h"
#include "replication/partition.h"
#include "replication/shard_seam.h"
#include "replication/wire_codes.h"

namespace strata::replication {

// Where the partitions a follower names are led: the broker's view of the
// cluster, as it routes a client's request.
class LeaderRoutes {
 public:
  struct Ask {
    std::string_view topic;
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;
  };
  // One answer per ask, from one view of the cluster: the partition's uid
  // where this broker leads it at that epoch, else kNotFound,
  // kFencedLeaderEpoch, kUnknownLeaderEpoch or kNotLeader. Any thread.
  virtual std::vector<Result<PartitionUid>> route(std::span<const Ask> asks) const = 0;

 protected:
  ~LeaderRoutes() = default;
};

// The controller's side of the calls followers and leaders make to it:
// this broker's controller, or an error when it is not the controller.
// Called on shard `origin`; `done` runs there.
class ControllerCalls {
 public:
  virtual void alter_isr(unsigned origin, int32_t leader, std::vector<IsrProposal> proposals,
                         std::function<void(Result<std::vector<Status>>)> done) = 0;
  // Moves `leaving`'s leaderships away; `done` gets how many remain.
  virtual void hand_over(unsigned origin, int32_t leaving,
                         std::function<void(Result<size_t>)> done) = 0;

 protected:
  ~ControllerCalls() = default;
};

// What the server reaches; all outlive it and its connections.
struct RpcServices {
  ShardSeam& shards;
  const LeaderRoutes& routes;
  ControllerCalls& controller;
  WireCodes codes;
  unsigned home_shard = 0;  // where the acceptor lives
};

class RpcServer {
 public:
  static Result<std::unique_ptr<RpcServer>> open(RpcServices services, const std::string& host,
                                                 uint16_t port);
  void start() { accept(); }
  uint16_t port() const { return port_; }
  // Stops accepting (open connections end with the broker's shards).
  void close();

 private:
  explicit RpcServer(RpcServices services);
  void accept();

  RpcServices services_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  unsigned next_shard_ = 0;
};

}  // namespace strata::replication
