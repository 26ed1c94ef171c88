// ControllerElection: which broker is the controller, by etcd's election
// recipe. Every broker that may control puts /strata/controller/<id> under
// its registration lease; the candidate whose key has the lowest
// create_revision leads, and that revision is the controller epoch. When a
// controller's lease goes, so does its key, and the next candidate leads at
// a higher epoch.
//
//   ControllerElection election(store, self_id);
//   STRATA_TRY(election.campaign(registration.lease()));
//   auto leader = election.refresh();          // who leads now, at which epoch
//   auto r = election.guarded_txn(txn);        // only while this broker leads
//
// Every controller write goes through guarded_txn, which adds the compare
// "my candidate key still has create_revision == epoch": a deposed
// controller — its key gone with its lease, or replaced by a newer
// incarnation's — changes nothing (kNotController), whatever it believes.
//
// Thread-safety: one control thread; the store calls may block there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "coordinator/metadata_store.h"

namespace strata::coordinator {

inline constexpr std::string_view kControllerPrefix = "/strata/controller/";

struct ControllerLeader {
  int32_t node_id = -1;
  int64_t epoch = 0;  // the create_revision of its candidate key

  friend bool operator==(const ControllerLeader&, const ControllerLeader&) = default;
};

class ControllerElection {
 public:
  ControllerElection(MetadataStore& store, int32_t node_id) : store_(store), node_id_(node_id) {}

  // Becomes a candidate under `lease` (the broker's registration lease).
  // A candidate key left by this broker's earlier incarnation is replaced.
  Status campaign(LeaseId lease);

  // Reads the candidates; returns the leader (nullopt: no candidate) and
  // remembers whether this broker is it.
  Result<std::optional<ControllerLeader>> refresh();
  // The same, from entries read elsewhere (a read of "/strata/" that holds
  // the candidate keys among others).
  std::optional<ControllerLeader> observe(const std::vector<Entry>& entries);

  bool leads() const { return epoch_ != 0; }
  // This broker's controller epoch while it leads; 0 otherwise.
  int64_t epoch() const { return epoch_; }

  // `txn` with the leadership guard. kNotController when this broker does not
  // lead at the epoch it last saw (then nothing was written); otherwise the
  // transaction's own result.
  Result<TxnResult> guarded_txn(Txn txn);

 private:
  std::string key() const;

  MetadataStore& store_;
  int32_t node_id_;
  int64_t epoch_ = 0;
};

}  // namespace strata::coordinator
