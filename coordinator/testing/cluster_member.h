// ClusterMember: one broker's view of the cluster metadata for tests — its
// registration, its controller candidacy, its catalog and its controller —
// over a store shared with other members, on a manual clock.
//
//   ClusterMember a(store, clock, timers, 1);
//   ASSERT_TRUE(a.join().ok());          // registered, campaigning, catalog read
//   a.catalog->create_topic(...);        // a leads: it was first
#pragma once

#include <memory>

#include "base/testing/manual_timers.h"
#include "coordinator/broker_registration.h"
#include "coordinator/controller.h"
#include "coordinator/controller_election.h"
#include "coordinator/topic_catalog.h"

namespace strata::coordinator::testing {

struct ClusterMember {
  ClusterMember(MetadataStore& store, const Clock& clock, Timers& timers, int32_t id,
                std::optional<std::string> rack = std::nullopt)
      : store(store),
        registration(store, clock, timers, BrokerInfo{id, "127.0.0.1", 9000 + id, std::move(rack)},
                     BrokerRegistration::Options{6000}),
        election(store, id) {}

  // Registers, campaigns and reads the catalog.
  Status join() {
    STRATA_TRY(registration.register_now());
    STRATA_TRY(election.campaign(registration.lease()));
    STRATA_ASSIGN_OR_RETURN(catalog,
                            TopicCatalog::open(store, election, registration.self().node_id));
    // A topic's own unclean.leader.election.enable, over a default of false.
    controller = std::make_unique<Controller>(*catalog, election, [](const TopicInfo& t) {
      auto it = t.configs.find("unclean.leader.election.enable");
      return it != t.configs.end() && it->second == "true";
    });
    return ok_status();
  }
  // Reads the store again and lets the controller (if this member leads) act.
  Result<size_t> step() {
    STRATA_TRY(catalog->refresh());
    STRATA_ASSIGN_OR_RETURN(size_t n, controller->converge());
    STRATA_TRY(catalog->refresh());
    return n;
  }

  MetadataStore& store;
  BrokerRegistration registration;
  ControllerElection election;
  std::unique_ptr<TopicCatalog> catalog;
  std::unique_ptr<Controller> controller;
};

}  // namespace strata::coordinator::testing
