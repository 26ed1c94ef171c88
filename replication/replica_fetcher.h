// ReplicaFetchers: how this broker's follower replicas copy their leaders —
// one fetcher per leader broker, on one rpc.port connection carrying every
// partition it follows there (replication.proto).
//
//   ReplicaFetchers fetchers(shards, {.self = 2, .source_host = "127.0.0.12", ...});
//   fetchers.follow(partitions);   // on the home shard, after each metadata refresh
//
// A partition starts (and restarts, at every new leader epoch) by asking the
// leader where its last epoch ends and truncating there, repeating until the
// leader's answer names that same epoch (KIP-101/279); then it fetches from
// its log end, long-polling, appends what comes as it is (on fsync topics
// synced before the next fetch, which tells the leader), and takes the
// leader's high watermark. A partition the leader refuses (not the leader,
// a fenced or unknown epoch) waits for the next metadata change.
//
// Thread-safety: the home shard (where the connections live); the replicas
// are reached on their own shards through the ShardSeam.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/ids.h"
#include "replication/shard_seam.h"
#include "replication/wire_codes.h"

namespace strata::replication {

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

struct FetcherOptions {
  unsigned home_shard = 0;  // where the connections and timers live
  int32_t self = -1;        // this broker's node id, sent on every call
  std::string source_host;  // the address calls leave from
  int32_t wait_max_ms = 500;
  int32_t max_bytes = 1 << 20;                  // per partition
  int32_t response_max_bytes = 10 * (1 << 20);  // per call
  WireCodes codes;
};

class ReplicaFetchers {
 public:
  ReplicaFetchers(ShardSeam& shards, FetcherOptions options);
  ~ReplicaFetchers();
  // Follows exactly `partitions` from now on (on the home shard).
  void follow(std::vector<Followed> partitions);
  // Stops every fetcher (on the home shard).
  void stop();

 private:
  ShardSeam& shards_;
  FetcherOptions options_;
  std::map<int32_t, std::shared_ptr<LeaderFetcher>> by_leader_;
};

}  // namespace strata::replication
