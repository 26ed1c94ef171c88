#include "index/index_store.h"

#include <algorithm>
#include <functional>
#include <mutex>

#include <fmt/format.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include "index/key_codec.h"

namespace strata::index {
namespace {

constexpr char kApplied = 'A';
constexpr char kRecoveryPoint = 'R';
constexpr char kSegmentMeta = 'S';
constexpr char kCompaction = 'K';
constexpr size_t kLogPointSize = 40;
constexpr size_t kSegmentMetaSize = 16;

std::string segment_meta_key(PartitionUid uid, Offset segment) {
  std::string k = keys::marker_key(uid, kSegmentMeta);
  keys::append_u64(k, keys::flip(segment.value()));
  return k;
}

std::string encode_segment_meta(const SegmentMeta& m) {
  std::string v;
  keys::append_u64(v, keys::flip(m.max_timestamp));
  keys::append_u64(v, keys::flip(m.last_write_ms));
  return v;
}

std::string epoch_key(PartitionUid uid, LeaderEpoch epoch) {
  std::string k = keys::prefix(uid);
  keys::append_u64(k, keys::flip(epoch.value()));
  return k;
}

std::string producer_key(PartitionUid uid, int64_t producer_id) {
  std::string k = keys::prefix(uid);
  keys::append_u64(k, keys::flip(producer_id));
  return k;
}

std::string aborted_key(PartitionUid uid, Offset marker) {
  std::string k = keys::prefix(uid);
  keys::append_u64(k, keys::flip(marker.value()));
  return k;
}

std::string encode_aborted(const AbortedEntry& e) {
  std::string v;
  keys::append_u64(v, keys::flip(e.producer_id));
  keys::append_u64(v, keys::flip(e.first_offset.value()));
  return v;
}

std::string key_map_key(PartitionUid uid, uint64_t hash) {
  std::string k = keys::prefix(uid);
  keys::append_u64(k, hash);
  return k;
}

std::string encode_offset(Offset o) {
  std::string v;
  keys::append_u64(v, keys::flip(o.value()));
  return v;
}

Error db_error(const rocksdb::Status& s, std::string_view what) {
  return Error(Errc::kIoError, fmt::format("index store {}: {}", what, s.ToString()));
}

rocksdb::Slice slice(const std::string& s) {
  return rocksdb::Slice(s.data(), s.size());
}

std::string encode_offset_value(const IndexEntry& e) {
  std::string v;
  keys::append_u64(v, keys::flip(e.segment.value()));
  keys::append_u64(v, e.position.value());
  keys::append_u64(v, keys::flip(e.max_timestamp_before));
  return v;
}

std::string encode_time_value(const IndexEntry& e) {
  std::string v;
  keys::append_u64(v, keys::flip(e.segment.value()));
  keys::append_u64(v, e.position.value());
  return v;
}

Result<IndexEntry> decode_offset_entry(rocksdb::Slice key, rocksdb::Slice value) {
  if (key.size() != 16 || value.size() != 24) {
    return Error(Errc::kCorruption, "offset index entry of the wrong size");
  }
  std::string_view k(key.data(), key.size()), v(value.data(), value.size());
  return IndexEntry{Offset(keys::unflip(keys::read_u64(k, 8))),
                    Offset(keys::unflip(keys::read_u64(v, 0))), FilePos(keys::read_u64(v, 8)),
                    keys::unflip(keys::read_u64(v, 16))};
}

Result<IndexEntry> decode_time_entry(rocksdb::Slice key, rocksdb::Slice value) {
  if (key.size() != 24 || value.size() != 16) {
    return Error(Errc::kCorruption, "time index entry of the wrong size");
  }
  std::string_view k(key.data(), key.size()), v(value.data(), value.size());
  return IndexEntry{Offset(keys::unflip(keys::read_u64(k, 16))),
                    Offset(keys::unflip(keys::read_u64(v, 0))), FilePos(keys::read_u64(v, 8)),
                    keys::unflip(keys::read_u64(k, 8))};
}

std::string encode_point(const LogPoint& p) {
  std::string v;
  keys::append_u64(v, keys::flip(p.next_offset.value()));
  keys::append_u64(v, keys::flip(p.segment.value()));
  keys::append_u64(v, p.position.value());
  keys::append_u64(v, keys::flip(p.max_timestamp));
  keys::append_u64(v, p.bytes_since_entry);
  return v;
}

Result<LogPoint> decode_point(std::string_view v) {
  if (v.size() != kLogPointSize) return Error(Errc::kCorruption, "log marker of the wrong size");
  return LogPoint{Offset(keys::unflip(keys::read_u64(v, 0))),
                  Offset(keys::unflip(keys::read_u64(v, 8))), FilePos(keys::read_u64(v, 16)),
                  keys::unflip(keys::read_u64(v, 24)), keys::read_u64(v, 32)};
}

bool has_prefix(rocksdb::Slice key, const std::string& prefix) {
  return key.size() >= prefix.size() && std::memcmp(key.data(), prefix.data(), prefix.size()) == 0;
}

}  // namespace

IndexStore::Update::Update(PartitionUid uid) : uid_(uid) {}
IndexStore::Update::~Update() = default;
IndexStore::Update::Update(Update&&) noexcept = default;
IndexStore::Update& IndexStore::Update::operator=(Update&&) noexcept = default;
void IndexStore::Update::add(const IndexEntry& entry) {
  entries_.push_back(entry);
}
void IndexStore::Update::set_applied(const LogPoint& point) {
  applied_ = point;
}
void IndexStore::Update::set_segment(Offset segment, const SegmentMeta& meta) {
  for (auto& [base, m] : segments_) {
    if (base == segment) {
      m = meta;
      return;
    }
  }
  segments_.emplace_back(segment, meta);
}
void IndexStore::Update::add_epoch(const EpochEntry& epoch) {
  epochs_.push_back(epoch);
}
void IndexStore::Update::set_producer(int64_t producer_id, std::optional<std::string> state) {
  producers_.emplace_back(producer_id, std::move(state));
}
void IndexStore::Update::add_aborted(const AbortedEntry& entry) {
  aborted_.push_back(entry);
}
void IndexStore::Update::put_key(uint64_t hash, KeyEntry entry) {
  keys_.emplace_back(hash, std::move(entry));
}
bool IndexStore::Update::empty() const {
  return entries_.empty() && !applied_ && segments_.empty() && epochs_.empty() &&
         producers_.empty() && aborted_.empty() && keys_.empty();
}

Result<std::unique_ptr<IndexStore>> IndexStore::open(const std::filesystem::path& dir,
                                                     const Options& options) {
  std::unique_ptr<IndexStore> store(new IndexStore());
  store->options_ = options;

  rocksdb::Options db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.avoid_flush_during_shutdown = !options.flush_on_close;
  db_options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  db_options.keep_log_file_num = 2;
  db_options.max_background_jobs = 2;
  // Flush every column family together so that, after a crash, the entries
  // and the marker that covers them come back from the same point in time.
  db_options.atomic_flush = true;
  // One memory budget for all memtables (each family alone would take up to
  // two 64 MiB ones: eleven families, 1.4 GiB).
  db_options.write_buffer_manager =
      std::make_shared<rocksdb::WriteBufferManager>(options.write_buffer_bytes);

  rocksdb::BlockBasedTableOptions table;
  // Half of the cache may hold index and filter blocks (the key map's),
  // which data blocks do not evict.
  table.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes, /*num_shard_bits=*/-1,
                                           /*strict_capacity_limit=*/false,
                                           /*high_pri_pool_ratio=*/0.5);
  rocksdb::ColumnFamilyOptions cf_options;
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  // The key map grows with the number of keys (tens of millions) and is
  // read by point lookups, one per record a cleaning reads: a Bloom filter
  // spares the lookups the levels that lack the key, and its index and
  // filter blocks are partitioned and live in the block cache at high
  // priority (the top levels pinned), so they count against the cache's
  // bound instead of growing the heap with the keys, and a miss reloads
  // one small partition, not a whole file's index.
  rocksdb::BlockBasedTableOptions keys_table = table;
  keys_table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  keys_table.index_type = rocksdb::BlockBasedTableOptions::IndexType::kTwoLevelIndexSearch;
  keys_table.partition_filters = true;
  keys_table.cache_index_and_filter_blocks = true;
  keys_table.cache_index_and_filter_blocks_with_high_priority = true;
  keys_table.pin_top_level_index_and_filter = true;
  keys_table.pin_l0_filter_and_index_blocks_in_cache = true;
  rocksdb::ColumnFamilyOptions keys_options = cf_options;
  keys_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(keys_table));

  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
      {rocksdb::kDefaultColumnFamilyName, cf_options},
      {"offset_index", cf_options},
      {"time_index", cf_options},
      {"applied", cf_options},
      {"group_offsets", cf_options},
      {"leader_epochs", cf_options},
      {"producer_state", cf_options},
      {"aborted_txns", cf_options},
      {"txn_state", cf_options},
      {"compaction_keys", keys_options},
      {"registry", cf_options},
  };
  rocksdb::DB* db = nullptr;
  auto s = rocksdb::DB::Open(db_options, dir.string(), cfs, &store->handles_, &db);
  if (!s.ok()) return db_error(s, "open " + dir.string());
  store->db_.reset(db);
  store->offset_cf_ = store->handles_[1];
  store->time_cf_ = store->handles_[2];
  store->applied_cf_ = store->handles_[3];
  store->group_cf_ = store->handles_[4];
  store->epoch_cf_ = store->handles_[5];
  store->producer_cf_ = store->handles_[6];
  store->aborted_cf_ = store->handles_[7];
  store->txn_cf_ = store->handles_[8];
  store->keys_cf_ = store->handles_[9];
  store->registry_cf_ = store->handles_[10];
  return store;
}

