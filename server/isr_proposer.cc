#include "server/isr_proposer.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "server/broker.h"

namespace strata::server {
namespace {

namespace rpc = replication::rpc;

constexpr int64_t kCallTimeoutMs = 5000;

void log_refusal(const coordinator::IsrChange& c, const std::string& why) {
  spdlog::info("ISR [{}] for {}-{} not accepted: {}", fmt::join(c.request.isr, ","),
               c.partition.topic, c.partition.partition, why);
}

}  // namespace

IsrProposer::IsrProposer(Broker& broker, coordinator::Controller& controller,
                         boost::asio::io_context& io)
    : broker_(broker), controller_(controller), io_(io) {}

IsrProposer::~IsrProposer() {
  if (client_) client_->close();
}

std::vector<coordinator::IsrChange> IsrProposer::changes(
    int32_t leader, const std::vector<replication::IsrProposal>& proposals) {
  std::vector<coordinator::IsrChange> out;
  out.reserve(proposals.size());
  for (const auto& p : proposals) {
    out.push_back({{p.topic, p.partition.value()},
                   {leader, p.leader_epoch.value(), p.partition_epoch, p.isr}});
  }
  return out;
}

replication::RpcClient& IsrProposer::client_for(const std::string& host, int32_t port) {
  if (!client_ || host != host_ || port != port_) {
    if (client_) client_->close();
    host_ = host;
    port_ = port;
    client_ = replication::RpcClient::create(io_, host, static_cast<uint16_t>(port),
                                             broker_.node_id(), 0);
  }
  return *client_;
}

void IsrProposer::propose(std::vector<replication::IsrProposal> proposals) {
  auto wanted = changes(broker_.node_id(), proposals);
  auto snap = broker_.snapshot();
  if (snap->controller_id == broker_.node_id()) {
    auto r = controller_.alter_isr(wanted);
    if (!r) {
      spdlog::info("ISR changes not made: {}", r.error().to_string());
      return;
    }
    for (size_t i = 0; i < wanted.size(); ++i)
      if (!(*r)[i]) log_refusal(wanted[i], (*r)[i].error().to_string());
    return;
  }
  const coordinator::BrokerInfo* controller = nullptr;
  for (const auto& b : snap->brokers)
    if (b.node_id == snap->controller_id) controller = &b;
  if (controller == nullptr || controller->rpc_port < 0) {
    spdlog::debug("ISR changes wait: no controller to ask");
    return;
  }
  rpc::Request req;
  auto* out = req.mutable_alter_isr()->mutable_partitions();
  for (const auto& p : proposals) {
    auto* o = out->Add();
    o->set_topic(p.topic);
    o->set_partition(p.partition.value());
    o->set_leader_epoch(p.leader_epoch.value());
    o->set_partition_epoch(p.partition_epoch);
    for (int32_t r : p.isr)
      o->add_isr(r);
  }
  client_for(controller->host, controller->rpc_port)
      .call(std::move(req), kCallTimeoutMs, [wanted](Result<rpc::Response> r) {
        if (!r) {
          spdlog::info("ISR changes not sent to the controller: {}", r.error().to_string());
          return;
        }
        if (r->error_code() != 0) {
          spdlog::info("ISR changes refused by the controller: {}", r->error_message());
          return;
        }
        const auto& parts = r->alter_isr().partitions();
        for (int i = 0; i < parts.size() && static_cast<size_t>(i) < wanted.size(); ++i) {
          if (parts[i].error_code() != 0) {
            log_refusal(wanted[static_cast<size_t>(i)], parts[i].error_message());
          }
        }
      });
}

}  // namespace strata::server
