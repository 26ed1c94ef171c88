// IndexStore: the broker's RocksDB database, one per data directory.
//
// This column families:
//   offset_index  (partition uid, offset) -> (segment, position, max ts before)
//   time_index    (partition uid, max ts before, offset) -> (segment, position)
//   applied       (partition uid, kind) -> marker of what the index covers
//   leader_epochs (partition uid, leader epoch) -> the epoch's start offset
//   producer_state (partition uid, producer id) -> that idempotent producer's
//                  state (engine/producer_states.h's encoding), as of the
//                  applied marker written with it
//   aborted_txns  (partition uid, abort marker offset) -> (producer id,
//                  first offset): the aborted transactions read_committed
//                  fetches list, as of the applied marker
//   group_offsets (partition uid, key) -> value: the group coordinator's
//                  view of a __consumer_offsets partition (View::kGroups)
//   txn_state     (partition uid, key) -> value: the transaction
//                  coordinator's view of a __transaction_state partition
//                  (View::kTransactions)
//   registry      (partition uid, key) -> value: the schema registry's view
//                  of the _schemas partition (View::kRegistry)
//   compaction_keys (partition uid, key hash) -> the key's latest record
//                  (index/compaction_state.h), kept on compacted topics as
//                  of the applied marker; the partition's CompactionState
//                  sits in `applied` (kind K)
// Keys are big-endian so key order is numeric order. Both indexes hold the
// same sparse entries: one per index.interval.bytes appended and one at the
// first batch of every segment. An entry says "the batch at `offset` starts
// at `position` of `segment`, and every record before it has a timestamp of
// at most `max_timestamp_before`" — which makes the time index monotonic
// even when record timestamps are not (as Kafka's time index is).
//
// The logs are the source of truth and the index is derived from them, so
// these writes skip RocksDB's WAL: after a crash the applied marker (written
// in the same WriteBatch as the entries it covers) tells recovery where to
// resume, and deleting the directory makes the logs rebuild it.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "index/compaction_state.h"

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
class WriteBatch;
}  // namespace rocksdb

namespace strata::index {

// "No record before this one": sorts below every real timestamp.
inline constexpr TimestampMs kNoTimestamp = INT64_MIN;

struct IndexEntry {
  Offset offset;     // base offset of the batch the entry points at
  Offset segment;    // base offset of the segment holding that batch
  FilePos position;  // byte position of the batch in the segment
  TimestampMs max_timestamp_before = kNoTimestamp;

  bool operator==(const IndexEntry&) const = default;
};

// A position in a partition's log together with the index state there; the
// applied marker and the recovery point are both of this shape.
struct LogPoint {
  Offset next_offset;                        // first offset not covered
  Offset segment;                            // segment where next_offset will start
  FilePos position;                          // its byte position in that segment
  TimestampMs max_timestamp = kNoTimestamp;  // largest timestamp below next_offset
  uint64_t bytes_since_entry = 0;            // bytes since the last index entry

  bool operator==(const LogPoint&) const = default;
};

// What retention needs of one segment, kept beside the markers so that a
// clean start does not rescan closed segments to learn it.
struct SegmentMeta {
  TimestampMs max_timestamp = kNoTimestamp;  // largest record timestamp (broker-derived)
  int64_t last_write_ms = 0;                 // when its last batch was committed
  bool operator==(const SegmentMeta&) const = default;
};

// A leader epoch of a partition and the offset of its first batch
// (KIP-101's epoch cache): written with the index entries, so the applied
// marker covers it, and rebuilt like them from the batches' epochs.
struct EpochEntry {
  LeaderEpoch epoch;
  Offset start_offset;
  bool operator==(const EpochEntry&) const = default;
};

// An aborted transaction of a partition: its producer, its first offset
// there and its abort marker's offset.
struct AbortedEntry {
  int64_t producer_id = -1;
  Offset first_offset;
  Offset last_offset;
  bool operator==(const AbortedEntry&) const = default;
};

class IndexStore {
 public:
  struct Options {
    // Flush the memtables when closing. A test turns this off to simulate a
    // crash that loses every index write not yet in an SST file.
    bool flush_on_close = true;
    size_t block_cache_bytes = 64 << 20;
    // Every column family's memtables together: past this they are flushed
    // (RocksDB's WriteBufferManager), so the index's memory is this plus
    // the block cache, whatever the number of keys, partitions or families.
    size_t write_buffer_bytes = 64 << 20;
  };

