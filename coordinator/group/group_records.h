// The records of the internal topic __consumer_offsets, in Kafka's formats:
//
//   offset commit   key v1: group, topic, partition
//                   value v3: offset, leader epoch, metadata, commit timestamp
//   group metadata  key v2: group
//                   value v3: protocol type, generation, protocol, leader,
//                   state timestamp, members (id, instance id, client id,
//                   host, timeouts, subscription, assignment)
// A null value is a tombstone (the offset or group was deleted).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"

namespace strata::coordinator {

inline constexpr std::string_view kOffsetsTopic = "__consumer_offsets";
inline constexpr int32_t kOffsetsPartitions = 50;

// Java's String.hashCode, so a group maps to the partition Kafka would use.
int32_t java_string_hash(std::string_view s);
// The partition of an internal topic of `partitions` that holds `id` (a
// group, a transactional id): abs(Java hash) % partitions, as Kafka's.
int32_t internal_partition_for(std::string_view id, int32_t partitions);
// The __consumer_offsets partition that holds `group`.
int32_t offsets_partition_for(std::string_view group);

struct CommittedOffset {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = -1;

  bool operator==(const CommittedOffset&) const = default;
};

struct StoredMember {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = 0;
  int32_t session_timeout_ms = 0;
  std::vector<std::byte> subscription;
  std::vector<std::byte> assignment;

  bool operator==(const StoredMember&) const = default;
};

struct StoredGroup {
  std::string protocol_type;
  int32_t generation = 0;
  std::optional<std::string> protocol;
  std::optional<std::string> leader;
  int64_t state_timestamp = -1;
  std::vector<StoredMember> members;

  bool operator==(const StoredGroup&) const = default;
};

// One record of __consumer_offsets.
struct GroupRecord {
  enum class Kind { kOffset, kGroup };
  Kind kind = Kind::kOffset;
  std::string group;
  std::string topic;                      // kOffset
  int32_t partition = 0;                  // kOffset
  std::optional<CommittedOffset> offset;  // kOffset; nullopt = tombstone
  std::optional<StoredGroup> metadata;    // kGroup; nullopt = tombstone

  bool operator==(const GroupRecord&) const = default;
};

std::vector<std::byte> encode_key(const GroupRecord& r);
// nullopt for a tombstone.
std::optional<std::vector<std::byte>> encode_value(const GroupRecord& r);
// Decodes a record; records of unknown key versions (other formats Kafka
// writes there) come back as nullopt and are skipped.
Result<std::optional<GroupRecord>> decode_record(std::span<const std::byte> key,
                                                 std::optional<std::span<const std::byte>> value);

}  // namespace strata::coordinator