IndexStore::~IndexStore() {
  if (!db_) return;
  for (auto* h : handles_)
    db_->DestroyColumnFamilyHandle(h);
  db_->Close();
}

Status IndexStore::put_marker(rocksdb::WriteBatch& wb, PartitionUid uid, char kind,
                              const LogPoint& point) {
  auto s = wb.Put(applied_cf_, slice(keys::marker_key(uid, kind)), slice(encode_point(point)));
  if (!s.ok()) return db_error(s, "batch");
  return ok_status();
}

Status IndexStore::write(const Update& update) {
  rocksdb::WriteBatch wb;
  for (const auto& e : update.entries_) {
    wb.Put(offset_cf_, slice(keys::offset_key(update.uid_, e.offset)),
           slice(encode_offset_value(e)));
    wb.Put(time_cf_, slice(keys::time_key(update.uid_, e.max_timestamp_before, e.offset)),
           slice(encode_time_value(e)));
  }
  for (const auto& e : update.epochs_)
    wb.Put(epoch_cf_, slice(epoch_key(update.uid_, e.epoch)), slice(encode_offset(e.start_offset)));
  for (const auto& [id, state] : update.producers_) {
    if (state) {
      wb.Put(producer_cf_, slice(producer_key(update.uid_, id)), slice(*state));
    } else {
      wb.Delete(producer_cf_, slice(producer_key(update.uid_, id)));
    }
  }
  for (const auto& e : update.aborted_)
    wb.Put(aborted_cf_, slice(aborted_key(update.uid_, e.last_offset)), slice(encode_aborted(e)));
  for (const auto& [hash, entry] : update.keys_)
    wb.Put(keys_cf_, slice(key_map_key(update.uid_, hash)), slice(encode_key_entry(entry)));
  if (update.applied_) STRATA_TRY(put_marker(wb, update.uid_, kApplied, *update.applied_));
  for (const auto& [segment, meta] : update.segments_) {
    wb.Put(applied_cf_, slice(segment_meta_key(update.uid_, segment)),
           slice(encode_segment_meta(meta)));
  }
  return commit(wb, Durability::kNoWal, "write");
}

