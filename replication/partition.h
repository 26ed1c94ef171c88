// Partition: this broker's replica of one partition, on the shard that owns
// it — its Log, its role (leader or follower) and leader epoch, its high
// watermark, and the reads long-polling for it. Every write to a partition's
// log goes through here, so waiters wake and (with replication) followers
// are told.
//
// The high watermark is what consumers may read: with durability=fsync it is
// the durable offset (so nothing a consumer saw can vanish in a crash), with
// durability=replicated the log end. Every append to an fsync topic starts a
// (group-committed) flush so the watermark follows within about one
// fdatasync; a replicated topic flushes as flush.messages and flush.ms say
// (see FlushPolicy; the shard's timer calls flush_if_due).
//
// Client batches are stored in the topic's compression.type unless it is
// "producer": others are recompressed before they are appended. The replica
// speaks record batches as bytes; the Kafka wire formats stay in server/.
//
//   partition.append(batches, {.acks_all = true}, [](Result<AppendResult> r) {...});
//   partition.read(Offset(42), 1 << 20, [](Result<ReadResult> r) {...});
//
// Thread-safety: the owning shard's thread only.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/steady_timer.hpp>

#include "base/ids.h"
#include "base/result.h"
#include "base/shared_bytes.h"
#include "engine/log.h"
#include "replication/flush_policy.h"
#include "replication/in_sync_replicas.h"

namespace strata::replication {

enum class Role {
  kLeader,    // takes appends, serves reads
  kFollower,  // copies the leader (next issue); refuses client appends
};

struct AppendOptions {
  // acks=all: refused (kNotEnoughReplicas) before anything is appended
  // while fewer than min.insync.replicas replicas are in sync, and answered
  // once the high watermark passes the batches — every in-sync replica
  // holds them, synced on fsync topics. While waiting: the ISR falls below
  // min.insync.replicas → kNotEnoughReplicasAfterAppend; `timeout_ms`
  // passes → kTimedOut (at the deadline, on the log's io_context); the
  // leadership ends → kNotLeader. The batches stay appended in each case.
  bool acks_all = false;
  int64_t timeout_ms = 30000;
  // A client's batches (baseOffset 0, topic compression applies) rather
  // than ones the broker writes itself (group records, transaction markers:
  // engine::build_marker_batch, checked by engine::Log::append).
  bool from_client = true;
  // KIP-890: a client's transactional batch that would open its producer's
  // transaction on this partition is appended only once `verify_txn` has
  // confirmed with the transaction coordinator that the partition is in
  // the producer's transaction (nullptr: refused, kInvalidTxnState).
  // `done` must run on this partition's shard. A batch of a transaction
  // already open here needs no check.
  std::function<void(int64_t producer_id, int16_t epoch, std::function<void(Status)> done)>
      verify_txn;
  // Set by the append after a verification: the producer's last offset
  // when it began. If the producer wrote (a marker ended its transaction)
  // meanwhile, the verification is stale and the batch is refused.
  std::optional<Offset> txn_verified_at;
};

struct AppendResult {
  Offset base_offset;  // of the first batch
  Offset last_offset;  // of the last batch
  TimestampMs log_append_time = -1;
  Offset log_start_offset;
};

// A partition state's replicas and ISR as they concern this broker.
struct Assignment {
  int32_t self = -1;
  std::vector<int32_t> replicas;  // empty: this broker alone
  std::vector<int32_t> isr;
  int32_t partition_epoch = 0;
  int64_t lag_time_max_ms = 10000;  // replica.lag.time.max.ms
};

// An ISR change a leader asks the controller for (AlterPartition): the ISR
// it wants, and the epochs of the state it changes.
struct IsrProposal {
  std::string topic;
  PartitionId partition;
  LeaderEpoch leader_epoch;
  int32_t partition_epoch = 0;
  std::vector<int32_t> isr;
};

// The one error for a partition this shard holds no open replica of (never
// hosted here, moved away, or closing): the server answers it with
// NOT_LEADER_OR_FOLLOWER, so a client refreshes its metadata and retries.
Error not_hosted();

struct ReadResult {
  std::vector<SharedBytes> slices;  // whole batches in offset order
  size_t bytes = 0;
  Offset high_watermark;
  Offset last_stable_offset;
  Offset log_start_offset;
  // A read_committed read's aborted transactions that overlap what it read
  // (engine::Log::aborted_transactions), for the consumer to skip.
  std::vector<engine::AbortedTxn> aborted;
};

// A consumer's isolation level (Fetch and ListOffsets v2+).
enum class Isolation : int8_t { kReadUncommitted = 0, kReadCommitted = 1 };
// The level a request's isolation_level names; nullopt for neither.
inline std::optional<Isolation> isolation_from(int8_t level) {
  if (level == 0 || level == 1) return static_cast<Isolation>(level);
  return std::nullopt;
}

class Partition {
 public:
  Partition(std::string topic, PartitionId id, std::unique_ptr<engine::Log> log, Role role,
            LeaderEpoch leader_epoch);

