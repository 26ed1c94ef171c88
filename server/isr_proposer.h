// IsrProposer: takes the ISR changes this broker's leaders propose
// (Partition::isr_proposal, gathered every second by each shard) to the
// controller — its own Controller when this broker is the controller, else
// AlterIsr over the RPC to the controller's rpc.port — and logs what the
// controller refuses. An accepted change comes back to the leader as a new
// partition state, like every other change; a lost or refused proposal is
// made again by the leader after Partition::kProposalRetryMs if it still
// stands.
//
//   IsrProposer proposer(broker, controller, control_io);
//   proposer.propose(std::move(proposals));   // on the control thread
//
// Thread-safety: the broker's control thread only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "coordinator/controller.h"
#include "replication/partition.h"
#include "replication/rpc_client.h"

namespace strata::server {

class Broker;

class IsrProposer {
 public:
  IsrProposer(Broker& broker, coordinator::Controller& controller, boost::asio::io_context& io);
  ~IsrProposer();

  void propose(std::vector<replication::IsrProposal> proposals);

  // The changes a proposal list asks for, made by broker `leader`.
  static std::vector<coordinator::IsrChange> changes(
      int32_t leader, const std::vector<replication::IsrProposal>& proposals);

 private:
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