namespace {

using Decoder = Result<IndexEntry> (*)(rocksdb::Slice, rocksdb::Slice);

// The last entry of `uid` at or below `target` in `cf`.
Result<std::optional<IndexEntry>> seek_floor(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf,
                                             PartitionUid uid, const std::string& target,
                                             Decoder decode) {
  std::string lower = keys::prefix(uid);
  rocksdb::Slice lower_slice(lower);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lower_slice;
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(ro, cf));
  it->SeekForPrev(slice(target));
  if (!it->Valid()) {
    if (!it->status().ok()) return db_error(it->status(), "seek");
    return std::optional<IndexEntry>();
  }
  STRATA_ASSIGN_OR_RETURN(IndexEntry e, decode(it->key(), it->value()));
  return std::optional<IndexEntry>(e);
}

// Every entry of `uid` in `cf`, in key order.
Result<std::vector<IndexEntry>> scan_all(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* cf,
                                         PartitionUid uid, Decoder decode) {
  std::vector<IndexEntry> out;
  std::string prefix = keys::prefix(uid);
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), cf));
  for (it->Seek(slice(prefix)); it->Valid() && has_prefix(it->key(), prefix); it->Next()) {
    STRATA_ASSIGN_OR_RETURN(IndexEntry e, decode(it->key(), it->value()));
    out.push_back(e);
  }
  if (!it->status().ok()) return db_error(it->status(), "scan");
  return out;
}

}  // namespace

