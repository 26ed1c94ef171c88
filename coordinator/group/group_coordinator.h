// GroupCoordinator: Kafka's classic consumer-group protocol for the groups of
// the __consumer_offsets partitions one shard hosts.
//
// States Empty → PreparingRebalance → CompletingRebalance → Stable (and
// Dead). A JoinGroup from a new member (or a changed one) starts a
// rebalance; the join completes when every known member has rejoined or the
// rebalance timeout (the largest of the members') expires, removing those
// that did not; the first join of an empty group waits
// group.initial.rebalance.delay.ms for others. The leader picks the
// assignment and sends it with SyncGroup; followers' SyncGroups wait for it.
// Heartbeats keep members alive; a member silent for its session timeout is
// removed and the group rebalances. Static members (group.instance.id) keep
// their assignment across restarts within the session timeout. Committed
// offsets and group metadata go to the OffsetsStore of the group's
// partition.
//
//   GroupCoordinator gc(clock, timers, config, exists);
//   gc.host(partition, store, loaded_groups);
//   gc.join(args, [](JoinResult r) { ... });
//
// The code is in three files by concern: group_coordinator.cc (hosting,
// routing, listing and deleting groups), classic_membership.cc (the
// JoinGroup/SyncGroup state machine) and group_offsets.cc (committed
// offsets); group_state.h holds the group and member state they share.
//
// Thread-safety: one shard; every callback runs on it (possibly inside the
// call, when the answer is immediate).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "base/clock.h"
#include "base/timers.h"
#include "coordinator/group/group_types.h"
#include "coordinator/group/offsets_store.h"

namespace strata::coordinator {

class GroupCoordinator {
 public:
  // Whether a topic partition exists (offsets are committed only for those).
  using PartitionExists = std::function<bool(const std::string& topic, int32_t partition)>;

  GroupCoordinator(const Clock& clock, Timers& timers, GroupConfig config, PartitionExists exists,
                   TopicsView topics);
  ~GroupCoordinator();

  // Starts serving the groups of `partition`, with what was loaded from its
  // store. Until then their requests get COORDINATOR_LOAD_IN_PROGRESS.
  void host(int32_t partition, OffsetsStore* store,
            std::vector<std::pair<std::string, std::optional<StoredGroup>>> loaded);
  // Stops serving them (the partition moved or is closing).
  void unhost(int32_t partition);
  bool hosts(int32_t partition) const { return stores_.count(partition) > 0; }

  void join(JoinArgs args, std::function<void(JoinResult)> done);
  void sync(SyncArgs args, std::function<void(SyncResult)> done);
  Errc heartbeat(const HeartbeatArgs& args);
  LeaveResult leave(const std::string& group_id, const std::vector<LeavingMember>& members);
  void commit(CommitArgs args, std::function<void(std::vector<Errc>)> done);
  // `partitions` nullopt: every committed offset of the group.
  // `require_stable`: a partition whose offset an open transaction writes
  // gets UNSTABLE_OFFSET_COMMIT (retriable) instead of the offset before it.
  Result<std::vector<FetchedOffset>> fetch_offsets(
      const std::string& group_id, const std::optional<std::vector<TopicPartitionRef>>& partitions,
      bool require_stable = false);
  std::vector<GroupListing> list() const;
  DescribedGroup describe(const std::string& group_id) const;
  void delete_group(const std::string& group_id, std::function<void(Errc)> done);
  void delete_offsets(const std::string& group_id, const std::vector<TopicPartitionRef>& partitions,
                      std::function<void(Errc, std::vector<Errc>)> done);
  // Removes the offsets of empty groups older than offsets.retention.
  void expire_offsets();

  // The error every request for `group_id` gets before any work, if any.
  std::optional<Errc> routing_error(const std::string& group_id) const;

  // KIP-848 consumer groups (consumer_membership.cc).
  void consumer_heartbeat(ConsumerHeartbeatArgs args,
                          std::function<void(ConsumerHeartbeatResult)> done);
  DescribedConsumerGroup describe_consumer(const std::string& group_id) const;

 private:
  struct Member;
  struct ConsumerMember;
  struct ConsumerGroup;
  struct Group;

  Group* find(const std::string& id);
  const Group* find(const std::string& id) const;
  Group& create(const std::string& id);
  std::string new_member_id(const std::string& prefix);
  bool supports_protocols(const Group& g, const JoinArgs& args) const;
  void join_new_member(Group& g, JoinArgs args, std::function<void(JoinResult)> done);
  void join_known_member(Group& g, JoinArgs args, std::function<void(JoinResult)> done);
  void add_member_and_rebalance(Group& g, JoinArgs args, const std::string& member_id,
                                std::function<void(JoinResult)> done);
  void update_member(Member& m, const JoinArgs& args);
  JoinResult current_join_result(const Group& g, const Member& m) const;
  void maybe_prepare_rebalance(Group& g);
  void prepare_rebalance(Group& g);
  void on_initial_delay(const std::string& group_id);
  void try_complete_join(Group& g);
  void complete_join(Group& g);
  std::optional<std::string> select_protocol(const Group& g) const;
  void schedule_heartbeat(Group& g, Member& m);
  void on_session_expired(const std::string& group_id, const std::string& member_id, TimerId id);
  void remove_member(Group& g, const std::string& member_id, Errc for_waiters);
  void store_group(Group& g, std::function<void(Status)> done);
  StoredGroup snapshot(const Group& g) const;
  void set_state(Group& g, GroupState s);
  OffsetsStore* store_for(const std::string& group_id) const;

  // consumer_membership.cc
  Result<ConsumerMember*> consumer_join(Group& g, const ConsumerHeartbeatArgs& args);
  Status validate_consumer_args(const ConsumerHeartbeatArgs& args) const;
  bool update_consumer_member(ConsumerMember& m, const ConsumerHeartbeatArgs& args);
  std::vector<TopicMeta> consumer_subscribed_topics(const ConsumerGroup& cg) const;
  void refresh_consumer_target(Group& g, bool changed);
  void reconcile(Group& g, ConsumerMember& m, const std::optional<Assignment>& owned);
  static bool subscribes(const ConsumerMember& m, const std::string& topic);
  void release(ConsumerGroup& cg, const std::string& member_id, const Assignment& partitions);
  void release_all(ConsumerGroup& cg, ConsumerMember& m);  // its assigned and revoking
  void cancel_revocation(ConsumerMember& m);
  void remove_consumer_member(Group& g, const std::string& member_id, const char* why);
  void schedule_consumer_session(Group& g, ConsumerMember& m);
  void cancel_consumer_timers(ConsumerMember& m);
  GroupState consumer_state(const Group& g) const;
  void update_consumer_state(Group& g);
  Errc check_consumer_commit(Group& g, const CommitArgs& args);

  const Clock& clock_;
  Timers& timers_;
  GroupConfig config_;
  PartitionExists exists_;
  TopicsView topics_;
  std::unordered_map<int32_t, OffsetsStore*> stores_;
  std::map<std::string, std::unique_ptr<Group>> groups_;
  uint64_t member_counter_ = 0;
  uint64_t join_counter_ = 0;
};

}  // namespace strata::coordinator
