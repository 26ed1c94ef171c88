// ReplicaFetchers: how this broker's follower replicas copy their leaders —
// one fetcher per leader broker, on one rpc.port connection carrying every
// partition it follows there (replication.proto).
//
//   fetchers.follow(followed_partitions(*snapshot, self));   // after each refresh
//
// A partition starts (and restarts, at every new leader epoch) by asking the
// leader where its last epoch ends and truncating there, repeating until the
// leader's answer names that same epoch (KIP-101/279); then it fetches from
// its log end, long-polling, appends what comes as it is (on fsync topics
// synced before the next fetch, which tells the leader), and takes the
// leader's high watermark. A partition the leader refuses (not the leader,
// a fenced or unknown epoch) waits for the next metadata change.
//
// Thread-safety: shard 0 (where the connections live); the replicas are
// reached on their own shards.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/ids.h"
#include "coordinator/cluster_metadata.h"

namespace strata::server {

class Broker;
class LeaderFetcher;

// One partition this broker follows, and where its leader is.
struct Followed {
  PartitionUid uid;
  std::string topic;
  int32_t partition = 0;
  int32_t leader = -1;
  int32_t leader_epoch = 0;
  std::string host;
  int32_t rpc_port = -1;
};

// The partitions `self` follows in `snap` whose leader is live and
// reachable (an advertised rpc port).
std::vector<Followed> followed_partitions(const coordinator::ClusterSnapshot& snap, int32_t self);

class ReplicaFetchers {
 public:
  explicit ReplicaFetchers(Broker& broker);
  ~ReplicaFetchers();
  // Follows exactly `partitions` from now on (on shard 0).
  void follow(std::vector<Followed> partitions);
  // Stops every fetcher (on shard 0).
  void stop();

 private:
  Broker& broker_;
  std::map<int32_t, std::shared_ptr<LeaderFetcher>> by_leader_;
};

}  // namespace strata::server
