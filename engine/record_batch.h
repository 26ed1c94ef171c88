// The Kafka RecordBatch v2 (magic 2) format: reading, validating and stamping
// batch headers, and walking the records of an uncompressed batch.
//
// Layout (big-endian; 61-byte header, see KAFKA-PROTOCOL.md):
//   0 baseOffset i64 | 8 batchLength i32 | 12 partitionLeaderEpoch i32 |
//   16 magic i8 | 17 crc u32 | 21 attributes i16 | 23 lastOffsetDelta i32 |
//   27 baseTimestamp i64 | 35 maxTimestamp i64 | 43 producerId i64 |
//   51 producerEpoch i16 | 53 baseSequence i32 | 57 recordsCount i32 | 61 records
// The CRC-32C covers bytes 21..end, so baseOffset and partitionLeaderEpoch can
// be set without recomputing it.
//
//   auto header = validate_batch(bytes, {.max_batch_bytes = 1048588});
//   if (!header) reject(header.error());
//   set_base_offset(bytes.data(), next_offset);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "base/big_endian.h"
#include "base/ids.h"
#include "base/result.h"

namespace strata::engine {

inline constexpr size_t kBatchHeaderSize = 61;
// baseOffset and batchLength precede the part that batchLength counts.
inline constexpr size_t kBatchLogOverhead = 12;
inline constexpr int8_t kMagicV2 = 2;
// Kafka's "no timestamp": magic 0 messages, and records of clients that set none.
inline constexpr TimestampMs kNoRecordTimestamp = -1;

namespace batch_field {
inline constexpr size_t kBaseOffset = 0;
inline constexpr size_t kLength = 8;
inline constexpr size_t kLeaderEpoch = 12;
inline constexpr size_t kMagic = 16;
inline constexpr size_t kCrc = 17;
inline constexpr size_t kAttributes = 21;
inline constexpr size_t kLastOffsetDelta = 23;
inline constexpr size_t kBaseTimestamp = 27;
inline constexpr size_t kMaxTimestamp = 35;
inline constexpr size_t kProducerId = 43;
inline constexpr size_t kProducerEpoch = 51;
inline constexpr size_t kBaseSequence = 53;
inline constexpr size_t kRecordsCount = 57;
}  // namespace batch_field

enum class Compression : uint8_t { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };

namespace batch_attr {
inline constexpr int16_t kCompressionMask = 0x07;
inline constexpr int16_t kLogAppendTime = 0x08;
inline constexpr int16_t kTransactional = 0x10;
inline constexpr int16_t kControl = 0x20;
inline constexpr int16_t kDeleteHorizon = 0x40;
}  // namespace batch_attr

struct BatchHeader {
  Offset base_offset;
  int32_t batch_length = 0;
  LeaderEpoch leader_epoch;
  int8_t magic = 0;
  uint32_t crc = 0;
  int16_t attributes = 0;
  int32_t last_offset_delta = 0;
  TimestampMs base_timestamp = 0;
  TimestampMs max_timestamp = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  int32_t records_count = 0;

  size_t total_size() const { return kBatchLogOverhead + static_cast<size_t>(batch_length); }
  Offset last_offset() const { return base_offset + last_offset_delta; }
  Offset next_offset() const { return last_offset() + 1; }
  Compression compression() const {
    return static_cast<Compression>(attributes & batch_attr::kCompressionMask);
  }
  bool log_append_time() const { return (attributes & batch_attr::kLogAppendTime) != 0; }
  bool transactional() const { return (attributes & batch_attr::kTransactional) != 0; }
  bool control() const { return (attributes & batch_attr::kControl) != 0; }
};

// Decodes the 61 header bytes at `p` without checking them.
BatchHeader read_batch_header(const std::byte* p);

// Total size (log overhead + batchLength) of the batch starting at `p`, from
// its first 12 bytes; may be nonsense for corrupt input.
inline int64_t peek_batch_size(const std::byte* p) {
  return static_cast<int64_t>(kBatchLogOverhead) + be::load<int32_t>(p + batch_field::kLength);
}

struct BatchLimits {
  size_t max_batch_bytes = 1048588;       // Kafka's max.message.bytes default
  bool allow_control = false;             // only the broker itself writes control batches
  bool require_zero_base_offset = false;  // clients send 0
  // Walk the records of uncompressed batches (lengths, offset deltas, count).
  bool check_records = true;
  // A cleaner's output (a compacted leader's batch, copied by a follower):
  // fewer records than lastOffsetDelta + 1, none at all in the last batch
  // of a cleaned segment.
  bool allow_compacted = false;
};

// Checks that `bytes` holds exactly one well-formed v2 batch: length, magic,
// size limit, CRC, record count, producer fields and (uncompressed) records.
// Each defect has its own error code:
//   kTruncatedBatch       fewer bytes than the header or batchLength promise
//   kCorruptMessage       batchLength below the header size, or CRC mismatch
//   kUnsupportedMagic     magic other than 2
//   kMessageTooLarge      total size over limits.max_batch_bytes
//   kInvalidRecord        counts, deltas or record lengths inconsistent
//   kControlBatchRejected control batch where none is allowed
Result<BatchHeader> validate_batch(std::span<const std::byte> bytes, const BatchLimits& limits);

// Checks length, magic and CRC only (the read-back check of recovery).
Result<BatchHeader> check_batch_integrity(std::span<const std::byte> bytes);

// CRC-32C over attributes..end, as stored in the crc field.
uint32_t compute_batch_crc(std::span<const std::byte> batch);

void set_base_offset(std::byte* batch, Offset offset);
void set_leader_epoch(std::byte* batch, LeaderEpoch epoch);
// Marks the batch LogAppendTime with maxTimestamp = now and rewrites the CRC.
void set_log_append_time(std::span<std::byte> batch, TimestampMs now);
// Sets maxTimestamp and rewrites the CRC.
void set_max_timestamp(std::span<std::byte> batch, TimestampMs max_timestamp);

// One record of a batch, viewing the batch's (decompressed) bytes.
struct RecordView {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  std::optional<std::span<const std::byte>> key;    // nullopt = null key
  std::optional<std::span<const std::byte>> value;  // nullopt = null value (tombstone)
  uint32_t header_count = 0;
  std::span<const std::byte> headers;  // encoded headers, see for_each_header
};

// Walks the records in `records` (the bytes after the batch header, already
// decompressed). Stops early when `fn` returns false. Fails on malformed input.
template <typename Fn>
Status for_each_record(std::span<const std::byte> records, int32_t expected_count, Fn&& fn);

// Decodes one record at `p`, advancing it; used by for_each_record.
Result<RecordView> read_record(const std::byte*& p, const std::byte* end);

// Calls fn(key, value) for each header of a record; value may be nullopt.
Status for_each_header(const RecordView& record,
                       const std::function<void(std::span<const std::byte>,
                                                std::optional<std::span<const std::byte>>)>& fn);

template <typename Fn>
Status for_each_record(std::span<const std::byte> records, int32_t expected_count, Fn&& fn) {
  const std::byte* p = records.data();
  const std::byte* end = p + records.size();
  for (int32_t i = 0; i < expected_count; ++i) {
    if (p == end) {
      return Error(Errc::kInvalidRecord, "batch holds " + std::to_string(i) +
                                             " records, fewer than its count of " +
                                             std::to_string(expected_count));
    }
    STRATA_ASSIGN_OR_RETURN(RecordView r, read_record(p, end));
    if (!fn(r)) return ok_status();
  }
  if (p != end) {
    return Error(Errc::kInvalidRecord, "bytes left after the last record of the batch");
  }
  return ok_status();
}

}  // namespace strata::engine
