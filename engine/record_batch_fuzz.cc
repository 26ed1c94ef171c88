// libFuzzer target: the RecordBatch v2 parser.
//
// The input is a candidate batch. Validation must fail cleanly or succeed;
// a valid batch's records (decompressed with a bounded output) must walk
// without reading out of bounds, and stamping offsets must keep it valid.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "engine/compression.h"
#include "engine/record_batch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata;
  using namespace strata::engine;
  std::vector<std::byte> batch(reinterpret_cast<const std::byte*>(data),
                               reinterpret_cast<const std::byte*>(data) + size);
  // A random CRC almost never matches, which would stop the fuzzer at the
  // checksum: half the inputs get a correct one so the record parser behind
  // it is explored too.
  if (size > kBatchHeaderSize && (data[size - 1] & 1) != 0) {
    be::store<uint32_t>(batch.data() + batch_field::kCrc, compute_batch_crc(batch));
  }
  BatchLimits limits;
  limits.max_batch_bytes = 1 << 20;
  auto h = validate_batch(batch, limits);
  auto integrity = check_batch_integrity(batch);
  if (h && !integrity) std::abort();  // validation is stricter than integrity
  if (!integrity) return 0;
  auto payload = std::span<const std::byte>(batch).subspan(kBatchHeaderSize);
  auto plain = decompress(integrity->compression(), payload, 1 << 22);
  if (plain) {
    (void)for_each_record(*plain, integrity->records_count, [](const RecordView& r) {
      (void)for_each_header(r, [](auto, auto) {});
      return true;
    });
  }
  if (h) {
    set_base_offset(batch.data(), Offset(123));
    set_leader_epoch(batch.data(), LeaderEpoch(5));
    if (!check_batch_integrity(batch)) std::abort();
  }
  return 0;
}
