// Batch timestamps as the broker derives them: a CreateTime batch's
// maxTimestamp is recomputed from its records (a compressed batch is
// decompressed to walk them), because the field is the producer's claim and
// some clients send -1 or nonsense there. Retention, the time index and
// ListOffsets use only derived values.
//
//   auto max = derive_max_timestamp(bytes, header, TimestampLimits{now, before, after});
//   if (!max) refuse(max.error());                   // kInvalidTimestamp, kInvalidRecord
//   if (*max != header.max_timestamp) set_max_timestamp(bytes, *max);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "base/ids.h"
#include "base/result.h"
#include "engine/record_batch.h"

namespace strata::engine {

// A compressed batch may not expand beyond this when the broker walks it.
inline constexpr size_t kMaxDecompressedBatchBytes = 256 << 20;

// How far a CreateTime record's timestamp may lie before or after the
// broker's clock (message.timestamp.before.max.ms / after.max.ms).
struct TimestampLimits {
  TimestampMs now = 0;
  int64_t before_max_ms = INT64_MAX;
  int64_t after_max_ms = INT64_MAX;
};

// The largest record timestamp of the batch (kNoRecordTimestamp when no
// record carries one), walking every record: their lengths, count and
// offset deltas are checked on the way, for compressed batches too. With
// `limits`, a record timestamp (other than kNoRecordTimestamp) outside them
// fails with kInvalidTimestamp. `batch` must have passed validate_batch.
// A `compacted` batch (a cleaner's output: a leader's, or recovery's own)
// may skip offset deltas — they must still grow and stay within
// lastOffsetDelta — and may hold no record, when its header's maxTimestamp
// stands.
Result<TimestampMs> derive_max_timestamp(std::span<const std::byte> batch, const BatchHeader& h,
                                         const std::optional<TimestampLimits>& limits,
                                         bool compacted = false);

}  // namespace strata::engine