Result<std::optional<IndexEntry>> IndexStore::offset_floor(PartitionUid uid, Offset offset) const {
  return seek_floor(*db_, offset_cf_, uid, keys::offset_key(uid, offset), decode_offset_entry);
}

Result<std::optional<IndexEntry>> IndexStore::time_floor(PartitionUid uid, TimestampMs ts) const {
  if (ts == kNoTimestamp) return std::optional<IndexEntry>();
  return seek_floor(*db_, time_cf_, uid, keys::time_key(uid, ts - 1, Offset::max()),
                    decode_time_entry);
}

Result<std::vector<IndexEntry>> IndexStore::offset_entries(PartitionUid uid) const {
  return scan_all(*db_, offset_cf_, uid, decode_offset_entry);
}

Result<std::vector<IndexEntry>> IndexStore::time_entries(PartitionUid uid) const {
  return scan_all(*db_, time_cf_, uid, decode_time_entry);
}

Result<std::optional<LogPoint>> IndexStore::get_marker(PartitionUid uid, char kind) const {
  std::string value;
  auto s =
      db_->Get(rocksdb::ReadOptions(), applied_cf_, slice(keys::marker_key(uid, kind)), &value);
  if (s.IsNotFound()) return std::optional<LogPoint>();
  if (!s.ok()) return db_error(s, "get");
  STRATA_ASSIGN_OR_RETURN(LogPoint p, decode_point(value));
  return std::optional<LogPoint>(p);
}

Result<std::optional<LogPoint>> IndexStore::applied(PartitionUid uid) const {
  return get_marker(uid, kApplied);
}

Result<std::optional<LogPoint>> IndexStore::recovery_point(PartitionUid uid) const {
  return get_marker(uid, kRecoveryPoint);
}

Result<std::optional<SegmentMeta>> IndexStore::segment_meta(PartitionUid uid,
                                                            Offset segment) const {
  std::string value;
  auto s =
      db_->Get(rocksdb::ReadOptions(), applied_cf_, slice(segment_meta_key(uid, segment)), &value);
  if (s.IsNotFound()) return std::optional<SegmentMeta>();
  if (!s.ok()) return db_error(s, "read segment meta");
  if (value.size() != kSegmentMetaSize) {
    return Error(Errc::kCorruption, "segment meta of the wrong size");
  }
  return std::optional<SegmentMeta>(
      SegmentMeta{keys::unflip(keys::read_u64(value, 0)), keys::unflip(keys::read_u64(value, 8))});
}

Status IndexStore::set_recovery_point(PartitionUid uid, const LogPoint& point) {
  rocksdb::WriteBatch wb;
  STRATA_TRY(put_marker(wb, uid, kRecoveryPoint, point));
  return commit(wb, Durability::kNoWal, "write");
}

Status IndexStore::delete_time_entries(rocksdb::WriteBatch& wb, PartitionUid uid, Offset bound,
                                       bool at_or_after) const {
  // Time-index keys are ordered by (max ts before, offset); because the max
  // never decreases along the log they are in offset order too, so the
  // entries to drop are a run at one end of the partition's key range.
  std::string prefix = keys::prefix(uid);
  std::string upper = keys::prefix_end(uid);
  rocksdb::Slice upper_slice(upper), lower_slice(prefix);
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lower_slice;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, time_cf_));
  if (at_or_after) {
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      STRATA_ASSIGN_OR_RETURN(IndexEntry e, decode_time_entry(it->key(), it->value()));
      if (e.offset < bound) break;
      wb.Delete(time_cf_, it->key());
    }
  } else {
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      STRATA_ASSIGN_OR_RETURN(IndexEntry e, decode_time_entry(it->key(), it->value()));
      if (e.offset >= bound) break;
      wb.Delete(time_cf_, it->key());
    }
  }
  if (!it->status().ok()) return db_error(it->status(), "scan");
  return ok_status();
}

