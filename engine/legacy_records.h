// Legacy message sets (magic 0 and 1, the formats before RecordBatch v2):
// validating walk, up-conversion of a produced set to one v2 batch, and
// down-conversion of a stored v2 batch for readers of the old formats
// (Fetch v0-v3). No I/O.
//
// A message set is a sequence of entries (big-endian):
//   0 offset i64 | 8 size i32 (bytes after this field) | 12 crc u32 |
//   16 magic i8 | 17 attributes i8 | [18 timestamp i64, magic 1 only] |
//   key (i32 length, -1 = null) | value (i32 length, -1 = null)
// The CRC-32 (IEEE, not Castagnoli) covers magic .. end. Attributes: bits
// 0-2 codec (none, gzip, snappy, lz4; no zstd), bit 3 LogAppendTime (magic
// 1). A compressed entry (a "wrapper") holds in its value an inner message
// set of uncompressed messages of its own magic; magic 1 inner offsets are
// relative (absolute = wrapper offset - last inner offset + inner offset),
// magic 0 inner offsets absolute. Magic 0 lz4 uses Kafka's old frame header
// checksum (legacy_lz4.h).
//
//   auto batch = up_convert(message_set, {});             // Produce v0-v2
//   auto set = down_convert(stored_batch, 1, fetch_offset, 64 << 20);  // Fetch v2-v3
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "engine/record_batch.h"

namespace strata::engine {

inline constexpr int8_t kMagicV0 = 0;
inline constexpr int8_t kMagicV1 = 1;

namespace legacy_field {
inline constexpr size_t kOffset = 0;
inline constexpr size_t kSize = 8;
inline constexpr size_t kCrc = 12;
inline constexpr size_t kMagic = 16;  // the same byte as a v2 batch's magic
inline constexpr size_t kAttributes = 17;
inline constexpr size_t kTimestamp = 18;
}  // namespace legacy_field

namespace legacy_attr {
inline constexpr int8_t kCompressionMask = 0x07;
inline constexpr int8_t kLogAppendTime = 0x08;
}  // namespace legacy_attr

// One record of a message set, viewing the set's (or a decompressed
// wrapper's) bytes.
struct LegacyRecord {
  Offset offset;  // as written, inner magic 1 offsets made absolute
  int8_t magic = 0;
  TimestampMs timestamp = kNoRecordTimestamp;
  bool log_append_time = false;
  Compression wrapper_codec = Compression::kNone;  // of the wrapper holding it
  std::optional<std::span<const std::byte>> key;
  std::optional<std::span<const std::byte>> value;
};

struct LegacyLimits {
  // What the wrappers of one message set may decompress to, in all.
  size_t max_expanded_bytes = 64 << 20;
};

// Whether `bytes` starts with a magic 0 or 1 entry.
bool starts_legacy(std::span<const std::byte> bytes);

// Calls fn for every record of the message set `set` in order, compressed
// wrappers expanded, and stops early when fn returns false. Every entry is
// checked before its records are visited:
//   kCorruptMessage          CRC mismatch, an entry cut off or shorter than
//                            its fixed fields, stray bytes at the end
//   kInvalidRecord           magic other than 0/1, key/value lengths that
//                            disagree with the size, a wrapper inside a
//                            wrapper or of another magic, a negative
//                            timestamp other than -1, malformed compressed
//                            data, expansion beyond the limit, an empty set
//   kUnsupportedCompression  codec 4 (zstd), which magic 0/1 cannot hold
Status for_each_legacy_record(std::span<const std::byte> set, const LegacyLimits& limits,
                              const std::function<bool(const LegacyRecord&)>& fn);

// The records of a produced message set as one v2 batch, as Kafka 3.x
// up-converts them: base offset 0 (the log assigns offsets), offset deltas
// 0..n-1, no producer id, the records' timestamps (kNoRecordTimestamp for
// magic 0, so the batch's timestamps are -1 too), no headers, compressed
// with the codec of the set's first compressed wrapper. Fails as
// for_each_legacy_record does.
Result<std::vector<std::byte>> up_convert(std::span<const std::byte> set,
                                          const LegacyLimits& limits);

// The records of the v2 batch `batch` at or after `min_offset` as a message
// set of `magic` (0 or 1), as Kafka down-converts for old readers: an
// uncompressed batch gives one message per record, a compressed one a
// single wrapper of the same codec (its offset the last record's). Keys,
// values and offsets are kept, headers dropped; magic 1 keeps timestamps
// and LogAppendTime, magic 0 has neither. Control batches, and batches with
// no record at or after `min_offset`, give an empty set. `batch` is checked
// for its length and magic, not its CRC (stored batches passed
// validate_batch).
//   kUnsupportedCompression  a zstd batch
//   kCorruptMessage          not one v2 batch
//   kInvalidRecord           malformed records or compressed data, or more
//                            than max_expanded_bytes decompressed
Result<std::vector<std::byte>> down_convert(std::span<const std::byte> batch, int8_t magic,
                                            Offset min_offset, size_t max_expanded_bytes);

}  // namespace strata::engine
