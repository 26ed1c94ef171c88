// Log: one partition's log — its segments, the append pipeline, group-commit
// flush, reads by offset and by time, retention, and crash recovery at open.
//
//   auto log = Log::open(options).value();          // recovers if needed
//   Status st = log->append(batch, {.leader_epoch = e}, [](Result<AppendResult> r) {...});
//   log->flush([](Status st) { /* everything appended before is durable */ });
//   log->read(Offset(42), 1 << 20, [](Result<ReadResult> r) {...});
//
// Appends are validated, stamped with their offsets and written through the
// shard's io_uring ring; appends made while one handler runs are gathered
// into one writev. Readers see a batch only once its write completed (the
// log end offset moves then). A flush completes when every batch appended
// before it is on disk; flushes that wait together share one fdatasync.
//
// Thread-safety: a Log belongs to one shard; every call and callback runs on
// that shard's thread. Callbacks never run inside the call that registers
// them. The Log must outlive its operations: close() waits for them.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "base/clock.h"
#include "base/ids.h"
#include "base/result.h"
#include "base/shared_bytes.h"
#include "engine/leader_epoch_cache.h"
#include "engine/log_cleaner.h"
#include "engine/log_compaction.h"
#include "engine/log_producers.h"
#include "engine/producer_states.h"
#include "engine/record_batch.h"
#include "engine/segment.h"
#include "engine/topic_config.h"
#include "index/index_store.h"
#include "io/file_system.h"

namespace strata::engine {

struct LogOptions {
  PartitionUid uid;
  std::filesystem::path dir;  // <data>/<topic>-<partition>
  TopicConfig config;
  io::FileSystem* fs = nullptr;
  index::IndexStore* index = nullptr;
  const Clock* clock = nullptr;
  boost::asio::io_context* io = nullptr;
  // The data directory was shut down cleanly: trust the index markers and
  // skip the validating scan when they agree with the files.
  bool clean_start = false;
  // Bytes behind the log end kept in the page cache: once durable, older
  // bytes this process wrote are dropped from it, so the log recycles its
  // own pages instead of growing the cache (0: leave it all to the kernel).
  uint64_t cache_window_bytes = 0;
  // The page cache is given back (and, on topics not synced per write,
  // written back) in pieces of at least this many bytes.
  uint64_t cache_drop_chunk_bytes = 4 << 20;
  // producer.id.expiration.ms: an idempotent producer whose last batch here
  // is older than this is forgotten (LogProducers::expire).
  int64_t producer_id_expiration_ms = 86'400'000;
  // Called on the log's shard when a write, a sync or a new segment of the
  // log fails (a full or failing disk); the log itself carries on as
  // documented at each. The owner decides what else the failure means.
  std::function<void(const Error&)> on_storage_error;
};

struct AppendOptions {
  LeaderEpoch leader_epoch{0};
  bool allow_control = false;  // control batches: the broker's markers, a leader's copied
  bool from_client = true;     // require baseOffset 0
  // A follower's append of its leader's batch: the batch keeps the leader's
  // base offset (at or beyond this log's end: a compacted log has holes), leader epoch and
  // timestamps (no clock check: the leader accepted them). Validated like any other.
  bool keep_offsets = false;
};

// The answer to "where does my epoch end?" (OffsetForLeaderEpoch, KIP-279).
struct AppendResult {
  Offset base_offset;
  Offset last_offset;
  TimestampMs log_append_time = -1;  // -1 unless the topic uses LogAppendTime
};

struct ReadResult {
  // Whole batches in offset order; adjacent batches read together share one
  // slice. Empty when reading at the log end.
  std::vector<SharedBytes> slices;
  size_t bytes = 0;
  Offset log_end_offset;
};

struct TimestampLookup {
  Offset offset;
  TimestampMs timestamp;
};

// What recovery found and did at open (for logs and tests).
struct RecoveryReport {
  bool scanned = false;  // false when the clean-start markers were trusted
  uint64_t bytes_scanned = 0;
  uint64_t batches_scanned = 0;
  uint64_t bytes_truncated = 0;   // cut from the segment where the defect was
  uint64_t segments_removed = 0;  // whole segments after the defect
  std::optional<Error> defect;
};

class Log {
 public:
  using AppendCallback = std::function<void(Result<AppendResult>)>;
  using FlushCallback = std::function<void(Status)>;
  using ReadCallback = std::function<void(Result<ReadResult>)>;
  using TimestampCallback = std::function<void(Result<std::optional<TimestampLookup>>)>;