Status IndexStore::scan_partition(
    rocksdb::ColumnFamilyHandle* cf, PartitionUid uid, std::string_view what,
    const std::function<Status(std::string_view key, std::string_view value)>& fn) const {
  auto lower = keys::prefix(uid);
  auto upper = keys::prefix_end(uid);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf));
  for (it->Seek(slice(lower)); it->Valid(); it->Next()) {
    auto k = it->key().ToStringView();
    if (k.size() != keys::kUidSize + 8) {
      return Error(Errc::kCorruption,
                   fmt::format("{} key of partition {} has a bad size", what, uid));
    }
    STRATA_TRY(fn(k, it->value().ToStringView()));
  }
  if (!it->status().ok()) return db_error(it->status(), fmt::format("{} scan", what));
  return ok_status();
}

Result<std::vector<EpochEntry>> IndexStore::leader_epochs(PartitionUid uid) const {
  std::vector<EpochEntry> out;
  STRATA_TRY(scan_partition(epoch_cf_, uid, "leader epoch", [&](auto k, auto v) -> Status {
    if (v.size() != 8) {
      return Error(Errc::kCorruption,
                   fmt::format("leader epoch entry of partition {} has a bad size", uid));
    }
    out.push_back(
        {LeaderEpoch(static_cast<int32_t>(keys::unflip(keys::read_u64(k, keys::kUidSize)))),
         Offset(keys::unflip(keys::read_u64(v, 0)))});
    return ok_status();
  }));
  return out;
}

Result<std::vector<IndexStore::ProducerRecord>> IndexStore::producer_states(
    PartitionUid uid) const {
  std::vector<ProducerRecord> out;
  STRATA_TRY(scan_partition(producer_cf_, uid, "producer state", [&](auto k, auto v) {
    out.emplace_back(keys::unflip(keys::read_u64(k, keys::kUidSize)), std::string(v));
    return ok_status();
  }));
  return out;
}

Result<std::vector<AbortedEntry>> IndexStore::aborted_txns(PartitionUid uid) const {
  std::vector<AbortedEntry> out;
  STRATA_TRY(scan_partition(aborted_cf_, uid, "aborted transaction", [&](auto k, auto v) -> Status {
    if (v.size() != 16) {
      return Error(Errc::kCorruption,
                   fmt::format("aborted transaction of partition {} has a bad size", uid));
    }
    out.push_back(AbortedEntry{keys::unflip(keys::read_u64(v, 0)),
                               Offset(keys::unflip(keys::read_u64(v, 8))),
                               Offset(keys::unflip(keys::read_u64(k, keys::kUidSize)))});
    return ok_status();
  }));
  return out;
}

Status IndexStore::trim_epochs(rocksdb::WriteBatch& wb, PartitionUid uid, Offset from,
                               bool at_or_after) const {
  STRATA_ASSIGN_OR_RETURN(auto epochs, leader_epochs(uid));
  const EpochEntry* latest_below = nullptr;
  bool one_starts_there = false;
  for (const auto& e : epochs) {
    one_starts_there |= e.start_offset == from;
    bool below = e.start_offset < from;
    if (at_or_after) {
      if (!below) wb.Delete(epoch_cf_, slice(epoch_key(uid, e.epoch)));
    } else if (below) {
      if (latest_below != nullptr) wb.Delete(epoch_cf_, slice(epoch_key(uid, latest_below->epoch)));
      latest_below = &e;
    }
  }
  if (!at_or_after && latest_below != nullptr) {
    // The latest epoch begun below the new start now begins there, unless
    // a later one does.
    if (one_starts_there) {
      wb.Delete(epoch_cf_, slice(epoch_key(uid, latest_below->epoch)));
    } else {
      wb.Put(epoch_cf_, slice(epoch_key(uid, latest_below->epoch)), slice(encode_offset(from)));
    }
  }
  return ok_status();
}

