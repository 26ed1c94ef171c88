#include "coordinator/group/log_offsets_store.h"

#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/big_endian.h"
#include "engine/batch_builder.h"
#include "engine/compression.h"

namespace strata::coordinator {
namespace {

constexpr size_t kReplayChunkBytes = 1 << 20;

void put_str(std::string& out, std::string_view s) {
  char len[2];
  be::store<uint16_t>(reinterpret_cast<std::byte*>(len), static_cast<uint16_t>(s.size()));
  out.append(len, 2);
  out.append(s);
}

std::string offset_prefix(std::string_view group) {
  std::string k = "O";
  put_str(k, group);
  return k;
}

std::string offset_key(std::string_view group, std::string_view topic, int32_t partition) {
  std::string k = offset_prefix(group);
  put_str(k, topic);
  char p[4];
  be::store<int32_t>(reinterpret_cast<std::byte*>(p), partition);
  k.append(p, 4);
  return k;
}

std::string group_key(std::string_view group) {
  return "G" + std::string(group);
}

std::string as_string(const std::vector<std::byte>& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

std::span<const std::byte> as_bytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// Decodes the stored value of an offset key back into a record.
Result<CommittedOffset> decode_offset_value(const std::string& value) {
  GroupRecord probe;
  probe.kind = GroupRecord::Kind::kOffset;
  auto key = encode_key(probe);
  STRATA_ASSIGN_OR_RETURN(auto r, decode_record(key, as_bytes(value)));
  if (!r || !r->offset) return Error(Errc::kCorruption, "stored offset is not an offset");
  return *r->offset;
}

// The group records of whole batches (`slices`, as a read returned them)
// from offset `from` on, appended to `out`; returns the offset after the
// last batch.
Result<Offset> decode_batches(const std::vector<SharedBytes>& slices, Offset from,
                              std::vector<GroupRecord>& out) {
  Offset after = from;
  for (const auto& slice : slices) {
    for (size_t pos = 0; pos < slice.size();) {
      auto h = engine::read_batch_header(slice.data() + pos);
      std::span<const std::byte> batch(slice.data() + pos, h.total_size());
      pos += h.total_size();
      after = h.next_offset();
      if (h.control()) continue;
      auto payload = batch.subspan(engine::kBatchHeaderSize);
      std::vector<std::byte> plain;
      if (h.compression() != engine::Compression::kNone) {
        STRATA_ASSIGN_OR_RETURN(plain, engine::decompress(h.compression(), payload, 256 << 20));
        payload = plain;
      }
      Status bad = ok_status();
      STRATA_TRY(
          engine::for_each_record(payload, h.records_count, [&](const engine::RecordView& rec) {
            if (h.base_offset + rec.offset_delta < from || !rec.key) return true;
            auto decoded = decode_record(*rec.key, rec.value);
            if (!decoded) {
              bad = decoded.error();
              return false;
            }
            if (*decoded) out.push_back(std::move(**decoded));
            return true;
          }));
      STRATA_TRY(bad);
    }
  }
  return after;
}

}  // namespace

Status LogOffsetsStore::apply(const std::vector<GroupRecord>& records, Offset applied_next) {
  std::vector<index::IndexStore::KvOp> ops;
  for (const auto& r : records) {
    std::string key = r.kind == GroupRecord::Kind::kOffset
                          ? offset_key(r.group, r.topic, r.partition)
                          : group_key(r.group);
    auto value = encode_value(r);
    ops.push_back(
        {std::move(key), value ? std::optional<std::string>(as_string(*value)) : std::nullopt});
  }
  return index_.apply_group_ops(log_.uid(), applied_next, ops);
}

LogOffsetsStore::~LogOffsetsStore() {
  *alive_ = false;
  auto pending = std::move(appending_);
  for (auto& [id, done] : pending)
    done(Error(Errc::kShutdown, "offsets partition closed"));
}

void LogOffsetsStore::append(std::vector<GroupRecord> records,
                             std::function<void(Status)> user_done) {
  uint64_t token = ++next_append_;
  appending_[token] = std::move(user_done);
  auto done = [this, token](Status st) {
    auto it = appending_.find(token);
    if (it == appending_.end()) return;
    auto cb = std::move(it->second);
    appending_.erase(it);
    cb(std::move(st));
  };
  engine::BatchBuilder b;
  TimestampMs now = 0;
  for (const auto& r : records) {
    auto key = encode_key(r);
    auto value = encode_value(r);
    engine::RecordSpec spec;
    spec.key = as_string(key);
    if (value) spec.value = as_string(*value);
    spec.timestamp = now;
    b.add(std::move(spec));
  }
  auto batch = b.build();
  if (!batch) return done(batch.error());
  auto shared = std::make_shared<std::vector<GroupRecord>>(std::move(records));
  // Applied to the view once durable (fsync topics) or written.
  partition_.append({SharedBytes::adopt(std::move(*batch))},
                    {.acks_all = true, .from_client = false},
                    [this, shared, done, alive = alive_](Result<replication::AppendResult> r) {
                      if (!*alive) return;
                      if (!r) return done(r.error());
                      done(apply(*shared, r->last_offset + 1));
                    });
}

void LogOffsetsStore::load(std::function<void(Status)> done) {
  auto marker = index_.group_applied(log_.uid());
  if (!marker) return done(marker.error());
  Offset from = marker->value_or(log_.log_start_offset());
  if (from > log_.log_end_offset()) {
    // The log lost a tail the view had seen (a crash before a flush): the
    // view no longer describes the log. Rebuild it from the beginning.
    spdlog::warn("{} partition {}: offsets view is ahead of the log ({} > {}); rebuilding",
                 kOffsetsTopic, log_.uid(), from, log_.log_end_offset());
    if (auto st = index_.group_reset(log_.uid()); !st) return done(st);
    from = log_.log_start_offset();
  }
  from = std::max(from, log_.log_start_offset());
  replay(from, log_.log_end_offset(), [done = std::move(done)](Status st, Offset) { done(st); });
}

void LogOffsetsStore::follow() {
  auto marker = index_.group_applied(log_.uid());
  Offset from = marker ? marker->value_or(log_.log_start_offset()) : log_.log_start_offset();
  if (!marker || from > partition_.high_watermark()) {
    // Applied beyond what is committed (as a leader it replayed its whole
    // log): what lies above the watermark may be truncated. Start over.
    spdlog::info("{} partition {}: rebuilding the offsets view of a follower", kOffsetsTopic,
                 log_.uid());
    if (auto st = index_.group_reset(log_.uid()); !st) {
      spdlog::error("{} partition {}: {}", kOffsetsTopic, log_.uid(), st.error().to_string());
      return;
    }
    from = log_.log_start_offset();
  }
  follow_from(std::max(from, log_.log_start_offset()));
}

void LogOffsetsStore::follow_from(Offset next) {
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
      spdlog::error("{} partition {}: applying from {}: {}", kOffsetsTopic, log_.uid(), next,
                    st.error().to_string());
      return;
    }
    follow_from(after);
  });
}

