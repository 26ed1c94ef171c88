// LogOffsetsStore: the OffsetsStore of one __consumer_offsets partition: a
// LogView of it (the group_offsets column family) whose keys are an
// offset's (group, topic, partition) or a group's name.
//
//   LogOffsetsStore store(partition, index);
//   store.load([&](Status st) { coordinator.host(p, &store, store.groups().value()); });
//   follower_view.follow();   // where this broker only follows the partition
//
// Thread-safety: the shard that owns the log.
#pragma once

#include "coordinator/group/offsets_store.h"
#include "coordinator/log_view.h"

namespace strata::coordinator {

class LogOffsetsStore final : public OffsetsStore {
 public:
  LogOffsetsStore(replication::Partition& partition, index::IndexStore& index);

  // Brings the view up to the end of the log (a leader's, before it serves
  // the groups). `done` runs on the log's shard.
  void load(std::function<void(Status)> done) { view_.load(std::move(done)); }
  // A follower's view, kept current for the day this broker leads (LogView::follow).
  void follow() { view_.follow(); }
  uint64_t records_replayed() const { return view_.records_replayed(); }

  void append(std::vector<GroupRecord> records, std::function<void(Status)> done) override;
  void append_transactional(int64_t producer_id, int16_t producer_epoch,
                            std::vector<GroupRecord> records,
                            std::function<void(Status)> done) override;
  bool pending_transactional(const std::string& group, const std::string& topic,
                             int32_t partition) const override;
  // A transaction marker for this partition (LogView::append_marker).
  void append_marker(const engine::TxnMarker& marker, std::function<void(Status)> done) {
    view_.append_marker(marker, std::move(done));
  }
  Result<std::optional<CommittedOffset>> committed(const std::string& group,
                                                   const std::string& topic,
                                                   int32_t partition) override;
  Result<std::vector<Committed>> committed_all(const std::string& group) override;
  Result<std::vector<std::pair<std::string, std::optional<StoredGroup>>>> groups() override;

 private:
  LogView view_;
};

}  // namespace strata::coordinator
