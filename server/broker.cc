#include "server/broker.h"

#include <algorithm>
#include <future>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "coordinator/internal_topics.h"
#include "replication/replica_fetcher.h"
#include "server/controller_client.h"
#include "server/dynamic_broker_key.h"
#include "server/kafka/error_code.h"
#include "server/listener.h"
#include "server/partition_route.h"
#include "server/schema_registry.h"

namespace strata::server {
namespace {

using replication::Followed;

// The partitions `self` follows in `snap` whose leader is live and
// reachable (an advertised rpc port).
std::vector<Followed> followed_partitions(const coordinator::ClusterSnapshot& snap, int32_t self) {
  std::vector<Followed> out;
  for (const auto& [name, t] : snap.topics) {
    for (int32_t p = 0; p < t->partitions; ++p) {
      const auto& s = *t->state(p);
      if (s.leader < 0 || s.leader == self) continue;
      if (std::find(s.replicas.begin(), s.replicas.end(), self) == s.replicas.end()) continue;
      for (const auto& b : snap.brokers) {
        if (b.node_id != s.leader || b.rpc_port < 0) continue;
        out.push_back(
            {t->uid(PartitionId(p)), name, p, s.leader, s.leader_epoch, b.host, b.rpc_port});
      }
    }
  }
  return out;
}

// The replication RPC's error codes are Kafka's.
replication::WireCodes wire_codes() {
  return {.encode = [](Errc e) -> int32_t { return kafka::code(e); },
          .decode = [](int32_t c) { return kafka::to_errc(static_cast<kafka::ErrorCode>(c)); }};
}

// How long a controlled shutdown waits for its view before asking again.
constexpr auto kHandOverRetry = std::chrono::milliseconds(500);

// Runs `fn` on `shard` and blocks until it ran (start-up and shutdown only).
template <typename F>
auto run_on(io::Shard& shard, F fn) {
  std::promise<decltype(fn())> p;
  auto f = p.get_future();
  shard.post([&] {
    if constexpr (std::is_void_v<decltype(fn())>) {
      fn();
      p.set_value();
    } else {
      p.set_value(fn());
    }
  });
  return f.get();
}

}  // namespace

Result<std::unique_ptr<Broker>> Broker::start(const BrokerConfig& config,
                                              coordinator::MetadataStore& store,
                                              const Clock& clock) {
  std::unique_ptr<Broker> b(new Broker(config, store, clock));
  STRATA_TRY(b->open());
  return b;
}

Broker::Broker(const BrokerConfig& config, coordinator::MetadataStore& store, const Clock& clock)
    : config_(config), store_(store), clock_(clock) {}

Broker::~Broker() {
  if (schema_registry_) schema_registry_->stop();
  if (!stopped_) {
    // Not stopped cleanly (a failed start): halt threads without the marker.
    if (listener_ || rpc_) {
      run_on(shard(0), [&] {
        if (listener_) listener_->close();
        if (rpc_) rpc_->close();
      });
    }
    for (auto& s : shards_)
      s->stop();
    if (control_) {
      run_on(*control_, [&] { leave_cluster(); });
      control_->stop();
    }
    if (session_) session_->stop();
  }
  listener_.reset();
  rpc_.reset();
  fetchers_.reset();
  schema_registry_.reset();
  // The cleaner's running job reads through a shard's file system and posts
  // its result to the shard: the threads stop first — the job sees the
  // executor stopping and ends at its next batch — while the shard states
  // and io_contexts still exist (the PartitionManagers share the executor).
  if (cleaners_) cleaners_->stop();
  cleaners_.reset();
  if (swappers_) swappers_->stop();  // runs the swap steps still queued
  swappers_.reset();
  states_.clear();
  shards_.clear();
}

unsigned Broker::shard_for(PartitionUid uid) const {
  uint64_t topic = uid.value() >> 32;
  uint64_t partition = uid.value() & 0xFFFFFFFF;
  return static_cast<unsigned>((topic + partition) % shards_.size());
}

uint16_t Broker::port() const {
  return listener_->port();
}

uint16_t Broker::rpc_port() const {
  return rpc_->port();
}

uint16_t Broker::registry_port() const {
  return schema_registry_ ? schema_registry_->port() : 0;
}

Status Broker::set_dynamic_configs(const coordinator::BrokerScope& scope,
                                   const coordinator::ConfigMap& configs, bool validate_only) {
  for (const auto& [key, value] : configs) {
    STRATA_ASSIGN_OR_RETURN(auto k, dynamic_broker_key(key));
    if (k.synonym != nullptr) {
      STRATA_TRY(topic_value_of(*k.synonym, value));
      continue;
    }
    STRATA_TRY(check_kafka_broker_value(*k.kafka_only, value));
    if (!scope.node_id && k.kafka_only->mode == KafkaBrokerConfig::Mode::kPerBroker) {
      return Error(Errc::kInvalidConfig,
                   fmt::format("broker config '{}' is set for one broker at a time, not as the "
                               "cluster default: name the broker",
                               key));
    }
  }
  // What the defaults become, checked as a whole before anything is stored.
  auto layers = topic_default_layers();
  bool mine = !scope.node_id || *scope.node_id == config_.node_id;
  if (!scope.node_id) layers.cluster_default = configs;
  if (scope.node_id && mine) layers.per_broker = configs;
  STRATA_ASSIGN_OR_RETURN(auto next, resolve_topic_defaults(layers));
  if (mine) {
    // Every topic's overrides must still make a valid config over them.
    auto snap = snapshot();  // held: a range-for does not keep the temporary alive
    for (const auto& [name, topic] : snap->topics) {
      if (auto c = engine::TopicConfig::from_map(topic->configs, next); !c) {
        return Error(Errc::kInvalidConfig, fmt::format("topic {} would not have a valid config: {}",
                                                       name, c.error().message()));
      }
    }
  }
  if (validate_only) return ok_status();
  STRATA_TRY(broker_configs_->set(scope, configs));
  if (mine) {
    std::atomic_store(&topic_defaults_,
                      std::make_shared<const engine::TopicConfig>(std::move(next)));
  }
  return ok_status();
}

Status Broker::open() {
  unsigned cores =
      config_.cores != 0 ? config_.cores : std::max(1u, std::thread::hardware_concurrency());
  STRATA_ASSIGN_OR_RETURN(control_, io::Shard::create(cores));
  control_fs_ = std::make_unique<io::DiskFileSystem>(&control_->ring());
  control_->start();
  STRATA_ASSIGN_OR_RETURN(session_, io::Shard::create(cores + 1, /*ring_entries=*/8));
  session_->start();
  if (!config_.sync_journal_path.empty()) {
    STRATA_ASSIGN_OR_RETURN(sync_journal_, io::SyncJournal::open(config_.sync_journal_path));
    spdlog::warn("test hook on: journaling every sync to {}", config_.sync_journal_path);
  }

  engine::LogManager::Options lo;
  lo.data_dir = config_.data_dir;
  lo.clock = &clock();
  lo.fs = control_fs_.get();
  lo.cache_window_bytes = static_cast<uint64_t>(config_.log_cache_window_bytes);
  lo.producer_id_expiration_ms = config_.producer_id_expiration_ms;
  lo.on_storage_error = [this](const Error& e) {
    if (!storage_failed_.exchange(true)) control_->post([this, e] { on_storage_failure(e); });
  };
  STRATA_ASSIGN_OR_RETURN(logs_, engine::LogManager::open(lo));
  STRATA_TRY(wait_for_store());
  STRATA_ASSIGN_OR_RETURN(broker_configs_, coordinator::BrokerConfigStore::open(store_));
  {
    // Dynamic configs stored by an earlier run apply before any log opens.
    auto defaults = resolve_topic_defaults(topic_default_layers());
    if (!defaults) {
      return Error(defaults.error().code(),
                   "the dynamic broker configs in the metadata store are not valid: " +
                       defaults.error().message());
    }
    topic_defaults_ = std::make_shared<const engine::TopicConfig>(std::move(defaults).value());
  }
  for (unsigned i = 0; i < cores; ++i) {
    STRATA_ASSIGN_OR_RETURN(auto shard, io::Shard::create(i, 1024));
    shards_.push_back(std::move(shard));
  }
  for (auto& s : shards_) {
    states_.push_back(std::make_unique<ShardState>(*this, *s));
    s->start();
    if (config_.stats_interval_ms > 0) {
      unsigned id = s->id();
      s->report_stats(std::chrono::milliseconds(config_.stats_interval_ms),
                      [id](const io::IoStats& st) {
                        auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count();
                        spdlog::info("io stats {{\"shard\":{},\"wall_ms\":{},\"io\":{}}}", id, wall,
                                     st.to_json());
                      });
    }
  }
  // Bind before anything is advertised: with port 0 the kernel picks one,
  // and that is the port clients must be told.
  STRATA_ASSIGN_OR_RETURN(listener_, run_on(shard(0), [&] { return Listener::open(*this); }));
  if (config_.listen_port == 0) config_.listen_port = listener_->port();
  STRATA_ASSIGN_OR_RETURN(rpc_, run_on(shard(0), [&] {
                            return replication::RpcServer::open(
                                {*this, *this, *this, wire_codes(), /*home_shard=*/0},
                                config_.listen_host, config_.rpc_port);
                          }));
  fetchers_ = std::make_unique<replication::ReplicaFetchers>(
      *this, replication::FetcherOptions{
                 .home_shard = 0,
                 .self = config_.node_id,
                 .source_host = config_.source_host(),
                 .wait_max_ms = config_.replica_fetch_wait_max_ms,
                 .max_bytes = config_.replica_fetch_max_bytes,
                 .response_max_bytes = config_.replica_fetch_response_max_bytes,
                 .codes = wire_codes(),
             });
  // The registry's port too is advertised in the registration; it answers
  // once the broker serves.
  STRATA_ASSIGN_OR_RETURN(schema_registry_, SchemaRegistryService::start(services()));

  STRATA_TRY(run_on(*control_, [&] { return join_cluster(); }));
  remove_orphan_dirs();

  // Open (and recover) every partition, all shards in parallel.
  std::promise<void> opened;
  reconcile_all([&] { opened.set_value(); });
  opened.get_future().get();
  if (config_.log_cleaner_enable) {
    // The cleaner threads give way to the shards when the cores are busy
    // (a cleaning is background work; a shard's delay is a client's).
    cleaners_ = std::make_shared<io::BackgroundExecutor>(
        static_cast<size_t>(config_.log_cleaner_threads), "cleaner", /*nice=*/10);
    swappers_ = std::make_shared<io::BackgroundExecutor>(1, "swapper");
  }
  for (auto& st : states_)
    run_on(st->shard(), [&] { st->start_retention(); });
  run_on(shard(0), [&] {
    listener_->start();
    rpc_->start();
  });
  if (schema_registry_) schema_registry_->set_serving();
  spdlog::info("strata-broker node {} serving {} topic(s) on {}:{} with {} shard(s), data in {}",
               config_.node_id, snapshot()->topics.size(), config_.listen_host, port(), cores,
               config_.data_dir.string());
  return ok_status();
}

Status Broker::wait_for_store() {
  // A store that does not answer yet (etcd starting, or down) is retried
  // until the start-up timeout; it then fails the start.
  int64_t deadline = clock_.steady_ms() + config_.metadata_startup_timeout_ms;
  for (;;) {
    auto r = store_.get("/strata/cluster/id");
    if (r) return ok_status();
    if (r.error().code() != Errc::kUnavailable || clock_.steady_ms() >= deadline) {
      return Error(r.error().code(),
                   fmt::format("the metadata store did not answer within "
                               "metadata.startup.timeout.ms ({} ms): {}",
                               config_.metadata_startup_timeout_ms, r.error().message()));
    }
    spdlog::warn("waiting for the metadata store ({} s left): {}",
                 (deadline - clock_.steady_ms() + 999) / 1000, r.error().message());
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

Status Broker::join_cluster() {
  control_timers_ = std::make_unique<io::AsioTimers>(control_->io());
  coordinator::BrokerInfo self{config_.node_id,
                               config_.advertised_host_or_listen(),
                               config_.advertised_port_or_listen(),
                               config_.rack,
                               static_cast<int32_t>(rpc_->port()),
                               schema_registry_ ? schema_registry_->port() : -1};
  session_timers_ = std::make_unique<io::AsioTimers>(session_->io());
  registration_ = std::make_unique<coordinator::BrokerRegistration>(
      store_, clock_, *session_timers_, self,
      coordinator::BrokerRegistration::Options{config_.broker_session_timeout_ms});
  STRATA_TRY(registration_->register_at_start(
      [](int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }));
  registered_epoch_ = registration_->broker_epoch();
  trusted_until_ms_ = registration_->trusted_until_ms();
  election_ = std::make_unique<coordinator::ControllerElection>(store_, config_.node_id);
  STRATA_TRY(election_->campaign(registration_->lease()));
  STRATA_ASSIGN_OR_RETURN(catalog_,
                          coordinator::TopicCatalog::open(store_, *election_, config_.node_id));
  controller_ = std::make_unique<coordinator::Controller>(
      *catalog_, *election_, [this](const coordinator::TopicInfo& t) {
        return effective_config(t).unclean_leader_election_enable;
      });
  controller_client_ = std::make_unique<ControllerClient>(*this, *controller_, control_->io());
  producer_ids_ = std::make_unique<coordinator::ProducerIds>(store_);
  if (auto n = controller_->converge(); !n) spdlog::warn("controller: {}", n.error().to_string());
  registration_->on_keep_alive([this] {
    update_trust();
    control_->post([this] { after_keep_alive(); });
  });
  run_on(*session_, [&] { registration_->start(); });
  watch_ = store_.watch("/strata/", 0, [this](const auto&) { schedule_refresh(); });
  // What changed before the watch began.
  STRATA_TRY(catalog_->refresh());
  if (config_.auto_leader_rebalance) schedule_rebalance();
  spdlog::info("broker {} joined cluster {} ({} live broker(s), controller {})", config_.node_id,
               snapshot()->cluster_id, snapshot()->brokers.size(), snapshot()->controller_id);
  return ok_status();
}

void Broker::leave_cluster() {
  watch_.cancel();
  controller_client_.reset();
  if (registration_) {
    run_on(*session_, [&] {
      registration_->stop();
      registration_.reset();
      session_timers_.reset();
    });
  }
  trusted_until_ms_ = 0;
  control_timers_.reset();
}

void Broker::schedule_refresh() {
  if (refresh_queued_.exchange(true)) return;
  control_->post([this] { refresh(); });
}

void Broker::refresh() {
  refresh_queued_ = false;
  if (stopping_ || !catalog_) return;
  // One read of everything, for the catalog and the dynamic broker configs.
  auto listing = store_.range(std::string(coordinator::kRoot));
  Status st = listing ? catalog_->apply(*listing) : Status(listing.error());
  if (st && registration_) {
    // A new incarnation leads again only on a view read after it.
    registration_->view_read_at(listing->revision);
    after_keep_alive();
  }
  if (!st) {
    // The store is unreachable: keep serving from the last view, and read
    // again soon (the watch may have delivered its last news already).
    spdlog::warn("reading the cluster metadata: {}; retrying", st.error().to_string());
    control_timers_->schedule(1000, [this] { schedule_refresh(); });
    return;
  }
  if (auto n = controller_->converge(); !n) {
    spdlog::warn("controller: {}", n.error().to_string());
    control_timers_->schedule(1000, [this] { schedule_refresh(); });
  }
  // Dynamic broker configs another broker changed (the cluster default, or
  // this broker's own): the topic defaults follow.
  bool defaults_changed = false;
  if (auto applied = broker_configs_->apply(listing->entries); !applied) {
    spdlog::warn("reading the dynamic broker configs: {}", applied.error().to_string());
  } else if (auto next = resolve_topic_defaults(topic_default_layers()); !next) {
    spdlog::warn("the dynamic broker configs are not valid here: {}", next.error().to_string());
  } else if (*next != *topic_defaults()) {
    std::atomic_store(&topic_defaults_,
                      std::make_shared<const engine::TopicConfig>(std::move(next).value()));
    defaults_changed = true;
  }
  if (defaults_changed || snapshot()->version != reconciled_version_.load()) reconcile_all([] {});
  {
    // Taken so that a waiter between its check and its sleep cannot miss this.
    std::lock_guard lock(view_mu_);
  }
  view_changed_.notify_all();
}

void Broker::update_trust() {
  std::lock_guard lock(trust_mu_);
  trusted_until_ms_ = registration_ ? registration_->trusted_until_ms() : 0;
}

void Broker::after_keep_alive() {
  if (!registration_) return;  // left the cluster since this was posted
  update_trust();
  bool now = may_lead();
  if (now != leading_) {
    leading_ = now;
    if (!now) {
      spdlog::warn(
          "broker {}: registration lease not renewed in time: it leads only the "
          "partitions whose sole in-sync replica it is until it renews it",
          config_.node_id);
    } else {
      spdlog::info("broker {}: registration lease renewed: leading again", config_.node_id);
    }
  }
  if (registration_->registered() && registration_->broker_epoch() != registered_epoch_) {
    // A new incarnation (the old lease expired): campaign again under it.
    registered_epoch_ = registration_->broker_epoch();
    if (auto st = election_->campaign(registration_->lease()); !st)
      spdlog::warn("campaigning for controller: {}", st.error().to_string());
    schedule_refresh();
  }
}

void Broker::schedule_rebalance() {
  control_timers_->schedule(config_.leader_imbalance_check_interval_ms, [this] {
    if (election_->leads()) {
      if (auto r = controller_->elect({}, coordinator::Election::kPreferred); !r) {
        spdlog::warn("preferred leader elections: {}", r.error().to_string());
      }
    }
    schedule_rebalance();
  });
}

void Broker::elect(unsigned origin, std::vector<coordinator::PartitionRef> partitions,
                   coordinator::Election type,
                   std::function<void(Result<std::vector<coordinator::ElectionOutcome>>)> done) {
  at_controller<std::vector<coordinator::ElectionOutcome>>(
      origin,
      [partitions = std::move(partitions), type](coordinator::Controller& c) {
        return c.elect(partitions, type);
      },
      std::move(done));
}

void Broker::propose_isr(std::vector<replication::IsrProposal> proposals) {
  // Proposals made while the control thread is busy wait together and go
  // to the controller as one change (one store transaction), not one each:
  // a follower catching up on many partitions at once asks for them all.
  {
    std::lock_guard lock(proposals_mu_);
    bool queued = !pending_proposals_.empty();
    for (auto& p : proposals) {
      // A later proposal for a partition replaces the waiting one.
      auto same = std::find_if(
          pending_proposals_.begin(), pending_proposals_.end(),
          [&](const auto& q) { return q.partition == p.partition && q.topic == p.topic; });
      if (same != pending_proposals_.end()) {
        *same = std::move(p);
      } else {
        pending_proposals_.push_back(std::move(p));
      }
    }
    if (queued) return;
  }
  control_->post([this] {
    std::vector<replication::IsrProposal> all;
    {
      std::lock_guard lock(proposals_mu_);
      all.swap(pending_proposals_);
    }
    if (controller_client_ && !stopping_) controller_client_->propose(std::move(all));
  });
}

std::vector<Result<PartitionUid>> Broker::route(std::span<const Ask> asks) const {
  auto snap = snapshot();
  std::vector<Result<PartitionUid>> out;
  out.reserve(asks.size());
  for (const auto& a : asks) {
    auto r = route_partition(snap->find(a.topic), a.partition, a.current_leader_epoch,
                             config_.node_id, may_lead());
    if (r.ok()) {
      out.emplace_back(r.uid);
    } else {
      out.emplace_back(Error(kafka::to_errc(r.error), fmt::format("{}-{}: {}", a.topic, a.partition,
                                                                  kafka::error_name(r.error))));
    }
  }
  return out;
}

void Broker::alter_isr(unsigned origin, int32_t leader,
                       std::vector<replication::IsrProposal> proposals,
                       std::function<void(Result<std::vector<Status>>)> done) {
  auto changes = ControllerClient::changes(leader, proposals);
  at_controller<std::vector<Status>>(
      origin,
      [changes = std::move(changes)](coordinator::Controller& c) { return c.alter_isr(changes); },
      std::move(done));
}

void Broker::allocate_producer_id(unsigned origin, std::function<void(Result<int64_t>)> done) {
  control_->post([this, origin, done = std::move(done)] {
    auto id = producer_ids_ ? producer_ids_->next()
                            : Result<int64_t>(Error(Errc::kUnavailable, "not in a cluster yet"));
    if (!id) spdlog::warn("allocating a producer id: {}", id.error().to_string());
    shard(origin).post([done, id = std::move(id)]() mutable { done(std::move(id)); });
  });
}

void Broker::hand_over(unsigned origin, int32_t leaving, std::function<void(Result<size_t>)> done) {
  at_controller<size_t>(
      origin, [leaving](coordinator::Controller& c) { return c.controlled_shutdown(leaving); },
      std::move(done));
}

size_t Broker::led_here() const {
  size_t n = 0;
  // Held for the loop: `: snapshot()->topics` would free a snapshot the
  // control thread replaced while the loop still walked it.
  auto snap = snapshot();
  for (const auto& [name, t] : snap->topics)
    for (const auto& st : t->states)
      n += st.leader == node_id() ? 1 : 0;
  return n;
}

void Broker::on_storage_failure(const Error& e) {
  spdlog::error(
      "storage failure: {}; this broker stops copying and hands its leaderships to other "
      "in-sync replicas until it is restarted (what it leads alone answers "
      "KAFKA_STORAGE_ERROR while writes fail)",
      e.to_string());
  leave_after_storage_failure();
}

void Broker::leave_after_storage_failure() {
  if (stopping_) return;
  if (!controller_client_ || !catalog_ || snapshot()->brokers.size() <= 1) {
    // Nobody to hand over to yet (still joining, or the view shows this
    // broker alone): in a cluster, look again in a second.
    if (config_.metadata_store == BrokerConfig::MetadataStoreKind::kEtcd && control_timers_) {
      control_timers_->schedule(1000, [this] { leave_after_storage_failure(); });
    }
    return;
  }
  // As a controlled shutdown, without the shutdown: no more fetching (a
  // leader seeing this broker fetch would ask for it back in the ISR), then
  // the controller moves leaderships off it and takes it out of the ISRs.
  handing_over_ = true;
  shard(0).post([this] { fetchers_->stop(); });
  hand_over_after_storage_failure();
}

void Broker::hand_over_after_storage_failure() {
  if (stopping_) return;
  controller_client_->controlled_shutdown([this](Result<int32_t> r) {
    if (stopping_) return;
    // The view catches up with the controller's write through the watch;
    // until it shows no leadership another replica could take, ask again.
    if (r && led_here() <= static_cast<size_t>(*r)) {
      spdlog::info("storage failure: leaderships handed over ({} kept: no other replica in sync)",
                   *r);
      return;
    }
    control_timers_->schedule(kHandOverRetry.count(),
                              [this] { hand_over_after_storage_failure(); });
  });
}

void Broker::controlled_shutdown() {
  if (snapshot()->brokers.size() <= 1 || !controller_client_) return;
  // Stop copying first: a leader seeing this broker fetch would ask for
  // it back in the ISR.
  handing_over_ = true;
  run_on(shard(0), [&] { fetchers_->stop(); });
  spdlog::info("controlled shutdown: asking the controller to move {} leadership(s)", led_here());
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.shutdown_timeout_ms);
  for (;;) {
    std::promise<Result<int32_t>> answered;
    control_->post([&] {
      controller_client_->controlled_shutdown(
          [&](Result<int32_t> r) { answered.set_value(std::move(r)); });
    });
    auto r = answered.get_future().get();
    // Done once this broker's own view leads only what the controller
    // kept here (no other live in-sync replica); the view moves with the
    // watch, and every refresh signals view_changed_. Without an answer, or
    // while the view lags, ask again after a while.
    bool done = false;
    {
      std::unique_lock lock(view_mu_);
      auto until = std::min(deadline, std::chrono::steady_clock::now() + kHandOverRetry);
      done = view_changed_.wait_until(lock, until,
                                      [&] { return r && led_here() <= static_cast<size_t>(*r); });
    }
    if (done) {
      spdlog::info(
          "controlled shutdown: leads no partition another in-sync replica could lead "
          "({} kept: no other replica in sync)",
          *r);
      return;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      spdlog::warn(
          "controlled shutdown: {} leadership(s) still here after shutdown.timeout.ms ({}); "
          "stopping anyway",
          led_here(), r ? std::string("the view lags") : r.error().to_string());
      return;
    }
  }
}

void Broker::remove_orphan_dirs() {
  // Partition directories of topics the catalog does not know are left over
  // from a deletion interrupted by a crash; a new topic of the same name must
  // not inherit them.
  auto snap = snapshot();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(config_.data_dir, ec)) {
    if (!entry.is_directory()) continue;
    std::string name = entry.path().filename().string();
    // Removals in progress are the log manager's.
    if (name == engine::kIndexDir || engine::LogManager::removal_uid(name)) continue;
    auto dash = name.rfind('-');
    bool known = false;
    if (dash != std::string::npos && dash + 1 < name.size()) {
      const auto* topic = snap->find(std::string_view(name).substr(0, dash));
      try {
        int32_t p = std::stoi(name.substr(dash + 1));
        known = topic != nullptr && p >= 0 && p < topic->partitions;
      } catch (const std::exception&) {
        known = false;
      }
    }
    if (!known) {
      spdlog::warn("removing {}: it belongs to no known topic partition", entry.path().string());
      std::filesystem::remove_all(entry.path(), ec);
    }
  }
}

void Broker::reconcile_all(std::function<void()> done) {
  auto snap = snapshot();
  reconciled_version_ = snap->version;
  auto remaining = std::make_shared<std::atomic<size_t>>(states_.size());
  // Once every shard hosts its replicas, the followers start fetching.
  auto shared_done = std::make_shared<std::function<void()>>([this, snap, done = std::move(done)] {
    shard(0).post([this, followed = followed_partitions(*snap, config_.node_id)]() mutable {
      if (!stopping_ && !handing_over_) fetchers_->follow(std::move(followed));
    });
    done();
  });
  for (auto& st : states_) {
    st->shard().post([st = st.get(), snap, remaining, shared_done] {
      st->reconcile(snap, [remaining, shared_done] {
        if (remaining->fetch_sub(1) == 1) (*shared_done)();
      });
    });
  }
}

void Broker::change_topics(unsigned origin, std::function<Status()> mutation,
                           std::function<void(Status)> done) {
  control_->post([this, origin, mutation = std::move(mutation), done = std::move(done)]() mutable {
    Status st = mutation();
    auto reply = [this, origin, done = std::move(done), st]() mutable {
      shard(origin).post([done = std::move(done), st] { done(st); });
    };
    if (!st) return reply();
    reconcile_all(std::move(reply));
  });
}

void Broker::change_topics(unsigned origin, std::function<Status(TopicChange&)> mutation,
                           std::function<void(Status)> done) {
  change_topics(
      origin, [this, mutation = std::move(mutation)]() -> Status { return mutation(*this); },
      std::move(done));
}

void Broker::ensure_internal_topic(unsigned origin, std::string_view name,
                                   std::function<void(Status)> done) {
  if (snapshot()->find(name) != nullptr) return done(ok_status());
  // The configured replication factor capped by the live brokers, as Kafka
  // does on first use; compacted, with the configured segment size (100 MiB
  // by default, as Kafka's).
  auto live = static_cast<int16_t>(std::max<size_t>(snapshot()->brokers.size(), 1));
  NewTopic t;
  t.name = std::string(name);
  bool txn = name == coordinator::kTransactionStateTopic;
  if (name == coordinator::kSchemasTopic) {
    // One partition, as Confluent's; replicated like the offsets topic,
    // acks=all writes needing two in sync where there are three.
    t.partitions = 1;
    t.replication_factor = std::min<int16_t>(config_.offsets_topic_replication_factor, live);
    t.configs = {
        {"cleanup.policy", "compact"},
        {"min.insync.replicas", std::to_string(std::min<int16_t>(2, t.replication_factor))}};
    return create_topics(origin, {std::move(t)}, std::move(done));
  }
  t.configs = {{"cleanup.policy", "compact"},
               {"segment.bytes", std::to_string(txn ? config_.transaction_state_segment_bytes
                                                    : config_.offsets_topic_segment_bytes)}};
  if (txn) {
    t.partitions = coordinator::kTransactionStatePartitions;
    t.replication_factor = std::min<int16_t>(config_.transaction_state_replication_factor, live);
    // transaction.state.log.min.isr (2), within the replication factor.
    t.configs["min.insync.replicas"] = std::to_string(std::min<int16_t>(2, t.replication_factor));
  } else {
    t.partitions = coordinator::kOffsetsPartitions;
    t.replication_factor = std::min<int16_t>(config_.offsets_topic_replication_factor, live);
  }
  create_topics(origin, {std::move(t)}, std::move(done));
}

void Broker::create_topics(unsigned origin, std::vector<NewTopic> topics,
                           std::function<void(Status)> done) {
  if (!is_controller()) {
    return create_topics_at_controller(*this, state(origin), std::move(topics), std::move(done));
  }
  change_topics(
      origin,
      [this, topics = std::move(topics)] {
        for (const auto& t : topics) {
          bool internal = coordinator::is_internal_topic(t.name);
          auto r = catalog().create_topic(t.name, t.partitions, t.replication_factor, t.configs,
                                          false, internal);
          if (!r && r.error().code() != Errc::kAlreadyExists) return Status(r.error());
        }
        return ok_status();
      },
      std::move(done));
}

Status Broker::stop() {
  if (stopped_) return ok_status();
  if (config_.controlled_shutdown_enable) controlled_shutdown();
  stopping_ = true;
  if (schema_registry_) schema_registry_->stop();
  spdlog::info("stopping: no new connections; finishing requests in flight");
  run_on(shard(0), [&] {
    listener_->close();
    rpc_->close();
    fetchers_->stop();
  });
  for (auto& st : states_)
    run_on(st->shard(), [&] { st->wake_all(); });
  // Let connections finish what they started, within the bound.
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.shutdown_timeout_ms);
  for (auto& st : states_) {
    std::promise<void> drained;
    auto f = drained.get_future();
    st->shard().post(
        [&] { listener_->drain_shard(st->id(), deadline, [&] { drained.set_value(); }); });
    f.get();
  }
  // Leave the cluster once nothing is served any more: the lease goes and
  // the controller moves leadership at once rather than after the TTL.
  run_on(*control_, [&] { watch_.cancel(); });
  Status result = ok_status();
  for (auto& st : states_) {
    std::promise<Status> closed;
    auto f = closed.get_future();
    st->shard().post([&] { st->close_all([&](Status s) { closed.set_value(s); }); });
    if (auto s = f.get(); !s && result.ok()) result = s;
  }
  for (auto& s : shards_)
    s->stop();
  if (result.ok() && storage_failed_) {
    result = Error(Errc::kIoError, "the data directory had a storage failure");
  }
  if (result.ok()) {
    result = logs_->mark_clean_shutdown();
  } else {
    spdlog::error("not marking a clean shutdown: {}", result.error().to_string());
  }
  run_on(*control_, [&] { leave_cluster(); });
  control_->stop();
  session_->stop();
  stopped_ = true;
  spdlog::info("stopped{}", result.ok() ? " cleanly" : "");
  return result;
}

}  // namespace strata::server
