// The record sets of Produce requests as the batches a replica appends.
#include "server/produce_batches.h"

#include <fmt/format.h>

#include "engine/compression.h"
#include "engine/legacy_records.h"
#include "engine/record_batch.h"
#include "server/kafka/header.h"

namespace strata::server {
namespace {

// What the wrappers of one legacy message set, or one batch read for its
// keys, may decompress to.
constexpr size_t kMaxLegacyExpandedBytes = 64 << 20;

// Splits a record set into batches by their length fields.
Result<std::vector<SharedBytes>> split_batches(const kafka::Records& records) {
  std::vector<SharedBytes> batches;
  for (const auto& slice : records.slices) {
    size_t pos = 0;
    while (pos < slice.size()) {
      size_t left = slice.size() - pos;
      if (left < engine::kBatchLogOverhead) {
        return Error(Errc::kCorruptMessage,
                     fmt::format("{} stray bytes after the last batch", left));
      }
      int64_t size = engine::peek_batch_size(slice.data() + pos);
      if (size < static_cast<int64_t>(engine::kBatchLogOverhead) ||
          static_cast<uint64_t>(size) > left) {
        // Let the validator name the defect precisely.
        auto checked = engine::check_batch_integrity(std::span<const std::byte>(
            slice.data() + pos, std::min<size_t>(left, size > 0 ? size : left)));
        return checked.ok() ? Error(Errc::kCorruptMessage, "batch overruns the record set")
                            : checked.error();
      }
      batches.push_back(slice.slice(pos, static_cast<size_t>(size)));
      pos += static_cast<size_t>(size);
    }
  }
  return batches;
}

// A record set of magic 0/1 messages (Produce v0-v2) as one v2 batch, as
// Kafka up-converts them.
Result<std::vector<SharedBytes>> up_convert(const kafka::Records& records) {
  SharedBytes set = records.slices.size() == 1 ? records.slices[0] : kafka::concat(records.slices);
  STRATA_ASSIGN_OR_RETURN(
      auto batch, engine::up_convert(set.span(), {.max_expanded_bytes = kMaxLegacyExpandedBytes}));
  return std::vector<SharedBytes>{SharedBytes::adopt(std::move(batch))};
}

}  // namespace

Result<std::vector<SharedBytes>> produce_batches(const kafka::Records& records,
                                                 bool legacy_formats) {
  bool legacy =
      legacy_formats && !records.slices.empty() && engine::starts_legacy(records.slices[0].span());
  if (legacy) return up_convert(records);
  STRATA_ASSIGN_OR_RETURN(auto batches, split_batches(records));
  for (const auto& b : batches) {
    if (!engine::starts_legacy(b.span())) continue;
    // As Kafka: from Produce v3 a record set holds RecordBatch v2 only.
    return Error(Errc::kInvalidRecord,
                 legacy_formats ? "a record set mixes magic 2 batches and magic 0/1 messages"
                                : "Produce v3 and later may only carry magic 2 record batches");
  }
  if (batches.empty()) return Error(Errc::kInvalidRecord, "empty record set");
  return batches;
}

Result<std::vector<int32_t>> records_without_key(const std::vector<SharedBytes>& batches) {
  std::vector<int32_t> keyless;
  std::vector<std::byte> scratch;
  int32_t index = 0;
  for (const auto& b : batches) {
    if (b.size() < engine::kBatchHeaderSize) {
      return Error(Errc::kCorruptMessage, "a batch shorter than its header");
    }
    auto h = engine::read_batch_header(b.data());
    STRATA_ASSIGN_OR_RETURN(auto records,
                            engine::batch_records(b.span(), h, scratch, kMaxLegacyExpandedBytes));
    STRATA_TRY(engine::for_each_record(records, h.records_count, [&](const engine::RecordView& r) {
      if (!r.key) keyless.push_back(index);
      ++index;
      return true;
    }));
  }
  return keyless;
}

}  // namespace strata::server