  // Opens (creating if needed) the partition directory and recovers it.
  static Result<std::unique_ptr<Log>> open(const LogOptions& options);
  ~Log();
  Log(const Log&) = delete;
  Log& operator=(const Log&) = delete;

  // Validates `batch` (see validate_batch), assigns its offsets and queues
  // the write. A batch that fails validation is refused here and never
  // reaches the disk; `done` runs only for accepted batches. `batch` is
  // modified in place (offsets, epoch, LogAppendTime).
  // An idempotent producer's batch is checked against its state here
  // (ProducerStates: kOutOfOrderSequence, kInvalidProducerEpoch); a retry
  // of one of its last five batches is not written again: `done` gets the
  // original's offsets once that one is committed. A follower's batches
  // (keep_offsets) are not checked, only recorded.
  Status append(SharedBytes batch, const AppendOptions& options, AppendCallback done);

  // Everything append() checks, without appending: validate_batch with this
  // topic's limits and, for CreateTime batches, every record's timestamp
  // against message.timestamp.{before,after}.max.ms (kInvalidTimestamp).
  // The header returned carries the broker-derived maxTimestamp, which
  // append() writes into the batch (with a new CRC) where the field differs.
  Result<BatchHeader> check_append(std::span<const std::byte> batch,
                                   const AppendOptions& options) const;

  // Completes once every batch appended before the call is durable.
  void flush(FlushCallback done);

  // Whole batches starting with the one holding `offset`, up to `max_bytes`
  // (at least one batch), none at or beyond `limit` (the high watermark for
  // consumers). kOffsetOutOfRange below the log start or beyond the log
  // end; empty at or beyond `limit`.
  void read(Offset offset, size_t max_bytes, Offset limit, ReadCallback done);
  void read(Offset offset, size_t max_bytes, ReadCallback done) {
    read(offset, max_bytes, Offset::max(), std::move(done));
  }

  // The first record whose timestamp is >= `ts`, or nullopt if none.
  void offset_for_timestamp(TimestampMs ts, TimestampCallback done);

  // Deletes the closed segments that retention.ms or retention.bytes expire.
  // Returns the number of segments deleted.
  Result<size_t> enforce_retention();
  // The idempotent and transactional producers' side of the log
  // (log_producers.h): their states, the last stable offset, the aborted
  // transactions a read_committed fetch lists, expiry.
  LogProducers& producers() { return producers_; }
  const LogProducers& producers() const { return producers_; }

  // Moves the log start offset up to `offset` (DeleteRecords), durably, and
  // deletes the segments wholly below it. `offset` must be within
  // [log start, log end].
  Status advance_start_offset(Offset offset);

  // Removes every batch at and after `offset` — a follower's tail that
  // diverged from its leader's. `offset` must start a batch (or be the log
  // end) and be at or above the log start; the cut is durable, in the
  // files and the index (epochs from there on go too), when it returns.
  // Blocks on a scan of at most one index interval. kInvalidArgument while
  // appends are in flight.
  Status truncate_to(Offset offset);

