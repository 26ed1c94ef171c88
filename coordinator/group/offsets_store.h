// OffsetsStore: where the group coordinator keeps what must survive a
// restart — the records of one __consumer_offsets partition, and the
// materialized view of them (committed offsets, group metadata).
//
// append() returns once the records are in the log (durable when the topic
// says so) and applied to the view, so a read right after sees them.
//
// Thread-safety: the shard that hosts the partition only.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "coordinator/group/group_records.h"

namespace strata::coordinator {

class OffsetsStore {
 public:
  struct Committed {
    std::string topic;
    int32_t partition = 0;
    CommittedOffset offset;
  };

  virtual ~OffsetsStore() = default;
  virtual void append(std::vector<GroupRecord> records, std::function<void(Status)> done) = 0;
  // Records written in the transaction of producer (id, epoch)
  // (TxnOffsetCommit): they take effect when its commit marker is written
  // to the partition, and never if it aborts.
  virtual void append_transactional(int64_t producer_id, int16_t producer_epoch,
                                    std::vector<GroupRecord> records,
                                    std::function<void(Status)> done) = 0;
  // Whether an offset of (group, topic, partition) is written in a
  // transaction that has not ended yet (OffsetFetch's require_stable).
  virtual bool pending_transactional(const std::string& group, const std::string& topic,
                                     int32_t partition) const = 0;
  virtual Result<std::optional<CommittedOffset>> committed(const std::string& group,
                                                           const std::string& topic,
                                                           int32_t partition) = 0;
  virtual Result<std::vector<Committed>> committed_all(const std::string& group) = 0;
  // Every group with stored metadata or committed offsets (for loading).
  virtual Result<std::vector<std::pair<std::string, std::optional<StoredGroup>>>> groups() = 0;
};

}  // namespace strata::coordinator
