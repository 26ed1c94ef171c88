// LogOffsetsStore: the OffsetsStore of one __consumer_offsets partition,
// over its replica (the log is the source of truth; records are appended
// through the replica like any write, so fetch waiters wake and, with
// replication, followers copy them) and the group_offsets column family of
// the IndexStore (the materialized view, with the log offset it was applied
// up to, so a restart replays only the tail).
//
//   LogOffsetsStore store(partition, index);
//   store.load([&](Status st) { coordinator.host(p, &store, store.groups().value()); });
//   follower_view.follow();   // where this broker only follows the partition
//
// Thread-safety: the shard that owns the log.
#pragma once

#include <map>
#include <memory>

#include "coordinator/group/offsets_store.h"
#include "index/index_store.h"
#include "replication/partition.h"

namespace strata::coordinator {

class LogOffsetsStore final : public OffsetsStore {
 public:
  LogOffsetsStore(replication::Partition& partition, index::IndexStore& index)
      : partition_(partition), log_(partition.log()), index_(index) {}
  // Appends still in flight complete with kShutdown.
  ~LogOffsetsStore() override;

  // Brings the view up to the end of the log (a leader's, before it serves
  // the groups). `done` runs on the log's shard.
  void load(std::function<void(Status)> done);
  // A follower's view: from now until this store is destroyed, applies the
  // records the replica's high watermark passes, as it moves — never any
  // above it, which a truncation could take back. So when this broker
  // becomes the partition's leader, load() replays only the tail. A view
  // ahead of the watermark (left by an earlier leadership) is rebuilt.
  void follow();
  uint64_t records_replayed() const { return replayed_; }

  void append(std::vector<GroupRecord> records, std::function<void(Status)> done) override;
  Result<std::optional<CommittedOffset>> committed(const std::string& group,
                                                   const std::string& topic,
                                                   int32_t partition) override;
  Result<std::vector<Committed>> committed_all(const std::string& group) override;
  Result<std::vector<std::pair<std::string, std::optional<StoredGroup>>>> groups() override;

 private:
  // Applies the records from `next` below `until`; `done` with where it stopped.
  void replay(Offset next, Offset until, std::function<void(Status, Offset)> done);
  void follow_from(Offset next);
  Status apply(const std::vector<GroupRecord>& records, Offset applied_next);

  replication::Partition& partition_;
  engine::Log& log_;  // the replica's, for reads
  index::IndexStore& index_;
  uint64_t replayed_ = 0;
  uint64_t next_append_ = 0;
  std::map<uint64_t, std::function<void(Status)>> appending_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace strata::coordinator