  // Empties the log and starts it again at `offset`, beyond its end (or
  // anywhere, when the log is empty): a follower whose log ends below its
  // leader's log start can only copy from there (Kafka's
  // truncate-fully-and-start-at), or from the base of the leader's batch
  // that holds it. The epochs go too. Durable
  // when it returns; a crash on the way leaves the old log, or a suffix of
  // it, or the new empty one. kInvalidArgument while appends are in flight.
  Status restart_at(Offset offset);

  // Compaction's side of the log (log_compaction.h): what a cleaning may
  // take, its plan, and the swap of its result.
  LogCompaction& compaction() { return compaction_; }
  const LogCompaction& compaction() const { return compaction_; }
  // Whether the log is alive (for work that finishes on its shard later).
  std::weak_ptr<bool> alive_token() const { return alive_; }

  // The leader epochs of the log's batches, each with the offset it begins.
  const std::map<int32_t, Offset>& leader_epochs() const { return epochs_.entries(); }
  // Kafka's epoch lookup (KIP-101/279) for a follower whose last epoch is
  // `epoch`: the asked epoch itself if it is the latest (ending at the log
  // end), else the largest epoch below it, ending where the next one
  // begins; with no epoch at or below it, `epoch` ending where the first
  // one begins; nothing (-1, -1) if `epoch` is above every epoch here or
  // the log has none.
  EpochEnd end_offset_for_epoch(LeaderEpoch epoch) const;

  // Stops taking work, waits for operations in flight, makes everything
  // durable and records it in the index. The Log may then be destroyed.
  void close(FlushCallback done);

  // Applies a new configuration (limits take effect for later appends).
  void set_config(const TopicConfig& config) { options_.config = config; }

  Offset log_start_offset() const { return start_offset_; }
  Offset log_end_offset() const { return end_offset_; }  // committed; readers see below it
  Offset durable_offset() const { return durable_offset_; }
  // Largest record timestamp in the log (kNoTimestamp when empty).
  TimestampMs max_timestamp() const { return applied_.max_timestamp; }
  const RecoveryReport& recovery() const { return recovery_; }
  const TopicConfig& config() const { return options_.config; }
  // What it was opened with: its directory, file system, index store,
  // clock and shard (io), and the configuration in force.
  const LogOptions& options() const { return options_; }
  PartitionUid uid() const { return options_.uid; }
  uint64_t fsync_count() const { return fsyncs_; }
  // Its segments, oldest first: sizes, bases, and the lookups of readers
  // inside engine/ (SegmentSet::containing, ::after).
  const SegmentSet& segments() const { return segments_; }

 private:
  friend class LogCompaction;
  friend class LogProducers;
  struct PendingAppend;
  struct WriteOp;
  struct FlushWaiter {
    Offset target;
    FlushCallback done;
  };

