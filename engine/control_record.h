// Transaction markers: the control batches that end a producer's
// transaction in a partition (KAFKA-PROTOCOL.md, "Idempotence and
// transactions"). A marker batch has the transactional and control bits,
// the producer's id and epoch, no sequence, and one record whose key is
// {version i16 = 0, type i16: 0 abort, 1 commit} and whose value is
// {version i16 = 0, coordinator epoch i32}.
//
//   auto bytes = build_marker_batch({.producer_id = 7, .producer_epoch = 2,
//                                    .coordinator_epoch = 1, .commit = true}, now);
//   auto marker = read_marker(bytes);   // back from a stored control batch
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/ids.h"
#include "base/result.h"

namespace strata::engine {

struct TxnMarker {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t coordinator_epoch = 0;
  bool commit = false;  // else abort
  bool operator==(const TxnMarker&) const = default;
};

// A marker batch at offset 0, uncompressed, stamped `now`.
std::vector<std::byte> build_marker_batch(const TxnMarker& marker, TimestampMs now);

// The marker a control batch (`batch`: one whole v2 batch) holds; nullopt
// for a control record of another type (Kafka has others, e.g. KRaft's
// leader change), which transactions ignore. kInvalidRecord if the batch is
// not a control batch or its record is malformed.
Result<std::optional<TxnMarker>> read_marker(std::span<const std::byte> batch);

}  // namespace strata::engine