Status IndexStore::truncate(PartitionUid uid, Offset from, const LogPoint& point,
                            const std::optional<std::vector<ProducerRecord>>& producers,
                            const std::optional<std::vector<AbortedEntry>>& aborted) {
  rocksdb::WriteBatch wb;
  STRATA_TRY(trim_epochs(wb, uid, from, true));
  STRATA_ASSIGN_OR_RETURN(auto applied_before, get_marker(uid, kApplied));
  if (applied_before && from < applied_before->next_offset) {
    STRATA_ASSIGN_OR_RETURN(auto state, compaction_state(uid));
    state.cut(from);
    wb.Put(applied_cf_, slice(keys::marker_key(uid, kCompaction)),
           slice(encode_compaction_state(state)));
  }
  if (producers) {
    wb.DeleteRange(producer_cf_, slice(keys::prefix(uid)), slice(keys::prefix_end(uid)));
    for (const auto& [id, state] : *producers)
      wb.Put(producer_cf_, slice(producer_key(uid, id)), slice(state));
  }
  STRATA_TRY(put_marker(wb, uid, kApplied, point));
  if (aborted) {
    // All of them replaced (those at or after the cut dropped).
    wb.DeleteRange(aborted_cf_, slice(keys::prefix(uid)), slice(keys::prefix_end(uid)));
    for (const auto& a : *aborted) {
      if (a.last_offset < from) {
        wb.Put(aborted_cf_, slice(aborted_key(uid, a.last_offset)), slice(encode_aborted(a)));
      }
    }
  } else {
    wb.DeleteRange(aborted_cf_, slice(aborted_key(uid, from)), slice(keys::prefix_end(uid)));
  }
  wb.DeleteRange(offset_cf_, slice(keys::offset_key(uid, from)), slice(keys::prefix_end(uid)));
  STRATA_TRY(delete_time_entries(wb, uid, from, true));
  if (from < Offset::max()) {
    wb.DeleteRange(applied_cf_, slice(segment_meta_key(uid, from + 1)),
                   slice(keys::marker_key(uid, kSegmentMeta + 1)));
  }
  STRATA_ASSIGN_OR_RETURN(auto rp, get_marker(uid, kRecoveryPoint));
  if (rp && rp->next_offset > point.next_offset) {
    STRATA_TRY(put_marker(wb, uid, kRecoveryPoint, point));
  }
  // Unlike the other writes this one goes through the WAL and is synced: new
  // appends will reuse the truncated offsets, and a crash must not bring the
  // old entries and markers back to point into the new data.
  return commit(wb, Durability::kSynced, "truncate");
}

Status IndexStore::drop_before(PartitionUid uid, Offset before) {
  rocksdb::WriteBatch wb;
  STRATA_TRY(trim_epochs(wb, uid, before, false));
  wb.DeleteRange(offset_cf_, slice(keys::prefix(uid)), slice(keys::offset_key(uid, before)));
  wb.DeleteRange(aborted_cf_, slice(keys::prefix(uid)), slice(aborted_key(uid, before)));
  STRATA_TRY(delete_time_entries(wb, uid, before, false));
  wb.DeleteRange(applied_cf_, slice(keys::marker_key(uid, kSegmentMeta)),
                 slice(segment_meta_key(uid, before)));
  return commit(wb, Durability::kNoWal, "drop");
}

Status IndexStore::drop_partition(PartitionUid uid) {
  rocksdb::WriteBatch wb;
  for (auto* cf : {offset_cf_, time_cf_, applied_cf_, group_cf_, epoch_cf_, producer_cf_,
                   aborted_cf_, txn_cf_, keys_cf_, registry_cf_}) {
    wb.DeleteRange(cf, slice(keys::prefix(uid)), slice(keys::prefix_end(uid)));
  }
  return commit(wb, Durability::kSynced, "drop partition");
}

Result<std::optional<KeyEntry>> IndexStore::key_entry(PartitionUid uid, uint64_t hash) const {
  std::string value;
  auto s = db_->Get(rocksdb::ReadOptions(), keys_cf_, slice(key_map_key(uid, hash)), &value);
  if (s.IsNotFound()) return std::optional<KeyEntry>();
  if (!s.ok()) return db_error(s, "key map get");
  STRATA_ASSIGN_OR_RETURN(auto e, decode_key_entry(value));
  return std::optional<KeyEntry>(std::move(e));
}

