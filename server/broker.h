// Broker: one strata-broker process — its shards, data directory, topic
// catalog, control thread and listener — and the services request handlers
// use (routing a partition to its shard, running topic changes).
//
//   auto store = EmbeddedStore::open(config.data_dir / "metadata.json").value();
//   auto broker = Broker::start(config, *store, SystemClock::instance()).value();
//   // listening when it returns
//   ... SIGTERM ...
//   broker->stop();                                  // drains, flushes, marks clean
//
// The broker is handed its metadata store (the embedded one, or etcd's in a
// cluster) and its clock; both must outlive it. It registers itself there
// under a lease, campaigns for controller, and follows the store with a
// watch: every change is read on the control thread (refresh), acted on by
// the controller if this broker is it, and applied to the shards
// (reconcile). Alone with the embedded store it is simply the controller of
// a one-broker cluster.
//
// Thread-safety: every public method may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "coordinator/broker_config_store.h"
#include "coordinator/broker_registration.h"
#include "coordinator/controller.h"
#include "coordinator/controller_election.h"
#include "coordinator/metadata_store.h"
#include "coordinator/producer_ids.h"
#include "coordinator/topic_catalog.h"
#include "engine/log_manager.h"
#include "io/asio_timers.h"
#include "io/background_executor.h"
#include "io/shard.h"
#include "replication/rpc_server.h"
#include "replication/shard_seam.h"
#include "server/broker_config.h"
#include "server/controller_forward.h"
#include "server/kafka_broker_configs.h"
#include "server/services.h"
#include "server/shard_state.h"

namespace strata::replication {
class ReplicaFetchers;
}  // namespace strata::replication

