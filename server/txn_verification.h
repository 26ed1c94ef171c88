// KIP-890's check before a transactional write opens a transaction on a
// partition: the transaction coordinator of `transactional_id` must have
// the partition in the producer's transaction. Asked in process when this
// broker coordinates the id, else with AddPartitionsToTxn v4 (verify_only)
// at the broker that does, as Kafka's leaders do.
//
//   options.verify_txn = [=, &broker](int64_t pid, int16_t epoch, auto done) {
//     verify_txn_partition(services, here, id, {topic, p}, pid, epoch, done);
//   };
//
// Thread-safety: called on shard `here`; `done` runs there.
#pragma once

#include <functional>
#include <string>

#include "base/result.h"
#include "coordinator/txn/txn_types.h"
#include "server/services.h"

namespace strata::server {

// `done` with ok, or kInvalidTxnState (not in the transaction),
// kInvalidProducerEpoch (fenced), kNotCoordinator / kUnavailable (the
// coordinator could not be asked: the client retries).
void verify_txn_partition(Services services, unsigned here, const std::string& transactional_id,
                          const coordinator::TxnPartition& partition, int64_t producer_id,
                          int16_t epoch, std::function<void(Status)> done);

}  // namespace strata::server
