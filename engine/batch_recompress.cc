#include "engine/batch_recompress.h"

#include <cstring>

#include <fmt/format.h>

#include "base/big_endian.h"

namespace strata::engine {

Result<std::optional<std::vector<std::byte>>> recompress_batch(std::span<const std::byte> batch,
                                                               const RecompressOptions& options) {
  using Out = std::optional<std::vector<std::byte>>;
  if (batch.size() > batch_field::kMagic &&
      be::load<int8_t>(batch.data() + batch_field::kMagic) != kMagicV2) {
    return Out();
  }
  STRATA_ASSIGN_OR_RETURN(BatchHeader h, check_batch_integrity(batch));
  // Control batches are the broker's own; a client's is refused later.
  if (h.compression() == options.codec || h.control()) return Out();

  auto stored = batch.subspan(kBatchHeaderSize);
  STRATA_ASSIGN_OR_RETURN(auto records,
                          decompress(h.compression(), stored, options.max_records_bytes));
  // Walk the records so that what is re-encoded is known to be whole.
  STRATA_TRY(for_each_record(records, h.records_count, [](const RecordView&) { return true; }));
  STRATA_ASSIGN_OR_RETURN(auto encoded, compress(options.codec, records, options.level));

  size_t length = kBatchHeaderSize - kBatchLogOverhead + encoded.size();
  if (length > static_cast<size_t>(INT32_MAX)) {
    return Error(Errc::kMessageTooLarge, fmt::format("batch re-encoded with {} would hold {} bytes",
                                                     compression_name(options.codec), length));
  }
  std::vector<std::byte> out(kBatchHeaderSize + encoded.size());
  std::memcpy(out.data(), batch.data(), kBatchHeaderSize);
  if (!encoded.empty()) std::memcpy(out.data() + kBatchHeaderSize, encoded.data(), encoded.size());
  be::store<int32_t>(out.data() + batch_field::kLength, static_cast<int32_t>(length));
  auto attributes = static_cast<int16_t>((h.attributes & ~batch_attr::kCompressionMask) |
                                         static_cast<int16_t>(options.codec));
  be::store<int16_t>(out.data() + batch_field::kAttributes, attributes);
  be::store<uint32_t>(out.data() + batch_field::kCrc, compute_batch_crc(out));
  return Out(std::move(out));
}

}  // namespace strata::engine