  explicit Log(const LogOptions& options);
  void report_storage_error(const Error& e);
  // Recovery at open, in named steps (log_recovery.cc).
  struct Recovery;
  Status recover();
  Status open_directory(Recovery& r);
  Status start_empty();
  Status open_segments(Recovery& r);
  Status choose_scan_start(Recovery& r);
  Status load_state_at_start(Recovery& r);
  Status scan_from_start(Recovery& r);
  Status cut_at_defect(Recovery& r);
  Status drop_empty_tail();
  Status finish_recovery(Recovery& r);
  // Where recovery may start scanning for a stored marker: the marker when
  // the bytes there are the batch it names, else the start of the segment
  // now holding its offsets; nullopt when neither can be trusted.
  Result<std::optional<index::LogPoint>> scan_start_from(const std::optional<index::LogPoint>& p);
  Status load_start_offset();
  Status store_start_offset();
  // Removes whole segments below `start` (never the active one).
  Status delete_segments_below(Offset start);
  // The idle check of truncate_to and restart_at.
  Status require_idle(std::string_view doing) const;
  Status restart_steps(Offset offset);
  Status open_new_segment(Offset base);
  bool should_roll(const Segment& active, size_t batch_bytes) const;
  // Reserves the next chunk of the active segment's blocks once the appends
  // come within half a chunk of what is reserved.
  void preallocate(Segment& active);
  void schedule_dispatch();
  void dispatch();
  void on_write_done(const std::shared_ptr<WriteOp>& op, Result<size_t> result);
  void commit_completed();
  void after_failed_writes();
  void maybe_start_sync();
  // Drops from the page cache the durable bytes more than
  // cache_window_bytes behind the log end.
  void drop_cold_cache();
  // Where the bytes of `seg` more than cache_window_bytes behind the log end
  // end, at most `limit`, `after` being the bytes of the later segments:
  // page-aligned unless it is the whole of a closed segment (`whole`).
  struct ColdEnd {
    uint64_t end;
    bool whole;
  };
  ColdEnd cold_end(const Segment& seg, uint64_t limit, uint64_t after, bool active) const;
  // On topics not synced with every write: writes back (not durably) the
  // bytes more than cache_window_bytes behind the log end, a chunk at a
  // time, and drops them from the cache once clean.
  void write_back_cold();
  void finish_close_if_idle();
  // Advances applied_ over a batch at `position` of `seg`, adding an index
  // entry to `update` when one is due. Returns whether it added one.
  bool track_entry(Segment& seg, uint64_t position, const BatchHeader& h,
                   std::span<const std::byte> bytes, index::IndexStore::Update& update);
  // Records the batch's leader epoch if it begins a new one.
  void track_epoch(const BatchHeader& h, index::IndexStore::Update& update);
  // Loads the stored epochs that begin below `before` (recovery re-derives
  // the rest from the batches it scans).
  Status load_epochs(Offset before);
  // A retry of the batch `original`: answered with its offsets once it is
  // committed (at once if it is).
  void answer_duplicate(const ProducerBatch& original, AppendCallback done);
  // Answers the duplicates whose original is now committed.
  void settle_duplicates(std::vector<std::pair<AppendCallback, Result<AppendResult>>>& results);
  // Of the epochs begun below `start` keeps only the latest, moved to it.
  void post(std::function<void()> fn);

  // Where reading for `offset` should start in `seg`: an index entry's
  // position, or 0.
  uint64_t start_position(const Segment& seg, Offset offset) const;
  void read_done();

  LogOptions options_;
  SegmentSet segments_;
  uint64_t active_assigned_ = 0;  // bytes of the active segment given to appends
  std::shared_ptr<io::File> dir_handle_;
  bool dir_dirty_ = false;

  Offset start_offset_{0};
  Offset next_offset_{0};     // next offset to assign
  Offset end_offset_{0};      // committed
  Offset durable_offset_{0};  // synced

  // Index state at end_offset_.
  index::LogPoint applied_;
  std::optional<index::IndexEntry> last_entry_;
  LeaderEpochCache epochs_;
  LogProducers producers_{*this};
  struct DuplicateWaiter {
    ProducerBatch original;
    AppendCallback done;
  };
  std::vector<DuplicateWaiter> duplicates_;  // originals still in flight

  std::vector<PendingAppend> pending_;
  bool dispatch_scheduled_ = false;
  std::deque<std::shared_ptr<WriteOp>> writes_;  // in flight, in offset order
  bool failing_ = false;        // a write failed; refuse appends until the in-flight ones drain
  bool rolling_back_ = false;   // commit reached a failed write: fail everything after it
  std::optional<Error> fatal_;  // a sync failed: the log refuses appends until reopened

  std::deque<FlushWaiter> flush_waiters_;
  bool sync_in_flight_ = false;
  uint64_t fsyncs_ = 0;

  size_t reads_in_flight_ = 0;
  size_t write_backs_in_flight_ = 0;  // their files must stay open: no truncation meanwhile
  bool closing_ = false;
  std::optional<FlushCallback> close_done_;

  LogCompaction compaction_{*this};

  RecoveryReport recovery_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace strata::engine
