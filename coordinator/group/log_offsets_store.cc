#include "coordinator/group/log_offsets_store.h"

#include <set>

#include "base/big_endian.h"
#include "base/bytes.h"

namespace strata::coordinator {
namespace {

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

// Decodes the stored value of an offset key back into a record.
Result<CommittedOffset> decode_offset_value(const std::string& value) {
  GroupRecord probe;
  probe.kind = GroupRecord::Kind::kOffset;
  auto key = encode_key(probe);
  STRATA_ASSIGN_OR_RETURN(auto r, decode_record(key, bytes_of(value)));
  if (!r || !r->offset) return Error(Errc::kCorruption, "stored offset is not an offset");
  return *r->offset;
}

}  // namespace

LogOffsetsStore::LogOffsetsStore(replication::Partition& partition, index::IndexStore& index)
    : view_(kOffsetsTopic, partition, index, index::IndexStore::View::kGroups,
            [](std::span<const std::byte> key, std::optional<std::span<const std::byte>> value)
                -> Result<std::optional<LogView::KvOp>> {
              STRATA_ASSIGN_OR_RETURN(auto r, decode_record(key, value));
              if (!r) return std::optional<LogView::KvOp>();
              std::string k = r->kind == GroupRecord::Kind::kOffset
                                  ? offset_key(r->group, r->topic, r->partition)
                                  : group_key(r->group);
              auto v = encode_value(*r);
              return std::optional<LogView::KvOp>(LogView::KvOp{
                  std::move(k), v ? std::optional<std::string>(string_of(*v)) : std::nullopt});
            }) {}

namespace {

std::vector<LogView::Record> as_records(const std::vector<GroupRecord>& records) {
  std::vector<LogView::Record> out;
  out.reserve(records.size());
  for (const auto& r : records) {
    auto value = encode_value(r);
    out.push_back({string_of(encode_key(r)),
                   value ? std::optional<std::string>(string_of(*value)) : std::nullopt});
  }
  return out;
}

}  // namespace

void LogOffsetsStore::append(std::vector<GroupRecord> records, std::function<void(Status)> done) {
  view_.append(as_records(records), std::move(done));
}

void LogOffsetsStore::append_transactional(int64_t producer_id, int16_t producer_epoch,
                                           std::vector<GroupRecord> records,
                                           std::function<void(Status)> done) {
  view_.append(as_records(records), std::move(done),
               LogView::TxnProducer{producer_id, producer_epoch});
}

bool LogOffsetsStore::pending_transactional(const std::string& group, const std::string& topic,
                                            int32_t partition) const {
  return view_.in_open_transaction(offset_key(group, topic, partition));
}

Result<std::optional<CommittedOffset>> LogOffsetsStore::committed(const std::string& group,
                                                                  const std::string& topic,
                                                                  int32_t partition) {
  STRATA_ASSIGN_OR_RETURN(auto value, view_.get(offset_key(group, topic, partition)));
  if (!value) return std::optional<CommittedOffset>();
  STRATA_ASSIGN_OR_RETURN(auto c, decode_offset_value(*value));
  return std::optional<CommittedOffset>(c);
}

Result<std::vector<OffsetsStore::Committed>> LogOffsetsStore::committed_all(
    const std::string& group) {
  std::string prefix = offset_prefix(group);
  STRATA_ASSIGN_OR_RETURN(auto rows, view_.scan(prefix));
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
  STRATA_ASSIGN_OR_RETURN(auto metas, view_.scan("G"));
  for (const auto& [key, value] : metas) {
    std::string group = key.substr(1);
    GroupRecord probe;
    probe.kind = GroupRecord::Kind::kGroup;
    probe.group = group;
    auto k = encode_key(probe);
    STRATA_ASSIGN_OR_RETURN(auto r, decode_record(k, bytes_of(value)));
    if (r && r->metadata) found[group] = r->metadata;
  }
  STRATA_ASSIGN_OR_RETURN(auto offsets, view_.scan("O"));
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
