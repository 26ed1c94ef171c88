// LogView: the materialized view of one partition of an internal topic
// (__consumer_offsets, __transaction_state) that a coordinator serves from.
// The log is the source of truth: records are appended through the replica
// like any write (so fetch waiters wake and followers copy them), and each
// record, once written, is mapped to a key/value operation on the view's
// column family of the IndexStore, applied together with the log offset it
// covers so that a restart replays only the tail.
//
//   LogView view("__transaction_state", partition, index, View::kTransactions, map);
//   view.load([&](Status st) { ... serve from view.scan("") ... });   // a leader
//   view.follow();        // where this broker only follows the partition
//   view.append({{key, value}}, [](Status st) { ... applied ... });
//
// Keys starting with byte 0x01 are the view's own (a transaction's held
// operations): a mapper never produces one.
//
// Thread-safety: the shard that owns the log.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/control_record.h"
#include "engine/record_batch.h"
#include "index/index_store.h"
#include "replication/partition.h"

namespace strata::coordinator {

class LogView {
 public:
  using View = index::IndexStore::View;
  using KvOp = index::IndexStore::KvOp;
  // A record as the coordinator writes it: key and value (nullopt: a tombstone).
  struct Record {
    std::string key;
    std::optional<std::string> value;
  };
  // What one record of the log means for the view: an operation, or
  // nothing (a record of a format this broker skips); an error stops the
  // replay where it is.
  using Mapper = std::function<Result<std::optional<KvOp>>(
      std::span<const std::byte> key, std::optional<std::span<const std::byte>> value)>;

  LogView(std::string_view topic, replication::Partition& partition, index::IndexStore& index,
          View view, Mapper map);
  // Appends still in flight complete with kShutdown.
  ~LogView();
  LogView(const LogView&) = delete;
  LogView& operator=(const LogView&) = delete;

  // Brings the view up to the end of the log (a leader's, before it
  // serves). `done` runs on the log's shard.
  void load(std::function<void(Status)> done);
  // A follower's view: from now until this view is destroyed, applies the
  // records the replica's high watermark passes, as it moves — never any
  // above it, which a truncation could take back. So when this broker
  // becomes the partition's leader, load() replays only the tail. A view
  // ahead of the watermark (left by an earlier leadership) is rebuilt.
  void follow();
  uint64_t records_replayed() const { return replayed_; }

  // The producer a transactional write is made for.
  struct TxnProducer {
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
  };
  // Appends `records` as one batch (acks=all: `done` once the in-sync
  // replicas hold it) and applies them to the view — with `txn`, as part of
  // that producer's transaction: held back until its commit marker (and
  // dropped at an abort marker).
  void append(std::vector<Record> records, std::function<void(Status)> done,
              std::optional<TxnProducer> txn = std::nullopt);
  // Appends a transaction marker (acks=all); a commit applies the
  // producer's held-back records to the view — those no later plain
  // record of the same key superseded: as in Kafka, of a transactional and
  // a plain write of one key, the one appended later wins.
  void append_marker(const engine::TxnMarker& marker, std::function<void(Status)> done);

  Result<std::optional<std::string>> get(const std::string& key) const;
  // Whether a transaction not ended yet writes `key`.
  bool in_open_transaction(const std::string& key) const;
  // Every (key, value) whose key starts with `prefix`.
  Result<std::vector<std::pair<std::string, std::string>>> scan(const std::string& prefix) const;

  replication::Partition& partition() { return partition_; }

 private:
  // Applies the records from `next` below `until`; `done` with where it stopped.
  void replay(Offset next, Offset until, std::function<void(Status, Offset)> done);
  void follow_from(Offset next);
  // Applies `ops`, with the log applied up to `after`.
  Status apply(const std::vector<KvOp>& ops, Offset after);
  // Holds `ops` for `producer_id`'s open transaction: kept in open_txns_,
  // and their held copies added to `out`.
  void hold(int64_t producer_id, std::vector<KvOp> ops, std::vector<KvOp>& out);
  // Drops the held operations of open transactions that `ops` (plain,
  // appended after them) supersede, adding the removal of their held copies
  // to `out`.
  void supersede(const std::vector<KvOp>& ops, std::vector<KvOp>& out);
  // `ops` of a plain record, and what they supersede, onto `out`.
  void apply_plain(std::vector<KvOp> ops, std::vector<KvOp>& out);
  // open_txns_ from the held operations the view has.
  Status restore_held();
  // The operations of whole batches (`slices`, as a read returned them)
  // from offset `from` on, appended to `out` (a transaction's when its
  // commit marker comes); returns the offset after the last batch.
  Result<Offset> map_batches(const std::vector<SharedBytes>& slices, Offset from,
                             std::vector<KvOp>& out);
  Status map_records(std::span<const std::byte> payload, const engine::BatchHeader& h, Offset from,
                     std::vector<KvOp>& out) const;
  // A marker for `producer_id`: its held-back operations go to `out` on a
  // commit and are dropped on an abort.
  void end_transaction(int64_t producer_id, bool commit, std::vector<KvOp>& out);

  std::string topic_;
  replication::Partition& partition_;
  engine::Log& log_;  // the replica's, for reads
  index::IndexStore& index_;
  View view_;
  Mapper map_;
  uint64_t replayed_ = 0;
  uint64_t next_append_ = 0;
  std::map<uint64_t, std::function<void(Status)>> appending_;
  // The operations of the open transactions, by producer id and index (the
  // order they were written in; a superseded one leaves a gap): a
  // copy of what the view holds for them (under keys of their own, written
  // with the applied offset like every operation), so neither a restart nor
  // a new leader reads their records again.
  std::map<int64_t, std::map<uint32_t, KvOp>> open_txns_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace strata::coordinator
