// What a Fetch response carries of one partition's read: whole batches, in
// offset order, while they fit the partition's and the response's byte
// limits (KIP-74), down-converted to the legacy message format for Fetch
// v0-v3.
//
// The response's first batch goes in whatever its size, so a consumer always
// progresses; every later batch only while the partition stays within its
// partition_max_bytes and the response within its max_bytes. The partition
// then stops: its next batches come with the next fetch.
//
//   FetchBudget budget{.left = max_bytes - overhead};
//   for (each partition in request order)
//     auto taken = take_records(read.slices, limit, magic, offset, budget);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "base/shared_bytes.h"
#include "server/kafka/types.h"

namespace strata::server {

struct FetchBudget {
  size_t left = 0;          // record bytes the response may still take
  bool first_batch = true;  // nothing taken yet: the next batch goes in regardless
};

struct TakenRecords {
  kafka::Records records;
  size_t bytes = 0;
  // Set when the partition's first batch could not be served in the
  // reader's format (a zstd batch for magic 0/1); the partition answers
  // with it. A later batch that fails just ends what is taken.
  std::optional<Error> error;
};

// The message format Fetch `version` reads: magic 0 for v0-v1, 1 for v2-v3,
// 2 (RecordBatch, served as stored) from v4.
int8_t fetch_magic(int16_t version);

// Takes batches from `slices` (whole batches of one read; adjacent ones may
// share a slice) for a reader of `magic`, dropping records below
// `fetch_offset` when down-converting. Charges what it takes to `budget`.
TakenRecords take_records(const std::vector<SharedBytes>& slices, size_t partition_max_bytes,
                          int8_t magic, Offset fetch_offset, FetchBudget& budget);

}  // namespace strata::server