  const std::string& topic() const { return topic_; }
  PartitionId id() const { return id_; }
  PartitionUid uid() const { return log_->uid(); }
  engine::Log& log() { return *log_; }
  Role role() const { return role_; }
  LeaderEpoch leader_epoch() const { return leader_epoch_; }

  // Takes the role and epoch the partition state gives this broker. The
  // epoch never goes back; a change wakes every waiter (their reads must
  // route again).
  void become(Role role, LeaderEpoch leader_epoch);

  // Applies a new topic configuration (the log's limits and the flush policy).
  void set_config(const engine::TopicConfig& config);

  // `listener` hears of every new flush.ms deadline (the shard arms its timer).
  void set_flush_listener(std::function<void(FlushPolicy::Clock::time_point)> listener) {
    flush_listener_ = std::move(listener);
  }
  // `proposer` hears an ISR expansion as soon as a follower's fetch shows
  // it caught up (Kafka expands at the fetch, too); other proposals wait
  // for the manager's look every second (isr_proposal).
  void set_isr_proposer(std::function<void(IsrProposal)> proposer) {
    isr_proposer_ = std::move(proposer);
  }
  // When flush.ms next asks for a flush; nullopt if it does not.
  std::optional<FlushPolicy::Clock::time_point> flush_deadline() const {
    return flush_policy_.deadline();
  }
  // Starts the flush that flush.ms asks for, if it is due at `now`.
  void flush_if_due(FlushPolicy::Clock::time_point now);

  Offset high_watermark() const;
  // Where read_committed readers stop: below the high watermark and the
  // first offset of every transaction not yet ended there
  // (engine::Log::last_stable_offset).
  // Never below the log start (DeleteRecords, retention): Kafka's clamp.
  Offset last_stable_offset() const {
    return std::max(log_->producers().last_stable_offset(high_watermark()),
                    log_->log_start_offset());
  }
  // The offset a consumer at `isolation` may read up to.
  Offset visible_end(Isolation isolation) const {
    return isolation == Isolation::kReadCommitted ? last_stable_offset() : high_watermark();
  }

  // Appends record batches (each one whole batch) as one unit: all are
  // validated before any is appended. Only the leader takes appends
  // (kNotLeader otherwise). `done` runs once they are written, or with
  // `acks_all` once the high watermark passes them (AppendOptions).
  void append(std::vector<SharedBytes> batches, const AppendOptions& options,
              std::function<void(Result<AppendResult>)> done);

  // Moves the log start offset up to `offset` (DeleteRecords): below it
  // nothing is readable any more. Only the leader; `offset` must be within
  // [log start, high watermark] (kOffsetOutOfRange). Returns the new start.
  Result<Offset> delete_records(Offset offset);

  // Whole batches from `offset` below the high watermark (read_committed:
  // the last stable offset, with the aborted transactions they overlap), up
  // to `max_bytes`.
  void read(Offset offset, size_t max_bytes, Isolation isolation,
            std::function<void(Result<ReadResult>)> done);
  void read(Offset offset, size_t max_bytes, std::function<void(Result<ReadResult>)> done) {
    read(offset, max_bytes, Isolation::kReadUncommitted, std::move(done));
  }