  static Result<std::unique_ptr<IndexStore>> open(const std::filesystem::path& dir,
                                                  const Options& options);
  static Result<std::unique_ptr<IndexStore>> open(const std::filesystem::path& dir) {
    return open(dir, Options{});
  }
  ~IndexStore();
  IndexStore(const IndexStore&) = delete;
  IndexStore& operator=(const IndexStore&) = delete;

  // Index entries and the applied marker of one partition, written together.
  class Update {
   public:
    explicit Update(PartitionUid uid);
    ~Update();
    Update(Update&&) noexcept;
    Update& operator=(Update&&) noexcept;
    void add(const IndexEntry& entry);
    void set_applied(const LogPoint& point);
    // The meta of the segment based at `segment`.
    void set_segment(Offset segment, const SegmentMeta& meta);
    // A new leader epoch starting at `start`.
    void add_epoch(const EpochEntry& epoch);
    // The state of producer `producer_id` (nullopt: it is gone).
    void set_producer(int64_t producer_id, std::optional<std::string> state);
    // A transaction aborted by the marker at `entry.last_offset`.
    void add_aborted(const AbortedEntry& entry);
    // The latest record of the key whose hash is `hash` (compacted topics).
    void put_key(uint64_t hash, KeyEntry entry);
    bool empty() const;

   private:
    friend class IndexStore;
    PartitionUid uid_;
    std::vector<IndexEntry> entries_;
    std::optional<LogPoint> applied_;
    std::vector<std::pair<Offset, SegmentMeta>> segments_;
    std::vector<EpochEntry> epochs_;
    std::vector<std::pair<int64_t, std::optional<std::string>>> producers_;
    std::vector<AbortedEntry> aborted_;
    std::vector<std::pair<uint64_t, KeyEntry>> keys_;
  };

  Status write(const Update& update);

  // The entry with the largest offset <= `offset`.
  Result<std::optional<IndexEntry>> offset_floor(PartitionUid uid, Offset offset) const;
  // The entry with the largest offset whose max_timestamp_before < `ts`:
  // every record before it is older than `ts`, so a search for the first
  // record at or after `ts` can start there.
  Result<std::optional<IndexEntry>> time_floor(PartitionUid uid, TimestampMs ts) const;
  // All offset-index entries of a partition in offset order (tests, tools).
  Result<std::vector<IndexEntry>> offset_entries(PartitionUid uid) const;
  Result<std::vector<IndexEntry>> time_entries(PartitionUid uid) const;

  Result<std::optional<LogPoint>> applied(PartitionUid uid) const;
  // The recovery point: everything before it was synced to disk.
  Result<std::optional<LogPoint>> recovery_point(PartitionUid uid) const;
  Status set_recovery_point(PartitionUid uid, const LogPoint& point);
  // The meta of the segment based at `segment`, if one was written.
  Result<std::optional<SegmentMeta>> segment_meta(PartitionUid uid, Offset segment) const;
  // The partition's leader epochs in epoch order.
  Result<std::vector<EpochEntry>> leader_epochs(PartitionUid uid) const;
  // The partition's producer states, by producer id.
  using ProducerRecord = std::pair<int64_t, std::string>;
  Result<std::vector<ProducerRecord>> producer_states(PartitionUid uid) const;
  // The partition's aborted transactions in marker-offset order.
  Result<std::vector<AbortedEntry>> aborted_txns(PartitionUid uid) const;

  // The key map's entry for `hash`, if any (compacted topics).
  Result<std::optional<KeyEntry>> key_entry(PartitionUid uid, uint64_t hash) const;
  // The entries of many hashes in one batched lookup (RocksDB MultiGet):
  // out[i] is hashes[i]'s. A cleaning asks for a batch's keys at once.
  Result<std::vector<std::optional<KeyEntry>>> key_entries(PartitionUid uid,
                                                           std::span<const uint64_t> hashes) const;
  // The number of key-map entries of a partition (tests, tools; scans them all).
  Result<uint64_t> key_count(PartitionUid uid) const;
  // The partition's compaction state (a default one if none was written).
  Result<CompactionState> compaction_state(PartitionUid uid) const;

  // A cleaning's result for the offsets [from, to): the offset and time
  // entries there are replaced by `entries`, the metas of
  // `removed_segments` dropped and those of `segments` set, the compaction
  // state replaced, and the key-map entries of the removed tombstones
  // (`dropped_keys`: hash and offset) deleted where they still name that
  // offset. Durable when it returns.
  struct Cleaned {
    Offset from;
    Offset to;
    std::vector<IndexEntry> entries;
    std::vector<std::pair<Offset, SegmentMeta>> segments;
    std::vector<Offset> removed_segments;
    CompactionState state;
    std::vector<std::pair<uint64_t, Offset>> dropped_keys;
    // Aborted transactions whose markers the cleaning removed (by marker offset).
    std::vector<Offset> dropped_aborted;
  };
  Status install_cleaned(PartitionUid uid, const Cleaned& cleaned);

