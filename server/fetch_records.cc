#include "server/fetch_records.h"

#include <algorithm>

#include "base/check.h"
#include "engine/legacy_records.h"
#include "engine/record_batch.h"

namespace strata::server {
namespace {

// What one stored batch may decompress to while it is down-converted. A
// batch is at most max.message.bytes compressed; this bounds what a
// compression ratio far beyond any real data could make the broker hold.
constexpr size_t kMaxExpandedBytes = 64 << 20;

bool fits(size_t size, size_t partition_bytes, size_t partition_max_bytes,
          const FetchBudget& budget) {
  return budget.first_batch ||
         (partition_bytes + size <= partition_max_bytes && size <= budget.left);
}

void charge(FetchBudget& budget, size_t size) {
  budget.left -= std::min(budget.left, size);
  budget.first_batch = false;
}

}  // namespace

int8_t fetch_magic(int16_t version) {
  if (version <= 1) return engine::kMagicV0;
  if (version <= 3) return engine::kMagicV1;
  return engine::kMagicV2;
}

TakenRecords take_records(const std::vector<SharedBytes>& slices, size_t partition_max_bytes,
                          int8_t magic, Offset fetch_offset, FetchBudget& budget) {
  TakenRecords out;
  bool full = false;
  for (const auto& slice : slices) {
    size_t pos = 0;
    while (pos < slice.size() && !full) {
      size_t left = slice.size() - pos;
      int64_t size =
          left >= engine::kBatchLogOverhead ? engine::peek_batch_size(slice.data() + pos) : -1;
      // Reads return whole batches whose lengths the cursor checked.
      STRATA_CHECK(size >= static_cast<int64_t>(engine::kBatchLogOverhead) &&
                       static_cast<uint64_t>(size) <= left,
                   "fetch read holds a partial batch ({} of {} bytes)", size, left);
      auto batch_size = static_cast<size_t>(size);
      if (magic == engine::kMagicV2) {
        if (!fits(batch_size, out.bytes, partition_max_bytes, budget)) {
          full = true;
          break;
        }
        charge(budget, batch_size);
        out.bytes += batch_size;
        pos += batch_size;
        continue;
      }
      auto converted = engine::down_convert(slice.span().subspan(pos, batch_size), magic,
                                            fetch_offset, kMaxExpandedBytes);
      if (!converted) {
        if (out.bytes == 0) out.error = converted.error();
        full = true;
        break;
      }
      pos += batch_size;
      if (converted->empty()) continue;  // a control batch, or all below the fetch offset
      if (!fits(converted->size(), out.bytes, partition_max_bytes, budget)) {
        full = true;
        break;
      }
      charge(budget, converted->size());
      out.bytes += converted->size();
      out.records.slices.push_back(SharedBytes::adopt(std::move(*converted)));
    }
    // Batches served as stored stay slices of the read: no copy.
    if (magic == engine::kMagicV2 && pos > 0) out.records.slices.push_back(slice.slice(0, pos));
    if (full) break;
  }
  return out;
}

}  // namespace strata::server
