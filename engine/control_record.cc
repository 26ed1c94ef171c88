#include "engine/control_record.h"

#include <fmt/format.h>

#include "base/big_endian.h"
#include "engine/batch_builder.h"
#include "engine/record_batch.h"

namespace strata::engine {

namespace {

constexpr int16_t kAbortType = 0;
constexpr int16_t kCommitType = 1;

std::string be16(int16_t v) {
  std::string s(2, '\0');
  be::store<int16_t>(reinterpret_cast<std::byte*>(s.data()), v);
  return s;
}

}  // namespace

std::vector<std::byte> build_marker_batch(const TxnMarker& marker, TimestampMs now) {
  BatchBuilder b({.producer_id = marker.producer_id,
                  .producer_epoch = marker.producer_epoch,
                  .base_sequence = -1,
                  .transactional = true,
                  .control = true});
  std::string value = be16(0) + std::string(4, '\0');
  be::store<int32_t>(reinterpret_cast<std::byte*>(value.data() + 2), marker.coordinator_epoch);
  b.add({.key = be16(0) + be16(marker.commit ? kCommitType : kAbortType),
         .value = std::move(value),
         .timestamp = now});
  // Uncompressed with one record: building cannot fail.
  return b.build().value();
}

Result<std::optional<TxnMarker>> read_marker(std::span<const std::byte> batch) {
  if (batch.size() < kBatchHeaderSize) {
    return Error(Errc::kInvalidRecord, "a control batch shorter than its header");
  }
  BatchHeader h = read_batch_header(batch.data());
  if (!h.control() || h.compression() != Compression::kNone || h.records_count != 1) {
    return Error(Errc::kInvalidRecord,
                 fmt::format("not a control batch of one uncompressed record (attributes {:#x}, "
                             "{} records)",
                             h.attributes, h.records_count));
  }
  std::optional<RecordView> record;
  STRATA_TRY(for_each_record(batch.subspan(kBatchHeaderSize), 1, [&](const RecordView& r) {
    record = r;
    return true;
  }));
  if (!record->key || record->key->size() < 4) {
    return Error(Errc::kInvalidRecord, "a control record without its version and type");
  }
  int16_t type = be::load<int16_t>(record->key->data() + 2);
  if (type != kAbortType && type != kCommitType) return std::optional<TxnMarker>();
  if (!record->value || record->value->size() < 6) {
    return Error(Errc::kInvalidRecord, "a transaction marker without its coordinator epoch");
  }
  return std::optional<TxnMarker>(TxnMarker{h.producer_id, h.producer_epoch,
                                            be::load<int32_t>(record->value->data() + 2),
                                            type == kCommitType});
}

}  // namespace strata::engine
