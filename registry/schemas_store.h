// SchemasStore: the `_schemas` partition as the registry keeps it — a
// LogView of it (the `registry` column family, keyed by `view_key`, values
// the records' JSON) that a leader loads and a follower keeps following,
// and the registry's writes, appended to the partition acks=all.
//
//   SchemasStore store(partition, index);
//   store.load([&](Status st) { RegistryState s; store.fill(s); ... });
//   store.write({{SchemaKey{"s", 1}, encode_schema(v)}}, done);
//
// Thread-safety: the shard that owns the partition.
#pragma once

#include <functional>
#include <vector>

#include "coordinator/log_view.h"
#include "registry/registry.h"
#include "registry/registry_state.h"

namespace strata::registry {

class SchemasStore {
 public:
  SchemasStore(replication::Partition& partition, index::IndexStore& index);

  void load(std::function<void(Status)> done) { view_.load(std::move(done)); }
  void follow() { view_.follow(); }
  uint64_t records_replayed() const { return view_.records_replayed(); }
  replication::Partition& partition() { return view_.partition(); }

  // Applies every record the view holds to `state`.
  Status fill(RegistryState& state) const;
  // Appends `records` as one batch; `done` once the in-sync replicas hold it.
  void write(std::vector<WriteRecord> records, std::function<void(Status)> done);

 private:
  coordinator::LogView view_;
};

}  // namespace strata::registry