Result<std::vector<std::optional<KeyEntry>>> IndexStore::key_entries(
    PartitionUid uid, std::span<const uint64_t> hashes) const {
  // In key order, a slice at a time: each MultiGet walks the files once for
  // its keys, and keys next to each other in the map share blocks; every
  // value pins its block in the cache until it is decoded, so a slice
  // bounds the pinned blocks (32k keys at once, each in a block of its own
  // at 10 M keys, pinned 128 MiB past the cache's bound).
  constexpr size_t kSlice = 1024;
  std::vector<std::string> keys(hashes.size());
  std::vector<size_t> order(hashes.size());
  for (size_t i = 0; i < hashes.size(); ++i) {
    keys[i] = key_map_key(uid, hashes[i]);
    order[i] = i;
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<std::optional<KeyEntry>> out(hashes.size());
  std::vector<rocksdb::Slice> slices;
  std::vector<rocksdb::PinnableSlice> values(std::min(kSlice, hashes.size()));
  std::vector<rocksdb::Status> statuses(values.size());
  for (size_t from = 0; from < order.size(); from += kSlice) {
    size_t n = std::min(kSlice, order.size() - from);
    slices.clear();
    for (size_t j = 0; j < n; ++j) {
      slices.push_back(slice(keys[order[from + j]]));
      values[j].Reset();  // unpins the previous slice's block
    }
    // Sorted already, but a key may be asked twice (two records of it in
    // a chunk): RocksDB's own sort takes that as it comes.
    db_->MultiGet(rocksdb::ReadOptions(), keys_cf_, n, slices.data(), values.data(),
                  statuses.data(), /*sorted_input=*/false);
    for (size_t j = 0; j < n; ++j) {
      if (statuses[j].IsNotFound()) continue;
      if (!statuses[j].ok()) return db_error(statuses[j], "key map multiget");
      STRATA_ASSIGN_OR_RETURN(auto e, decode_key_entry(values[j].ToStringView()));
      out[order[from + j]] = std::move(e);
    }
  }
  return out;
}

Result<uint64_t> IndexStore::key_count(PartitionUid uid) const {
  uint64_t n = 0;
  STRATA_TRY(scan_partition(keys_cf_, uid, "key map", [&](auto, auto) {
    ++n;
    return ok_status();
  }));
  return n;
}

Result<CompactionState> IndexStore::compaction_state(PartitionUid uid) const {
  std::string value;
  auto s = db_->Get(rocksdb::ReadOptions(), applied_cf_, slice(keys::marker_key(uid, kCompaction)),
                    &value);
  if (s.IsNotFound()) return CompactionState{};
  if (!s.ok()) return db_error(s, "compaction state get");
  return decode_compaction_state(value);
}

Status IndexStore::install_cleaned(PartitionUid uid, const Cleaned& c) {
  rocksdb::WriteBatch wb;
  // The time entries of the range, found through the offset entries (both
  // indexes hold the same entries).
  {
    std::string lower = keys::offset_key(uid, c.from), upper = keys::offset_key(uid, c.to);
    rocksdb::Slice upper_slice(upper);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, offset_cf_));
    for (it->Seek(slice(lower)); it->Valid(); it->Next()) {
      STRATA_ASSIGN_OR_RETURN(IndexEntry e, decode_offset_entry(it->key(), it->value()));
      wb.Delete(time_cf_, slice(keys::time_key(uid, e.max_timestamp_before, e.offset)));
    }
    if (!it->status().ok()) return db_error(it->status(), "cleaned range scan");
  }
  wb.DeleteRange(offset_cf_, slice(keys::offset_key(uid, c.from)),
                 slice(keys::offset_key(uid, c.to)));
  for (const auto& e : c.entries) {
    wb.Put(offset_cf_, slice(keys::offset_key(uid, e.offset)), slice(encode_offset_value(e)));
    wb.Put(time_cf_, slice(keys::time_key(uid, e.max_timestamp_before, e.offset)),
           slice(encode_time_value(e)));
  }
  for (Offset marker : c.dropped_aborted)
    wb.Delete(aborted_cf_, slice(aborted_key(uid, marker)));
  for (Offset base : c.removed_segments)
    wb.Delete(applied_cf_, slice(segment_meta_key(uid, base)));
  for (const auto& [base, meta] : c.segments)
    wb.Put(applied_cf_, slice(segment_meta_key(uid, base)), slice(encode_segment_meta(meta)));
  wb.Put(applied_cf_, slice(keys::marker_key(uid, kCompaction)),
         slice(encode_compaction_state(c.state)));
  for (const auto& [hash, offset] : c.dropped_keys) {
    STRATA_ASSIGN_OR_RETURN(auto entry, key_entry(uid, hash));
    if (entry && entry->offset == offset) wb.Delete(keys_cf_, slice(key_map_key(uid, hash)));
  }
  return commit(wb, Durability::kSynced, "install cleaned");
}

