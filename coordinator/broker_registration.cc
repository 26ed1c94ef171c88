#include "coordinator/broker_registration.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace strata::coordinator {

std::string encode_broker(const BrokerInfo& b) {
  nlohmann::json j = {{"node_id", b.node_id}, {"host", b.host}, {"port", b.port}};
  if (b.rack) j["rack"] = *b.rack;
  if (b.rpc_port >= 0) j["rpc_port"] = b.rpc_port;
  if (b.registry_port >= 0) j["registry_port"] = b.registry_port;
  return j.dump();
}

Result<BrokerInfo> decode_broker(const std::string& value) {
  try {
    auto j = nlohmann::json::parse(value);
    BrokerInfo b;
    b.node_id = j.at("node_id").get<int32_t>();
    b.host = j.at("host").get<std::string>();
    b.port = j.at("port").get<int32_t>();
    if (auto it = j.find("rack"); it != j.end()) b.rack = it->get<std::string>();
    b.rpc_port = j.value("rpc_port", -1);
    b.registry_port = j.value("registry_port", -1);
    return b;
  } catch (const nlohmann::json::exception& e) {
    return Error(Errc::kCorruption, fmt::format("broker record is not valid: {}", e.what()));
  }
}

namespace {
std::string broker_key(int32_t node_id) {
  return fmt::format("{}{}", kBrokersPrefix, node_id);
}
}  // namespace

BrokerRegistration::BrokerRegistration(MetadataStore& store, const Clock& clock, Timers& timers,
                                       BrokerInfo self, Options options)
    : store_(store), clock_(clock), timers_(timers), self_(std::move(self)), options_(options) {}

BrokerRegistration::~BrokerRegistration() {
  if (timer_ != 0) timers_.cancel(timer_);
}

int64_t BrokerRegistration::trust_ms() const {
  // A third of the TTL is the keep-alive period; a broker that missed two
  // renewals in a row stops leading, a sixth of the TTL before the store
  // would let its record go.
  return options_.session_timeout_ms - options_.session_timeout_ms / 6;
}

bool BrokerRegistration::lease_valid() const {
  return clock_.steady_ms() < trusted_until_ms();
}

bool BrokerRegistration::registered() const {
  std::lock_guard lock(mu_);
  return lease_ != kNoLease;
}

int64_t BrokerRegistration::broker_epoch() const {
  std::lock_guard lock(mu_);
  return epoch_;
}

LeaseId BrokerRegistration::lease() const {
  std::lock_guard lock(mu_);
  return lease_;
}

int64_t BrokerRegistration::trusted_until_ms() const {
  std::lock_guard lock(mu_);
  return lease_ != kNoLease && view_needed_after_ == 0 ? renewed_at_ms_ + trust_ms() : 0;
}

void BrokerRegistration::view_read_at(int64_t revision) {
  std::lock_guard lock(mu_);
  if (view_needed_after_ != 0 && revision >= view_needed_after_) view_needed_after_ = 0;
}

Status BrokerRegistration::register_now() {
  return register_lease(/*again=*/false);
}

Status BrokerRegistration::register_lease(bool again) {
  int64_t sent = clock_.steady_ms();
  STRATA_ASSIGN_OR_RETURN(auto lease, store_.grant(options_.session_timeout_ms));
  auto key = broker_key(self_.node_id);
  Txn txn;
  txn.compares = {Compare::create_revision(key, Compare::kEqual, 0)};
  txn.success = {TxnOp::put(key, encode_broker(self_), lease.id)};
  txn.failure = {TxnOp::get(key)};
  auto r = store_.txn(txn);
  if (!r || !r->succeeded) {
    (void)store_.revoke(lease.id);
    if (!r) return std::move(r).error();
    std::string holder = "another broker";
    if (!r->results.empty() && r->results[0].entry) {
      if (auto b = decode_broker(r->results[0].entry->value))
        holder = fmt::format("the broker at {}:{}", b->host, b->port);
    }
    return Error(Errc::kAlreadyExists,
                 fmt::format("node id {} is already registered by {} (two brokers cannot share "
                             "a node.id; it frees {} ms after that broker stops)",
                             self_.node_id, holder, options_.session_timeout_ms));
  }
  {
    std::lock_guard lock(mu_);
    lease_ = lease.id;
    epoch_ = r->revision;
    renewed_at_ms_ = sent;
    if (again) view_needed_after_ = epoch_;
  }
  spdlog::info("broker {} registered (epoch {})", self_.node_id, epoch_);
  return ok_status();
}

Status BrokerRegistration::register_at_start(const std::function<void(int64_t ms)>& sleep) {
  int64_t give_up = -1;
  for (;;) {
    auto st = register_now();
    if (st.ok() || st.error().code() != Errc::kAlreadyExists) return st;
    int64_t now = clock_.steady_ms();
    if (give_up < 0) {
      give_up = now + 2 * options_.session_timeout_ms;
      spdlog::warn("{}; waiting up to {} ms in case that is an earlier run of this broker",
                   st.error().message(), give_up - now);
    }
    if (now >= give_up) return st;
    sleep(kRegisterRetryMs);
  }
}

void BrokerRegistration::start() {
  running_ = true;
  schedule();
}

void BrokerRegistration::stop() {
  running_ = false;
  if (timer_ != 0) timers_.cancel(timer_);
  timer_ = 0;
  LeaseId held = kNoLease;
  {
    std::lock_guard lock(mu_);
    std::swap(held, lease_);
  }
  if (held != kNoLease) {
    if (auto st = store_.revoke(held); !st)
      spdlog::warn("broker {}: revoking its lease: {}", self_.node_id, st.error().to_string());
  }
}

void BrokerRegistration::schedule() {
  timer_ = timers_.schedule(options_.session_timeout_ms / 3, [this] {
    timer_ = 0;
    keep_alive();
    if (on_keep_alive_) on_keep_alive_();
    if (running_) schedule();
  });
}

void BrokerRegistration::register_again() {
  if (auto st = register_lease(/*again=*/true); !st) {
    spdlog::warn("broker {}: registering again: {}", self_.node_id, st.error().to_string());
  }
}

void BrokerRegistration::keep_alive() {
  // The lease changes only on this thread: it is still `held` below.
  LeaseId held = lease();
  if (held == kNoLease) {
    register_again();
    return;
  }
  int64_t sent = clock_.steady_ms();
  auto r = store_.keep_alive(held);
  if (r) {
    std::lock_guard lock(mu_);
    renewed_at_ms_ = sent;
    return;
  }
  if (r.error().code() == Errc::kNotFound) {
    // The store let the lease go (this broker was cut off or paused): its
    // record is gone and another broker may lead what it led. Register as
    // a new incarnation.
    spdlog::warn("broker {}: lease {} expired; registering again", self_.node_id, held);
    {
      std::lock_guard lock(mu_);
      lease_ = kNoLease;
    }
    register_again();
    return;
  }
  spdlog::warn("broker {}: keep-alive failed: {}", self_.node_id, r.error().to_string());
}

}  // namespace strata::coordinator