  // Calls `fire` once, when the high watermark moves past `seen` (at once if
  // it already has). Waiters whose `alive` token expired are dropped.
  void wait(Offset seen, std::weak_ptr<void> alive, std::function<void()> fire);

  // What a follower copies: whole batches from `offset` up to the log end
  // (not the high watermark), up to `max_bytes` (at least one batch). Only
  // the leader serves it (kNotLeader).
  void read_for_follower(Offset offset, size_t max_bytes,
                         std::function<void(Result<ReadResult>)> done);
  // Calls `fire` once, when the log end moves past `seen` (a follower's
  // long poll).
  void wait_for_end(Offset seen, std::weak_ptr<void> alive, std::function<void()> fire);

  // A follower's side. append_from_leader() takes `records` — whole
  // batches as the leader's read_for_follower() gave them — as they are
  // (offsets, epochs, CRCs kept; each validated); `done` gets the new log
  // end. truncate_to() cuts a divergent tail (engine::Log::truncate_to)
  // once the writes and syncs in flight are done; `done` with the result.
  // restart_at() likewise empties the log to start it at `offset`, when the
  // leader's log starts beyond it (engine::Log::restart_at).
  // set_leader_high_watermark() records the leader's watermark from a
  // fetch: a follower's own is the lower of it and what it holds (synced,
  // on fsync topics). Only a follower (kInvalidArgument on the leader).
  // The partition state's replicas and ISR (Assignment). A
  // leader of more than one replica tracks its followers from then on
  // (InSyncReplicas): its high watermark waits for the ISR.
  void set_assignment(const Assignment& assignment);
  // The ISR change this leader should propose to the controller now, if
  // any (InSyncReplicas::proposal): the same proposal is made again only
  // after kProposalRetryMs without a new state.
  std::optional<IsrProposal> isr_proposal();
  static constexpr int64_t kProposalRetryMs = 5000;
  // A follower fetched from `fetch_offset` (its log end), having synced up
  // to `durable`: the leader's side of the RPC Fetch.
  void on_follower_fetch(int32_t replica, Offset fetch_offset, Offset durable);
  // Time passed: a leader of several replicas looks at its followers again.
  void tick();

  void append_from_leader(std::span<const std::byte> records,
                          std::function<void(Result<Offset>)> done);
  // The same without copying: the batches are appended as views of
  // `records` (a fetch response frame's attachment).
  void append_from_leader(SharedBytes records, std::function<void(Result<Offset>)> done);
  void truncate_to(Offset offset, std::function<void(Status)> done);
  void restart_at(Offset offset, std::function<void(Status)> done);
  void set_leader_high_watermark(Offset hw);
  // The leader's log start offset from a fetch: a follower moves its own
  // up to it (the leader's DeleteRecords and retention), as far as its log
  // reaches — so a new leader never serves records the old one deleted.
  void set_leader_log_start(Offset start);
  // A follower applies one fetch response's partition: `records` (whole
  // batches from its log end; an emptied log first restarts at their
  // base), the leader's high watermark and log start. On a fsync topic
  // `done` waits for the copy to be synced: the leader learns what the
  // follower holds durably from its next fetch, which must carry it.
  void apply_from_leader(SharedBytes records, Offset leader_high_watermark, Offset leader_log_start,
                         std::function<void(Status)> done);
  // Where a follower stands, for its next request to the leader: the last
  // leader epoch in its log (-1: none), its log end, what of it is synced,
  // and its high watermark.
  struct FollowerPosition {
    int32_t last_epoch = -1;
    Offset log_end;
    Offset durable;
    Offset high_watermark;
  };
  FollowerPosition follower_position() const;
  // truncate_to() unless the log already ends at or below `offset`.
  void truncate_above(Offset offset, std::function<void(Status)> done);
  // Fires every waiter (shutdown, role changes).
  void wake_all();

  void close(std::function<void(Status)> done) { log_->close(std::move(done)); }

