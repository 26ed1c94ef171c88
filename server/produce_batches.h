// produce_batches: a Produce request's record set as the whole record
// batches a replica appends. Produce v0-v2 (`legacy_formats`) may carry a
// magic 0/1 message set, up-converted to one RecordBatch v2 as Kafka does;
// from v3 only magic 2 batches are accepted. Errors name the defect
// (kCorruptMessage, kInvalidRecord, ...), never a partial split.
#pragma once

#include <vector>

#include "base/result.h"
#include "base/shared_bytes.h"
#include "server/kafka/types.h"

namespace strata::server {

Result<std::vector<SharedBytes>> produce_batches(const kafka::Records& records,
                                                 bool legacy_formats);

// The records of `batches` that have no key, each by its index in the
// record set (counted across its batches): a compacted topic refuses them,
// as Kafka does (INVALID_RECORD with KIP-467's per-record errors), since
// compaction keeps the latest record of each key and such a record has
// none. Fails on a batch whose records cannot be read.
Result<std::vector<int32_t>> records_without_key(const std::vector<SharedBytes>& batches);

}  // namespace strata::server
