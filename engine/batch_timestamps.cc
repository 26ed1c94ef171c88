#include "engine/batch_timestamps.h"

#include <fmt/format.h>

#include "engine/compression.h"

namespace strata::engine {
namespace {

// now - ts compared with the limits without overflow for any pair of values:
// when the difference does not fit in 64 bits it exceeds every limit.
Status check_limits(TimestampMs ts, const TimestampLimits& limits, Offset offset) {
  int64_t diff = 0;
  bool too_old = false, too_new = false;
  if (__builtin_sub_overflow(limits.now, ts, &diff)) {
    too_old = ts < limits.now;
    too_new = !too_old;
  } else {
    too_old = diff > limits.before_max_ms;
    too_new = diff < 0 && (diff == INT64_MIN || -diff > limits.after_max_ms);
  }
  if (too_old) {
    return Error(Errc::kInvalidTimestamp,
                 fmt::format("record at offset delta {} has timestamp {}, more than "
                             "message.timestamp.before.max.ms={} before the broker's clock {}",
                             offset, ts, limits.before_max_ms, limits.now));
  }
  if (too_new) {
    return Error(Errc::kInvalidTimestamp,
                 fmt::format("record at offset delta {} has timestamp {}, more than "
                             "message.timestamp.after.max.ms={} after the broker's clock {}",
                             offset, ts, limits.after_max_ms, limits.now));
  }
  return ok_status();
}

}  // namespace

Result<TimestampMs> derive_max_timestamp(std::span<const std::byte> batch, const BatchHeader& h,
                                         const std::optional<TimestampLimits>& limits,
                                         bool compacted) {
  if (compacted && h.records_count == 0) return h.max_timestamp;
  std::vector<std::byte> plain;
  STRATA_ASSIGN_OR_RETURN(auto records, batch_records(batch, h, plain, kMaxDecompressedBatchBytes));
  TimestampMs max_ts = kNoRecordTimestamp;
  int32_t expected_delta = 0;
  std::optional<Error> error;
  STRATA_TRY(for_each_record(records, h.records_count, [&](const RecordView& r) {
    bool in_order = compacted
                        ? r.offset_delta >= expected_delta && r.offset_delta <= h.last_offset_delta
                        : r.offset_delta == expected_delta;
    if (!in_order) {
      error = Error(Errc::kInvalidRecord,
                    fmt::format("record {} has offset delta {}", expected_delta, r.offset_delta));
      return false;
    }
    expected_delta = r.offset_delta + 1;
    // Wrapping arithmetic: a hostile delta must not be undefined behaviour.
    auto ts = static_cast<TimestampMs>(static_cast<uint64_t>(h.base_timestamp) +
                                       static_cast<uint64_t>(r.timestamp_delta));
    if (limits && ts != kNoRecordTimestamp) {
      if (auto st = check_limits(ts, *limits, Offset(r.offset_delta)); !st) {
        error = st.error();
        return false;
      }
    }
    max_ts = std::max(max_ts, ts);
    return true;
  }));
  if (error) return *error;
  return max_ts;
}

}  // namespace strata::engine
