// ShardSeam: how code outside one shard reaches the replicas of every shard
// — how many shards there are, which one owns a partition, posting work to
// a shard, the replica a shard hosts. The broker implements it; the fan-out
// helpers (fan_out.h), the follower's fetchers and the leader's fetch
// service reach the replicas only through it.
//
// Thread-safety: shard_count, shard_for, shard and stopping from any
// thread; find(i, uid) on shard i's thread only.
#pragma once

#include "base/ids.h"
#include "io/shard.h"

namespace strata::replication {

class Partition;

class ShardSeam {
 public:
  virtual unsigned shard_count() const = 0;
  // The shard that owns (or would own) partition `uid`.
  virtual unsigned shard_for(PartitionUid uid) const = 0;
  // post(), io() and id() of shard `i`.
  virtual io::Shard& shard(unsigned i) = 0;
  // The replica shard `i` hosts for `uid`, or nullptr (not created yet, or
  // deleted). On shard i's thread.
  virtual Partition* find(unsigned i, PartitionUid uid) = 0;
  // The process is shutting down: long polls answer at once.
  virtual bool stopping() const = 0;

 protected:
  ~ShardSeam() = default;
};

}  // namespace strata::replication