void LogOffsetsStore::replay(Offset next, Offset until, std::function<void(Status, Offset)> done) {
  next = std::max(next, log_.log_start_offset());
  if (next >= until) return done(ok_status(), next);
  log_.read(next, kReplayChunkBytes, until,
            [this, next, until, done = std::move(done),
             alive = alive_](Result<engine::ReadResult> r) mutable {
              if (!*alive) return;
              if (!r) return done(r.error(), next);
              if (r->bytes == 0) return done(ok_status(), next);
              std::vector<GroupRecord> records;
              auto after = decode_batches(r->slices, next, records);
              if (!after) return done(after.error(), next);
              replayed_ += records.size();
              if (auto st = apply(records, *after); !st) return done(st, next);
              replay(*after, until, std::move(done));
            });
}

Result<std::optional<CommittedOffset>> LogOffsetsStore::committed(const std::string& group,
                                                                  const std::string& topic,
                                                                  int32_t partition) {
  STRATA_ASSIGN_OR_RETURN(auto value,
                          index_.group_get(log_.uid(), offset_key(group, topic, partition)));
  if (!value) return std::optional<CommittedOffset>();
  STRATA_ASSIGN_OR_RETURN(auto c, decode_offset_value(*value));
  return std::optional<CommittedOffset>(c);
}

Result<std::vector<OffsetsStore::Committed>> LogOffsetsStore::committed_all(
    const std::string& group) {
  std::string prefix = offset_prefix(group);
  STRATA_ASSIGN_OR_RETURN(auto rows, index_.group_scan(log_.uid(), prefix));
  std::vector<Committed> out;
  for (const auto& [key, value] : rows) {
    // key = prefix | u16 topic length | topic | i32 partition
    if (key.size() < prefix.size() + 2 + 4) return Error(Errc::kCorruption, "short offset key");
    auto tlen = be::load<uint16_t>(reinterpret_cast<const std::byte*>(key.data() + prefix.size()));
    if (key.size() != prefix.size() + 2 + tlen + 4)
      return Error(Errc::kCorruption, "bad offset key");
    std::string topic = key.substr(prefix.size() + 2, tlen);
    auto partition = be::load<int32_t>(
        reinterpret_cast<const std::byte*>(key.data() + prefix.size() + 2 + tlen));
    STRATA_ASSIGN_OR_RETURN(auto c, decode_offset_value(value));
    out.push_back(Committed{std::move(topic), partition, c});
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::optional<StoredGroup>>>> LogOffsetsStore::groups() {
  std::map<std::string, std::optional<StoredGroup>> found;
  STRATA_ASSIGN_OR_RETURN(auto metas, index_.group_scan(log_.uid(), "G"));
  for (const auto& [key, value] : metas) {
    std::string group = key.substr(1);
    GroupRecord probe;
    probe.kind = GroupRecord::Kind::kGroup;
    probe.group = group;
    auto k = encode_key(probe);
    STRATA_ASSIGN_OR_RETURN(auto r, decode_record(k, as_bytes(value)));
    if (r && r->metadata) found[group] = r->metadata;
  }
  STRATA_ASSIGN_OR_RETURN(auto offsets, index_.group_scan(log_.uid(), "O"));
  for (const auto& [key, value] : offsets) {
    if (key.size() < 3) continue;
    auto glen = be::load<uint16_t>(reinterpret_cast<const std::byte*>(key.data() + 1));
    if (key.size() < 3u + glen) continue;
    found.try_emplace(key.substr(3, glen), std::nullopt);
  }
  return std::vector<std::pair<std::string, std::optional<StoredGroup>>>(found.begin(),
                                                                         found.end());
}

}  // namespace strata::coordinator
