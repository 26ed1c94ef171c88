// Transaction markers on their way to partitions. The coordinator side
// (write_txn_markers) sends an ended transaction's markers to each
// partition's leader: appended on this broker's own shards where it leads,
// sent as WriteTxnMarkers (API 27) to the other leaders, as Kafka's
// coordinator does. The leader side (append_markers) appends one marker to
// each partition it leads, the WriteTxnMarkers handler's work.
//
//   write_txn_markers(services, shard, {pid, epoch, coordinator_epoch, commit, partitions},
//                     [](auto outcomes) { ... retry those with kRetry ... });
//
// Thread-safety: called on shard `origin`; `done` runs there.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "coordinator/txn/txn_coordinator.h"
#include "engine/control_record.h"
#include "server/kafka/error_code.h"
#include "server/services.h"

namespace strata::server {

void write_txn_markers(
    Services services, unsigned origin, coordinator::MarkerWrite write,
    std::function<
        void(std::vector<std::pair<coordinator::TxnPartition, coordinator::MarkerOutcome>>)>
        done);

// Appends `marker` to each of `partitions` this broker leads; `done` with
// each partition's error code (NOT_LEADER_OR_FOLLOWER where it does not lead).
void append_markers(Services services, unsigned origin, const engine::TxnMarker& marker,
                    const std::vector<coordinator::TxnPartition>& partitions,
                    std::function<void(std::vector<kafka::ErrorCode>)> done);

}  // namespace strata::server
