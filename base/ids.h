// The strong types of Strata's vocabulary.
//
// Offset        a record's position in its partition (Kafka int64 offset).
// LeaderEpoch   the partition leader epoch stamped into each batch (int32).
// PartitionId   a partition's index within its topic (Kafka int32 partition).
// PartitionUid  a broker-local number naming one partition of one topic; the
//               key prefix of every per-partition row in the index store.
// FilePos       a byte position inside one segment file.
// TimestampMs   milliseconds since the Unix epoch (Kafka timestamps); may be
//               negative (-1 means "no timestamp" in the protocol).
#pragma once

#include <cstdint>

#include "base/strong_int.h"

namespace strata {

using Offset = StrongInt<struct OffsetTag, int64_t>;
using LeaderEpoch = StrongInt<struct LeaderEpochTag, int32_t>;
using PartitionId = StrongInt<struct PartitionIdTag, int32_t>;
using PartitionUid = StrongInt<struct PartitionUidTag, uint64_t>;
using FilePos = StrongInt<struct FilePosTag, uint64_t>;
using TimestampMs = int64_t;

}  // namespace strata
