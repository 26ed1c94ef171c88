// libFuzzer target: the legacy (magic 0/1) message set parser and the
// conversions to and from RecordBatch v2.
//
// The input is a candidate message set. Walking and up-converting it must
// fail cleanly or succeed; a set that up-converts must give a valid v2 batch
// whose down-conversion to either magic up-converts again to as many
// records. Down-converting the raw input as if it were a v2 batch must fail
// cleanly or succeed too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <zlib.h>

#include "base/big_endian.h"
#include "engine/legacy_records.h"
#include "engine/record_batch.h"

namespace {

using namespace strata;
using namespace strata::engine;

// Random CRCs almost never match: half the inputs get correct ones in their
// top-level entries so the parser behind the check is explored too.
void fix_crcs(std::vector<std::byte>& set) {
  size_t pos = 0;
  while (set.size() - pos >= 17) {
    auto size = be::load<int32_t>(set.data() + pos + 8);
    if (size < 5 || static_cast<size_t>(size) > set.size() - pos - 12) return;
    auto* msg = reinterpret_cast<const Bytef*>(set.data() + pos + 16);
    auto crc = static_cast<uint32_t>(crc32(0, msg, static_cast<uInt>(size - 4)));
    be::store<uint32_t>(set.data() + pos + 12, crc);
    pos += 12 + static_cast<size_t>(size);
  }
}

int32_t count_records(std::span<const std::byte> set) {
  int32_t n = 0;
  auto st = for_each_legacy_record(set, {.max_expanded_bytes = 1 << 24}, [&](const LegacyRecord&) {
    ++n;
    return true;
  });
  return st.ok() ? n : -1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::byte> set(reinterpret_cast<const std::byte*>(data),
                             reinterpret_cast<const std::byte*>(data) + size);
  if (size > 0 && (data[size - 1] & 1) != 0) fix_crcs(set);

  (void)down_convert(set, kMagicV0, Offset(0), 1 << 22);

  int32_t walked = count_records(set);
  auto batch = up_convert(set, {.max_expanded_bytes = 1 << 22});
  if (!batch) return 0;
  auto h = validate_batch(*batch, {.max_batch_bytes = 1 << 26});
  if (!h) std::abort();  // up-conversion must give a batch the log accepts
  if (walked >= 0 && walked != h->records_count) std::abort();
  for (int8_t magic : {kMagicV0, kMagicV1}) {
    auto down = down_convert(*batch, magic, Offset(0), 1 << 26);
    if (!down) std::abort();
    if (count_records(*down) != h->records_count) std::abort();
  }
  return 0;
}
