#include "coordinator/controller_election.h"

#include <charconv>

#include <fmt/format.h>

namespace strata::coordinator {

std::string ControllerElection::key() const {
  return fmt::format("{}{}", kControllerPrefix, node_id_);
}

Status ControllerElection::campaign(LeaseId lease) {
  auto k = key();
  STRATA_ASSIGN_OR_RETURN(auto current, store_.get(k));
  if (current && current->lease == lease) return ok_status();
  // A key of an older lease (an earlier incarnation's) goes first: the new
  // key gets a fresh create_revision, so it queues behind the candidates
  // that are already there.
  if (current) STRATA_TRY(store_.erase(k, current->version));
  STRATA_TRY(store_.put(k, std::to_string(node_id_), MetadataStore::kAbsent, lease));
  epoch_ = 0;
  return ok_status();
}

Result<std::optional<ControllerLeader>> ControllerElection::refresh() {
  STRATA_ASSIGN_OR_RETURN(auto listing, store_.range(std::string(kControllerPrefix)));
  return observe(listing.entries);
}

std::optional<ControllerLeader> ControllerElection::observe(const std::vector<Entry>& entries) {
  std::optional<ControllerLeader> leader;
  for (const auto& e : entries) {
    if (!e.key.starts_with(kControllerPrefix)) continue;
    int32_t id = -1;
    auto name = std::string_view(e.key).substr(kControllerPrefix.size());
    auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (ec != std::errc() || ptr != name.data() + name.size()) continue;  // not a candidate key
    if (!leader || e.create_revision < leader->epoch)
      leader = ControllerLeader{id, e.create_revision};
  }
  epoch_ = leader && leader->node_id == node_id_ ? leader->epoch : 0;
  return leader;
}

Result<TxnResult> ControllerElection::guarded_txn(Txn txn) {
  if (epoch_ == 0) {
    return Error(Errc::kNotController, fmt::format("broker {} is not the controller", node_id_));
  }
  txn.compares.insert(txn.compares.begin(),
                      Compare::create_revision(key(), Compare::kEqual, epoch_));
  txn.failure.insert(txn.failure.begin(), TxnOp::get(key()));
  STRATA_ASSIGN_OR_RETURN(auto r, store_.txn(txn));
  if (r.succeeded) return r;
  const auto& mine = r.results.front().entry;
  if (!mine || mine->create_revision != epoch_) {
    int64_t lost = epoch_;
    epoch_ = 0;
    return Error(Errc::kNotController,
                 fmt::format("broker {} is no longer the controller of epoch {}", node_id_, lost));
  }
  r.results.erase(r.results.begin());  // the caller's own failure branch
  return r;
}

}  // namespace strata::coordinator
