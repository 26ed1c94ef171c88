// TxnStore: where a transaction coordinator writes the state of the
// transactional ids of one __transaction_state partition, and
// TxnStateStore, the store over the partition's log (a LogView of it in
// the txn_state column family, keyed by transactional id).
//
//   TxnStateStore store(partition, index);
//   store.load([&](Status st) { coordinator.host(p, &store, epoch, store.all().value()); });
//
// Thread-safety: the shard that owns the log.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "coordinator/log_view.h"
#include "coordinator/txn/txn_types.h"

namespace strata::coordinator {

class TxnStore {
 public:
  virtual ~TxnStore() = default;
  // Writes `meta` as the state of `transactional_id`; `done` once the
  // in-sync replicas hold it (error: not written, or not known to be).
  virtual void write(const std::string& transactional_id, const TxnMetadata& meta,
                     std::function<void(Status)> done) = 0;
};

class TxnStateStore final : public TxnStore {
 public:
  TxnStateStore(replication::Partition& partition, index::IndexStore& index);

  void load(std::function<void(Status)> done) { view_.load(std::move(done)); }
  void follow() { view_.follow(); }
  uint64_t records_replayed() const { return view_.records_replayed(); }
  replication::Partition& partition() { return view_.partition(); }

  void write(const std::string& transactional_id, const TxnMetadata& meta,
             std::function<void(Status)> done) override;
  // Every transactional id with its state (the loaded view).
  Result<std::vector<std::pair<std::string, TxnMetadata>>> all() const;

 private:
  LogView view_;
};

}  // namespace strata::coordinator
