// BatchBuilder: encodes records into one Kafka RecordBatch v2, optionally
// compressed. Used by tests and benchmarks to make client-like batches, and
// by the broker for the batches it writes itself (control markers,
// internal topics). BatchEncoder does the same one record at a time without
// keeping the records as values (up-conversion of legacy message sets).
//
//   BatchBuilder b({.compression = Compression::kLz4});
//   b.add({.key = "k", .value = "v", .timestamp = now});
//   std::vector<std::byte> batch = b.build().value();
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "engine/record_batch.h"

namespace strata::engine {

struct RecordSpec {
  std::optional<std::string> key;
  std::optional<std::string> value;
  TimestampMs timestamp = 0;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

struct BatchOptions {
  Compression compression = Compression::kNone;
  Offset base_offset{0};
  LeaderEpoch leader_epoch{-1};
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  bool transactional = false;
  bool control = false;
  bool log_append_time = false;
};

class BatchBuilder {
 public:
  explicit BatchBuilder(BatchOptions options = {}) : options_(options) {}

  void add(RecordSpec record) { records_.push_back(std::move(record)); }
  size_t size() const { return records_.size(); }

  // The encoded batch. Fails only if compression fails or there are no records.
  Result<std::vector<std::byte>> build() const;

 private:
  BatchOptions options_;
  std::vector<RecordSpec> records_;
};

// Encodes records into a v2 batch as they are added: only the encoded bytes
// are kept. The first record's timestamp is the batch's base timestamp.
// REQUIRES: each timestamp minus the first fits in an int64.
class BatchEncoder {
 public:
  explicit BatchEncoder(BatchOptions options = {}) : options_(options) {}

  void add(std::optional<std::span<const std::byte>> key,
           std::optional<std::span<const std::byte>> value, TimestampMs timestamp);
  // The codec finish() compresses with (options.compression until set).
  void set_compression(Compression codec) { options_.compression = codec; }
  int32_t count() const { return count_; }
  TimestampMs base_timestamp() const { return base_ts_; }
  // Bytes of the encoded records so far (before compression).
  size_t records_bytes() const { return records_.size(); }

  // The encoded batch. Fails only if compression fails or there are no records.
  Result<std::vector<std::byte>> finish() const;

 private:
  BatchOptions options_;
  std::vector<std::byte> records_;
  std::vector<std::byte> body_;  // scratch for one record
  int32_t count_ = 0;
  TimestampMs base_ts_ = 0;
  TimestampMs max_ts_ = 0;
};

}  // namespace strata::engine
