// Controller: what the elected controller does to keep every partition
// led. After each change of the cluster metadata it compares partition
// states with the live brokers and writes the states leader election
// decides (a dead leader replaced from the ISR, an offline partition given
// back its returning replica); on request, and periodically with
// auto.leader.rebalance.enable, it moves leadership back to preferred
// replicas.
//
//   Controller controller(catalog, election);
//   controller.converge();                    // after every refresh
//   controller.elect({{"orders", 3}}, Election::kPreferred);
//   controller.alter_isr({{{"orders", 3}, {.leader = 2, ..., .isr = {2, 3}}}});
//
// Every write goes through the catalog, so it is guarded by the controller
// epoch and compares the partition states it read: a broker that is not
// (or no longer) the controller writes nothing.
//
// Thread-safety: the catalog's control thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "coordinator/controller_election.h"
#include "coordinator/leader_election.h"
#include "coordinator/topic_catalog.h"

namespace strata::coordinator {

struct PartitionRef {
  std::string topic;
  int32_t partition = 0;
};

// ElectLeaders' election types.
enum class Election {
  kPreferred,  // the preferred replica, if live and in sync
  kUnclean,    // for an offline partition: a live in-sync replica, else any live one
};

// The outcome of an election for one partition.
struct ElectionOutcome {
  PartitionRef partition;
  Status result;  // kInvalidArgument: none is needed (the preferred replica, or for
                  // kUnclean any live replica, leads already: Kafka's
                  // ELECTION_NOT_NEEDED); kUnavailable: no replica may lead
};

// Whether a topic allows unclean leader elections when its last in-sync
// replica dies (its unclean.leader.election.enable, resolved by the broker).
using UncleanPolicy = std::function<bool(const TopicInfo&)>;

// A leader's ISR change for one partition (AlterIsr).
struct IsrChange {
  PartitionRef partition;
  IsrRequest request;
};

class Controller {
 public:
  Controller(TopicCatalog& catalog, ControllerElection& election, UncleanPolicy unclean = {})
      : catalog_(catalog), election_(election), unclean_(std::move(unclean)) {}

  // While this broker leads: stores the states of partitions that had
  // none under their own key, and the new state of every partition whose
  // leader or ISR the live brokers change (on_live_brokers, unclean where
  // the policy allows it). Returns how many it wrote (0 when it does not
  // lead).
  Result<size_t> converge();

  // Holds an election of `type` for each partition named (every partition
  // when `partitions` is empty, skipping those that need none): the
  // preferred replica leads (preferred_election), or an offline partition
  // gets a leader, out of sync if it must (unclean_election, whatever the
  // topic's config: the admin asked). kNotController when this broker does
  // not lead.
  Result<std::vector<ElectionOutcome>> elect(const std::vector<PartitionRef>& partitions,
                                             Election type);

  // Writes the ISR changes a leader asked for that isr_change() accepts
  // against the current states; one Status per change, in order (ok also
  // when the ISR was that already). kNotController when this broker does
  // not lead.
  Result<std::vector<Status>> alter_isr(const std::vector<IsrChange>& changes);

  // Broker `leaving` shuts down (controlled shutdown): writes on_shutdown()
  // for every partition. Returns how many partitions it still leads
  // afterwards (it is their last in-sync replica, or no other is live).
  // kNotController when this broker does not lead.
  Result<size_t> controlled_shutdown(int32_t leaving);

 private:
  // kNotController unless this broker leads.
  Status require_lead() const;

  TopicCatalog& catalog_;
  ControllerElection& election_;
  UncleanPolicy unclean_;
};

}  // namespace strata::coordinator
