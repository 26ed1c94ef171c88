#include "server/controller_client.h"

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "server/broker.h"

namespace strata::server {
namespace {

namespace rpc = replication::rpc;

constexpr int64_t kControllerCallTimeoutMs = 5000;

void log_refusal(const coordinator::IsrChange& c, const std::string& why) {
  spdlog::info("ISR [{}] for {}-{} not accepted: {}", fmt::join(c.request.isr, ","),
               c.partition.topic, c.partition.partition, why);
}

// The whole call's error, if the response carries one.
Status call_status(const Result<rpc::Response>& r) {
  if (!r) return r.error();
  if (r->error_code() != 0) {
    return Error(Errc::kUnavailable, "the controller refused: " + r->error_message());
  }
  return ok_status();
}

}  // namespace

ControllerClient::ControllerClient(Broker& broker, coordinator::Controller& controller,
                                   boost::asio::io_context& io)
    : broker_(broker), controller_(controller), io_(io) {}

ControllerClient::~ControllerClient() {
  if (client_) client_->close();
}

std::vector<coordinator::IsrChange> ControllerClient::changes(
    int32_t leader, const std::vector<replication::IsrProposal>& proposals) {
  std::vector<coordinator::IsrChange> out;
  out.reserve(proposals.size());
  for (const auto& p : proposals) {
    out.push_back({{p.topic, p.partition.value()},
                   {leader, p.leader_epoch.value(), p.partition_epoch, p.isr}});
  }
  return out;
}

const coordinator::BrokerInfo* ControllerClient::remote_controller(
    const coordinator::ClusterSnapshot& snap) const {
  for (const auto& b : snap.brokers)
    if (b.node_id == snap.controller_id && b.rpc_port >= 0) return &b;
  return nullptr;
}

replication::RpcClient& ControllerClient::client_for(const std::string& host, int32_t port) {
  if (!client_ || host != host_ || port != port_) {
    if (client_) client_->close();
    host_ = host;
    port_ = port;
    client_ = replication::RpcClient::create(io_, host, static_cast<uint16_t>(port),
                                             broker_.node_id(), 0, broker_.config().source_host());
  }
  return *client_;
}

void ControllerClient::propose(std::vector<replication::IsrProposal> proposals) {
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
  const auto* controller = remote_controller(*snap);
  if (controller == nullptr) {
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
      .call(std::move(req), kControllerCallTimeoutMs, [wanted](Result<rpc::Response> r) {
        if (auto st = call_status(r); !st) {
          spdlog::info("ISR changes not made: {}", st.error().to_string());
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

void ControllerClient::controlled_shutdown(std::function<void(Result<int32_t>)> done) {
  auto snap = broker_.snapshot();
  if (snap->controller_id == broker_.node_id()) {
    auto r = controller_.controlled_shutdown(broker_.node_id());
    if (!r) return done(r.error());
    return done(static_cast<int32_t>(*r));
  }
  const auto* controller = remote_controller(*snap);
  if (controller == nullptr) {
    return done(Error(Errc::kUnavailable, "no controller is known"));
  }
  rpc::Request req;
  req.mutable_controlled_shutdown();
  client_for(controller->host, controller->rpc_port)
      .call(std::move(req), kControllerCallTimeoutMs, [done](Result<rpc::Response> r) {
        if (auto st = call_status(r); !st) return done(st.error());
        done(r->controlled_shutdown().remaining());
      });
}

}  // namespace strata::server