Status IndexStore::view_apply(View view, PartitionUid uid, Offset applied_next,
                              const std::vector<KvOp>& ops) {
  rocksdb::WriteBatch wb;
  auto* cf = view_cf(view);
  std::string prefix = keys::prefix(uid);
  for (const auto& op : ops) {
    std::string key = prefix + op.key;
    if (op.value) {
      wb.Put(cf, slice(key), slice(*op.value));
    } else {
      wb.Delete(cf, slice(key));
    }
  }
  std::string marker;
  keys::append_u64(marker, keys::flip(applied_next.value()));
  wb.Put(applied_cf_, slice(keys::marker_key(uid, static_cast<char>(view))), slice(marker));
  return commit(wb, Durability::kNoWal, "view write");
}

Result<std::optional<Offset>> IndexStore::view_applied(View view, PartitionUid uid) const {
  std::string value;
  auto s = db_->Get(rocksdb::ReadOptions(), applied_cf_,
                    slice(keys::marker_key(uid, static_cast<char>(view))), &value);
  if (s.IsNotFound()) return std::optional<Offset>();
  if (!s.ok()) return db_error(s, "get");
  if (value.size() != 8) return Error(Errc::kCorruption, "view marker of the wrong size");
  return std::optional<Offset>(Offset(keys::unflip(keys::read_u64(value, 0))));
}

Result<std::optional<std::string>> IndexStore::view_get(View view, PartitionUid uid,
                                                        const std::string& key) const {
  std::string value;
  auto s = db_->Get(rocksdb::ReadOptions(), view_cf(view), slice(keys::prefix(uid) + key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return db_error(s, "get");
  return std::optional<std::string>(std::move(value));
}

Result<std::vector<std::pair<std::string, std::string>>> IndexStore::view_scan(
    View view, PartitionUid uid, const std::string& prefix) const {
  std::vector<std::pair<std::string, std::string>> out;
  std::string full = keys::prefix(uid) + prefix;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), view_cf(view)));
  for (it->Seek(slice(full)); it->Valid() && has_prefix(it->key(), full); it->Next()) {
    out.emplace_back(it->key().ToString().substr(keys::kUidSize), it->value().ToString());
  }
  if (!it->status().ok()) return db_error(it->status(), "scan");
  return out;
}

Status IndexStore::view_reset(View view, PartitionUid uid) {
  rocksdb::WriteBatch wb;
  wb.DeleteRange(view_cf(view), slice(keys::prefix(uid)), slice(keys::prefix_end(uid)));
  wb.Delete(applied_cf_, slice(keys::marker_key(uid, static_cast<char>(view))));
  return commit(wb, Durability::kSynced, "view reset");
}

Status IndexStore::commit(rocksdb::WriteBatch& wb, Durability durability, const char* what) {
  rocksdb::WriteOptions wo;
  wo.sync = durability == Durability::kSynced;
  wo.disableWAL = durability == Durability::kNoWal;
#if defined(__SANITIZE_THREAD__)
  // RocksDB's write-group leader copies the other writers' batches into its
  // own; RocksDB is not built with ThreadSanitizer, which therefore cannot
  // see the hand-over and reports a race on the batch. Under TSan only, one
  // writer at a time.
  static std::mutex tsan_mu;
  std::lock_guard lock(tsan_mu);
#endif
  auto s = db_->Write(wo, &wb);
  if (!s.ok()) return db_error(s, what);
  return ok_status();
}

Status IndexStore::flush() {
  rocksdb::FlushOptions fo;
  fo.wait = true;
  // Every view: a clean-shutdown marker written after this makes recovery
  // trust all of them without a scan.
  auto s = db_->Flush(fo, {offset_cf_, time_cf_, applied_cf_, group_cf_, epoch_cf_, producer_cf_,
                           aborted_cf_, txn_cf_, keys_cf_, registry_cf_});
  if (!s.ok()) return db_error(s, "flush");
  return ok_status();
}

}  // namespace strata::index