namespace strata::server {

class ControllerClient;
class Listener;
class SchemaRegistryService;

class Broker final : public ShardAccess,
                     public ClusterView,
                     public ConfigView,
                     public ControllerAccess,
                     public TopicChange,
                     public replication::LeaderRoutes,
                     public replication::ControllerCalls {
 public:
  static Result<std::unique_ptr<Broker>> start(const BrokerConfig& config,
                                               coordinator::MetadataStore& store,
                                               const Clock& clock);
  ~Broker();

  // Stops accepting, lets connections finish what they started (bounded by
  // shutdown.timeout.ms), closes every log with a flush, and writes the
  // clean-shutdown marker. Blocks; call from outside the shards.
  Status stop();

  const BrokerConfig& config() const override { return config_; }
  // The log cleaner's threads; null when log.cleaner.enable is false.
  const std::shared_ptr<io::BackgroundExecutor>& cleaners() const { return cleaners_; }
  // The thread that runs cleanings' swaps (their disk waits), apart from the
  // cleaners so that a swap never waits behind another partition's cleaning.
  const std::shared_ptr<io::BackgroundExecutor>& swappers() const { return swappers_; }
  engine::LogManager& logs() { return *logs_; }
  // The journal of syncs (strata.test.sync.journal), or null when off.
  io::SyncJournal* sync_journal() { return sync_journal_.get(); }
  coordinator::TopicCatalog& catalog() override { return *catalog_; }
  std::shared_ptr<const coordinator::ClusterSnapshot> snapshot() const override {
    return catalog_->snapshot();
  }
  const Clock& clock() const { return clock_; }
  // The views request handlers get (services.h), all of them this broker.
  Services services() { return {*this, *this, *this, *this, clock_}; }

  // replication::ShardSeam
  unsigned shard_count() const override { return static_cast<unsigned>(shards_.size()); }
  unsigned shard_for(PartitionUid uid) const override;
  io::Shard& shard(unsigned i) override { return *shards_[i]; }
  replication::Partition* find(unsigned i, PartitionUid uid) override {
    return states_[i]->find(uid);
  }
  bool stopping() const override { return stopping_.load(); }

  ShardState& state(unsigned shard) override { return *states_[shard]; }
  uint16_t port() const;      // the port actually bound (tests listen on port 0)
  uint16_t rpc_port() const;  // where followers fetch (see rpc.port)
  // The schema registry's port, or 0 when it is off (see schema.registry.*).
  uint16_t registry_port() const;

  // The broker's topic defaults now: static properties under the dynamic
  // broker configs (see server/topic_defaults.h).
  std::shared_ptr<const engine::TopicConfig> topic_defaults() const override {
    return std::atomic_load(&topic_defaults_);
  }
  std::shared_ptr<const coordinator::DynamicBrokerConfigs> dynamic_configs() const override {
    return broker_configs_->snapshot();
  }
  // Replaces the dynamic broker configs of `scope` (AlterConfigs on the
  // BROKER resource) after checking that each may change at runtime and has
  // a valid value; the new topic defaults apply at once. Nothing is stored
  // with `validate_only`. Run it inside change_topics (the control thread),
  // so the shards then apply the new defaults.
  Status set_dynamic_configs(const coordinator::BrokerScope& scope,
                             const coordinator::ConfigMap& configs, bool validate_only) override;

  // Runs `mutation` (a catalog change) on the control thread, then brings
  // every shard in line with the new snapshot (opening or deleting
  // partitions), then runs `done` on shard `origin`.
  void change_topics(unsigned origin, std::function<Status()> mutation,
                     std::function<void(Status)> done);
  // ControllerAccess: the same, the mutation reaching the catalog through
  // its TopicChange.
  void change_topics(unsigned origin, std::function<Status(TopicChange&)> mutation,
                     std::function<void(Status)> done) override;

  // Creates the internal topic `name` (__consumer_offsets,
  // __transaction_state) if it does not exist yet; `done` on `origin`.
  void ensure_internal_topic(unsigned origin, std::string_view name,
                             std::function<void(Status)> done) override;

  // Creates topics the broker itself needs (auto-creation, the offsets
  // topic): here if this broker is the controller, else through it (see
  // controller_forward.h). `done` on `origin` with the first failure other
  // than "already exists"; the topics are in snapshot() once the store's
  // change reached this broker (at once on the controller).
  void create_topics(unsigned origin, std::vector<NewTopic> topics,
                     std::function<void(Status)> done) override;

  // Whether this broker may act as a leader now: its registration lease
  // was renewed recently enough (self-fencing, see BrokerRegistration).
  // Any thread.
  bool may_lead() const override { return clock_.steady_ms() < trusted_until_ms_.load(); }
  // This broker's node id and whether it is the controller now.
  int32_t node_id() const override { return config_.node_id; }
  // Leader elections (ElectLeaders); on the control thread, with `done`
  // on `origin`.
  void elect(unsigned origin, std::vector<coordinator::PartitionRef> partitions,
             coordinator::Election type,
             std::function<void(Result<std::vector<coordinator::ElectionOutcome>>)> done) override;
  // ISR changes this broker's leaders propose (any thread): taken to the
  // controller (ControllerClient).
  void propose_isr(std::vector<replication::IsrProposal> proposals);
  // replication::LeaderRoutes: route_partition over one snapshot.
  std::vector<Result<PartitionUid>> route(std::span<const Ask> asks) const override;
  // replication::ControllerCalls. The controller's side of AlterIsr: on the
  // control thread, with `done` on `origin` (Controller::alter_isr).
  void alter_isr(unsigned origin, int32_t leader, std::vector<replication::IsrProposal> proposals,
                 std::function<void(Result<std::vector<Status>>)> done) override;
  // A producer id for InitProducerId, unique in the cluster and never
  // reused (coordinator::ProducerIds); `done` on `origin`.
  void allocate_producer_id(unsigned origin, std::function<void(Result<int64_t>)> done) override;
  // The controller's side of a controlled shutdown of broker `leaving`
  // (Controller::controlled_shutdown), like alter_isr.
  void hand_over(unsigned origin, int32_t leaving,
                 std::function<void(Result<size_t>)> done) override;

 private:
  Broker(const BrokerConfig& config, coordinator::MetadataStore& store, const Clock& clock);
  Status open();
  // Returns once the metadata store answers, or fails after
  // metadata.startup.timeout.ms.
  Status wait_for_store();
  // Registers, campaigns, reads the catalog and starts following the store
  // (the control thread).
  Status join_cluster();
  // Stops following the store and revokes the registration (the control thread).
  void leave_cluster();
  // After a change in the store: read it, let the controller act, apply it.
  void schedule_refresh();
  void refresh();
  // trusted_until_ms_ from the registration now (the session thread after
  // each keep-alive, the control thread after each view read).
  void update_trust();
  // After a keep-alive or a view read (control thread): a new incarnation
  // campaigns again; a change of may_lead() is logged.
  void after_keep_alive();
  void schedule_rebalance();
  void reconcile_all(std::function<void()> done);
  // At stop(), with other brokers live: stops fetching, asks the
  // controller to move this broker's leaderships and take it out of the
  // ISRs, and waits (within shutdown.timeout.ms) until its view shows it
  // leading nothing another in-sync replica could lead.
  void controlled_shutdown();
  // How many partitions this broker's view says it leads.
  size_t led_here() const;
  // A log's storage failed (control thread, once): hand leaderships and ISR
  // places over as a controlled shutdown does, and keep serving.
  void on_storage_failure(const Error& e);
  void leave_after_storage_failure();
  void hand_over_after_storage_failure();
  // Runs `call` with this broker's Controller on the control thread (an
  // error if it has none yet) and `done` with its result on shard `origin`.
  template <typename T>
  void at_controller(unsigned origin, std::function<Result<T>(coordinator::Controller&)> call,
                     std::function<void(Result<T>)> done) {
    control_->post([this, origin, call = std::move(call), done = std::move(done)] {
      auto r = controller_ ? call(*controller_)
                           : Result<T>(Error(Errc::kNotController,
                                             "this broker is not the "
                                             "controller"));
      shard(origin).post([done, r = std::move(r)]() mutable { done(std::move(r)); });
    });
  }
  void remove_orphan_dirs();

  BrokerConfig config_;
  coordinator::MetadataStore& store_;
  const Clock& clock_;
  std::unique_ptr<io::Shard> control_;
  std::unique_ptr<io::DiskFileSystem> control_fs_;
  std::unique_ptr<io::SyncJournal> sync_journal_;
  std::unique_ptr<engine::LogManager> logs_;
  // The log cleaner's threads (log.cleaner.enable), shared by the shards'
  // PartitionManagers; gone before logs_ (the jobs read its index store).
  std::shared_ptr<io::BackgroundExecutor> cleaners_;
  std::shared_ptr<io::BackgroundExecutor> swappers_;
  std::unique_ptr<io::AsioTimers> control_timers_;
  // The session thread: the registration's keep-alives and nothing else, so
  // that however long the control thread works (a controller applying a
  // storm of ISR changes, a slow store) the lease is renewed on time.
  std::unique_ptr<io::Shard> session_;
  std::unique_ptr<io::AsioTimers> session_timers_;  // session thread
  // Created on the control thread before the keep-alives start, reset on the
  // session thread after they stopped (leave_cluster).
  std::unique_ptr<coordinator::BrokerRegistration> registration_;
  std::unique_ptr<coordinator::ControllerElection> election_;
  std::unique_ptr<coordinator::TopicCatalog> catalog_;
  std::unique_ptr<coordinator::Controller> controller_;
  std::unique_ptr<ControllerClient> controller_client_;     // control thread
  std::unique_ptr<coordinator::ProducerIds> producer_ids_;  // control thread
  // Signalled after every refresh (controlled_shutdown waits for its view).
  std::mutex view_mu_;
  std::condition_variable view_changed_;
  std::atomic<bool> handing_over_{false};  // controlled shutdown: no more fetching
  // A log's write, sync or new segment failed (on_storage_failure): set once.
  std::atomic<bool> storage_failed_{false};
  coordinator::WatchHandle watch_;
  // ISR proposals waiting for the control thread (propose_isr).
  std::mutex proposals_mu_;
  std::vector<replication::IsrProposal> pending_proposals_;
  std::mutex trust_mu_;  // orders the writers of trusted_until_ms_ (update_trust)
  std::atomic<int64_t> trusted_until_ms_{0};
  std::atomic<bool> refresh_queued_{false};
  int64_t registered_epoch_ = 0;  // control thread
  bool leading_ = true;           // control thread: may_lead() when last looked at
  std::atomic<uint64_t> reconciled_version_{0};
  std::unique_ptr<coordinator::BrokerConfigStore> broker_configs_;
  std::shared_ptr<const engine::TopicConfig> topic_defaults_;
  std::vector<std::unique_ptr<io::Shard>> shards_;
  std::vector<std::unique_ptr<ShardState>> states_;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<replication::RpcServer> rpc_;
  std::unique_ptr<SchemaRegistryService> schema_registry_;  // null: off
  std::unique_ptr<replication::ReplicaFetchers> fetchers_;  // shard 0
  std::atomic<bool> stopping_{false};
  bool stopped_ = false;
};

}  // namespace strata::server
