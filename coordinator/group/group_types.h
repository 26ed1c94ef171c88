// The vocabulary of the group coordinator: its states, configuration, and
// the arguments and results of each group operation — independent of the
// wire versions the server decodes them from. Its errors are Errc values
// (base/error.h), which the server maps to Kafka's codes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "coordinator/cluster_metadata.h"
#include "coordinator/group/group_records.h"

namespace strata::coordinator {

// Classic groups go Empty → PreparingRebalance → CompletingRebalance →
// Stable; consumer groups (KIP-848) are Empty, Reconciling (a member has not
// reached the target assignment yet) or Stable. Either may be Dead (deleted).
enum class GroupState {
  kEmpty,
  kPreparingRebalance,
  kCompletingRebalance,
  kStable,
  kDead,
  kAssigning,
  kReconciling,
};
// "Empty", "PreparingRebalance", ... as DescribeGroups and ListGroups show them.
std::string_view state_name(GroupState state);

// The protocol a group speaks: the classic JoinGroup/SyncGroup one, or
// KIP-848's ConsumerGroupHeartbeat.
enum class GroupType { kClassic, kConsumer };
// "classic" or "consumer", as ListGroups shows them.
std::string_view type_name(GroupType type);

struct GroupConfig {
  int32_t min_session_timeout_ms = 6000;
  int32_t max_session_timeout_ms = 1800000;
  int32_t initial_rebalance_delay_ms = 3000;
  int64_t offsets_retention_ms = 7LL * 24 * 3600 * 1000;
  int32_t max_metadata_bytes = 4096;
  // Consumer groups (KIP-848): a member silent this long is removed; members
  // heartbeat this often; the server-side assignors, the first the default.
  int32_t consumer_session_timeout_ms = 45000;
  int32_t consumer_heartbeat_interval_ms = 5000;
  std::vector<std::string> consumer_assignors = {"uniform", "range"};
  int32_t consumer_max_size = INT32_MAX;
};

// A topic as a consumer group's assignor sees it.
struct TopicMeta {
  std::string name;
  TopicId id{};
  int32_t partitions = 0;
  bool operator==(const TopicMeta&) const = default;
};
// The cluster's topics now (internal ones excluded).
using TopicsView = std::function<std::vector<TopicMeta>()>;

// Partitions by topic id: a consumer-group member's assignment.
using Assignment = std::map<TopicId, std::set<int32_t>>;

using Bytes = std::vector<std::byte>;

struct GroupProtocol {
  std::string name;
  Bytes metadata;
};

struct JoinArgs {
  std::string group_id;
  std::string member_id;
  std::optional<std::string> instance_id;
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::string protocol_type;
  std::vector<GroupProtocol> protocols;
  bool require_known_member_id = false;  // JoinGroup v4+
};

struct JoinedMember {
  std::string member_id;
  std::optional<std::string> instance_id;
  Bytes metadata;
};

struct JoinResult {
  Errc error = Errc::kOk;
  int32_t generation = -1;
  std::string protocol_type;
  std::optional<std::string> protocol;
  std::string leader;
  std::string member_id;
  std::vector<JoinedMember> members;  // only for the leader
};

struct SyncArgs {
  std::string group_id;
  int32_t generation = -1;
  std::string member_id;
  std::optional<std::string> instance_id;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol;
  std::vector<std::pair<std::string, Bytes>> assignments;  // from the leader
};

struct SyncResult {
  Errc error = Errc::kOk;
  std::string protocol_type;
  std::optional<std::string> protocol;
  Bytes assignment;
};

struct HeartbeatArgs {
  std::string group_id;
  int32_t generation = -1;
  std::string member_id;
  std::optional<std::string> instance_id;
};

struct LeavingMember {
  std::string member_id;
  std::optional<std::string> instance_id;
};

struct LeaveResult {
  Errc error = Errc::kOk;     // for the whole request
  std::vector<Errc> members;  // one per leaving member
};

struct CommitPartition {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  int32_t leader_epoch = -1;
  std::optional<std::string> metadata;
};

struct CommitArgs {
  std::string group_id;
  int32_t generation = -1;
  std::string member_id;
  std::optional<std::string> instance_id;
  std::vector<CommitPartition> partitions;
  // TxnOffsetCommit: the producer whose transaction the offsets belong to
  // (they take effect at its commit). A generation of -1 then skips the
  // member checks, as Kafka's does.
  struct TxnProducer {
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
  };
  std::optional<TxnProducer> txn;
};

struct FetchedOffset {
  std::string topic;
  int32_t partition = 0;
  Errc error = Errc::kOk;
  CommittedOffset offset;  // offset -1 when none is committed
};

struct GroupListing {
  std::string group_id;
  std::string protocol_type;
  GroupState state = GroupState::kEmpty;
  GroupType type = GroupType::kClassic;
};

// ConsumerGroupHeartbeat. Each optional field is absent when unchanged
// since the member's last heartbeat.
struct ConsumerHeartbeatArgs {
  std::string group_id;
  std::string member_id;     // empty on a v0 join: the coordinator picks one
  int32_t member_epoch = 0;  // 0 join, -1 leave, -2 static member leaving for now
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  int32_t rebalance_timeout_ms = -1;
  std::optional<std::vector<std::string>> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;
  std::optional<std::string> server_assignor;
  std::optional<Assignment> owned;  // the partitions the member owns now
  std::string client_id;
  std::string client_host;
};

struct ConsumerHeartbeatResult {
  Errc error = Errc::kOk;
  std::string message;
  std::string member_id;
  int32_t member_epoch = 0;
  int32_t heartbeat_interval_ms = 0;
  std::optional<Assignment> assignment;  // nullopt: unchanged
};

struct DescribedConsumerMember {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::optional<std::string> rack_id;
  int32_t member_epoch = 0;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_topic_names;
  std::optional<std::string> subscribed_topic_regex;
  Assignment assignment;
  Assignment target;
};

struct DescribedConsumerGroup {
  Errc error = Errc::kOk;
  std::string message;
  std::string group_id;
  GroupState state = GroupState::kDead;
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::string assignor;
  std::vector<DescribedConsumerMember> members;
};

struct DescribedMember {
  std::string member_id;
  std::optional<std::string> instance_id;
  std::string client_id;
  std::string client_host;
  Bytes metadata;
  Bytes assignment;
};

struct DescribedGroup {
  Errc error = Errc::kOk;
  std::string group_id;
  GroupState state = GroupState::kDead;
  std::string protocol_type;
  std::string protocol;
  std::vector<DescribedMember> members;
};

struct TopicPartitionRef {
  std::string topic;
  int32_t partition = 0;
  bool operator<(const TopicPartitionRef& o) const {
    return topic != o.topic ? topic < o.topic : partition < o.partition;
  }
  bool operator==(const TopicPartitionRef&) const = default;
};

}  // namespace strata::coordinator
