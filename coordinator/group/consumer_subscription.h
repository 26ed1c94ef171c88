// What a "consumer" protocol member subscribes to, read from the opaque
// JoinGroup metadata (Kafka's ConsumerProtocolSubscription: version i16,
// topics [string], then user data, owned partitions, generation and rack in
// later versions), so the coordinator can tell whether a rejoining static
// member asks for anything a new assignment would change.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "coordinator/group/group_types.h"

namespace strata::coordinator {

// The subscribed topics, sorted; nullopt when the bytes are not a
// ConsumerProtocolSubscription.
std::optional<std::vector<std::string>> subscribed_topics(const Bytes& metadata);

// Whether `now` asks for what `before` asked: the same protocols in the same
// order and, per protocol, the same metadata. For protocol type "consumer"
// the metadata compare by subscribed topics only: owned partitions and
// assignor user data change with every assignment (a restarted member has
// none) without asking for a new one.
bool same_protocols(const std::string& protocol_type, const std::vector<GroupProtocol>& before,
                    const std::vector<GroupProtocol>& now);

}  // namespace strata::coordinator
