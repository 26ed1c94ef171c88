#include "coordinator/log_view.h"

#include <spdlog/spdlog.h>

#include "base/bytes.h"
#include "engine/batch_builder.h"
#include "engine/compression.h"

namespace strata::coordinator {
namespace {

constexpr size_t kReplayChunkBytes = 1 << 20;

// A transaction's held operations live in the view too, under keys no
// mapper produces: kHeldPrefix, the producer id and the operation's index
// (big-endian, so a scan returns them in order); the value is the
// operation: 1 (put) or 0 (delete), the key's length (4 bytes), the key,
// then the value.
constexpr std::string_view kHeldPrefix = "\x01H";

void put_be(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get_be(std::string_view in, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i)
    v = (v << 8) | static_cast<uint8_t>(in[at + i]);
  return v;
}

std::string held_key(int64_t producer_id, uint32_t index) {
  std::string k(kHeldPrefix);
  put_be(k, static_cast<uint64_t>(producer_id), 8);
  put_be(k, index, 4);
  return k;
}

std::string encode_held(const LogView::KvOp& op) {
  std::string v;
  v.push_back(op.value ? 1 : 0);
  put_be(v, op.key.size(), 4);
  v += op.key;
  if (op.value) v += *op.value;
  return v;
}

Result<LogView::KvOp> decode_held(std::string_view v) {
  if (v.size() < 5) return Error(Errc::kCorruption, "short held operation");
  size_t klen = get_be(v, 1, 4);
  if (v.size() < 5 + klen) return Error(Errc::kCorruption, "held operation's key overruns it");
  LogView::KvOp op{std::string(v.substr(5, klen)), std::nullopt};
  if (v[0] == 1) op.value = std::string(v.substr(5 + klen));
  return op;
}

}  // namespace

LogView::LogView(std::string_view topic, replication::Partition& partition,
                 index::IndexStore& index, View view, Mapper map)
    : topic_(topic),
      partition_(partition),
      log_(partition.log()),
      index_(index),
      view_(view),
      map_(std::move(map)) {}

LogView::~LogView() {
  *alive_ = false;
  // (The held operations stay in the view: the next LogView of the
  // partition restores them.)
  auto pending = std::move(appending_);
  for (auto& [id, done] : pending)
    done(Error(Errc::kShutdown, topic_ + " partition closed"));
}

Status LogView::apply(const std::vector<KvOp>& ops, Offset after) {
  return index_.view_apply(view_, log_.uid(), after, ops);
}

void LogView::hold(int64_t producer_id, std::vector<KvOp> ops, std::vector<KvOp>& out) {
  auto& held = open_txns_[producer_id];
  for (auto& op : ops) {
    uint32_t index = held.empty() ? 0 : held.rbegin()->first + 1;
    out.push_back({held_key(producer_id, index), encode_held(op)});
    held.emplace(index, std::move(op));
  }
}

void LogView::supersede(const std::vector<KvOp>& ops, std::vector<KvOp>& out) {
  if (open_txns_.empty()) return;
  for (const auto& op : ops) {
    for (auto& [pid, held] : open_txns_) {
      for (auto it = held.begin(); it != held.end();) {
        if (it->second.key != op.key) {
          ++it;
          continue;
        }
        out.push_back({held_key(pid, it->first), std::nullopt});
        it = held.erase(it);
      }
    }
  }
}

void LogView::apply_plain(std::vector<KvOp> ops, std::vector<KvOp>& out) {
  supersede(ops, out);
  for (auto& op : ops)
    out.push_back(std::move(op));
}

Status LogView::restore_held() {
  open_txns_.clear();
  STRATA_ASSIGN_OR_RETURN(auto rows, scan(std::string(kHeldPrefix)));
  for (const auto& [key, value] : rows) {
    if (key.size() != kHeldPrefix.size() + 12) {
      return Error(Errc::kCorruption, topic_ + ": a held operation's key of the wrong size");
    }
    auto producer_id = static_cast<int64_t>(get_be(key, kHeldPrefix.size(), 8));
    auto index = static_cast<uint32_t>(get_be(key, kHeldPrefix.size() + 8, 4));
    STRATA_ASSIGN_OR_RETURN(auto op, decode_held(value));
    open_txns_[producer_id].emplace(index, std::move(op));
  }
  return ok_status();
}

Status LogView::map_records(std::span<const std::byte> payload, const engine::BatchHeader& h,
                            Offset from, std::vector<KvOp>& out) const {
  Status bad = ok_status();
  STRATA_TRY(engine::for_each_record(payload, h.records_count, [&](const engine::RecordView& rec) {
    if (h.base_offset + rec.offset_delta < from || !rec.key) return true;
    auto op = map_(*rec.key, rec.value);
    if (!op) {
      bad = op.error();
      return false;
    }
    if (*op) out.push_back(std::move(**op));
    return true;
  }));
  return bad;
}

void LogView::end_transaction(int64_t producer_id, bool commit, std::vector<KvOp>& out) {
  auto it = open_txns_.find(producer_id);
  if (it == open_txns_.end()) return;
  for (const auto& [index, op] : it->second)
    out.push_back({held_key(producer_id, index), std::nullopt});
  if (commit) {
    for (auto& [index, op] : it->second)
      out.push_back(std::move(op));
  }
  open_txns_.erase(it);
}

Result<Offset> LogView::map_batches(const std::vector<SharedBytes>& slices, Offset from,
                                    std::vector<KvOp>& out) {
  Offset after = from;
  for (const auto& slice : slices) {
    for (size_t pos = 0; pos < slice.size();) {
      auto h = engine::read_batch_header(slice.data() + pos);
      std::span<const std::byte> batch(slice.data() + pos, h.total_size());
      pos += h.total_size();
      after = h.next_offset();
      if (h.control()) {
        if (h.base_offset < from) continue;
        STRATA_ASSIGN_OR_RETURN(auto marker, engine::read_marker(batch));
        if (marker) end_transaction(marker->producer_id, marker->commit, out);
        continue;
      }
      auto payload = batch.subspan(engine::kBatchHeaderSize);
      std::vector<std::byte> plain;
      if (h.compression() != engine::Compression::kNone) {
        STRATA_ASSIGN_OR_RETURN(plain, engine::decompress(h.compression(), payload, 256 << 20));
        payload = plain;
      }
      if (!h.transactional() || h.producer_id < 0) {
        std::vector<KvOp> ops;
        STRATA_TRY(map_records(payload, h, from, ops));
        apply_plain(std::move(ops), out);
        continue;
      }
      // A transaction's records wait for its marker.
      std::vector<KvOp> ops;
      STRATA_TRY(map_records(payload, h, from, ops));
      hold(h.producer_id, std::move(ops), out);
    }
  }
  return after;
}

void LogView::append(std::vector<Record> records, std::function<void(Status)> user_done,
                     std::optional<TxnProducer> txn) {
  uint64_t token = ++next_append_;
  appending_[token] = std::move(user_done);
  auto done = [this, token](Status st) {
    auto it = appending_.find(token);
    if (it == appending_.end()) return;
    auto cb = std::move(it->second);
    appending_.erase(it);
    cb(std::move(st));
  };
  auto ops = std::make_shared<std::vector<KvOp>>();
  engine::BatchOptions options;
  if (txn) {
    // As Kafka's coordinator writes a transactional offset commit: the
    // producer's id and epoch, sequence 0 (the broker's own batches are not
    // checked against the producer's sequence).
    options.producer_id = txn->producer_id;
    options.producer_epoch = txn->producer_epoch;
    options.base_sequence = 0;
    options.transactional = true;
  }
  engine::BatchBuilder b(options);
  for (auto& r : records) {
    std::optional<std::span<const std::byte>> value;
    if (r.value) value = bytes_of(*r.value);
    auto op = map_(bytes_of(r.key), value);
    if (!op) return done(op.error());
    if (*op) ops->push_back(std::move(**op));
    engine::RecordSpec spec;
    spec.key = std::move(r.key);
    spec.value = std::move(r.value);
    spec.timestamp = 0;
    b.add(std::move(spec));
  }
  auto batch = b.build();
  if (!batch) return done(batch.error());
  // Applied to the view once durable (fsync topics) or written.
  partition_.append({SharedBytes::adopt(std::move(*batch))},
                    {.acks_all = true, .from_client = false},
                    [this, ops, txn, done, alive = alive_](Result<replication::AppendResult> r) {
                      if (!*alive) return;
                      if (!r) return done(r.error());
                      std::vector<KvOp> out;
                      if (txn) {
                        hold(txn->producer_id, std::move(*ops), out);
                      } else {
                        apply_plain(std::move(*ops), out);
                      }
                      done(apply(out, r->last_offset + 1));
                    });
}

void LogView::append_marker(const engine::TxnMarker& marker, std::function<void(Status)> done) {
  auto batch = engine::build_marker_batch(marker, log_.options().clock->now_ms());
  partition_.append({SharedBytes::adopt(std::move(batch))},
                    {.acks_all = true, .from_client = false},
                    [this, marker, done = std::move(done), topic = topic_,
                     alive = alive_](Result<replication::AppendResult> r) {
                      if (!*alive) return done(Error(Errc::kShutdown, topic + " partition closed"));
                      if (!r) return done(r.error());
                      std::vector<KvOp> ops;
                      end_transaction(marker.producer_id, marker.commit, ops);
                      done(apply(ops, r->last_offset + 1));
                    });
}

void LogView::load(std::function<void(Status)> done) {
  auto marker = index_.view_applied(view_, log_.uid());
  if (!marker) return done(marker.error());
  Offset from = marker->value_or(log_.log_start_offset());
  if (from > log_.log_end_offset()) {
    // The log lost a tail the view had seen (a crash before a flush): the
    // view no longer describes the log. Rebuild it from the beginning.
    spdlog::warn("{} partition {}: the view is ahead of the log ({} > {}); rebuilding", topic_,
                 log_.uid(), from, log_.log_end_offset());
    if (auto st = index_.view_reset(view_, log_.uid()); !st) return done(st);
    from = log_.log_start_offset();
  }
  from = std::max(from, log_.log_start_offset());
  if (auto st = restore_held(); !st) return done(st);
  replay(from, log_.log_end_offset(), [done = std::move(done)](Status st, Offset) { done(st); });
}

void LogView::follow() {
  auto marker = index_.view_applied(view_, log_.uid());
  Offset from = marker ? marker->value_or(log_.log_start_offset()) : log_.log_start_offset();
  if (!marker || from > partition_.high_watermark()) {
    // Applied beyond what is committed (as a leader it replayed its whole
    // log): what lies above the watermark may be truncated. Start over.
    spdlog::info("{} partition {}: rebuilding the view of a follower", topic_, log_.uid());
    if (auto st = index_.view_reset(view_, log_.uid()); !st) {
      spdlog::error("{} partition {}: {}", topic_, log_.uid(), st.error().to_string());
      return;
    }
    from = log_.log_start_offset();
  }
  if (auto st = restore_held(); !st) {
    spdlog::error("{} partition {}: {}", topic_, log_.uid(), st.error().to_string());
    return;
  }
  follow_from(std::max(from, log_.log_start_offset()));
}

void LogView::follow_from(Offset next) {
  Offset hw = partition_.high_watermark();
  if (next >= hw) {
    partition_.wait(next, alive_, [this, next, alive = std::weak_ptr<bool>(alive_)] {
      if (auto a = alive.lock(); a && *a) follow_from(next);
    });
    return;
  }
  replay(next, hw, [this, next](Status st, Offset after) {
    if (!st) {
      // Not applied: the view stays where it was, and so does this follower's.
      spdlog::error("{} partition {}: applying from {}: {}", topic_, log_.uid(), next,
                    st.error().to_string());
      return;
    }
    follow_from(after);
  });
}

void LogView::replay(Offset next, Offset until, std::function<void(Status, Offset)> done) {
  next = std::max(next, log_.log_start_offset());
  if (next >= until) return done(ok_status(), next);
  log_.read(next, kReplayChunkBytes, until,
            [this, next, until, done = std::move(done),
             alive = alive_](Result<engine::ReadResult> r) mutable {
              if (!*alive) return;
              if (!r) return done(r.error(), next);
              if (r->bytes == 0) return done(ok_status(), next);
              std::vector<KvOp> ops;
              auto after = map_batches(r->slices, next, ops);
              if (!after) return done(after.error(), next);
              replayed_ += ops.size();
              if (auto st = apply(ops, *after); !st) return done(st, next);
              replay(*after, until, std::move(done));
            });
}

bool LogView::in_open_transaction(const std::string& key) const {
  for (const auto& [pid, ops] : open_txns_)
    for (const auto& [index, op] : ops)
      if (op.key == key) return true;
  return false;
}

Result<std::optional<std::string>> LogView::get(const std::string& key) const {
  return index_.view_get(view_, log_.uid(), key);
}

Result<std::vector<std::pair<std::string, std::string>>> LogView::scan(
    const std::string& prefix) const {
  return index_.view_scan(view_, log_.uid(), prefix);
}

}  // namespace strata::coordinator