  // Removes the entries with offset >= `from`, the metas of segments based
  // above it, the epochs starting at or after it and the aborted
  // transactions whose marker is at or after it, sets the applied marker
  // to `point` and caps the recovery point at it; with `producers`, they
  // replace every producer state of the partition (the states after the
  // cut), and `aborted` every aborted transaction: this write goes through
  // the WAL while the ones before it may not have, and producer states that
  // survive a crash without the aborted transactions they ended would hide
  // those from a later rescan. A cut below the applied marker also cuts
  // the key map (CompactionState::cut). Durable when it returns.
  Status truncate(PartitionUid uid, Offset from, const LogPoint& point,
                  const std::optional<std::vector<ProducerRecord>>& producers = std::nullopt,
                  const std::optional<std::vector<AbortedEntry>>& aborted = std::nullopt);
  // Removes the entries with offset < `before`, the metas of segments
  // based below it and the aborted transactions whose marker is below it
  // (retention); of the epochs starting below it only the latest stays,
  // starting at `before`.
  Status drop_before(PartitionUid uid, Offset before);
  // Removes everything of a partition. Durable when it returns.
  Status drop_partition(PartitionUid uid);

  // The coordinators' views: the materialized state of an internal topic's
  // partition (keys are prefixed with its uid), each in its own column
  // family, with the offset of the log up to which it was applied, written
  // together.
  // The values are the views' marker kinds in the applied family, apart
  // from the log's (A, R, and the segment metas S, bounded by T).
  enum class View : char {
    kGroups = 'G',
    kTransactions = 'X',
    kRegistry = 'Y'
  };  // markers of kind 'R' are recovery points
  struct KvOp {
    std::string key;                   // without the uid prefix
    std::optional<std::string> value;  // nullopt = delete
  };
  Status view_apply(View view, PartitionUid uid, Offset applied_next, const std::vector<KvOp>& ops);
  Result<std::optional<Offset>> view_applied(View view, PartitionUid uid) const;
  Result<std::optional<std::string>> view_get(View view, PartitionUid uid,
                                              const std::string& key) const;
  // Every (key, value) of `uid` whose key starts with `prefix`, keys without the uid.
  Result<std::vector<std::pair<std::string, std::string>>> view_scan(
      View view, PartitionUid uid, const std::string& prefix) const;
  // Drops the whole view of `uid` (before a full replay).
  Status view_reset(View view, PartitionUid uid);

  // Persists the memtables (clean shutdown).
  Status flush();

 private:
  IndexStore() = default;
  // kNoWal for the views the applied markers cover (recovery rebuilds what
  // a crash loses); kSynced for cuts that must survive one.
  enum class Durability { kNoWal, kSynced };
  Status commit(rocksdb::WriteBatch& wb, Durability durability, const char* what);
  Status put_marker(rocksdb::WriteBatch& wb, PartitionUid uid, char kind, const LogPoint& point);
  // Calls `fn` with every (key, value) of `uid` in `cf`, whose keys are the
  // uid and 8 bytes (kCorruption otherwise, naming `what`).
  Status scan_partition(
      rocksdb::ColumnFamilyHandle* cf, PartitionUid uid, std::string_view what,
      const std::function<Status(std::string_view key, std::string_view value)>& fn) const;
  Result<std::optional<LogPoint>> get_marker(PartitionUid uid, char kind) const;
  Status delete_time_entries(rocksdb::WriteBatch& wb, PartitionUid uid, Offset from,
                             bool at_or_after) const;
  // Deletes the epochs starting at or after `from`, or (`at_or_after`
  // false) those starting before it but the latest, which is moved to it.
  Status trim_epochs(rocksdb::WriteBatch& wb, PartitionUid uid, Offset from,
                     bool at_or_after) const;

  Options options_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::ColumnFamilyHandle* offset_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* time_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* applied_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* group_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* epoch_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* producer_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* aborted_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* txn_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* registry_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* keys_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* view_cf(View view) const {
    switch (view) {
      case View::kGroups: return group_cf_;
      case View::kTransactions: return txn_cf_;
      case View::kRegistry: return registry_cf_;
    }
    return group_cf_;
  }
};

}  // namespace strata::index