 private:
  // kNotLeader unless this replica leads.
  Status require_leader() const;
  // kInvalidArgument unless this replica follows.
  Status require_follower() const;
  // Runs `cut` (a truncation of the log) once what is in flight landed, if
  // this replica still follows; `done` with its result.
  void when_idle_as_follower(std::function<Status()> cut, std::function<void(Status)> done);
  // Whole batches from `offset`, none at or beyond `limit`.
  void read_below(Offset offset, size_t max_bytes, Offset limit, Isolation isolation,
                  std::function<void(Result<ReadResult>)> done);
  void after_append(int64_t records);
  void notify();
  // acks=all appends waiting for the high watermark: answered, or failed
  // (see AppendOptions), whichever applies now.
  void settle_acks();
  void fail_acks(const Error& error);
  // Arms ack_timer_ for the earliest deadline of ack_waiters_ (settle_acks
  // then answers kTimedOut on time, not at the next tick).
  void arm_ack_timer();
  // Re-encodes `batches` in the topic's compression.type (unless "producer").
  Status apply_topic_compression(std::vector<SharedBytes>& batches) const;
  // The steps of append(), in order. kNotEnoughReplicas while an acks=all
  // write could not be acknowledged.
  Status check_min_isr() const;
  // kInvalidRecord for an idempotent producer's request of several batches.
  Status check_idempotent_request(const std::vector<SharedBytes>& batches) const;
  // A transactional write whose transaction is not open here (KIP-890): true
  // when it was answered with an error or taken, with `done`, to be
  // appended once the coordinator verified it; false to append now.
  bool defer_for_transaction(std::vector<SharedBytes>& batches, const AppendOptions& options,
                             std::function<void(Result<AppendResult>)>& done);
  // Appends the batches (all or none of several), then answers: at once, or
  // for acks=all through acknowledge().
  void write(std::vector<SharedBytes> batches, const AppendOptions& options,
             std::function<void(Result<AppendResult>)> done);
  // An acks=all answer: once the in-sync replicas hold `appended` (or this
  // broker alone synced it), unless the leadership of `appended_in` ended.
  void acknowledge(AppendResult appended, LeaderEpoch appended_in, int64_t timeout_ms,
                   std::function<void(Result<AppendResult>)> done);
  void start_policy_flush();

  struct Waiter {
    Offset seen;
    std::weak_ptr<void> alive;
    std::function<void()> fire;
    bool log_end = false;  // waits for the log end, not the high watermark
  };

  std::string topic_;
  PartitionId id_;
  std::unique_ptr<engine::Log> log_;
  Role role_;
  LeaderEpoch leader_epoch_;
  Offset leader_high_watermark_{0};          // a follower's: the leader's, as last fetched
  std::unique_ptr<InSyncReplicas> in_sync_;  // a leader of several replicas
  // Where a new ISR tracker starts its watermark: what the replica exposed
  // when it last changed role (0 when just opened); unset, a leader whose
  // replica set grew keeps its current watermark.
  std::optional<Offset> start_hw_ = Offset(0);
  std::vector<Waiter> waiters_;
  struct AckWaiter {
    AppendResult result;
    int64_t deadline_ms;  // steady
    std::function<void(Result<AppendResult>)> done;
  };
  std::vector<AckWaiter> ack_waiters_;
  std::unique_ptr<boost::asio::steady_timer> ack_timer_;  // created with the first waiter
  int64_t ack_timer_at_ms_ = -1;                          // its deadline (steady); -1: idle
  // The producers whose transactional write is being verified with their
  // coordinator (AppendOptions::verify_txn), each with the writes of the
  // producer that came meanwhile, to be appended after it in order.
  std::unordered_map<int64_t, std::shared_ptr<std::vector<std::function<void(bool alive)>>>>
      verifying_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  int32_t partition_epoch_ = 0;                       // of the last assignment
  std::optional<std::vector<int32_t>> proposed_isr_;  // asked for at partition_epoch_
  int64_t proposed_at_ms_ = 0;
  FlushPolicy flush_policy_;
  std::function<void(FlushPolicy::Clock::time_point)> flush_listener_;
  std::function<void(IsrProposal)> isr_proposer_;
};

}  // namespace strata::replication
