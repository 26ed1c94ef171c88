#include "coordinator/group/group_records.h"

#include <cstring>

#include <fmt/format.h>

#include "coordinator/record_codec.h"

namespace strata::coordinator {
namespace {

constexpr int16_t kOffsetKeyVersion = 1;
constexpr int16_t kGroupKeyVersion = 2;
constexpr int16_t kOffsetValueVersion = 3;
constexpr int16_t kGroupValueVersion = 3;

using records::In;
using records::Out;

}  // namespace

int32_t java_string_hash(std::string_view s) {
  // Over UTF-16 code units, as Java does; group ids are almost always ASCII,
  // and UTF-8 input is converted so that non-ASCII ids map as Java maps them.
  uint32_t h = 0;
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp = c;
    size_t len = 1;
    if (c >= 0xF0 && i + 3 < s.size()) {
      cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 12) |
           ((static_cast<unsigned char>(s[i + 2]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(s[i + 3]) & 0x3Fu);
      len = 4;
    } else if (c >= 0xE0 && i + 2 < s.size()) {
      cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
      len = 3;
    } else if (c >= 0xC0 && i + 1 < s.size()) {
      cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3Fu);
      len = 2;
    }
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      h = 31 * h + (0xD800 + (cp >> 10));
      h = 31 * h + (0xDC00 + (cp & 0x3FF));
    } else {
      h = 31 * h + cp;
    }
  }
  return static_cast<int32_t>(h);
}

int32_t internal_partition_for(std::string_view id, int32_t partitions) {
  int32_t h = java_string_hash(id);
  // Kafka's Utils.abs: Integer.MIN_VALUE maps to 0.
  int32_t a = h == INT32_MIN ? 0 : (h < 0 ? -h : h);
  return a % partitions;
}

int32_t offsets_partition_for(std::string_view group) {
  return internal_partition_for(group, kOffsetsPartitions);
}

std::vector<std::byte> encode_key(const GroupRecord& r) {
  Out o;
  if (r.kind == GroupRecord::Kind::kOffset) {
    o.fixed<int16_t>(kOffsetKeyVersion);
    o.str(r.group);
    o.str(r.topic);
    o.fixed<int32_t>(r.partition);
  } else {
    o.fixed<int16_t>(kGroupKeyVersion);
    o.str(r.group);
  }
  return std::move(o.buf);
}

std::optional<std::vector<std::byte>> encode_value(const GroupRecord& r) {
  Out o;
  if (r.kind == GroupRecord::Kind::kOffset) {
    if (!r.offset) return std::nullopt;
    o.fixed<int16_t>(kOffsetValueVersion);
    o.fixed<int64_t>(r.offset->offset);
    o.fixed<int32_t>(r.offset->leader_epoch);
    o.str(r.offset->metadata);
    o.fixed<int64_t>(r.offset->commit_timestamp);
    return std::move(o.buf);
  }
  if (!r.metadata) return std::nullopt;
  const auto& g = *r.metadata;
  o.fixed<int16_t>(kGroupValueVersion);
  o.str(g.protocol_type);
  o.fixed<int32_t>(g.generation);
  o.nullable_str(g.protocol);
  o.nullable_str(g.leader);
  o.fixed<int64_t>(g.state_timestamp);
  o.fixed<int32_t>(static_cast<int32_t>(g.members.size()));
  for (const auto& m : g.members) {
    o.str(m.member_id);
    o.nullable_str(m.instance_id);
    o.str(m.client_id);
    o.str(m.client_host);
    o.fixed<int32_t>(m.rebalance_timeout_ms);
    o.fixed<int32_t>(m.session_timeout_ms);
    o.bytes(m.subscription);
    o.bytes(m.assignment);
  }
  return std::move(o.buf);
}

Result<std::optional<GroupRecord>> decode_record(std::span<const std::byte> key,
                                                 std::optional<std::span<const std::byte>> value) {
  In k(key);
  GroupRecord r;
  auto key_version = k.fixed<int16_t>();
  if (!k.ok()) return Error(Errc::kCorruption, "__consumer_offsets key too short");
  if (key_version == 0 || key_version == 1) {
    r.kind = GroupRecord::Kind::kOffset;
    r.group = k.str();
    r.topic = k.str();
    r.partition = k.fixed<int32_t>();
  } else if (key_version == 2) {
    r.kind = GroupRecord::Kind::kGroup;
    r.group = k.str();
  } else {
    return std::optional<GroupRecord>();  // another record type: not ours
  }
  if (!k.ok()) return Error(Errc::kCorruption, "__consumer_offsets key is truncated");
  if (!value) return std::optional<GroupRecord>(std::move(r));  // tombstone
  In v(*value);
  auto version = v.fixed<int16_t>();
  if (r.kind == GroupRecord::Kind::kOffset) {
    CommittedOffset c;
    c.offset = v.fixed<int64_t>();
    if (version >= 3) c.leader_epoch = v.fixed<int32_t>();
    c.metadata = v.str();
    c.commit_timestamp = v.fixed<int64_t>();
    if (version == 1) (void)v.fixed<int64_t>();  // expire timestamp
    if (!v.ok() || version < 0 || version > 3) {
      return Error(Errc::kCorruption, fmt::format("bad offset commit value (version {})", version));
    }
    r.offset = c;
    return std::optional<GroupRecord>(std::move(r));
  }
  StoredGroup g;
  g.protocol_type = v.str();
  g.generation = v.fixed<int32_t>();
  g.protocol = v.nullable_str();
  g.leader = v.nullable_str();
  if (version >= 2) g.state_timestamp = v.fixed<int64_t>();
  auto n = v.fixed<int32_t>();
  for (int32_t i = 0; v.ok() && i < n; ++i) {
    StoredMember m;
    m.member_id = v.str();
    if (version >= 3) m.instance_id = v.nullable_str();
    m.client_id = v.str();
    m.client_host = v.str();
    if (version >= 1) m.rebalance_timeout_ms = v.fixed<int32_t>();
    m.session_timeout_ms = v.fixed<int32_t>();
    m.subscription = v.bytes();
    m.assignment = v.bytes();
    g.members.push_back(std::move(m));
  }
  if (!v.ok() || version < 0 || version > 3) {
    return Error(Errc::kCorruption, fmt::format("bad group metadata value (version {})", version));
  }
  r.metadata = std::move(g);
  return std::optional<GroupRecord>(std::move(r));
}

}  // namespace strata::coordinator
