// ControllerClient: how this broker asks the controller for what only the
// controller may write — its own Controller when this broker is the
// controller, else a call over the RPC to the controller's rpc.port:
//  - propose(): the ISR changes this broker's leaders want
//    (Partition::isr_proposal, gathered every second by each shard);
//    refusals are logged. An accepted change comes back to the leader as a
//    new partition state, like every other change; a lost or refused
//    proposal is made again by the leader after
//    Partition::kProposalRetryMs if it still stands.
//  - controlled_shutdown(): at SIGTERM, move this broker's leaderships to
//    other in-sync replicas and take it out of every ISR it can leave.
//
//   ControllerClient client(broker, controller, control_io);
//   client.propose(std::move(proposals));   // on the control thread
//
// Thread-safety: the broker's control thread only.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "coordinator/controller.h"
#include "replication/partition.h"
#include "replication/rpc_client.h"

namespace strata::server {

class Broker;

class ControllerClient {
 public:
  ControllerClient(Broker& broker, coordinator::Controller& controller,
                   boost::asio::io_context& io);
  ~ControllerClient();

  void propose(std::vector<replication::IsrProposal> proposals);

  // Asks the controller to move this broker's leaderships away; `done`
  // (on the control thread) with how many partitions it still leads
  // because no other replica is in sync, or the error of the call.
  void controlled_shutdown(std::function<void(Result<int32_t>)> done);

  // The changes a proposal list asks for, made by broker `leader`.
  static std::vector<coordinator::IsrChange> changes(
      int32_t leader, const std::vector<replication::IsrProposal>& proposals);

 private:
  // The controller's registration, when it is known and has an rpc port.
  const coordinator::BrokerInfo* remote_controller(const coordinator::ClusterSnapshot& snap) const;
  // The connection to the controller at host:port (a new one when it moved).
  replication::RpcClient& client_for(const std::string& host, int32_t port);

  Broker& broker_;
  coordinator::Controller& controller_;
  boost::asio::io_context& io_;
  std::shared_ptr<replication::RpcClient> client_;
  std::string host_;
  int32_t port_ = -1;
};

}  // namespace strata::server
